"""Responses as real models write them: our verdicts and Math-Verify's, side by side, by kind.

    python tests/bench/realistic_corpus.py            # both files, counts by kind
    python tests/bench/realistic_corpus.py --cases    # and every disagreement with the label, one a line
    python tests/bench/realistic_corpus.py --json out.json

The corpus is tests/corpus/realistic.jsonl (right and wrong answers in the styles a reward sees:
R1/Qwen3 `<think>` summaries with self-checks, Qwen2.5-Math closing sentences, "The final answer
is", MATH reference solutions, GSM8K few-shot, DAPO `Answer:`, `<answer>` tags) and
tests/corpus/attacks.jsonl (wrong-as-written answers a policy could write), and
tests/corpus/fresh.jsonl (more of both, written after the scorer was fitted to the first two).
Each row's `paid` is the verdict it should get. For each grader: right answers refused and wrong
answers paid.

Ours is `rewards.compute_score` with the row's settings (paid: `acc == 1`). Math-Verify 0.9.0 is
called as in tests/bench/baselines.py (verl's extraction targets, in-process on the main thread),
on the whole response; it has no data_source, so GSM8K rows and `<answer>` tags are read the way
it reads any text. Math-Verify needs the `bench` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from baselines import math_verify_score  # noqa: E402

from rewards import compute_score  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
FILES = {name: CORPUS / f"{name}.jsonl" for name in ("realistic", "attacks", "fresh")}


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ours(row: dict) -> bool:
    return compute_score(row["data_source"], row["response"], row["gold"], **row.get("kwargs", {}))["acc"] == 1.0


def math_verify(row: dict) -> bool:
    try:
        return math_verify_score(row["response"], row["gold"]) == 1.0
    except Exception:  # a failed parse or verify is a refusal
        return False


GRADERS = {"ours": ours, "math_verify": math_verify}


def grade(rows: list[dict]) -> tuple[dict[str, list[bool]], dict[str, float]]:
    """Each grader's verdicts in row order, and its seconds for the whole file."""
    math_verify_score("\\boxed{1}", "1")  # import and warm up outside the clock
    ours(dict(data_source="lighteval/MATH", response="\\boxed{1}", gold="1"))
    verdicts, seconds = {}, {}
    for name, grader in GRADERS.items():
        start = time.perf_counter()
        verdicts[name] = [grader(row) for row in rows]
        seconds[name] = time.perf_counter() - start
    return verdicts, seconds


def tally(rows: list[dict], paid: list[bool]) -> dict[str, dict[str, int]]:
    """Per kind and in total: right answers, wrong answers, right refused, wrong paid."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: dict(right=0, wrong=0, right_refused=0, wrong_paid=0))
    for row, p in zip(rows, paid):
        for key in (row["kind"], "total"):
            t = out[key]
            t["right" if row["paid"] else "wrong"] += 1
            t["right_refused"] += row["paid"] and not p
            t["wrong_paid"] += (not row["paid"]) and p
    return dict(out)


def table(name: str, rows: list[dict], verdicts: dict[str, list[bool]]) -> dict:
    tallies = {g: tally(rows, v) for g, v in verdicts.items()}
    kinds = [k for k in dict.fromkeys(r["kind"] for r in rows)] + ["total"]
    print(f"\n== {name}: {len(rows)} responses")
    print(f"{'kind':18} {'right':>5} {'wrong':>5} | {'ours: right refused':>19} {'wrong paid':>10} "
          f"| {'Math-Verify: right refused':>26} {'wrong paid':>10}")
    for k in kinds:
        o, m = tallies["ours"][k], tallies["math_verify"][k]
        print(f"{k:18} {o['right']:5d} {o['wrong']:5d} | {o['right_refused']:19d} {o['wrong_paid']:10d} "
              f"| {m['right_refused']:26d} {m['wrong_paid']:10d}")
    return tallies


def disagreements(rows: list[dict], verdicts: dict[str, list[bool]]) -> list[str]:
    lines = []
    for i, row in enumerate(rows):
        for g in GRADERS:
            if verdicts[g][i] != row["paid"]:
                what = "refuses right" if row["paid"] else "pays wrong"
                lines.append(f"{g:11} {what:13} {row['id']:22} gold={row['gold']!r}: {row['note']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", action="store_true", help="print every case a grader gets wrong")
    ap.add_argument("--json", help="write the counts to this file")
    args = ap.parse_args(argv)
    results = {}
    for name, path in FILES.items():
        rows = read(path)
        verdicts, seconds = grade(rows)
        results[name] = {"tallies": table(name, rows, verdicts), "seconds": seconds}
        print("seconds: " + ", ".join(f"{g} {s:.2f}" for g, s in seconds.items()))
        if args.cases:
            print("\n".join(disagreements(rows, verdicts)))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
