"""`rewards validate`: every planted fault is found and names its row and field."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main
from datasources.pipeline import PrepareOptions, prepare
from rewards.registry import get_scorer
from schemas.validate import validate_file
from schemas.verl_row import make_row, write_parquet
from tests.conftest import FIXTURES

HUB = FIXTURES / "hub"


def row(i, question="What is 2+3?", gold="5", source="openai/gsm8k", **kw):
    return make_row(data_source=source, prompt=[{"role": "user", "content": f"{question} #{i}"}],
                    ground_truth=gold, extra_info={"split": "train", "index": i}, **kw)


def by_check(report, check, severity="errors"):
    return [(p.row, p.field) for p in getattr(report, severity) if p.check == check]


@pytest.fixture(scope="module")
def gsm8k_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("gsm8k")
    prepare(PrepareOptions(source=str(HUB / "openai/gsm8k"), out=str(out)))
    return out


def test_a_prepared_file_is_clean(gsm8k_dir, tokenizer):
    report = validate_file(gsm8k_dir / "train.parquet", tokenizer=tokenizer, max_prompt_length=512,
                           against=[gsm8k_dir / "test.parquet"])
    assert report.ok and not report.warnings, [str(p) for p in report.errors + report.warnings]
    stats = report.stats
    assert stats["rows"] == 6 and stats["data_sources"] == {"openai/gsm8k": 6}
    assert stats["gold"] == {"correct": 6} and stats["duplicates"] == 0
    assert stats["prompt_tokens"]["overlong"] == 0
    assert 0 < stats["prompt_tokens"]["p50"] <= stats["prompt_tokens"]["p95"] <= stats["prompt_tokens"]["max"]
    assert stats["overlap"] == {str(gsm8k_dir / "test.parquet"): 0}


def test_every_planted_fault_is_found_at_its_row(tmp_path, tokenizer):
    rows = [row(i) for i in range(8)]
    rows[1]["reward_model"]["ground_truth"] = None                      # missing field
    rows[2]["data_source"] = "openai/gsm8k-typo"                         # unknown data_source
    rows[3]["reward_model"]["ground_truth"] = "twelve"                   # unparsable gold
    rows[4]["prompt"][0]["content"] = "word " * 400                      # overlong prompt
    rows[5]["prompt"] = [dict(m) for m in rows[0]["prompt"]]             # duplicate of row 0
    rows[6]["prompt"] = [{"role": "user", "content": rows[0]["prompt"][0]["content"]}]
    rows[6]["reward_model"]["ground_truth"] = "6"                        # same prompt, other gold
    path = tmp_path / "broken.parquet"
    write_parquet(rows, path)
    report = validate_file(path, tokenizer=tokenizer, max_prompt_length=200)
    assert not report.ok
    assert by_check(report, "schema") == [(1, "reward_model.ground_truth")]
    assert by_check(report, "data_source") == [(2, "data_source")]
    assert "did you mean 'openai/gsm8k'" in next(p.message for p in report.errors if p.check == "data_source")
    assert by_check(report, "gold") == [(3, "reward_model.ground_truth")]
    assert "cannot be parsed" in next(p.message for p in report.errors if p.check == "gold")
    assert by_check(report, "length") == [(4, "prompt")]
    assert by_check(report, "duplicate", "warnings") == [(5, "prompt")]
    assert "duplicate of row 0" in report.warnings[0].message
    assert by_check(report, "duplicate") == [(6, "prompt")]
    assert report.stats["prompt_tokens"]["overlong"] == 1 and report.stats["duplicates"] == 2
    assert str(report.errors[0]).startswith(f"{path}: row 1: reward_model.ground_truth: ")


def test_wrong_shapes_are_named(tmp_path):
    table = pa.table({"data_source": ["openai/gsm8k"] * 3,
                      "prompt": ["What is 1+1?", "x", "y"],
                      "ability": ["math"] * 3})
    pq.write_table(table, tmp_path / "flat.parquet")
    report = validate_file(tmp_path / "flat.parquet")
    assert (None, "reward_model") in by_check(report, "schema")
    assert (0, "prompt") in by_check(report, "schema")
    assert "is a string" in next(p.message for p in report.errors if p.row == 0)
    assert by_check(report, "schema", "warnings") == [(None, "extra_info")]

    rows = [row(0), row(1), row(2), row(3)]
    rows[0]["prompt"] = [{"role": "robot", "content": "hi"}]
    rows[1]["prompt"] = [{"role": "system", "content": "only a system turn"}]
    rows[2]["prompt"][0]["content"] = "  "
    rows[3]["data_source"] = ""
    write_parquet(rows, tmp_path / "shapes.parquet")
    report = validate_file(tmp_path / "shapes.parquet")
    assert by_check(report, "schema") == [(0, "prompt[0].role"), (1, "prompt"), (2, "prompt[0].content")]
    assert by_check(report, "data_source") == [(3, "data_source")]


def test_math_golds_go_through_the_math_scorer(tmp_path):
    rows = [row(0, gold="\\frac{3}{4}", source="lighteval/MATH"), row(1, gold="\\frac{1}{", source="lighteval/MATH"),
            row(2, gold="(-\\infty, 2]", source="HuggingFaceH4/MATH-500"),
            row(3, gold="12", source="xiaodongguaAIGC/X-R1-750")]
    write_parquet(rows, tmp_path / "math.parquet")
    report = validate_file(tmp_path / "math.parquet")
    assert by_check(report, "gold") == [(1, "reward_model.ground_truth")]
    assert report.stats["gold"]["correct"] == 3


def test_golds_nothing_can_match_are_flagged_with_the_rule(tmp_path):
    """`\\sqrt{}` equals itself as text, and nothing else: the self-check alone passed it."""
    golds = ["\\sqrt{}", "1 +* 2", "\\frac{1}{}", "\\frac{1}{", "\\frac{1}{2}", "2**3", "(-\\infty, 2]"]
    rows = [row(i, gold=g, source="lighteval/MATH") for i, g in enumerate(golds)]
    write_parquet(rows, tmp_path / "math.parquet")
    report = validate_file(tmp_path / "math.parquet")
    messages = {p.row: p.message for p in report.errors if p.check == "gold"}
    assert sorted(messages) == [0, 1, 2, 3]
    assert "empty argument" in messages[0] and "`\\sqrt{}`" in messages[0]
    assert "two operators in a row: `+*`" in messages[1]
    assert "empty argument" in messages[2]
    assert "unbalanced braces" in messages[3] and "boxed" not in messages[3]   # the user wrote no box
    assert report.stats["gold"] == {"malformed": 4, "correct": 3}


def gold_response(data_source: str, gold: str) -> str:
    return get_scorer(data_source).render_gold(gold)


def test_gold_dressing_per_scorer():
    assert gold_response("openai/gsm8k", "72") == "#### 72"
    assert gold_response("lighteval/MATH", "\\frac{1}{2}") == "\\boxed{\\frac{1}{2}}"


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, format="PNG")
    return buf.getvalue()


def test_images_must_match_placeholders_and_decode(tmp_path):
    png = {"bytes": _png(), "path": None}
    rows = [row(0, question="<image>Find x.", gold="5", source="hiyouga/geometry3k", images=[png]),
            row(1, question="<image><image>Find y.", gold="5", source="hiyouga/geometry3k", images=[png]),
            row(2, question="<image>Find z.", gold="5", source="hiyouga/geometry3k",
                images=[{"bytes": b"not a png", "path": None}])]
    write_parquet(rows, tmp_path / "geo.parquet")
    report = validate_file(tmp_path / "geo.parquet")
    assert by_check(report, "images") == [(1, "images"), (2, "images[0]")]
    from importlib.util import find_spec

    if find_spec("qwen_vl_utils") is None:  # verl's multimodal length filter would drop every row
        assert by_check(report, "images", "warnings") == [(None, "images")]


def test_same_text_with_different_images_is_not_a_duplicate(tmp_path):
    from PIL import Image

    def png(color):
        buf = io.BytesIO()
        Image.new("RGB", (4, 4), color).save(buf, format="PNG")
        return {"bytes": buf.getvalue(), "path": None}

    rows = [make_row(data_source="hiyouga/geometry3k", prompt=[{"role": "user", "content": "<image>Find x."}],
                     ground_truth="5", extra_info={"split": "train", "index": i}, images=[png(c)])
            for i, c in enumerate(["red", "blue", "red"])]
    write_parquet(rows, tmp_path / "geo.parquet")
    report = validate_file(tmp_path / "geo.parquet")
    assert report.stats["duplicates"] == 1 and by_check(report, "duplicate", "warnings") == [(2, "prompt")]


def test_overlap_between_training_files_is_named_row_by_row(tmp_path):
    write_parquet([row(i) for i in range(4)], tmp_path / "gsm8k.parquet")
    write_parquet([row(i) for i in (3, 9)], tmp_path / "math.parquet")
    report = validate_file(tmp_path / "gsm8k.parquet", against=[tmp_path / "math.parquet"])
    assert report.ok and report.stats["overlap"] == {str(tmp_path / "math.parquet"): 1}
    assert by_check(report, "overlap", "warnings") == [(3, "prompt")]
    assert "row 0" in report.warnings[0].message and report.contamination == []
    # a file named as held out is held out, whatever its rows' split says
    write_parquet([row(i) for i in (3, 9)], tmp_path / "test.parquet")
    report = validate_file(tmp_path / "gsm8k.parquet", against=[tmp_path / "test.parquet"])
    assert by_check(report, "overlap", "warnings") == [] and len(report.contamination) == 1


def mixed_files(folder):
    """A GSM8K-shaped and a MATH-shaped file (different extra_info fields), and one whose shared
    field `index` is text: the union verl loads, and the clash it cannot."""
    def one(i, **extra):
        return make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"What is {i}+1?"}],
                        ground_truth=str(i + 1), extra_info={"split": "train", "index": i, **extra})
    write_parquet([one(i, answer=f"#### {i + 1}") for i in range(2)], folder / "gsm8k.parquet")
    write_parquet([one(i, solution=f"$\\boxed{{{i + 1}}}$", level="Level 1") for i in (5, 6)], folder / "math.parquet")
    write_parquet([{**one(7), "extra_info": {"split": "train", "index": "id-7"}}], folder / "dapo.parquet")
    return [folder / name for name in ("gsm8k.parquet", "math.parquet", "dapo.parquet")]


def test_extra_info_warns_only_where_verl_cannot_concatenate(tmp_path):
    gsm8k, math, dapo = mixed_files(tmp_path)
    assert by_check(validate_file(gsm8k, against=[math]), "schema", "warnings") == []
    report = validate_file(gsm8k, against=[dapo])
    assert by_check(report, "schema", "warnings") == [(None, "extra_info")]
    assert "`extra_info.index` is int64 here and string in " in report.warnings[0].message


@pytest.mark.verl
def test_verls_dataset_loads_the_union_and_refuses_the_clash(tmp_path, tokenizer):
    """What the warning rests on, with verl 0.9.1's own RLHFDataset."""
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    gsm8k, math, dapo = mixed_files(tmp_path)
    config = OmegaConf.create({"max_prompt_length": 256, "cache_dir": str(tmp_path / "cache")})
    both = RLHFDataset([str(gsm8k), str(math)], tokenizer, config)
    assert len(both) == 4 and both[3]["extra_info"]["level"] == "Level 1" and both[0]["extra_info"]["level"] is None
    with pytest.raises(ValueError, match="can't be aligned"):
        RLHFDataset([str(gsm8k), str(dapo)], tokenizer, config)


