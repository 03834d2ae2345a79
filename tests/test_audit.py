"""The reward audit: `rewards score` / `report` compare the reward a run was trained with (a verl
dump's `score`, a named column, or another grader) with our verdicts.

The dumps are generated with verl 0.9.1's real `default_compute_score` as their `score`
(tests/helpers/audit_dumps.py); every number the audit prints is checked against a count made here
from the generated rows, our library's `compute_score` and verl's score, and every cause against
the shape each response was generated in.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cli.main import main
from rewards import compute_score
from rewards.reporting.audit import Audit, Comparison, advantage_signs
from tests.helpers.audit_dumps import generate
from tests.helpers.timing import fastest

pytest.importorskip("verl")

SOURCES = {"gsm8k": "openai/gsm8k", "math": "lighteval/MATH"}
JUDGEMENTS = {"correct", "wrong", "no_answer", "unparsable_pred"}
# The shapes verl 0.9.1's scorers get wrong in these dumps; each must occur (else the test proves less).
EXPECTED_SHAPES = {
    "gsm8k": {"clipped", "dollar", "marker_spacing", "equivalent_spelling", "not_whole_answer", "answer_in_think"},
    "math": {"equivalent_spelling", "boxed_missing", "several_boxes", "thousands_separator", "not_whole_answer",
             "answer_in_think"},
}


def _signs(rewards):
    mean = sum(rewards) / len(rewards)
    return [0 if abs(r - mean) < 1e-9 else (1 if r > mean else -1) for r in rewards]


def independent_count(written):
    """Per step: judged rows and both directions; GRPO groups and those with a sign changed."""
    steps = defaultdict(Counter)
    groups = defaultdict(list)
    expected_cause = []
    for w in written:
        row = w["row"]
        ours = compute_score(w["data_source"], row["output"], row["gts"])
        paid, correct = row["score"] >= 0.5, ours["verdict"] == "correct"
        s = steps[w["step"]]
        groups[(w["step"], w["uid"])].append((row["score"], ours["score"]))
        cause = None
        if ours["verdict"] in JUDGEMENTS:
            s["judged"] += 1
            if paid and not correct:
                s["paid_wrong"] += 1
                cause = f"paid_but_wrong: {ours['verdict']}, {w['shape']}"
            elif correct and not paid:
                s["unpaid_correct"] += 1
                cause = f"correct_but_unpaid: {ours['verdict']}, {w['shape']}"
        expected_cause.append(cause)
    for (step, _), members in groups.items():
        steps[step]["groups"] += 1
        steps[step]["sign_changed"] += _signs([p for p, _ in members]) != _signs([n for _, n in members])
    return steps, expected_cause


@pytest.fixture(scope="module", params=sorted(SOURCES))
def dump(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dumps") / request.param
    written = generate(folder, request.param, steps=5, prompts=24, n=4, seed=3)
    return request.param, folder, written


def _score(argv, capsys):
    capsys.readouterr()
    status = main(["score", *argv, "--json", "-q"])
    out = capsys.readouterr()
    return status, json.loads(out.out), out.err


def test_score_audits_verl_scored_dumps_against_an_independent_count(dump, tmp_path, capsys):
    family, folder, written = dump
    source = SOURCES[family]
    out = tmp_path / "scored.jsonl"
    status, summary, _ = _score([str(folder), "--data-source", source, "-o", str(out)], capsys)
    assert status == 0
    audit = summary["audit"]["sources"][source]
    steps, expected_cause = independent_count(written)

    assert audit["rows"] == len(written)
    assert audit["judged"] == sum(s["judged"] for s in steps.values())
    assert audit["paid_but_wrong"] == sum(s["paid_wrong"] for s in steps.values()) > 0
    assert audit["correct_but_unpaid"] == sum(s["unpaid_correct"] for s in steps.values()) > 0
    assert audit["groups"] == sum(s["groups"] for s in steps.values()) == 5 * 24
    assert audit["groups_sign_changed"] == sum(s["sign_changed"] for s in steps.values()) > 0
    for got in audit["steps"]:
        want = steps[got["step"]]
        assert (got["judged"], got["paid_wrong"], got["unpaid_correct"], got["groups"], got["sign_changed"]) == (
            want["judged"], want["paid_wrong"], want["unpaid_correct"], want["groups"], want["sign_changed"])

    # Every row, in order: the dump's reward beside ours, and the cause of each disagreement is the
    # shape the response was generated in.
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["prev_score"] for r in rows] == [w["row"]["score"] for w in written]
    assert [r["disagreement"] for r in rows] == expected_cause

    # Every class that occurs is in the summary with an example row that shows it.
    occurring = Counter(c for c in expected_cause if c)
    listed = {f"{c['direction']}: {c['verdict']}, {c['shape']}": c for c in audit["causes"]}
    assert set(listed) == set(occurring)
    for name, cause in listed.items():
        assert cause["rows"] == occurring[name]
        assert 1 <= len(cause["examples"]) <= 3
        for example in cause["examples"]:
            line = int(example["where"].rsplit(" line ", 1)[1])
            step_rows = [r for r in rows if r["step"] == example["step"]]
            assert step_rows[line - 1]["disagreement"] == name
    assert EXPECTED_SHAPES[family] <= {c["shape"] for c in audit["causes"]}


def test_score_prints_the_audit_lines(dump, capsys):
    family, folder, _ = dump
    assert main(["score", str(folder), "--data-source", SOURCES[family], "-q"]) == 0
    out = capsys.readouterr().out
    assert "reward audit: the input's reward (prev_score, else score)" in out
    assert "paid but wrong" in out and "correct but unpaid" in out and "change an advantage sign" in out


def test_against_verl_gives_the_audit_of_the_dump_scores(dump, tmp_path, capsys):
    """--against verl on the same rows without their score: verl's scorer called here gives the same
    audit as the score verl wrote into the dump, and `-o` writes it beside ours."""
    family, folder, written = dump
    source = SOURCES[family]
    bare = tmp_path / "bare"
    bare.mkdir()
    for step_file in folder.iterdir():
        rows = [json.loads(line) for line in step_file.read_text().splitlines()]
        step_file_out = bare / step_file.name
        step_file_out.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "score"}) + "\n"
                                         for r in rows))
    _, from_dump, _ = _score([str(folder), "--data-source", source], capsys)
    out = tmp_path / "against.jsonl"
    status, against, _ = _score([str(bare), "--data-source", source, "--against", "verl", "-o", str(out)], capsys)
    assert status == 0
    assert against["audit"]["reference"] == "verl"
    strip = lambda a: [{k: v for k, v in c.items() if k != "examples"} for c in a["causes"]]  # noqa: E731
    mine, theirs = from_dump["audit"]["sources"][source], against["audit"]["sources"][source]
    assert strip(mine) == strip(theirs)
    assert {k: v for k, v in mine.items() if k != "causes"} == {k: v for k, v in theirs.items() if k != "causes"}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["against_score"] for r in rows] == [w["row"]["score"] for w in written]
    assert all("prev_score" not in r for r in rows)


def test_report_shows_the_audit_section(dump, tmp_path, capsys):
    family, folder, written = dump
    source = SOURCES[family]
    _, scored, _ = _score([str(folder), "--data-source", source], capsys)
    page = tmp_path / "run.html"
    assert main(["report", str(folder), "--data-source", source, "-o", str(page), "--json", "-q"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    assert numbers["audit"]["sources"] == scored["audit"]["sources"]
    html = page.read_text()
    assert 'id="audit"' in html and "disagreements by cause" in html
    assert html.count('alt="disagreement per step"') == 1
    for cause in scored["audit"]["sources"][source]["causes"]:
        assert f"<td class=\"text\">{cause['shape']}</td>" in html
        assert cause["examples"][0]["where"] in html


def test_report_of_score_output_audits_prev_score(dump, tmp_path, capsys):
    """`rewards score -o` rows carry our results and the dump's reward as prev_score: the file page
    shows the same audit, read from the file without re-scoring."""
    family, folder, _ = dump
    source = SOURCES[family]
    scored_file = tmp_path / "scored.jsonl"
    _, scored, _ = _score([str(folder), "--data-source", source, "-o", str(scored_file)], capsys)
    page = tmp_path / "file.html"
    assert main(["report", str(scored_file), "-o", str(page), "--json", "-q"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    strip = lambda d: {k: v for k, v in d.items() if k != "causes"}  # noqa: E731  (example `where` differs)
    assert strip(numbers["audit"]["sources"][source]) == strip(scored["audit"]["sources"][source])
    assert "Reward audit" in page.read_text()


def test_rows_without_a_previous_reward_change_nothing(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"data_source": "openai/gsm8k", "response": "#### 5", "ground_truth": "5"}) + "\n")
    out = tmp_path / "out.jsonl"
    status, summary, _ = _score([str(rows), "-o", str(out)], capsys)
    assert status == 0 and "audit" not in summary
    assert set(json.loads(out.read_text())) == {"data_source", "response", "ground_truth", "score", "acc",
                                                "format", "pred", "verdict"}
    assert main(["score", str(rows), "-q"]) == 0
    assert "reward audit" not in capsys.readouterr().out
    page = tmp_path / "p.html"
    assert main(["report", str(rows), "-o", str(page), "-q"]) == 0
    assert "Reward audit" not in page.read_text()


def test_bad_rows_and_bad_previous_rewards_are_counted_apart(tmp_path, capsys):
    """Unreadable lines, non-objects, rows without a response, unknown data_sources and previous
    rewards that are not numbers, mixed with good rows: each good row is compared, each bad previous
    reward is one message naming its line, nothing raises."""
    good = {"data_source": "openai/gsm8k", "ground_truth": "12"}
    lines = [json.dumps({**good, "response": "#### $12", "score": 0.0}),         # correct but unpaid
             json.dumps({**good, "response": "#### 12 or 13", "score": 1.0}),    # paid but wrong
             json.dumps({**good, "response": "#### 12", "score": "yes"}),
             json.dumps({**good, "response": "#### 12", "score": None}),
             '{"data_source": "openai/gsm8k", "response": "#### 12", "ground_truth": "12", "score": NaN}',
             json.dumps({**good, "response": "#### 12", "score": [1]}),
             "{not json", "[1, 2]", json.dumps({**good, "score": 1.0}),
             json.dumps({"data_source": "nope/x", "response": "#### 12", "ground_truth": "12", "score": 1.0}),
             json.dumps({**good, "response": "x" * 500_000 + "#### 12", "score": 0.0}),
             json.dumps({**good, "response": "#### 12", "score": True})]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    status, summary, _ = _score([str(path), "-o", str(out)], capsys)
    assert status == 0
    audit = summary["audit"]
    assert audit["skipped"] == 4
    assert [m.split(": ", 1)[0] for m in audit["skipped_messages"]] == [f"{path} line {n}" for n in (3, 4, 5, 6)]
    gsm8k = audit["sources"]["openai/gsm8k"]
    assert (gsm8k["rows"], gsm8k["paid_but_wrong"], gsm8k["correct_but_unpaid"]) == (4, 1, 2)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(lines)
    assert rows[0]["disagreement"] == "correct_but_unpaid: correct, dollar"
    assert rows[1]["disagreement"] == "paid_but_wrong: unparsable_pred, not_whole_answer"
    assert rows[10]["disagreement"] == "correct_but_unpaid: correct, same_spelling"
    assert rows[11]["disagreement"] is None
    assert all("disagreement" not in rows[i] for i in (6, 7, 8, 9))


def test_previous_reward_column_and_usage_errors(tmp_path, capsys):
    row = {"data_source": "openai/gsm8k", "response": "####12", "ground_truth": "12",
           "score": 1.0, "rewards": {"trained": 0}}
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "rewards": {}}) + "\n")
    status, summary, _ = _score([str(path), "--previous-reward", "rewards.trained"], capsys)
    assert status == 0
    audit = summary["audit"]
    assert audit["reference"] == "rewards.trained"
    assert audit["sources"]["openai/gsm8k"]["correct_but_unpaid"] == 1
    assert audit["skipped"] == 1 and "no column 'rewards.trained'" in audit["skipped_messages"][0]
    for argv, message in ((["--against", "nothing"], "one of verl, math-verify, or MODULE:FUNCTION"),
                          (["--against", "no_such_module:f"], "cannot import it"),
                          (["--against", "verl", "--previous-reward", "x"], "give one")):
        assert main(["score", str(path), *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and message in err


def failing_grader(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """A team's own checker that raises on some rows (for --against MODULE:FUNCTION)."""
    if "boom" in solution_str:
        raise RuntimeError("checker crashed\nsecond line")
    return {"score": 1.0 if solution_str.strip().endswith(str(ground_truth)) else 0.0}


