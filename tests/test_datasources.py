"""Dataset families, loading and templates, on hand-written fixtures shaped like the hub datasets."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from fractions import Fraction

import datasets
import pytest
from hypothesis import given
from hypothesis import strategies as st

from datasources import FAMILIES, FamilyError, find_family, table_family
from datasources.base import SkipRow
from datasources.geometry3k import extract as geo_extract
from datasources.gsm8k import gold_from_solution
from datasources.loading import SourceError, load_splits, select_rows
from datasources.hendrycks_math import extract as math_extract
from datasources.templates import (BOXED_SUFFIX, GSM8K_SUFFIX, THINK_BOX, TemplateError, build_prompt,
                                   get_template)
from rewards import compute_score
from tests.conftest import FIXTURES, ROOT

HUB = FIXTURES / "hub"
# hub id → (config, {split: rows}, columns) exactly as the fixtures mirror them
SHAPES = {
    "openai/gsm8k": ("main", {"train": 6, "test": 3}, {"question", "answer"}),
    "lighteval/MATH": (None, {"train": 7, "test": 3}, {"problem", "level", "type", "solution"}),
    "DigitalLearningGmbH/MATH-lighteval": (None, {"train": 3, "test": 2}, {"problem", "level", "type", "solution"}),
    "HuggingFaceH4/MATH-500": (None, {"test": 4}, {"problem", "solution", "answer", "subject", "level", "unique_id"}),
    "xiaodongguaAIGC/X-R1-750": (None, {"train": 4, "test": 2}, {"problem", "solution", "answer"}),
    "hiyouga/geometry3k": (None, {"train": 3, "validation": 1, "test": 2}, {"images", "problem", "answer"}),
}


@pytest.mark.parametrize("hub_id", list(SHAPES))
def test_fixture_loads_through_datasets_like_the_hub(hub_id):
    config, splits, columns = SHAPES[hub_id]
    loaded = load_splits(str(HUB / hub_id), config)
    direct = datasets.load_dataset(str(HUB / hub_id), config)
    assert {k: len(v) for k, v in loaded.items()} == splits == {k: len(v) for k, v in direct.items()}
    for split in loaded.values():
        assert set(split.column_names) == columns


def test_geometry3k_fixture_has_real_images():
    train = datasets.load_dataset(str(HUB / "hiyouga/geometry3k"))["train"]
    assert isinstance(train.features["images"].feature, datasets.Image)
    image = train[0]["images"][0]
    assert image.size == (48, 48) and train[0]["problem"].startswith("<image>")


def test_gsm8k_config_choice():
    socratic = load_splits(str(HUB / "openai/gsm8k"), "socratic")
    assert "**" in socratic["train"][0]["answer"]
    with pytest.raises(SourceError):
        load_splits(str(HUB / "openai/gsm8k"), "no-such-config")


@pytest.mark.parametrize("solution, gold", [
    ("so 72 clips.\n#### 72", "72"),
    ("#### 1,080", "1080"),
    ("#### -7", "-7"),
    ("#### 11.20", "11.2"),
    ("first #### 3 then\n#### 4", "4"),
])
def test_gsm8k_gold_is_the_canonical_number_after_the_last_marker(solution, gold):
    assert gold_from_solution(solution) == gold


@pytest.mark.parametrize("solution", ["no marker 72", "#### seventy", "####"])
def test_gsm8k_unreadable_gold_skips_the_row(solution):
    with pytest.raises(SkipRow):
        gold_from_solution(solution)


@given(st.fractions(min_value=-10**9, max_value=10**9).filter(lambda f: f.denominator in (1, 2, 4, 5, 10, 100)),
       st.booleans())
def test_gsm8k_gold_round_trips_through_its_own_scorer(value, separators):
    text = f"{float(value):,.2f}" if separators else str(float(value))
    gold = gold_from_solution(f"work...\n#### {text}")
    assert Fraction(gold) == value
    assert compute_score("openai/gsm8k", f"#### {gold}", gold)["verdict"] == "correct"


def test_math_gold_is_the_last_closed_box():
    row = {"problem": "p", "level": "Level 2", "type": "Algebra",
           "solution": "roots $\\boxed{2}$ and $3$; the larger is $\\boxed{\\frac{3}{1}}$."}
    item = math_extract(row)
    assert item.gold == "\\frac{3}{1}"
    assert item.extra["level"] == "Level 2" and item.extra["type"] == "Algebra"


def test_math500_row_keeps_subject_level_and_id():
    row = {"problem": "p", "solution": "so $\\boxed{4.5}$", "answer": "4.5", "subject": "Prealgebra",
           "level": 1, "unique_id": "test/prealgebra/2.json"}
    item = math_extract(row)
    assert (item.gold, item.extra["level"], item.extra["type"], item.extra["unique_id"]) == \
        ("4.5", "Level 1", "Prealgebra", "test/prealgebra/2.json")


def test_math_without_box_uses_answer_column_else_skips():
    assert math_extract({"problem": "p", "solution": "it is 5", "answer": "5", "level": 1}).gold == "5"
    with pytest.raises(SkipRow, match="boxed"):
        math_extract({"problem": "p", "solution": "it is 5", "level": "Level 1", "type": "Algebra"})
    with pytest.raises(SkipRow, match="boxed"):
        math_extract({"problem": "p", "solution": "cut off \\boxed{5", "level": "Level 1"})
    with pytest.raises(SkipRow, match="problem"):
        math_extract({"problem": "  ", "solution": "\\boxed{5}"})


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buf, format="PNG")
    return buf.getvalue()


def test_geometry3k_keeps_image_bytes_and_placeholders():
    png = _png()
    item = geo_extract({"images": [{"bytes": png, "path": None}], "problem": "<image>Find x.", "answer": "5"})
    assert item.images == [{"bytes": png, "path": None}] and item.question == "<image>Find x."
    bare = geo_extract({"images": [{"bytes": png, "path": None}] * 2, "problem": "Find x.", "answer": "5"})
    assert bare.question == "<image><image>Find x."
    with pytest.raises(SkipRow, match="placeholders"):
        geo_extract({"images": [{"bytes": png, "path": None}], "problem": "<image>a<image>b", "answer": "5"})


def test_templates_are_named_and_exact():
    gsm = build_prompt(get_template("gsm8k"), " How many? ", answer_format="gsm8k")
    assert gsm == [{"role": "user", "content": "How many? " + GSM8K_SUFFIX}]
    assert GSM8K_SUFFIX == 'Let\'s think step by step and output the final answer after "####".'
    assert build_prompt(get_template("boxed"), "Q")[0]["content"] == "Q " + BOXED_SUFFIX
    r1 = build_prompt(get_template("r1"), "Q", answer_format="gsm8k")
    assert r1[0]["role"] == "system" and "<think>" in r1[0]["content"] and "####" in r1[0]["content"]
    assert "\\boxed" in build_prompt(get_template("r1"), "Q", answer_format="boxed")[0]["content"]
    assert "</answer>" not in r1[0]["content"]  # r1 never asks for tags: format_rule=think_answer needs r1_tags
    tags = build_prompt(get_template("r1_tags"), "Q", answer_format="gsm8k")
    assert tags[0]["role"] == "system" and "<answer> </answer> tags" in tags[0]["content"]
    named = build_prompt(get_template("plain"), "Q", system="think_box")
    assert named == [{"role": "system", "content": THINK_BOX}, {"role": "user", "content": "Q"}]
    literal = build_prompt(get_template("gsm8k"), "Q", answer_format="gsm8k", system="Be brief.")
    assert literal[0] == {"role": "system", "content": "Be brief."}
    with pytest.raises(TemplateError):
        get_template("chatml")


def test_family_found_by_name_hub_id_path_or_columns():
    assert find_family("gsm8k") is FAMILIES["gsm8k"]
    assert find_family("HuggingFaceH4/MATH-500") is FAMILIES["math"]
    assert find_family(str(HUB / "xiaodongguaAIGC/X-R1-750")) is FAMILIES["x_r1_750"]
    assert find_family("my.jsonl", SHAPES["HuggingFaceH4/MATH-500"][2]) is FAMILIES["math"]
    assert find_family("my.jsonl", SHAPES["xiaodongguaAIGC/X-R1-750"][2]) is FAMILIES["x_r1_750"]
    assert find_family("my.jsonl", SHAPES["hiyouga/geometry3k"][2]) is FAMILIES["geometry3k"]
    assert find_family("my.jsonl", SHAPES["openai/gsm8k"][2]) is FAMILIES["gsm8k"]
    with pytest.raises(FamilyError, match="--family"):
        find_family("my.jsonl", {"q", "a"})
    assert FAMILIES["math"].data_source_for(str(HUB / "DigitalLearningGmbH/MATH-lighteval")) == \
        "DigitalLearningGmbH/MATH-lighteval"


def test_seeded_shuffle_and_limit_are_reproducible_and_traceable():
    train = load_splits(str(HUB / "openai/gsm8k"), "main")["train"]
    a, ia = select_rows(train, limit=4, seed=3)
    b, ib = select_rows(train, limit=4, seed=3)
    c, ic = select_rows(train, limit=4, seed=4)
    assert ia == ib and len(ia) == 4 and ia != ic
    assert [r["question"] for r in a] == [train[i]["question"] for i in ia]
    same, order = select_rows(train)
    assert same is train and order == list(range(len(train)))


def test_table_family_maps_fields_and_extracts():
    family = table_family("q", "a", extractor="boxed", keep=("id",))
    item = family.extract({"q": "What?", "a": "so \\boxed{7}", "id": 3})
    assert (item.question, item.gold, item.extra["id"]) == ("What?", "7", 3)
    assert table_family("q", "a", extractor="last_number").extract({"q": "Q", "a": "so 1,200 eggs"}).gold == "1200"
    with pytest.raises(SkipRow, match="id"):
        family.extract({"q": "What?", "a": "\\boxed{7}"})
    with pytest.raises(ValueError):
        table_family("q", "a", extractor="magic")


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet", "disk"])
def test_local_tables_load_in_every_format(tmp_path, suffix):
    data = datasets.Dataset.from_dict({"q": ["one?", "two?"], "a": ["1", "2"]})
    path = tmp_path / ("data" + suffix if suffix != "disk" else "saved")
    if suffix == ".jsonl":
        data.to_json(str(path))
    elif suffix == ".csv":
        data.to_csv(str(path), index=False)
    elif suffix == ".parquet":
        data.to_parquet(str(path))
    else:
        data.save_to_disk(str(path))
    loaded = load_splits(str(path))
    assert list(loaded) == ["train"] and loaded["train"]["q"] == ["one?", "two?"]


def test_a_file_named_test_loads_as_the_test_split(tmp_path):
    (tmp_path / "test.jsonl").write_text('{"q": "x", "a": "1"}\n')
    assert list(load_splits(str(tmp_path / "test.jsonl"))) == ["test"]


def test_bad_sources_fail_with_one_clear_sentence(tmp_path):
    with pytest.raises(SourceError, match="no such file"):
        load_splits(str(tmp_path / "missing.jsonl"))
    (tmp_path / "data.txt").write_text("x")
    with pytest.raises(SourceError, match="unsupported file type"):
        load_splits(str(tmp_path / "data.txt"))


def test_hub_id_offline_fails_over_to_a_local_path_message(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())", "prepare", "openai/gsm8k", "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("rewards prepare: cannot load 'openai/gsm8k' from the Hugging Face Hub")
    assert "local file or folder" in message and "Traceback" not in proc.stderr
