"""Where we pay alone: cases our scorer pays that both Math-Verify and verl's own scorer refuse.

    python tests/bench/differential.py              # fidelity suite, 2,048 corpus rows, fuzzer cases
    python tests/bench/differential.py -n 512 --golds 10

Every such case is either a rule of docs/scoring-policy.md that the other two do not have (a
policy, recorded in docs/benchmarks.md) or a false positive of ours (a bug to fix at its cause).
The cases are the benchmark's (tests/fixtures/math_fidelity*.jsonl, the corpus of
tests/bench/corpus.py) and the mutation fuzzer's (rewards/testing/golds.py, drawn with a fixed
seed), each with its label where it has one. Output: the count per group (rule, corpus form or
fuzzer family / mutation), then every case, and with --json the whole list.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from baselines import math_verify_score, verl_score  # noqa: E402
from corpus import corpus  # noqa: E402
from math_vs_mathverify import fidelity_cases as labelled_fidelity_cases  # noqa: E402

from rewards import compute_score  # noqa: E402


def fidelity_cases() -> list[dict]:
    """The fidelity suite as the MATH benchmark reads it, named by source and rule."""
    return [dict(source="fidelity", group=c.pop("rule"), **c) for c in labelled_fidelity_cases()]


def corpus_cases(n: int) -> list[dict]:
    return [dict(source="corpus", group=r.form.split(":")[0], data_source=r.data_source,
                 response=r.response, gold=r.ground_truth, label=r.label) for r in corpus(n, seed=3)]


def fuzzer_cases(golds_per_family: int) -> list[dict]:
    """Every mutation of `golds_per_family` golds of each family, drawn with a fixed seed."""
    from hypothesis import given, seed, settings

    from rewards.testing.golds import FAMILIES

    out: list[dict] = []
    for family, strategy in FAMILIES.items():
        @seed(0)
        @settings(max_examples=golds_per_family, database=None, deadline=None)
        @given(strategy)
        def draw(gold):
            out.extend(dict(source="fuzzer", group=f"{gold.family} / {m.name}", data_source=gold.data_source,
                            response=m.response, gold=gold.gold, label=m.paid) for m in gold.mutations)

        draw()
    return out


def _safe(score, *args) -> float:
    try:
        return score(*args)
    except Exception:  # a baseline that raises refuses
        return 0.0


def alone(cases: list[dict]) -> list[dict]:
    """The cases we pay and both baselines refuse."""
    out = []
    for c in cases:
        if compute_score(c["data_source"], c["response"], c["gold"])["acc"] != 1.0:
            continue
        if _safe(verl_score, c["data_source"], c["response"], c["gold"]) == 1.0:
            continue
        if _safe(math_verify_score, c["response"], c["gold"]) == 1.0:
            continue
        out.append(c)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=2048, help="corpus rows (default 2048)")
    p.add_argument("--golds", type=int, default=20, help="fuzzer golds per family (default 20)")
    p.add_argument("--json", help="write the cases to this file")
    args = p.parse_args(argv)
    sets = {"fidelity": fidelity_cases(), "corpus": corpus_cases(args.n), "fuzzer": fuzzer_cases(args.golds)}
    found = []
    for name, cases in sets.items():
        mine = alone(cases)
        found += mine
        unlabelled_wrong = sum(not c["label"] for c in mine)
        print(f"{name}: {len(cases)} cases, {len(mine)} paid by us alone "
              f"({len(mine) - unlabelled_wrong} labelled correct, {unlabelled_wrong} labelled wrong)")
    print("\nby group (source / group: count):")
    for (source, group), count in sorted(Counter((c["source"], c["group"]) for c in found).items()):
        print(f"  {source} / {group}: {count}")
    print("\ncases (label, data_source, gold | response tail):")
    for c in found:
        print(f"  {'correct' if c['label'] else 'WRONG  '} {c['source']}/{c['group']}: gold {c['gold']!r} | "
              f"{c['response'][-90:]!r}")
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