def test_unreadable_and_empty_files(tmp_path):
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    assert by_check(validate_file(tmp_path / "junk.parquet"), "schema") == [(None, None)]
    write_parquet([], tmp_path / "empty.parquet")
    assert not validate_file(tmp_path / "empty.parquet").ok
    (tmp_path / "broken.jsonl").write_text(json.dumps(row(0)) + "\n{not json\n")
    [problem] = validate_file(tmp_path / "broken.jsonl").errors
    assert "broken.jsonl line 2: invalid JSON" in problem.message


def test_long_lists_are_capped_but_counted(tmp_path):
    rows = [row(i, gold="not a number") for i in range(60)]
    write_parquet(rows, tmp_path / "bad.parquet")
    report = validate_file(tmp_path / "bad.parquet")
    gold = [p for p in report.errors if p.check == "gold"]
    assert len(gold) == 20 and all(p.row is not None for p in gold)   # a finding per row, no pseudo-row
    assert report.stats["error_count"] == 60 and report.stats["error_counts"] == {"gold": 60}
    assert report.stats["unlisted"] == [{"severity": "error", "check": "gold", "field": "reward_model.ground_truth", "count": 40}]
    every = validate_file(tmp_path / "bad.parquet", listed=None)
    assert len([p for p in every.errors if p.check == "gold"]) == 60 and every.stats["unlisted"] == []


