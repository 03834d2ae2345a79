"""A hold-out corpus of responses as real models write them: our verdicts and Math-Verify's, by kind.

    python tests/bench/holdout_corpus.py            # counts by kind
    python tests/bench/holdout_corpus.py --cases    # and every case a grader gets wrong, one a line

The corpus is tests/corpus/holdout.jsonl: right answers (Qwen2.5-Math closing sentences, R1/Qwen3
`<think>` summaries with self-checks after the answer, Llama "The final answer is", MATH reference
solutions, GSM8K few-shot, DAPO `Answer:`, numbers about the problem after the box, answers of many
shapes) and wrong ones (plain wrong values, and wrong as written: unfinished or reopened thoughts,
two candidates, take-backs, a box that is an operand, a scale word, an answer only inside the
thought). Each row's `paid` is the verdict a correct grader gives.

Ours is `rewards.compute_score` (paid: `acc == 1`). Math-Verify 0.9.0 is called as in
tests/bench/baselines.py on the whole response, except GSM8K rows: there it gets the text after the
last `####` (the whole response when there is none), since it has no notion of GSM8K's marker.
Math-Verify needs the `bench` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from baselines import math_verify_score  # noqa: E402

from rewards import compute_score  # noqa: E402

CORPUS = ROOT / "tests" / "corpus" / "holdout.jsonl"


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ours(row: dict) -> tuple[bool, str]:
    out = compute_score(row["data_source"], row["response"], row["gold"])
    return out["acc"] == 1.0, f"{out.get('verdict')}/{out.get('pred')!r}"


def math_verify(row: dict) -> tuple[bool, str]:
    text = row["response"]
    if row["data_source"] == "openai/gsm8k" and "####" in text:
        text = text.rsplit("####", 1)[1]
    try:
        return math_verify_score(text, row["gold"]) == 1.0, ""
    except Exception as exc:  # a failed parse or verify is a refusal
        return False, type(exc).__name__


GRADERS = {"ours": ours, "math_verify": math_verify}


def tally(rows: list[dict], paid: list[bool]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(lambda: dict(right=0, wrong=0, right_refused=0, wrong_paid=0))
    for row, p in zip(rows, paid):
        for key in (row["kind"], "total"):
            t = out[key]
            t["right" if row["paid"] else "wrong"] += 1
            t["right_refused"] += row["paid"] and not p
            t["wrong_paid"] += (not row["paid"]) and p
    return dict(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", action="store_true", help="print every case a grader gets wrong")
    ap.add_argument("--json", help="write the counts to this file")
    args = ap.parse_args(argv)
    rows = read(CORPUS)
    verdicts = {g: [grader(r) for r in rows] for g, grader in GRADERS.items()}
    tallies = {g: tally(rows, [p for p, _ in v]) for g, v in verdicts.items()}
    kinds = list(dict.fromkeys(r["kind"] for r in rows)) + ["total"]
    print(f"holdout: {len(rows)} responses")
    print(f"{'kind':18} {'right':>5} {'wrong':>5} | {'ours: right refused':>19} {'wrong paid':>10} "
          f"| {'Math-Verify: right refused':>26} {'wrong paid':>10}")
    for k in kinds:
        o, m = tallies["ours"][k], tallies["math_verify"][k]
        print(f"{k:18} {o['right']:5d} {o['wrong']:5d} | {o['right_refused']:19d} {o['wrong_paid']:10d} "
              f"| {m['right_refused']:26d} {m['wrong_paid']:10d}")
    if args.cases:
        for g in GRADERS:
            for row, (p, detail) in zip(rows, verdicts[g]):
                if p != row["paid"]:
                    what = "refuses right" if row["paid"] else "pays wrong"
                    print(f"{g:11} {what:13} {row['id']:22} gold={row['gold']!r} {detail}: {row['why']}")
    if args.json:
        Path(args.json).write_text(json.dumps(tallies, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
