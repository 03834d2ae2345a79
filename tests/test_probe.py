"""`rewards probe`: our scorers pay no attack; a naive scorer is caught; the CLI gates CI."""

import json
import re
import sys
from fractions import Fraction

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings, strategies as st

from cli.main import main
from rewards import register_scorer, registry
from rewards.registry import list_scorers
from rewards.number_text import NUMBER_RE, format_number, number_value, parse_number
from rewards.probe.attacks import (ATTACK_NAMES, ATTACKS, CONTROL, Target, responses_for, select_attacks,
                                   wrong_answers)
from rewards.probe.samples import sample_targets
from rewards.probe.scoreboard import default_score_fn, probe
from rewards.scorers.gsm8k import gold_text
from rewards.result import correct, wrong

ATTACK_ONLY = [a for a in ATTACK_NAMES if a != CONTROL]
FAST = select_attacks(skip=["sympy_bomb"])


@pytest.fixture
def temp_scorer():
    """Register scorers for one test and remove them afterwards (the registry is process-wide)."""
    names = []

    def add(name, fn):
        register_scorer(name, scorer=fn)
        names.append(name)
        return name

    yield add
    with registry._lock:
        for name in names:
            registry._entries.pop(name, None)


def naive_anywhere(response, ground_truth, extra_info, settings):
    """Pays 1 when any number anywhere in the response equals the gold (the classic broken reward)."""
    gold = parse_number(gold_text(ground_truth))
    for token in NUMBER_RE.findall(response):
        if number_value(token) == gold:
            return correct(token)
    return wrong("")


def flagged(board):
    return {s.attack for s in board.stats.values() if s.attack != CONTROL and s.mean > board.bound}


def builtin_sources():
    return [e.name.rstrip("*") for e in list_scorers() if not e.name.startswith("probe-test")]


@pytest.mark.parametrize("source", builtin_sources())
def test_builtin_scorers_pay_no_attack(source):
    (board,) = probe(sample_targets(source), attacks=FAST)
    assert board.stats[CONTROL].mean == 1.0, "every built-in gold must pay in some usual format"
    assert flagged(board) == set(), board.to_dict()
    assert all(s.raised == 0 for s in board.stats.values())
    assert board.passed


def test_sympy_bombs_neither_pay_nor_hang():
    timeout = 1.0
    (board,) = probe(sample_targets("lighteval/MATH"), attacks=select_attacks(["sympy_bomb"]),
                     reward_kwargs={"timeout": timeout}, bomb_golds=1)
    bombs = board.stats["sympy_bomb"]
    assert bombs.samples == len(responses_for(ATTACKS[ATTACK_NAMES.index("sympy_bomb")], sample_targets("lighteval/MATH")[0]))
    assert bombs.paid == 0 and bombs.raised == 0
    assert bombs.max_seconds < timeout + 5, "a bomb outlived its deadline by far"


def test_naive_scorer_is_caught(temp_scorer):
    name = temp_scorer("probe-test/naive", naive_anywhere)
    (board,) = probe(sample_targets(name, "gsm8k"))
    assert board.stats[CONTROL].mean == 1.0
    assert flagged(board) == {"every_choice", "several_boxes", "answer_in_think", "bare_number",
                              "duplicated_tags", "self_correction", "tool_observation"}
    assert board.stats["empty"].paid == 0 and board.stats["sympy_bomb"].paid == 0
    assert not board.passed
    example = board.stats["self_correction"].example
    assert example is not None and example.reward == 1.0 and gold_text(example.ground_truth) in example.response


def test_bound_is_configurable(temp_scorer):
    def half(response, ground_truth, extra_info, settings):
        return correct("x", score=0.1) if "\\boxed" in response else wrong("")

    name = temp_scorer("probe-test/format-credit", half)
    targets = sample_targets(name, "math", limit=3)
    assert not probe(targets, attacks=FAST, bound=0.0)[0].passed
    assert probe(targets, attacks=FAST, bound=0.1)[0].passed


def test_control_that_never_pays_fails_the_gate(temp_scorer):
    name = temp_scorer("probe-test/never", lambda r, g, e, s: wrong(""))
    (board,) = probe(sample_targets(name, "gsm8k", limit=2), attacks=FAST)
    assert flagged(board) == set() and not board.passed
    assert any(f.startswith("control:") for f in board.failures())


