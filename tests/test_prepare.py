"""`rewards prepare` on every hub-shaped fixture, and verl 0.9.1's own RLHFDataset reading the output."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from cli.main import main
from datasources.pipeline import PrepareError, PrepareOptions, prepare
from schemas.verl_row import REWARD_MODEL, row_schema
from tests.conftest import FIXTURES

HUB = FIXTURES / "hub"
# hub id → (family, template, {file: rows})
EXPECTED = {
    "openai/gsm8k": ("gsm8k", "gsm8k", {"train.parquet": 6, "test.parquet": 3}),
    "lighteval/MATH": ("math", "boxed", {"train.parquet": 7, "test.parquet": 3}),
    "DigitalLearningGmbH/MATH-lighteval": ("math", "boxed", {"train.parquet": 3, "test.parquet": 2}),
    "HuggingFaceH4/MATH-500": ("math", "boxed", {"test.parquet": 4}),
    "xiaodongguaAIGC/X-R1-750": ("x_r1_750", "boxed", {"train.parquet": 4, "test.parquet": 2}),
    "hiyouga/geometry3k": ("geometry3k", "think_box", {"train.parquet": 3, "test.parquet": 2}),
}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    """Each fixture prepared once with its defaults: hub id → output folder."""
    root = tmp_path_factory.mktemp("prepared")
    out = {}
    for hub_id in EXPECTED:
        out[hub_id] = root / hub_id.replace("/", "__")
        prepare(PrepareOptions(source=str(HUB / hub_id), out=str(out[hub_id])))
    return out


@pytest.mark.parametrize("hub_id", list(EXPECTED))
def test_prepare_writes_verl_rows_and_a_manifest(prepared, hub_id):
    family, template, files = EXPECTED[hub_id]
    manifest = json.loads((prepared[hub_id] / "manifest.json").read_text())
    assert (manifest["family"], manifest["template"], manifest["data_source"]) == (family, template, hub_id)
    assert {name: info["rows"] for name, info in manifest["files"].items()} == files
    assert len(manifest["content_sha256"]) == 64 and manifest["skipped"] == 0
    for name, count in files.items():
        table = pq.read_table(prepared[hub_id] / name)
        assert table.num_rows == count
        assert table.schema.field("prompt").type == row_schema().field("prompt").type
        assert table.schema.field("reward_model").type == REWARD_MODEL
        split = "train" if name == "train.parquet" else "test"
        for index, row in enumerate(table.to_pylist()):
            assert row["data_source"] == hub_id and row["ability"] == "math"
            assert row["reward_model"]["style"] == "rule" and row["reward_model"]["ground_truth"]
            assert row["extra_info"]["split"] == split and row["extra_info"]["index"] == index
            assert row["prompt"][-1]["role"] == "user"
            if family == "geometry3k":
                assert len(row["images"]) == row["prompt"][-1]["content"].count("<image>") == 1
                assert row["images"][0]["bytes"].startswith(b"\x89PNG")


def test_golds_are_what_each_family_promises(prepared):
    def golds(hub_id, name="train.parquet"):
        return [r["ground_truth"] for r in pq.read_table(prepared[hub_id] / name).column("reward_model").to_pylist()]

    assert golds("openai/gsm8k") == ["54", "1080", "11.2", "-7", "55", "96"]
    assert golds("lighteval/MATH")[:4] == ["12", "\\frac{3}{4}", "(-\\infty, 2]", "3"]
    assert golds("HuggingFaceH4/MATH-500", "test.parquet")[0] == "\\left( 3, \\frac{\\pi}{2} \\right)"
    math = pq.read_table(prepared["lighteval/MATH"] / "train.parquet").column("extra_info").to_pylist()
    assert (math[0]["level"], math[0]["type"], math[0]["source_index"]) == ("Level 1", "Prealgebra", 0)


def test_content_hash_is_reproducible_and_tracks_content(tmp_path):
    def digest(out, **kw):
        return prepare(PrepareOptions(source=str(HUB / "openai/gsm8k"), out=str(tmp_path / out), **kw))["content_sha256"]

    assert digest("a") == digest("b")
    assert digest("c", template="boxed") != digest("a")
    assert digest("d", seed=1, limit=3) == digest("e", seed=1, limit=3) != digest("f", seed=2, limit=3)


def test_split_limit_seed_and_test_size(tmp_path):
    m = prepare(PrepareOptions(source=str(HUB / "openai/gsm8k"), out=str(tmp_path / "a"), split="test", limit=2))
    assert m["files"] == {"test.parquet": {"rows": 2, "source_split": "test", "skipped": 0}}
    m = prepare(PrepareOptions(source=str(HUB / "xiaodongguaAIGC/X-R1-750"), out=str(tmp_path / "b"),
                               test_size=1, seed=0))
    assert m["files"]["train.parquet"]["rows"] == 3 and m["files"]["test.parquet"]["rows"] == 1
    train = {r["source_index"] for r in pq.read_table(tmp_path / "b/train.parquet").column("extra_info").to_pylist()}
    test = {r["source_index"] for r in pq.read_table(tmp_path / "b/test.parquet").column("extra_info").to_pylist()}
    assert train | test == {0, 1, 2, 3} and not train & test
    with pytest.raises(PrepareError, match="no split 'dev'"):
        prepare(PrepareOptions(source=str(HUB / "openai/gsm8k"), out=str(tmp_path / "c"), split="dev"))


def test_bad_rows_are_skipped_with_their_reason_and_the_rest_kept(tmp_path):
    src = tmp_path / "gsm.jsonl"
    rows = [{"question": "a?", "answer": "#### 1"}, {"question": "b?", "answer": "no marker"},
            {"question": "", "answer": "#### 3"}, {"question": "d?", "answer": "#### 4"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    m = prepare(PrepareOptions(source=str(src), out=str(tmp_path / "out")))
    assert m["family"] == "gsm8k" and m["files"]["train.parquet"]["rows"] == 2 and m["skipped"] == 2
    assert [(s["source_index"], s["reason"]) for s in m["skipped_rows"]] == \
        [(1, "answer has no `####` line"), (2, "field 'question' is empty")]


def test_golds_validate_refuses_are_skipped_and_different_boxes_are_flagged(tmp_path, capsys):
    """prepare writes no row that `validate` (and so `train`) refuses: it is a skipped row, its
    reason in the manifest. A solution whose boxes hold different answers keeps its last box, the
    row listed in the manifest's `flagged_rows` and on stderr, never silently."""
    src = tmp_path / "math.jsonl"
    solutions = ["So $x=\\boxed{3}$.", "The ratio is $\\boxed{\\frac{1}{}}$.",
                 "Either $\\boxed{1}$ or $\\boxed{2}$.", "First $\\boxed{5}$; checking, $\\boxed{5}$.",
                 "Half: $\\boxed{\\frac{1}{2}}$."]
    src.write_text("".join(json.dumps({"problem": f"Problem {i}?", "solution": s, "level": "Level 1",
                                       "type": "Algebra"}) + "\n" for i, s in enumerate(solutions)))
    assert main(["prepare", str(src), "-o", str(tmp_path / "out"), "--family", "math"]) == 0
    err = capsys.readouterr().err
    m = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert m["files"]["train.parquet"]["rows"] == 4 and m["skipped"] == 1 and m["flagged"] == 1
    assert [(s["source_index"], s["reason"]) for s in m["skipped_rows"]] == [
        (1, "gold '\\\\frac{1}{}' can never be matched: an empty argument: `\\frac{1}{}`")]
    flag = "2 different boxed answers ('1', '2'); the gold is the last"
    assert [(f["source_index"], f["index"], f["reason"]) for f in m["flagged_rows"]] == [(2, 1, flag)]
    assert f"flagged train row 2: {flag}" in err
    golds = [r["reward_model"]["ground_truth"] for r in pq.read_table(tmp_path / "out" / "train.parquet").to_pylist()]
    assert golds == ["3", "2", "5", "\\frac{1}{2}"]
    assert main(["validate", str(tmp_path / "out"), "-q"]) == 0, capsys.readouterr().out