def test_against_a_custom_function_that_raises_on_some_rows(tmp_path, capsys):
    good = {"data_source": "openai/gsm8k", "ground_truth": "12"}
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({**good, "response": r}) + "\n"
                            for r in ("#### 12", "boom #### 12", "#### 12.0", "#### 13 or 12")))
    out = tmp_path / "out.jsonl"
    status, summary, _ = _score([str(path), "--against", "tests.test_audit:failing_grader", "-o", str(out)], capsys)
    assert status == 0
    audit = summary["audit"]
    assert audit["skipped"] == 1 and "RuntimeError: checker crashed" in audit["skipped_messages"][0]
    source = audit["sources"]["openai/gsm8k"]
    assert (source["rows"], source["paid_but_wrong"], source["correct_but_unpaid"]) == (3, 1, 1)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r.get("against_score") for r in rows] == [1.0, None, 0.0, 1.0]
    assert rows[1]["against_error"].startswith("RuntimeError")



def test_report_of_an_against_output_audits_the_other_grader(tmp_path, capsys):
    """`score --against X -o out` keeps the dump's own reward as prev_score and X's as against_score:
    `report out` audits X, the grader that output was made to compare with."""
    good = {"data_source": "openai/gsm8k", "ground_truth": "12", "score": 0.0}   # the dump paid nothing
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({**good, "response": r}) + "\n" for r in ("#### 12", "#### 12.0", "#### 13 or 12")))
    out = tmp_path / "out.jsonl"
    assert _score([str(path), "--against", "tests.test_audit:failing_grader", "-o", str(out)], capsys)[0] == 0
    capsys.readouterr()
    assert main(["report", str(out), "-o", str(tmp_path / "page.html"), "--json", "-q"]) == 0
    audit = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["audit"]
    assert audit["reference"] == "the other grader's reward in the input (against_score)"
    source = audit["sources"]["openai/gsm8k"]
    assert (source["rows"], source["paid_but_wrong"], source["correct_but_unpaid"]) == (3, 1, 1)

