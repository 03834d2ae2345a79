"""The two scorers we measure against, called the way their users call them.

- Math-Verify 0.9.0 with the extraction targets of verl's own `math_verify.compute_score` (gold
  wrapped in `\\boxed{}`; prediction by expression or LaTeX), but in-process on the main thread,
  where its `signal.alarm` timeouts work: its fastest correct configuration.
- verl 0.9.1's `default_compute_score` (GSM8K: `gsm8k.compute_score`, strict; MATH:
  `math_reward.compute_score`, string equality after normalisation).

Both are top-level functions so that the pathological inputs can be run in a killable worker.
"""

from __future__ import annotations


def math_verify_score(response: str, ground_truth: str) -> float:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    gold = parse("\\boxed{" + ground_truth + "}", (LatexExtractionConfig(),))
    pred = parse(response, (ExprExtractionConfig(), LatexExtractionConfig()))
    return 1.0 if gold and pred and verify(gold, pred) else 0.0


def verl_score(data_source: str, response: str, ground_truth: str) -> float:
    from verl.utils.reward_score import default_compute_score

    out = default_compute_score(data_source, response, ground_truth)
    return float(out["score"] if isinstance(out, dict) else out)