def test_x_r1_can_be_relabelled_and_unregistered_names_are_refused(tmp_path):
    m = prepare(PrepareOptions(source=str(HUB / "xiaodongguaAIGC/X-R1-750"), out=str(tmp_path / "a"),
                               data_source="lighteval/MATH"))
    assert pq.read_table(tmp_path / "a/train.parquet").column("data_source").to_pylist()[0] == "lighteval/MATH"
    assert m["data_source"] == "lighteval/MATH"
    with pytest.raises(PrepareError, match="no scorer is registered.*allow-unregistered"):
        prepare(PrepareOptions(source=str(HUB / "openai/gsm8k"), out=str(tmp_path / "b"), data_source="gsm8k-typo"))
    prepare(PrepareOptions(source=str(HUB / "openai/gsm8k"), out=str(tmp_path / "c"), data_source="gsm8k-typo",
                           allow_unregistered=True))


def test_table_with_field_mapping_and_system_prompt(tmp_path):
    src = tmp_path / "problems.csv"
    src.write_text("id,q,sol\n1,What is 2+2?,so \\boxed{4}\n2,What is 3+3?,so \\boxed{6}\n")
    code = main(["prepare", str(src), "--out", str(tmp_path / "out"), "--family", "table", "--question-field", "q",
                 "--answer-field", "sol", "--answer-extractor", "boxed", "--data-source", "lighteval/MATH",
                 "--template", "r1", "--keep", "id", "-q"])
    assert code == 0
    row = pq.read_table(tmp_path / "out/train.parquet").to_pylist()[1]
    assert row["reward_model"]["ground_truth"] == "6" and row["extra_info"]["id"] == 2
    assert row["prompt"][0]["role"] == "system" and "\\boxed" in row["prompt"][0]["content"]
    manifest = json.loads((tmp_path / "out/manifest.json").read_text())
    assert manifest["fields"] == {"question": "q", "answer": "sol", "extractor": "boxed", "keep": ["id"]}