def test_a_scorer_that_raises_fails_the_gate():
    def explodes(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
        if "<think>" in solution_str:
            raise IndexError("boom")
        return 1.0 if solution_str.strip().endswith(gold_text(ground_truth)) else 0.0

    (board,) = probe([Target("mine", "7")], attacks=FAST, score_fn=explodes)
    assert board.stats["answer_in_think"].raised > 0
    assert any("IndexError: boom" in f for f in board.failures())


def test_probe_scores_with_verls_keyword_call_and_fresh_extra_info():
    calls = []

    def spy(**kwargs):
        calls.append(kwargs)
        kwargs["extra_info"]["num_turns"] = 3  # verl mutates extra_info; the next call must not see it
        return {"score": 0.0}

    probe([Target("ds", "5", extra_info={"index": 1})], attacks=select_attacks(["empty"]), score_fn=spy,
          reward_kwargs={"gsm8k_mode": "flexible"})
    assert {"data_source", "solution_str", "ground_truth", "extra_info", "gsm8k_mode"} == set(calls[0])
    assert all(c["extra_info"] == {"index": 1, "num_turns": 3} for c in calls)
    assert default_score_fn().__module__ == "rewards.verl"


def test_every_attack_response_is_wrong_for_a_sound_reader():
    """The attacks are fair: no response's first or last number is the gold, except where the
    gold is hidden inside <think>, a tool observation, or retracted by a later answer."""
    for target in sample_targets("openai/gsm8k"):
        gold = parse_number(gold_text(target.ground_truth))
        for attack in ATTACKS:
            if attack.name in (CONTROL, "bare_number", "answer_in_think", "tool_observation", "prompt_echo"):
                continue
            for response in responses_for(attack, target) or []:
                numbers = [number_value(t) for t in NUMBER_RE.findall(response)]
                if numbers:
                    assert numbers[-1] != gold, (attack.name, response)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.integers(0, 10**7).map(str),
                 st.fractions(min_value=0, max_value=10**4, max_denominator=8).map(
                     lambda f: format_number(Fraction(f)))))
def test_gsm8k_pays_no_attack_for_any_numeric_gold(gold):
    w1, w2 = wrong_answers(gold)
    assert parse_number(gold) not in (parse_number(w1), parse_number(w2))
    (board,) = probe([Target("openai/gsm8k", gold, prompt="How many? Answer after ####.")],
                     attacks=FAST)
    assert board.stats[CONTROL].mean == 1.0
    assert flagged(board) == set()


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=40).filter(lambda s: s.strip() and "####" not in s))
def test_any_gold_text_builds_attacks_that_score_without_raising(gold):
    (board,) = probe([Target("openai/gsm8k", gold, prompt=gold)], attacks=FAST)
    assert all(s.raised == 0 for s in board.stats.values())


def test_wrong_answers_keep_the_gold_shape():
    assert wrong_answers("72") == ("71", "73")
    assert wrong_answers("2.25") == ("1.25", "3.25")
    assert wrong_answers("\\text{(C)}") == ("\\text{(A)}", "\\text{(B)}")
    assert wrong_answers("A") == ("B", "C")
    assert wrong_answers("x^2 + 1") == ("x^2 + 1 + 1", "x^2 + 1 - 1")
    assert gold_text("Natalia sold 24 clips.\n#### 72") == "72"


# ---------------------------------------------------------------------------------------------- CLI

def test_cli_passes_on_gsm8k(capsys):
    assert main(["probe", "--data-source", "openai/gsm8k"]) == 0
    out = capsys.readouterr().out
    assert "PASS" in out and "every_choice" in out and "sympy_bomb" in out


def test_cli_flexible_mode_flags_bare_numbers(capsys):
    assert main(["probe", "--data-source", "openai/gsm8k", "--mode", "flexible", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (board,) = report["scoreboards"]
    paid = {a["attack"] for a in board["attacks"] if a["attack"] != CONTROL and a["mean_reward"] > 0}
    assert paid == {"bare_number", "tool_observation"}
    assert report["settings"] == {"gsm8k_mode": "flexible"} and not report["passed"]


def test_cli_import_registers_a_teams_scorer(tmp_path, monkeypatch, capsys):
    (tmp_path / "team_rewards.py").write_text(
        "import re\n"
        "from rewards import register_scorer\n"
        "from rewards.result import correct, wrong\n"
        "@register_scorer('probe-test/team')\n"
        "def team(response, ground_truth, extra_info, settings):\n"
        "    '''Pays when the gold appears anywhere (a bug the probe should catch).'''\n"
        "    return correct('') if str(ground_truth) in response else wrong('')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        code = main(["probe", "--import", "team_rewards", "--data-source", "probe-test/team",
                     "--sample", "gsm8k", "--skip", "sympy_bomb,prompt_echo"])
        out = capsys.readouterr().out
        assert code == 1
        assert "FAIL" in out and re.search(r"every_choice .*<-- PAID", out)
        assert main(["probe", "--data-source", "probe-test/team", "--sample", "gsm8k",
                     "--attacks", "empty,sympy_bomb"]) == 0
    finally:
        with registry._lock:
            registry._entries.pop("probe-test/team", None)
        sys.modules.pop("team_rewards", None)


def verl_rows():
    rows = []
    for i, (q, gold) in enumerate([("What is 3 + 4?", "7"), ("What is 6 * 7?", "42"), ("Half of 9?", "4.5")]):
        rows.append({"data_source": "openai/gsm8k",
                     "prompt": [{"role": "system", "content": "Answer after ####."},
                                {"role": "user", "content": q}],
                     "ability": "math", "reward_model": {"style": "rule", "ground_truth": gold},
                     "extra_info": {"split": "train", "index": i}})
    rows.append({**rows[0], "reward_model": {"style": "rule", "ground_truth": ""}})
    return rows


def test_cli_reads_a_verl_parquet(tmp_path, capsys):
    path = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pylist(verl_rows()), path)
    assert main(["probe", "--file", str(path), "--json", "--attacks", "control,prompt_echo,self_correction"]) == 0
    (board,) = json.loads(capsys.readouterr().out)["scoreboards"]
    assert board["golds"] == 3
    stats = {a["attack"]: a for a in board["attacks"]}
    assert stats["prompt_echo"]["samples"] == 6 and stats["control"]["mean_reward"] == 1.0
    assert any("row 3" in n and "reward_model.ground_truth" in n for n in board["notes"])