def test_validate_json_lists_each_finding_and_the_text_counts_the_rest(tmp_path, capsys):
    write_parquet([row(i, gold="not a number") for i in range(30)], tmp_path / "bad.parquet")
    assert main(["validate", str(tmp_path / "bad.parquet"), "--json"]) == 1
    [report] = json.loads(capsys.readouterr().out)["reports"]
    assert len(report["errors"]) == report["stats"]["error_count"] == 30
    assert all(p["row"] is not None for p in report["errors"])
    main(["validate", str(tmp_path / "bad.parquet"), "-q"])
    out = capsys.readouterr().out
    assert "errors (30):" in out and "... and 10 more gold errors (`--json` lists every one)" in out


def test_held_out_prompts_in_a_training_file_are_contamination_one_line_a_pair(tmp_path, capsys):
    """DAPO's training file holding MATH test prompts: contamination, summed up once per pair of files,
    apart from train/train overlap, which stays a warning per row."""
    write_parquet([row(i) for i in range(30)], tmp_path / "dapo_train.parquet")
    write_parquet([make_row(data_source="lighteval/MATH", prompt=[{"role": "user", "content": f"What is 2+3? #{i}"}],
                            ground_truth="5", extra_info={"split": "test", "index": i}) for i in range(25)],
                  tmp_path / "math_test.parquet")
    write_parquet([row(i) for i in (0, 1)], tmp_path / "gsm8k_train.parquet")
    report = validate_file(tmp_path / "dapo_train.parquet",
                           against=[tmp_path / "math_test.parquet", tmp_path / "gsm8k_train.parquet"])
    [line] = report.contamination
    assert line.message.startswith(f"25 prompts of held-out file {tmp_path / 'math_test.parquet'} are in this "
                                   f"training file (rows 0, 1, 2, 3, 4 and 20 more here)")
    assert by_check(report, "overlap", "warnings") == [(0, "prompt"), (1, "prompt")]
    assert report.ok and report.stats["contamination_count"] == 1
    main(["validate", str(tmp_path / "math_test.parquet"), "--against", str(tmp_path / "dapo_train.parquet"),
          "--no-gold-check", "-q"])
    out = capsys.readouterr().out
    assert "contamination (1):" in out and "25 of its held-out prompts are in training file" in out


