"""Per-sample cost of verl's entry point in one thread: the benchmark corpus's GSM8K + MATH rows.

    python tests/bench/per_sample.py -n 10000

One pass fills the per-gold caches and the worker verdicts (and starts the pool); the figure is the
best of three later passes, so it is the in-process work of a sample: registry lookup, settings,
the answer region, extraction, the fast path, format and shaping. Two settings: the defaults, and a
format rule with shaping on (`think_boxed`, weight 0.1, repetition penalty 0.1), the path where a
response's special tokens are removed by the scorer, the format rule and shaping alike; each is run
on the rows as they are and chat-shaped: a think block first (so the format rule reaches the box)
and `<|im_end|>` left at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the package comes from PYTHONPATH, to compare two checkouts

import corpus as corpus_mod  # noqa: E402

SETTINGS = {
    "defaults": {},
    "format": {"format_rule": "think_boxed", "format_weight": 0.1},
    "format+shaping": {"format_rule": "think_boxed", "format_weight": 0.1, "repetition_penalty": 0.1},
}
THOUGHT = "<think>\nLet me work through this carefully before I answer.\n</think>\n"
END_TOKEN = "<|im_end|>"  # the chat template's end marker, left in the text when special tokens are kept


def per_sample_us(rows, kwargs: dict, passes: int = 3) -> float:
    from rewards.verl import compute_score

    def one_pass() -> float:
        start = time.perf_counter()
        for r in rows:
            compute_score(r.data_source, r.response, r.ground_truth, None, **kwargs)
        return time.perf_counter() - start

    one_pass()  # caches and workers
    return min(one_pass() for _ in range(passes)) / len(rows) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10_000)
    args = parser.parse_args(argv)
    import rewards

    print(f"rewards from {Path(rewards.__file__).parent}")
    rows = list(corpus_mod.corpus(args.n))
    kinds = {k: sum(r.kind == k for r in rows) for k in ("gsm8k", "math")}
    chat = [r.__class__(**{**vars(r), "response": THOUGHT + r.response + END_TOKEN}) for r in rows]
    print(f"{kinds['gsm8k']} GSM8K + {kinds['math']} MATH rows, one thread, microseconds per sample")
    for name, kwargs in SETTINGS.items():
        print(f"  {name:<15} {per_sample_us(rows, kwargs):7.1f}   chat-shaped: {per_sample_us(chat, kwargs):7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
