"""`rewards.testing` and `rewards check`: docs/custom-scorers.md's scorers and their property-test file
run here as the page shows them, against the page's scorers, the built-in ones and two deliberately
broken ones it must catch; every property is shown to catch the bug it is for, on one line."""

from __future__ import annotations

import importlib
import random
import re
import shlex
import subprocess
import sys
import time
from dataclasses import replace

import pytest
from hypothesis import strategies as st

from cli.main import main
from rewards import Result, Verdict, registry
from rewards.region import answer_region, strip_special_tokens
from rewards.testing import ScorerCheckFailed, check_scorer
from rewards.testing.golds import FAMILIES, choice_letters, golds, text_golds
from rewards.testing.wrappers import ALL, SETTLED, answer_format, wrappers_for
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "custom-scorers.md"
BLOCK = re.compile(r"<!-- (module|test|run): (\S+) -->\n```\w*\n(.*?)```", re.S)


def blocks(kind: str) -> dict[str, str]:
    return {m.group(2): m.group(3) for m in BLOCK.finditer(PAGE.read_text()) if m.group(1) == kind}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page's scorer module and its property-test file, imported as the user's pytest would."""
    root = tmp_path_factory.mktemp("team")
    for name, text in {**blocks("module"), **blocks("test")}.items():
        (root / name).write_text(text)
    sys.path.insert(0, str(root))
    try:
        scorers = importlib.import_module("team_scorers")
        tests = importlib.import_module("test_team_scorers")
        yield scorers, tests, root
    finally:
        sys.path.remove(str(root))
        for name in ("team_scorers", "test_team_scorers"):
            sys.modules.pop(name, None)
        with registry._lock:
            for name in ("team/choice", "team/math-short"):
                registry._entries.pop(name, None)


# ----------------------------------------------------------------------------------------------
# The page's files.

def test_the_page_s_property_test_file_is_a_few_lines():
    (text,) = blocks("test").values()
    code = [line for line in text.splitlines() if line.strip() and not line.startswith('"""')]
    assert len(code) <= 10


def test_the_page_s_scorers_pass_their_property_tests(page):
    scorers, tests, _ = page
    tests.test_choice()
    tests.test_math_short()
    # The format from the registration's gold_response, by name or for the function.
    check_scorer("team/choice", gold=choice_letters("ABCDE"), max_examples=20)
    check_scorer(scorers.score_choice, data_source="team/choice", gold=choice_letters("ABCDE"), max_examples=20)


def reads_the_thinking(response, ground_truth, extra_info, settings):
    """The page's scorer, reading the last `Answer:` line of the whole response (thinking included)."""
    found = re.findall(r"^Answer: \(?([A-E])\)?$", strip_special_tokens(response), re.M)
    if not found:
        return Result(Verdict.NO_ANSWER)
    return Result(Verdict.CORRECT if found[-1] == ground_truth else Verdict.WRONG, found[-1])


def pays_any_candidate(response, ground_truth, extra_info, settings):
    """The page's scorer, paying when any `Answer:` line of the answer region names the gold."""
    found = re.findall(r"^Answer: \(?([A-E])\)?$", answer_region(response) or "", re.M)
    if not found:
        return Result(Verdict.NO_ANSWER)
    return Result(Verdict.CORRECT if ground_truth in found else Verdict.WRONG, found[-1])


@pytest.mark.parametrize("broken, caught_by", [(reads_the_thinking, "[choice letter / only inside the thinking]"),
                                               (pays_any_candidate, "[choice letter / several candidates]")])
def test_the_page_s_property_tests_catch_a_broken_scorer_on_one_line(page, monkeypatch, broken, caught_by):
    _, tests, _ = page
    monkeypatch.setattr(tests, "score_choice", broken)
    with pytest.raises(ScorerCheckFailed) as failed:
        tests.test_choice()
    message = str(failed.value)
    assert "\n" not in message
    assert message.startswith(f"{broken.__name__}: hidden answers are not paid: hidden answer paid {caught_by}")


def test_the_page_s_property_tests_run_on_the_built_in_scorers(page, monkeypatch):
    """The page's MATH test, on the built-in MATH scorer itself and through verl's entry point."""
    from rewards.scorers.boxed import score_math

    _, tests, _ = page
    monkeypatch.setattr(tests, "score_math_short", score_math)
    tests.test_math_short()
    monkeypatch.setattr(tests, "score_math_short", "lighteval/MATH")
    tests.test_math_short()
    check_scorer("openai/gsm8k", max_examples=40)
    check_scorer("math_dapo", max_examples=20)