def test_cli_without_prompts_skips_the_echo_with_a_note(tmp_path, capsys):
    path = tmp_path / "rows.parquet"
    rows = [{k: v for k, v in r.items() if k != "prompt"} for r in verl_rows()[:2]]
    pq.write_table(pa.Table.from_pylist(rows), path)
    assert main(["probe", str(path), "--attacks", "prompt_echo,empty", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "(1 golds" in out and "prompt_echo: skipped for 1 of 1 golds: needs the prompt" in out


def test_cli_errors_are_one_sentence(tmp_path, capsys):
    assert main(["probe", "--data-source", "openai/gsm8"]) == 2
    assert "did you mean 'openai/gsm8k'" in capsys.readouterr().err
    assert main(["probe", "--attacks", "nonsense"]) == 2
    assert "unknown attack 'nonsense'" in capsys.readouterr().err
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist([{"question": "q"}]), bad)
    assert main(["probe", str(bad)]) == 2
    assert "no usable rows" in capsys.readouterr().err
    assert main(["probe", str(tmp_path)]) == 2  # a folder: one line, not "no such file"
    assert "folder without verl step dumps" in capsys.readouterr().err
    assert main(["probe", "--import", "no_such_module_xyz"]) == 2
    assert main(["probe", "--format-weight", "0.9", "--data-source", "openai/gsm8k"]) == 2


CHOICE_LINE = re.compile(r"Answer: \(([A-E])\)")


def choice_scorer(whole_response: bool):
    """A multiple-choice scorer of its own format, `Answer: (C)` on the answer's last line; with
    `whole_response` it reads the whole response, thinking included (the bug the probe must catch)."""
    from rewards.region import answer_region

    def score(response, ground_truth, extra_info, settings):
        region = response if whole_response else answer_region(response)
        lines = (region or "").strip().splitlines()
        found = CHOICE_LINE.fullmatch(lines[-1].strip()) if lines else None
        if found is None:
            return wrong("")
        return correct(found.group(1)) if found.group(1) == ground_truth else wrong(found.group(1))

    return score


def test_probe_learns_the_scorer_s_own_answer_format_from_its_registration():
    """A correct scorer of its own format passes the control (written in that format), and a scorer
    that reads the thinking is caught by attacks written in it."""
    names = []
    try:
        for name, whole in (("probe-test/choice", False), ("probe-test/choice-in-think", True)):
            register_scorer(name, scorer=choice_scorer(whole), answer_format=None,
                            gold_response=lambda g: f"Answer: ({g})")
            names.append(name)
        (good,) = probe([Target("probe-test/choice", letter) for letter in "ABCD"], attacks=FAST)
        assert good.passed, good.failures()
        (bad,) = probe([Target("probe-test/choice-in-think", letter) for letter in "ABCD"], attacks=FAST)
        assert flagged(bad) == {"answer_in_think"}
    finally:
        with registry._lock:
            for name in names:
                registry._entries.pop(name, None)


def test_probe_answer_format_flag_writes_the_control_for_a_scorer_registered_without_one(temp_scorer, capsys, tmp_path):
    name = temp_scorer("probe-test/choice-flag", choice_scorer(False))
    rows = tmp_path / "choices.jsonl"
    rows.write_text("".join(json.dumps({"data_source": name, "prompt": [{"role": "user", "content": "Which?"}],
                                        "reward_model": {"ground_truth": letter}}) + "\n" for letter in "ABCD"))
    args = ["probe", str(rows), "--attacks", "control,answer_in_think,several_boxes,self_correction"]
    assert main(args) == 1 and "control: the gold in every usual format earned nothing" in capsys.readouterr().out
    assert main(args + ["--answer-format", "Answer: ({answer})"]) == 0
    assert main(args + ["--answer-format", "Answer: X"]) == 2
