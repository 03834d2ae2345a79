"""Per-sample work is done once on verl's path: one registry lookup, one cleaning of special
tokens, one read of the last box (issue 19)."""

from __future__ import annotations

import threading

import rewards.api
import rewards.math.extract as extract
import rewards.region as region
import rewards.verl
from rewards.verl import compute_score

RESPONSE = "<think>\nTwo halves make one.\n</think>\nSo $x = \\boxed{\\frac{1}{2}}$.<|im_end|>"
SETTINGS = {"format_rule": "think_boxed", "format_weight": 0.1, "repetition_penalty": 0.1}


class _Counting:
    def __init__(self, pattern):
        self.pattern, self.calls = pattern, 0

    def sub(self, *args, **kwargs):
        self.calls += 1
        return self.pattern.sub(*args, **kwargs)


def test_one_lookup_one_cleaning_one_box_read(monkeypatch):
    compute_score("lighteval/MATH", "warm \\boxed{1}", "1")  # registry loaded, gold caches warm
    lookups = []
    for module in (rewards.verl, rewards.api):
        real = module.get_scorer
        monkeypatch.setattr(module, "get_scorer", lambda name, real=real: lookups.append(name) or real(name))
    tokens = _Counting(region.SPECIAL_TOKEN)
    monkeypatch.setattr(region, "SPECIAL_TOKEN", tokens)
    boxes = []
    real_outermost = extract._outermost
    monkeypatch.setattr(extract, "_outermost", lambda text, before: boxes.append(before) or real_outermost(text, before))

    response = "".join(RESPONSE)  # a new string object, as verl passes one per sample
    out = compute_score("lighteval/MATH", response, "0.5", None, **SETTINGS)
    assert out["verdict"] == "correct" and out["format"] == 1.0
    assert lookups == ["lighteval/MATH"]
    assert tokens.calls == 1
    assert boxes.count(None) == 1


def test_remembered_work_is_per_thread_and_never_stale():
    """Another thread's response, or an equal response after another one, gets its own answer."""
    first = compute_score("lighteval/MATH", "\\boxed{2}", "2")
    results = []
    thread = threading.Thread(target=lambda: results.append(compute_score("lighteval/MATH", "\\boxed{3}", "2")))
    thread.start()
    thread.join()
    assert first["verdict"] == "correct" and results[0]["verdict"] == "wrong"
    assert compute_score("lighteval/MATH", "\\boxed{2}<|im_end|>", "3", None, **SETTINGS)["verdict"] == "wrong"
    assert compute_score("lighteval/MATH", "\\boxed{2}<|im_end|>", "2", None, **SETTINGS)["verdict"] == "correct"
