"""The `rewards` command: a thin shell over the library."""