def test_against_math_verify_scores_as_math_verify_does(tmp_path, capsys):
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    cases = [("lighteval/MATH", "so $\\boxed{\\frac12}$", "0.5"), ("lighteval/MATH", "$\\boxed{2, 3}$", "3"),
             ("openai/gsm8k", "#### 1,080", "1080"), ("lighteval/MATH", "The final answer is $x=4$.", "4"),
             ("lighteval/MATH", "\\boxed{\\sqrt{8}}", "2\\sqrt{2}")]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"data_source": s, "response": r, "ground_truth": g}) + "\n"
                            for s, r, g in cases))
    out = tmp_path / "out.jsonl"
    status, _, _ = _score([str(path), "--against", "math-verify", "-o", str(out)], capsys)
    assert status == 0
    got = [json.loads(line)["against_score"] for line in out.read_text().splitlines()]
    want = []
    for _, response, gold in cases:
        g = parse("\\boxed{" + gold + "}", (LatexExtractionConfig(),))
        p = parse(response, (ExprExtractionConfig(), LatexExtractionConfig()))
        want.append(1.0 if g and p and verify(g, p) else 0.0)
    assert got == want


def test_against_with_ray_matches_local(tmp_path, capsys):
    """--ray grades in the Ray tasks (Math-Verify's signal timeouts need the task's main thread)."""
    pytest.importorskip("ray")
    folder = tmp_path / "dump"
    generate(folder, "math", steps=2, prompts=8, n=4, seed=5)
    local, spread = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    for out, extra in ((local, []), (spread, ["--ray"])):
        status, _, _ = _score([str(folder), "--data-source", "lighteval/MATH", "--against", "math-verify",
                               "-o", str(out), *extra], capsys)
        assert status == 0
    a, b = local.read_text().splitlines(), spread.read_text().splitlines()
    assert a == b
    assert all("against_error" not in json.loads(line) for line in b)


