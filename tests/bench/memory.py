"""Peak memory of `rewards score` against file size: streaming keeps it flat.

    python tests/bench/memory.py                   # 10,000 / 100,000 / 1,000,000 rows
    python tests/bench/memory.py --rows 20000      # one size

Each file cycles the benchmark corpus (realistic response lengths, ~1 KB a row). `rewards score
FILE -o OUT --workers 2 --quiet` runs as a child process; its resident memory (and its workers')
is sampled every 50 ms. The files are written to a temporary directory and deleted afterwards.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

import corpus as corpus_mod  # noqa: E402


def write_rows(path: str, n: int) -> int:
    lines = [row.to_json() + "\n" for row in corpus_mod.corpus(8192)]
    with open(path, "w", encoding="utf-8") as f:
        for line in itertools.islice(itertools.cycle(lines), n):
            f.write(line)
    return os.path.getsize(path)


def peak_memory(cmd: list[str]) -> dict:
    """Run cmd; peak RSS of the process itself and of it plus its children, and wall time."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    main = psutil.Process(proc.pid)
    peak_main = peak_all = 0
    while proc.poll() is None:
        try:
            rss_main = main.memory_info().rss
            rss_all = rss_main + sum(c.memory_info().rss for c in main.children(recursive=True))
        except psutil.Error:
            rss_main = rss_all = 0
        peak_main, peak_all = max(peak_main, rss_main), max(peak_all, rss_all)
        time.sleep(0.05)
    stderr = proc.stderr.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{stderr[-2000:]}")
    return {"wall": time.perf_counter() - start, "peak_main_mb": peak_main / 2**20, "peak_all_mb": peak_all / 2**20}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    rewards = str(Path(sys.executable).with_name("rewards"))
    print(f"{'rows':>9s} {'file MB':>8s} {'wall s':>7s} {'rows/s':>7s} {'peak RSS MB (main)':>19s} "
          f"{'(main + workers)':>17s}")
    with tempfile.TemporaryDirectory(prefix="rewards-mem-") as tmp:
        for n in args.rows:
            src, out = os.path.join(tmp, f"{n}.jsonl"), os.path.join(tmp, "scored.jsonl")
            size = write_rows(src, n)
            m = peak_memory([rewards, "score", src, "-o", out, "--workers", str(args.workers), "--quiet"])
            with open(out, "rb") as f:
                produced = sum(1 for _ in f)
            assert produced == n, f"{produced} output rows for {n} input rows"
            print(f"{n:9d} {size / 2**20:8.0f} {m['wall']:7.1f} {n / m['wall']:7.0f} "
                  f"{m['peak_main_mb']:19.0f} {m['peak_all_mb']:17.0f}", flush=True)
            os.remove(src)
            os.remove(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
