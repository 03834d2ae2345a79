"""Throughput and memory of the one row reader (schemas/reader.py) against a bare `json.loads` loop.

    python tests/bench/reader.py                 # 1,000,000 rows
    python tests/bench/reader.py --rows 100000

The same rows (GSM8K-shaped, ~100 bytes) are read as plain JSONL, gzip JSONL and parquet. Each
reading alternates with the bare loop (`for line in open(...): json.loads(line)`) three times, so
machine load hits both alike; the best of three is reported. Peak Python memory of a reader pass is
measured with tracemalloc on a separate pass.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from schemas.reader import read_rows  # noqa: E402


def bare(path: Path) -> int:
    n = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            json.loads(line)
            n += 1
    return n


def reader(path: Path) -> int:
    return sum(1 for _ in read_rows(path))


def best(fn, path: Path, expected: int) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        assert fn(path) == expected
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=1_000_000)
    args = p.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="rewards-reader-"))
    try:
        plain = tmp / "rows.jsonl"
        with open(plain, "w", encoding="utf-8") as f:
            for i in range(args.rows):
                f.write(json.dumps({"data_source": "openai/gsm8k", "response": f"Step by step.\n#### {i % 11}",
                                    "ground_truth": str(i % 5)}) + "\n")
        packed = tmp / "rows.jsonl.gz"
        packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=1))
        import pyarrow.json as pj
        import pyarrow.parquet as pq

        table = tmp / "rows.parquet"
        pq.write_table(pj.read_json(str(plain)), table)
        print(f"{args.rows:,} rows, {plain.stat().st_size / 2**20:.0f} MB of JSONL")
        print(f"{'input':<14s} {'bare loop s':>11s} {'reader s':>9s} {'rows/s':>10s} {'peak traced MB':>15s}")
        for name, path in (("JSONL", plain), ("gzip JSONL", packed), ("parquet", table)):
            base = best(bare, plain, args.rows) if name == "JSONL" else float("nan")
            took = best(reader, path, args.rows)
            tracemalloc.start()
            reader(path)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            print(f"{name:<14s} {base:11.1f} {took:9.1f} {args.rows / took:10,.0f} {peak:15.1f}", flush=True)
    finally:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
