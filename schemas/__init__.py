"""Row shapes: the verl training row (parquet) and the JSONL records `rewards score` reads and writes."""