def test_groups_of_a_step_are_dropped_when_the_next_step_starts():
    """Flat memory: only the open step's groups are held; a file whose rows carry no step holds its
    groups until finish."""
    audit = Audit("test")
    for step in (1, 2, 3):
        for uid in range(50):
            for sample in range(4):
                audit.add(Comparison("s", previous=float(sample % 2), score=float(sample == 0), verdict="correct"
                                     if sample == 0 else "wrong", step=step, group=(step, "uid", str(uid))))
        assert len(audit.sources["s"].open_groups) == 50
        assert all(key[0] == step for key in audit.sources["s"].open_groups)
    numbers = audit.to_dict()["sources"]["s"]
    assert numbers["groups"] == 150 and numbers["groups_sign_changed"] == 150
    assert advantage_signs([1.0, 0.0, 1.0, 0.0]) == (1, -1, 1, -1)
    assert advantage_signs([-1.0, -1.0]) == (0, 0)


@pytest.mark.parametrize("response, answer_format, gold, verdict, shape", [
    ("<think>Let me count", "gsm8k", "5", "no_answer", "cut_off"),
    ("so \\boxed{\\frac{1}{", "boxed", "1/2", "unparsable_pred", "cut_off"),
    ("<think>#### 5</think> not sure", "gsm8k", "5", "no_answer", "answer_in_think"),
    ("<think>\\boxed{5}</think> five", "boxed", "5", "correct", "answer_in_think"),
    ("The answer is 5.", "gsm8k", "5", "correct", "no_marker"),
    ("The final answer is $5$.", "boxed", "5", "correct", "boxed_missing"),
    ("$\\boxed{3}$, $\\boxed{5}$", "boxed", "5", "wrong", "several_boxes"),
    ("\\boxed{5} and again \\boxed{5}", "boxed", "5", "correct", "same_spelling"),
    ("#### 72\n" + "check " * 60, "gsm8k", "72", "correct", "clipped"),
    ("#### $1,080", "gsm8k", "1080", "correct", "dollar"),
    ("\\boxed{\\$5}", "boxed", "5", "correct", "dollar"),
    ("####72", "gsm8k", "72", "correct", "marker_spacing"),
    ("####\n72", "gsm8k", "72", "correct", "marker_spacing"),
    ("#### 18 - 6 = 12", "gsm8k", "18", "unparsable_pred", "not_whole_answer"),
    ("\\boxed{5 \\text{ or } 6}", "boxed", "5", "wrong", "not_whole_answer"),
    ("#### 1,080.00", "gsm8k", "1080", "correct", "thousands_separator"),
    ("\\boxed{1\\,080}", "boxed", "1080", "correct", "thousands_separator"),
    ("#### 12 apples", "gsm8k", "12", "correct", "unit"),
    ("\\boxed{90^\\circ}", "boxed", "90", "correct", "unit"),
    ("#### 12.0", "gsm8k", "12", "correct", "equivalent_spelling"),
    ("\\boxed{0.5}", "boxed", "\\frac{1}{2}", "correct", "equivalent_spelling"),
    ("#### 12", "gsm8k", "Natalia sold 12.\n#### 12", "correct", "same_spelling"),
    ("#### 13", "gsm8k", "12", "wrong", "other"),
    (None, "gsm8k", "12", "error", "other"),
])
def test_answer_shapes(response, answer_format, gold, verdict, shape):
    from rewards.reporting.shapes import SHAPES, answer_shape

    assert answer_shape(response, answer_format, gold, verdict) == shape
    assert shape in SHAPES


