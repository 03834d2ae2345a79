"""The MATH scorer end to end: registration against verl's own dispatcher, verdicts, the size
guard, hard timeouts through the engine, and the promise that the fast path never imports sympy."""

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from rewards import compute_score
from rewards.registry import get_scorer
from rewards.result import RESULT_KEYS
from rewards.scorers.boxed import score_math, score_math_dapo

MATH = "lighteval/MATH"
VERL_MATH_MODULES = {"math_reward", "math_dapo", "prime_math", "geo3k"}


def verl_math_names():
    """Names verl 0.9.1's default_compute_score sends to a math scorer, read from its source."""
    spec = importlib.util.find_spec("verl")
    if spec is None:
        pytest.skip("verl is not installed")
    source = Path(spec.submodule_search_locations[0], "utils", "reward_score", "__init__.py").read_text()
    exact, prefixes = set(), set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.If):
            continue
        imported = {alias.name for stmt in node.body if isinstance(stmt, ast.ImportFrom) for alias in stmt.names}
        if not imported & VERL_MATH_MODULES:
            continue
        for sub in ast.walk(node.test):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                exact.add(sub.value)
            if isinstance(sub, ast.Call) and getattr(sub.func, "attr", "") == "startswith":
                prefixes.add(sub.args[0].value)
    return exact - prefixes, prefixes


def test_every_verl_math_name_is_ours():
    exact, prefixes = verl_math_names()
    assert {"lighteval/MATH", "math_dapo", "numina_olympiads", "hiyouga/geometry3k"} <= exact
    for name in exact:
        assert get_scorer(name).scorer in (score_math, score_math_dapo), name
    for prefix in prefixes:
        assert get_scorer(prefix + "2024").scorer is score_math_dapo


def test_registrations():
    assert get_scorer("xiaodongguaAIGC/X-R1-750").scorer is score_math
    assert get_scorer("aime2025_I").scorer is score_math_dapo
    assert get_scorer("math").scorer is score_math_dapo
    geo = get_scorer("hiyouga/geometry3k")
    assert geo.name == "hiyouga/geometry3k" and geo.scorer is score_math   # its own line


def test_result_keys_and_canonical_pred():
    out = compute_score(MATH, r"so $\boxed{\dfrac{2}{4}}$", "0.5")
    assert tuple(out)[:5] == RESULT_KEYS
    assert out["verdict"] == "correct" and out["pred"] == "0.5"
    assert compute_score(MATH, r"\boxed{5.00}", "5")["pred"] == "5"
    assert compute_score(MATH, r"\boxed{\frac{1}{3}}", "1/3")["pred"] == "1/3"
    assert compute_score(MATH, r"\boxed{x \in [0, 1]}", "[0,1]")["pred"] == r"x\in[0,1]"


@pytest.mark.parametrize("gold, response, verdict", [
    (7, r"\boxed{7}", "correct"),
    (0.25, r"\boxed{\frac14}", "correct"),
    (float("nan"), r"\boxed{7}", "unparsable_gold"),
    (None, r"\boxed{7}", "unparsable_gold"),
    (["7"], r"\boxed{7}", "unparsable_gold"),
    ("x" * 2000, r"\boxed{7}", "unparsable_gold"),
    ("7", "<think>" + r"\boxed{7}", "no_answer"),
    ("7", r"\boxed{7" + "0" * 5000, "unparsable_pred"),
    ("7", r"\boxed{" + "(" * 100 + "}", "unparsable_pred"),
])
def test_failure_verdicts(gold, response, verdict):
    assert compute_score(MATH, response, gold)["verdict"] == verdict


def test_timeout_is_a_verdict_and_the_next_sample_still_scores():
    slow = compute_score(MATH, r"\boxed{2^{10^{10}}}", "2", timeout=1.0)
    assert slow["verdict"] == "timeout" and slow["acc"] == 0.0 and slow["pred"] == "2^{10^{10}}"
    assert compute_score(MATH, r"\boxed{\frac{1}{2}\sqrt{3}}", r"\frac{\sqrt{3}}{2}", timeout=5.0)["verdict"] == "correct"


def test_dapo_answer_line_and_math_box():
    assert compute_score("math_dapo", "...\nAnswer: 12", "12")["verdict"] == "correct"
    assert compute_score(MATH, "...\nAnswer: 12", "12")["verdict"] == "no_answer"


FAST_PATH_SCRIPT = r"""
import sys
from rewards import compute_score
for resp, gold in [(r"\boxed{\dfrac12}", "0.5"), (r"\boxed{300}", "3"), (r"\boxed{a+b}", "c+b"),
                   (r"\boxed{(1,2]}", "(1,2)"), (r"\boxed{5, 3}", r"\{3,5\}"), (r"\boxed{\text{B}}", "B")]:
    compute_score("lighteval/MATH", resp, gold)
assert "sympy" not in sys.modules and "latex2sympy2_extended" not in sys.modules, "fast path imported sympy"
"""


def test_fast_path_never_imports_sympy():
    subprocess.run([sys.executable, "-c", FAST_PATH_SCRIPT], check=True, timeout=60)