@pytest.mark.verl
def test_token_lengths_match_verls_own_filter(gsm8k_dir, tokenizer):
    """The overlong count equals what verl 0.9.1's RLHFDataset drops at the same max_prompt_length."""
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    path = gsm8k_dir / "train.parquet"
    for limit in (90, 101, 110):
        report = validate_file(path, tokenizer=tokenizer, max_prompt_length=limit, check_gold=False)
        cfg = OmegaConf.create({"max_prompt_length": limit, "filter_overlong_prompts": True,
                                "filter_overlong_prompts_workers": 1, "cache_dir": str(gsm8k_dir / "cache")})
        kept = len(RLHFDataset(str(path), tokenizer, cfg))
        assert report.stats["prompt_tokens"]["overlong"] == report.stats["rows"] - kept


def test_cli_exit_codes_json_and_folders(gsm8k_dir, tokenizer_dir, tmp_path, capsys):
    assert main(["validate", str(gsm8k_dir), "--tokenizer", str(tokenizer_dir), "--max-prompt-length", "512"]) == 0
    out = capsys.readouterr().out
    assert out.count("  OK") == 2 and "prompt tokens: p50" in out and "gold self-check: 6 correct" in out

    rows = [row(0), row(1, source="nope/source"), row(0)]
    write_parquet(rows, tmp_path / "bad.parquet")
    assert main(["validate", str(tmp_path / "bad.parquet"), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    report = data["reports"][0]
    assert data["ok"] is False and report["errors"][0]["row"] == 1 and report["errors"][0]["field"] == "data_source"
    assert report["warnings"][0]["check"] == "duplicate" and report["warnings"][0]["row"] == 2

    assert main(["validate", str(tmp_path / "missing.parquet")]) == 2
    assert main(["validate", str(gsm8k_dir), "--tokenizer", str(tmp_path / "no-tokenizer")]) == 2
    assert "cannot load a tokenizer" in capsys.readouterr().err


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.fixed_dictionaries({
    "source": st.sampled_from(["openai/gsm8k", "lighteval/MATH", "", "unknown/x"]),
    "gold": st.one_of(st.none(), _text),
    "role": st.sampled_from(["user", "system", "bot"]),
    "content": _text,
}), min_size=1, max_size=6))
def test_validate_never_raises_and_every_problem_is_located(tmp_path_factory, items):
    rows = [{"data_source": it["source"], "prompt": [{"role": it["role"], "content": it["content"]}],
             "ability": "math", "reward_model": {"style": "rule", "ground_truth": it["gold"]},
             "extra_info": {"split": "train", "index": i}} for i, it in enumerate(items)]
    path = tmp_path_factory.mktemp("prop") / "rows.parquet"
    write_parquet(rows, path)
    report = validate_file(path)
    assert report.stats["rows"] == len(rows)
    for problem in report.errors + report.warnings:
        assert problem.file == str(path) and (problem.row is None or 0 <= problem.row < len(rows))
    if report.ok:
        assert all(it["source"] in ("openai/gsm8k", "lighteval/MATH") and it["gold"] and it["role"] != "bot"
                   and it["content"].strip() for it in items)