@pytest.mark.parametrize("response", [
    "\\boxed{" * 100_000, "#### " * 100_000, "{" * 1_000_000, "\\boxed{1}, " * 50_000,
    "<think>" + "\\boxed{2}" * 40_000 + "</think>" + "x" * 500_000, "####" + "9" * 300_000,
])
def test_answer_shape_is_bounded_on_pathological_responses(response):
    from rewards.reporting.shapes import answer_shape

    for answer_format in ("gsm8k", "boxed"):
        _, took = fastest(lambda: answer_shape(response, answer_format, "12", "wrong"), under=2.0)
        assert took < 2.0


def test_report_of_scored_rows_with_damaged_results(tmp_path, capsys):
    """A scored file whose own results are damaged (our score not a number, no response) is reported;
    those rows are counted apart, the rest compared."""
    base = {"data_source": "openai/gsm8k", "response": "#### $12", "ground_truth": "12", "acc": 1.0,
            "verdict": "correct", "pred": "12", "prev_score": 0.0}
    rows = [{**base, "score": 1.0}, {**base, "score": "high"}, {**base, "score": 1.0, "prev_score": "n/a"},
            {k: v for k, v in base.items() if k != "response"} | {"score": 1.0}]
    path = tmp_path / "scored.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["report", str(path), "-o", str(tmp_path / "p.html"), "--json", "-q"]) == 0
    audit = json.loads(capsys.readouterr().out)["audit"]
    assert audit["skipped"] == 2
    assert "our score 'high' is not a number" in audit["skipped_messages"][0]
    assert audit["sources"]["openai/gsm8k"]["correct_but_unpaid"] == 1