def test_the_page_s_command_lines_run(page, monkeypatch, capsys):
    """`rewards check` as the page writes it (with a smaller budget): every line passes."""
    _, _, root = page
    monkeypatch.chdir(root)
    lines = [shlex.split(line, comments=True) for line in blocks("run")["check"].splitlines() if line.startswith("rewards ")]
    assert len(lines) == 4
    for args in lines:
        assert main(args[1:] + ["--budget", "5", "--examples", "30"]) == 0, args
        assert capsys.readouterr().out.startswith("PASS ")


# ----------------------------------------------------------------------------------------------
# Each property catches the bug it is for.

def exact_choice(response, ground_truth, extra_info, settings):
    found = re.findall(r"^Answer: \(?([A-E])\)?$", answer_region(response) or "", re.M)
    if not found:
        return Result(Verdict.NO_ANSWER)
    return Result(Verdict.CORRECT if found[-1] == ground_truth else Verdict.WRONG, found[-1])


LETTERS = dict(gold=choice_letters(), answer_format="Answer: {answer}", max_examples=40)


def failure(scorer, **kwargs) -> str:
    with pytest.raises(ScorerCheckFailed) as failed:
        check_scorer(scorer, **{**LETTERS, **kwargs})
    assert "\n" not in str(failed.value)
    return str(failed.value)


def test_a_scorer_that_refuses_right_answers_is_caught():
    def strict(response, ground_truth, extra_info, settings):
        return exact_choice(response.replace("(", "[") if isinstance(response, str) else response,
                            ground_truth, extra_info, settings)

    assert ": right answers are paid: right answer refused [choice letter / parenthesised /" in failure(strict)
    check_scorer(strict, **LETTERS, respellings=False)  # a scorer that claims no equivalence


def test_a_scorer_that_pays_a_wrong_answer_is_caught():
    def first_letter(response, ground_truth, extra_info, settings):
        found = re.search(r"Answer: \(?([A-E])", answer_region(response) or "")
        pred = found.group(1) if found else ""
        return Result(Verdict.CORRECT if pred == ground_truth else Verdict.WRONG, pred)

    assert ": wrong answers are not paid: wrong answer paid [choice letter / two letters /" in failure(first_letter)


def test_a_scorer_that_raises_or_returns_other_keys_is_caught():
    def raises(response, ground_truth, extra_info, settings):
        if "\x00" in response or len(response) > 10_000:
            raise ValueError("unexpected text")
        return exact_choice(response, ground_truth, extra_info, settings)

    assert ": any input is survived: input (" in failure(raises)
    assert "verdict error (scorer raised ValueError: unexpected text)" in failure(raises)

    def extra_key(response, ground_truth, extra_info, settings):
        result = exact_choice(response, ground_truth, extra_info, settings)
        return replace(result, extras={"length": float(len(response))}) if result.pred else result

    assert "the result's keys" in failure(extra_key)


def test_a_scorer_that_is_not_deterministic_or_slow_is_caught():
    coin = random.Random(0)

    def flaky(response, ground_truth, extra_info, settings):
        result = exact_choice(response, ground_truth, extra_info, settings)
        return result if coin.random() < 0.5 else Result(Verdict.WRONG, result.pred)

    assert ": right answers are paid: " in failure(flaky)

    def slow(response, ground_truth, extra_info, settings):
        time.sleep(0.02)
        return exact_choice(response, ground_truth, extra_info, settings)

    assert "one call took" in failure(slow, call_seconds=0.01, max_examples=3)


def test_plain_text_golds_and_unsettled_wrappers():
    check_scorer(exact_choice, gold=st.sampled_from("ABCDE"), answer_format="Answer: {answer}", max_examples=30)
    check_scorer(exact_choice, gold=text_golds(st.sampled_from("ABCDE")), answer_format="Answer: {answer}",
                 wrappers=ALL, max_examples=30)


def test_a_scorer_that_reads_the_last_line_only_refuses_a_self_check():
    def last_line(response, ground_truth, extra_info, settings):
        lines = (answer_region(response) or "").strip().splitlines()
        return exact_choice(lines[-1] if lines else "", ground_truth, extra_info, settings)

    assert "right answer refused [choice letter / the gold / a self-check after the answer]" in failure(last_line)


def test_the_budget_ends_the_check_between_runs_and_every_property_gets_its_share():
    report = check_scorer("openai/gsm8k", max_examples=100_000, seconds=2)
    assert all(0 < n < 100_000 for n in report.cases.values()), report.cases


