"""MATH scoring against Math-Verify: agreement with labels, and speed.

    python tests/bench/math_vs_mathverify.py             # fidelity suite + 2,048 rows of each corpus
    python tests/bench/math_vs_mathverify.py -n 512      # shorter

Three sets of labelled cases:
- the fidelity suite (tests/fixtures/math_fidelity*.jsonl): hand-written cases for every rule in
  docs/scoring-policy.md, including the false positives graders are known for;
- MATH rows of the benchmark corpus (tests/bench/corpus.py): GRPO groups of 8 responses of
  realistic length, each an equivalent spelling of the gold, a wrong answer, or no answer;
- the cache-free equal-spellings corpus (tests/bench/equal_spellings.py): every (answer, gold)
  pair new, a third of the answers equal to the gold in another spelling, warmed up on other golds.

Also where our answers were settled (string, rational, canonical, numeric, sympy: the fast-path
counters of `rewards.math.equivalence` during the timed run) and the share that reached sympy.

For each grader: agreement with the labels (`acc == label`), false positives (paid, label not
correct) and false negatives. Speed: ours through `score_batch` (the training path: fast path in
process, sympy in 2 engine workers, worker start-up excluded), Math-Verify in-process on the main
thread (its fastest correct configuration, see baselines.py), on the same rows. Math-Verify needs
the `bench` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(HERE), str(ROOT)]

from baselines import math_verify_score  # noqa: E402
from corpus import corpus  # noqa: E402
from equal_spellings import corpus_and_warm_up  # noqa: E402

from rewards import Sample, compute_score, score_batch  # noqa: E402
from rewards.math.equivalence import fast_equal, reset_settled_counts, settled_counts  # noqa: E402
from rewards.math.normalize import normalize  # noqa: E402
from rewards.region import answer_region  # noqa: E402
from rewards.scorers.boxed import find_answer, gold_answer  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"


def fidelity_cases() -> list[dict]:
    rows = [json.loads(line) for path in sorted(FIXTURES.glob("math_fidelity*.jsonl"))
            for line in path.read_text().splitlines() if line.strip()]
    return [dict(data_source=r["data_source"], response=r["response"], gold=r["gold"],
                 label=r["expected"] == "correct", rule=r["rule"]) for r in rows]


def corpus_cases(n: int) -> list[dict]:
    rows = [r for r in corpus(4 * n, seed=3, math_share=1.0) if r.kind == "math"][:n]
    return [dict(data_source=r.data_source, response=r.response, gold=r.ground_truth, label=r.label,
                 rule=r.form.split(":")[0]) for r in rows]


def equal_spellings_cases(n: int) -> tuple[list[dict], list[dict]]:
    timed, warm = corpus_and_warm_up(n, seed=5)
    return [[dict(data_source=r.data_source, response=r.response, gold=r.ground_truth, label=r.label,
                  rule=r.form.split(":")[0]) for r in rows] for rows in (timed, warm)]


def tally(paid: list[float], cases: list[dict]) -> dict:
    agree = sum((p == 1.0) == c["label"] for p, c in zip(paid, cases))
    fp = [c for p, c in zip(paid, cases) if p == 1.0 and not c["label"]]
    fn = [c for p, c in zip(paid, cases) if p != 1.0 and c["label"]]
    return {"agreement": agree / len(cases), "false_positives": len(fp), "false_negatives": len(fn),
            "fp_rules": dict(Counter(c["rule"] for c in fp)), "fn_rules": dict(Counter(c["rule"] for c in fn))}


def fast_share(cases: list[dict]) -> float:
    """Share of cases settled without sympy (no answer, refused, or decided by the fast path)."""
    settled = 0
    for c in cases:
        gold, region = gold_answer(c["gold"]), answer_region(c["response"])
        raw = find_answer(region, c["data_source"] != "lighteval/MATH")[0] if region is not None else None
        settled += gold is None or raw is None or fast_equal(normalize(raw), gold) is not None
    return settled / len(cases)


def run_ours(cases: list[dict], warm_up: list[dict] | None = None) -> tuple[list[float], float, dict]:
    """Scores, seconds, and where the answers were settled. The warm-up (default: the first 64
    cases) starts the workers (imports sympy there), like a training run's first step."""
    samples = [Sample(c["data_source"], c["response"], c["gold"]) for c in cases]
    score_batch([Sample(c["data_source"], c["response"], c["gold"]) for c in warm_up] if warm_up else samples[:64])
    reset_settled_counts()
    start = time.perf_counter()
    results = score_batch(samples)
    seconds = time.perf_counter() - start
    return [r.acc for r in results], seconds, settled_counts()


def run_math_verify(cases: list[dict]) -> tuple[list[float], float]:
    math_verify_score("\\boxed{1}", "1")  # import and warm up outside the clock
    start = time.perf_counter()
    paid = []
    for c in cases:
        try:
            paid.append(math_verify_score(c["response"], c["gold"]))
        except Exception:
            paid.append(0.0)
    return paid, time.perf_counter() - start


def report(name: str, cases: list[dict], warm_up: list[dict] | None = None) -> dict:
    ours, t_ours, settled = run_ours(cases, warm_up)
    mv, t_mv = run_math_verify(cases)
    out = {"cases": len(cases), "fast_path_share": fast_share(cases), "settled": settled,
           "sympy_share": settled["sympy"] / len(cases),
           "ours": {**tally(ours, cases), "seconds": t_ours, "per_second": len(cases) / t_ours},
           "math_verify": {**tally(mv, cases), "seconds": t_mv, "per_second": len(cases) / t_mv}}
    out["speedup"] = out["ours"]["per_second"] / out["math_verify"]["per_second"]
    print(f"\n== {name}: {len(cases)} cases, {out['fast_path_share']:.1%} settled without sympy")
    print("settled by: " + ", ".join(f"{k} {v}" for k, v in settled.items())
          + f" (no answer or refused: {len(cases) - sum(settled.values())}); reached sympy {out['sympy_share']:.2%}")
    for who in ("ours", "math_verify"):
        r = out[who]
        print(f"{who:12} agreement {r['agreement']:.3f}  FP {r['false_positives']:3d}  FN {r['false_negatives']:3d}"
              f"  {r['per_second']:9.0f}/s  ({r['seconds']:.2f}s)")
        if r["fp_rules"]:
            print(f"{'':12} false positives by rule: {r['fp_rules']}")
        if r["fn_rules"]:
            print(f"{'':12} false negatives by rule: {r['fn_rules']}")
    print(f"speed-up: {out['speedup']:.1f}x")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2048, help="rows of each corpus (default 2048)")
    ap.add_argument("--json", help="write all numbers to this file")
    args = ap.parse_args(argv)
    equal, warm = equal_spellings_cases(args.n)
    results = {"fidelity": report("fidelity suite", fidelity_cases()),
               "corpus": report("MATH corpus (GRPO groups of 8)", corpus_cases(args.n)),
               "equal_spellings": report("equal-spellings corpus (cache-free)", equal, warm)}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
