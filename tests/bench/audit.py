"""The reward audit at scale: peak memory and rows/s of `rewards score DUMP --against NAME`.

    python tests/bench/audit.py                          # 4,096 / 16,384 / 65,536 rows
    python tests/bench/audit.py --rows 1048576 --against math-verify

Each size is a generated GSM8K-shaped verl dump folder (tests/helpers/audit_dumps.py: 1,024 rows a
step, groups of 4, verl 0.9.1's `default_compute_score` as the dump's `score`). For each size,
`rewards score DIR --data-source openai/gsm8k -o OUT -q` runs as a child process with the dump's own
score as the previous reward, then with `--against verl` and `--against math-verify`; its resident
memory (and its children's) is sampled every 50 ms (memory.py's `peak_memory`). Then each grader is
timed alone, in this process, on the same rows after a warm-up: rows/s of ours (the library's
`score_batch`), verl's `default_compute_score` and Math-Verify, as `--against` calls them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from memory import peak_memory  # noqa: E402

from tests.helpers.audit_dumps import generate  # noqa: E402

PER_STEP = 1024
GRADERS = ("dump score", "verl", "math-verify")


def write_dump(folder: Path, n: int) -> None:
    steps = max(1, n // PER_STEP)
    generate(folder, "gsm8k", steps=steps, prompts=min(n, PER_STEP) // 4, n=4, seed=1)


def cli_run(folder: Path, out: Path, against: str) -> dict:
    cmd = [sys.executable, "-m", "cli.main", "score", str(folder), "--data-source", "openai/gsm8k",
           "-o", str(out), "-q"] + ([] if against == "dump score" else ["--against", against])
    return peak_memory(cmd)


def grader_rates(folder: Path, limit: int = 2048) -> dict[str, float]:
    """Rows/s of each grader alone, on the first `limit` rows, after a warm-up of 64 rows."""
    from rewards import Sample, score_batch
    from rewards.reporting.graders import get_grader, grade

    rows = []
    for path in sorted(folder.glob("*.jsonl"), key=lambda p: int(p.stem)):
        rows += [json.loads(line) for line in path.read_text().splitlines()]
        if len(rows) >= limit:
            break
    rows = rows[:limit]
    rates = {}
    samples = [Sample("openai/gsm8k", r["output"], r["gts"]) for r in rows]
    score_batch(samples[:64])
    start = time.perf_counter()
    score_batch(samples)
    rates["ours"] = len(rows) / (time.perf_counter() - start)
    for name in ("verl", "math-verify"):
        grader = get_grader(name)
        for r in rows[:64]:
            grade(grader, "openai/gsm8k", r["output"], r["gts"], None)
        start = time.perf_counter()
        for r in rows:
            grade(grader, "openai/gsm8k", r["output"], r["gts"], None)
        rates[name] = len(rows) / (time.perf_counter() - start)
    return rates


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, nargs="*", default=[4096, 16384, 65536])
    p.add_argument("--against", nargs="*", default=list(GRADERS), choices=GRADERS)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.rows:
            folder = Path(tmp) / f"dump{n}"
            write_dump(folder, n)
            for against in args.against:
                m = cli_run(folder, Path(tmp) / "out.jsonl", against)
                print(f"{n:>9} rows  {against:<12} {m['wall']:8.1f} s  {n / m['wall']:8.0f} rows/s  "
                      f"peak {m['peak_main_mb']:6.0f} MB (with children {m['peak_all_mb']:6.0f} MB)", flush=True)
        rates = grader_rates(Path(tmp) / f"dump{args.rows[0]}")
        print("graders alone: " + ", ".join(f"{name} {rate:,.0f} rows/s" for name, rate in rates.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