def test_the_strategies_and_formats():
    assert len(FAMILIES) >= 30 and "gsm8k" in FAMILIES
    with pytest.raises(ValueError, match="unknown gold families"):
        golds("no such family")
    with pytest.raises(ValueError, match="unknown answer format"):
        answer_format("Answer:")
    assert answer_format("Answer: ({answer})").write("C") == "Answer: (C)"
    boxed = answer_format("boxed")
    assert {w.name for w in wrappers_for(boxed)} >= {"R1: <think>, then the answer", "Qwen-Math closing sentence",
                                                     "Llama \"The final answer is\"", "only inside the thinking",
                                                     "cut off while thinking", "cut off inside the box",
                                                     "several candidates"}
    assert {w.name for w in wrappers_for(answer_format("gsm8k"), paid=True)} >= {"GSM8K few-shot"}
    assert set(SETTLED) < set(ALL)


def test_a_data_source_of_its_own_format_needs_its_golds():
    with pytest.raises(ValueError, match="pass gold="):
        check_scorer(exact_choice, answer_format="Answer: {answer}")


# ----------------------------------------------------------------------------------------------
# The command.

def test_rewards_check_fails_with_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    (tmp_path / "broken_scorers.py").write_text(
        "import re\n"
        "from rewards import Result, Verdict, register_scorer\n"
        "@register_scorer('check-test/anywhere', answer_format='gsm8k')\n"
        "def anywhere(response, ground_truth, extra_info, settings):\n"
        "    '''Pays when any `#### N` line names the gold, thinking included.'''\n"
        "    found = re.findall(r'#### (\\S+)', response)\n"
        "    return Result(Verdict.CORRECT if ground_truth in found else Verdict.WRONG, found[-1] if found else '')\n")
    monkeypatch.chdir(tmp_path)
    try:
        assert main(["check", "check-test/anywhere", "--import", "broken_scorers", "--examples", "50"]) == 1
        out = capsys.readouterr().out
        assert out.startswith("FAIL check-test/anywhere: ") and out.count("\n") == 1
        assert main(["check", "broken_scorers:anywhere", "--answer-format", "gsm8k", "--golds", "gsm8k",
                     "--examples", "50", "--json"]) == 1
        assert '"passed": false' in capsys.readouterr().out
    finally:
        with registry._lock:
            registry._entries.pop("check-test/anywhere", None)
        sys.modules.pop("broken_scorers", None)


def test_rewards_check_usage_errors_are_exit_2(capsys):
    assert main(["check", "openai/gsm9k"]) == 2
    assert "did you mean" in capsys.readouterr().err
    assert main(["check", "openai/gsm8k", "--budget", "0"]) == 2
    assert main(["check", "openai/gsm8k", "--golds", "nonsense"]) == 2
    assert main(["check", "no_such_module_xyz:fn"]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("data_source", ["lighteval/MATH", "openai/gsm8k"])
def test_rewards_check_passes_the_built_in_scorers_within_a_minute(data_source, capsys):
    assert main(["check", data_source, "--budget", "60", "--examples", "300"]) == 0
    assert capsys.readouterr().out.startswith(f"PASS {data_source}: passed")


def test_import_rewards_does_not_import_hypothesis_and_the_extra_is_named():
    code = ("import sys, rewards, rewards.verl, rewards.api, rewards.probe.attacks\n"
            "assert 'hypothesis' not in sys.modules, 'rewards imported hypothesis'\n"
            "sys.modules['hypothesis'] = None\n"
            "try:\n    import rewards.testing\nexcept ImportError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pip install verl-rewards[testing]" in out.stdout


def test_the_page_shows_the_failure_its_scorer_gives_when_it_reads_the_thinking(page, monkeypatch):
    scorers, tests, _ = page
    shown = re.search(r"```text\n(ScorerCheckFailed: .*)\n```", PAGE.read_text()).group(1)
    monkeypatch.setattr(scorers, "answer_region", strip_special_tokens)
    with pytest.raises(ScorerCheckFailed) as failed:
        tests.test_choice()
    assert f"ScorerCheckFailed: {failed.value}" == shown


@pytest.mark.parametrize("module", ["rewards.testing.check", "rewards.testing.golds"])
def test_the_docstring_examples_run(module):
    code = (f"import doctest, {module} as m, sys; r = doctest.testmod(m); "
            "sys.exit(1 if r.failed or not r.attempted else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