def test_cli_prepare_reports_and_errors(tmp_path, capsys):
    assert main(["prepare", str(HUB / "openai/gsm8k"), "--out", str(tmp_path / "a"), "--limit", "2", "-q"]) == 0
    out = capsys.readouterr().out
    assert "train.parquet: 2 rows from split 'train'" in out and "test.parquet: 2 rows" in out
    assert main(["prepare", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "b")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["prepare", str(HUB / "openai/gsm8k"), "--out", str(tmp_path / "c"), "--family", "table",
                 "--question-field", "question", "--answer-field", "answer"]) == 2
    assert "needs --data-source" in capsys.readouterr().err
    assert main(["prepare", str(HUB / "openai/gsm8k"), "--out", str(tmp_path / "d"), "--limit", "-1", "-q"]) == 2
    assert "--limit must be positive, got -1" in capsys.readouterr().err


def test_repeated_problems_are_counted_and_dropped_with_dedupe(tmp_path, capsys):
    """DAPO-Math-17k holds each problem many times: prepare says how many repeat, and --dedupe drops them
    (and test rows cut from the same source that are also in train)."""
    src = tmp_path / "problems.csv"
    rows = ["What is 2+2?,so \\boxed{4}"] * 3 + ["What is 3+3?,so \\boxed{6}"] * 2 + ["What is 4+4?,so \\boxed{8}"]
    src.write_text("q,sol\n" + "\n".join(rows) + "\n")
    args = ["prepare", str(src), "--family", "table", "--question-field", "q", "--answer-field", "sol",
            "--answer-extractor", "boxed", "--data-source", "lighteval/MATH", "-q"]
    assert main([*args, "--out", str(tmp_path / "kept")]) == 0
    out = capsys.readouterr().out
    assert "repeated prompts (same prompt and gold as an earlier row): 3 in train; kept: --dedupe drops them" in out
    assert pq.read_table(tmp_path / "kept/train.parquet").num_rows == 6
    assert main([*args, "--out", str(tmp_path / "once"), "--dedupe"]) == 0
    assert "3 in train; dropped (--dedupe)" in capsys.readouterr().out
    table = pq.read_table(tmp_path / "once/train.parquet").to_pylist()
    assert [r["reward_model"]["ground_truth"] for r in table] == ["4", "6", "8"]
    manifest = json.loads((tmp_path / "once/manifest.json").read_text())
    assert manifest["files"]["train.parquet"]["rows"] == 3 and manifest["repeats"] == {"train": 3}
    assert main([*args, "--out", str(tmp_path / "split"), "--test-size", "0.5", "--seed", "1", "--dedupe"]) == 0
    split = json.loads((tmp_path / "split/manifest.json").read_text())
    train = {r["reward_model"]["ground_truth"] for r in pq.read_table(tmp_path / "split/train.parquet").to_pylist()}
    test = [r["reward_model"]["ground_truth"] for r in pq.read_table(tmp_path / "split/test.parquet").to_pylist()]
    assert not train & set(test) and split["repeats"]["test_in_train"] >= 1

