"""Built-in scorers, one module per answer format; `rewards/builtins.py` lists them."""
