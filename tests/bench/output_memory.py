"""Peak memory of `rewards score -o` by output format, for a large replay.

    python tests/bench/output_memory.py --rows 2000000
    python tests/bench/output_memory.py --rows 2000000 --writer-only    # the output path alone

Writes `rows` GSM8K rows shaped like a verl step dump (prompt, response, gold, step; about 500
bytes each as JSON) to a temporary folder, then runs `rewards score IN -o OUT -q` once per output
format in a fresh process and prints its peak resident memory (the process's own ru_maxrss), wall
time and output size. JSON lines streams row by row; parquet is written in row groups
(`cli/output.py`, ROW_GROUP rows held at a time). `--writer-only` feeds the same rows, with the
result keys a scored row gets, straight to `cli.output.open_rows` (no scoring: minutes instead of
hours for 2M rows on a loaded 2-core machine). `PYTHONPATH=/other/checkout` measures that
checkout's command.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)

WRITER = ("import json, resource, sys\n"
          "from contextlib import ExitStack\n"
          "from cli.output import open_rows\n"
          "result = {'score': 1.0, 'acc': True, 'format': 1.0, 'pred': '50', 'verdict': 'correct'}\n"
          "with ExitStack() as stack, open(sys.argv[1]) as f:\n"
          "    write = open_rows(stack, sys.argv[2])\n"
          "    for line in f:\n"
          "        write({**json.loads(line), **result})\n"
          "print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")
PEAK = ("import resource, runpy, sys; sys.argv = ['rewards', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('cli.main', run_name='__main__')\n"
        "finally:\n    print('PEAK_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n")


def write_input(path: Path, rows: int) -> None:
    question = ("Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
                "How many clips did Natalia sell altogether in April and May? ") * 2
    with path.open("w") as f:
        for i in range(rows):
            answer = 48 + i % 97
            f.write(json.dumps({"data_source": "openai/gsm8k", "prompt": question, "step": i // 1024,
                                "response": f"In May she sold {i % 97} more. In total {answer}. #### {answer}",
                                "ground_truth": str(answer if i % 5 else answer + 1)}) + "\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--formats", nargs="+", default=["jsonl", "parquet"])
    p.add_argument("--writer-only", action="store_true", help="time the output path alone, without scoring")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "in.jsonl"
        write_input(source, args.rows)
        print(f"{args.rows} rows, input {source.stat().st_size / 1e6:.0f} MB", flush=True)
        for fmt in args.formats:
            out = Path(tmp) / f"out.{fmt}"
            start = time.monotonic()
            command = ([sys.executable, "-c", WRITER, str(source), str(out)] if args.writer_only else
                       [sys.executable, "-c", PEAK, "score", str(source), "-o", str(out), "-q"])
            done = subprocess.run(command,
                                  cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": PACKAGE})
            wall = time.monotonic() - start
            peak = next((int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("PEAK_KB")), 0)
            size = out.stat().st_size / 1e6 if out.exists() else 0
            print(f"{fmt}: exit {done.returncode}, peak RSS {peak / 1024:.0f} MB, {wall:.0f} s, output {size:.1f} MB",
                  flush=True)
            out.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