# -- verl 0.9.1 reads what we write -----------------------------------------------------------

def _verl_dataset(path, tokenizer, processor=None, **config):
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    cfg = {"max_prompt_length": 4096, "filter_overlong_prompts": True, "filter_overlong_prompts_workers": 1,
           "cache_dir": str(path.parent / "verl-cache"), **config}
    return RLHFDataset(str(path), tokenizer, OmegaConf.create(cfg), processor=processor)


@pytest.mark.verl
@pytest.mark.parametrize("hub_id", [h for h in EXPECTED if h != "hiyouga/geometry3k"])
def test_verl_rlhf_dataset_loads_every_text_file(prepared, tokenizer, hub_id):
    for name, count in EXPECTED[hub_id][2].items():
        dataset = _verl_dataset(prepared[hub_id] / name, tokenizer)
        assert len(dataset) == count  # nothing filtered, nothing lost
        item = dataset[count - 1]
        assert item["data_source"] == hub_id and item["index"] == count - 1
        assert item["raw_prompt"][-1]["role"] == "user" and isinstance(item["raw_prompt"][-1]["content"], str)
        assert item["reward_model"]["ground_truth"]


@pytest.mark.verl
def test_verl_rlhf_dataset_loads_geometry3k_images_through_a_processor(prepared, tokenizer):
    """A real transformers processor built offline (LLaVA's, PIL backend): verl turns each `<image>`
    into an image part holding the decoded picture. verl's length filter for multimodal rows needs
    `qwen_vl_utils` and a Qwen-VL processor (torchvision), which this CPU venv does not carry, so the
    filter is off here; `rewards validate` counts the text tokens instead."""
    from PIL import Image
    from transformers import CLIPImageProcessor, LlavaProcessor

    processor = LlavaProcessor(image_processor=CLIPImageProcessor(), tokenizer=tokenizer, patch_size=14,
                               image_token="<|image_pad|>", chat_template=tokenizer.chat_template)
    for name, count in EXPECTED["hiyouga/geometry3k"][2].items():
        dataset = _verl_dataset(prepared["hiyouga/geometry3k"] / name, tokenizer, processor,
                                filter_overlong_prompts=False)
        assert len(dataset) == count
        for i in range(count):
            parts = dataset[i]["raw_prompt"][-1]["content"]
            kinds = [p["type"] for p in parts]
            assert kinds[0] == "image" and kinds.count("image") == 1 and "text" in kinds
            assert isinstance(parts[0]["image"], Image.Image) and parts[0]["image"].size == (48, 48)