def test_the_audit_findings_are_flags_of_the_run_report(dump, tmp_path, capsys):
    """A page must not say "No trouble pattern found" above an audit in which the run was paid for
    wrong answers or its advantage signs changed: those findings are flags, on the page and in the summary."""
    family, folder, written = dump
    source = SOURCES[family]
    page = tmp_path / "run.html"
    assert main(["report", str(folder), "--data-source", source, "-o", str(page), "--json", "-q"]) == 0
    numbers = json.loads(capsys.readouterr().out)
    audit = numbers["audit"]["sources"][source]
    assert audit["groups_sign_changed_share"] >= 0.10 and audit["paid_but_wrong"] >= 0.01 * audit["judged"]
    kinds = {f["kind"] for f in numbers["flags"] if f["data_source"] == source}
    assert {"audit_sign_changes", "audit_paid_but_wrong"} <= kinds
    html = page.read_text()
    assert "No trouble pattern found" not in html and "audit_sign_changes" in html
    assert main(["report", str(folder), "--data-source", source, "-o", str(page), "-q"]) == 0
    assert f"flag audit_sign_changes ({source}): {audit['groups_sign_changed']} of {audit['groups']}" \
        in capsys.readouterr().out


def test_the_summary_always_lists_every_paid_but_wrong_cause():
    """Four large correct-but-unpaid causes and two small paid-but-wrong ones: the three largest
    alone would hide the dangerous direction; the summary lists both paid-but-wrong causes."""
    audit = Audit("the input's reward")
    unpaid = {"dollar": "#### $12", "thousands_separator": "#### 1,200", "unit": "#### 12 dollars",
              "marker_spacing": "####12"}
    for shape, response in unpaid.items():
        for _ in range(10):
            audit.add(Comparison("openai/gsm8k", 0.0, 1.0, "correct", response=response, gold="12",
                                 answer_format="gsm8k", pred="12"))
    for response in ("#### 12 or 13", "<think>#### 12</think>\nI am not sure."):
        audit.add(Comparison("openai/gsm8k", 1.0, 0.0, "wrong", response=response, gold="12",
                             answer_format="gsm8k", pred="13"))
    lines = audit.lines()
    listed = [line for line in lines if line.startswith("      ")]
    assert sum("paid_but_wrong" in line for line in listed) == 2
    assert sum("correct_but_unpaid" in line for line in listed) == 3