def test_a_byte_that_is_not_utf8_is_one_line_naming_it(tmp_path, capsys):
    """pyarrow reads the bytes and fails later, in the middle of a check; the one reader names the line."""
    data = b"".join(json.dumps(row(i)).encode() + b"\n" for i in range(3)).replace(b"#1", b"#\xff1")
    (tmp_path / "rows.jsonl").write_bytes(data)
    assert main(["validate", str(tmp_path / "rows.jsonl"), "-q"]) == 1
    out, err = capsys.readouterr()
    assert "rows.jsonl line 2: not UTF-8 (byte 0xff" in out and "Traceback" not in out + err


def test_the_documented_output_is_what_validate_prints(tmp_path, monkeypatch, capsys):
    """docs/data.md shows a real run; this is that run."""
    import re

    from tests.conftest import ROOT

    block = re.search(r"```\n\$ rewards validate (\S+)\n(.*?)```", (ROOT / "docs" / "data.md").read_text(), re.S)
    rows = [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"Question {i}?"}],
                     ground_truth=g, extra_info={"split": "train", "index": i})
            for i, g in enumerate(["72", "10", "5", "twelve", "1080"])]
    monkeypatch.chdir(tmp_path)
    write_parquet([*rows, dict(rows[1])], block.group(1))
    assert main(["validate", block.group(1), "-q"]) == 1
    assert capsys.readouterr().out == block.group(2)
