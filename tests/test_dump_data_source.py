"""A mixed GSM8K + MATH run can be replayed and reported from verl's own dumps.

verl 0.9.1's dumps have no data_source column: they hold `input`, `output`, `gts`, `score`, `step`
and every key of the reward dict (the V1 trainer's validation dumps, the legacy trainer's training
dumps; the V1 trainer's training dumps add only `uid`). With the `data_source_key` setting,
`rewards.verl` adds `scored_data_source`, and `score` and `report` read each row's data_source from
it. The dumps here are written by verl's own writer (`PPOTrainer._write_generations`, taken from the
installed verl: its trainer module needs packages a CPU machine lacks)."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import numpy as np
import pytest

import rewards.verl as rv
from cli.main import main
from rewards.result import DUMP_SOURCE_KEY, TIMING_KEY, VERL_KEYS
from tests.helpers.verl_rows import untimed

pytestmark = pytest.mark.verl

MIX = [("openai/gsm8k", "She has 3 + 4 = 7. #### 7", "7"),
       ("openai/gsm8k", "#### 8", "7"),
       ("lighteval/MATH", "So $x = \\boxed{\\frac{1}{2}}$.", "0.5"),
       ("lighteval/MATH", "no box here", "\\frac{3}{4}"),
       ("lighteval/MATH", "\\boxed{10^{10^{10^{10}}}}", "3")]


def verl_dump_writer():
    """verl 0.9.1's `PPOTrainer._write_generations` (trainer/ppo/v1/trainer_base.py), as installed."""
    import verl

    source = Path(verl.__file__).parent / "trainer" / "ppo" / "v1" / "trainer_base.py"
    tree = ast.parse(source.read_text())
    found = [node for cls in tree.body if isinstance(cls, ast.ClassDef) and cls.name == "PPOTrainer"
             for node in cls.body if isinstance(node, ast.FunctionDef) and node.name == "_write_generations"]
    if not found:
        pytest.skip(f"{source} has no PPOTrainer._write_generations to write dumps with")
    found[0].decorator_list = []
    namespace = {"os": os, "json": json, "np": np}
    exec(compile(ast.Module([found[0]], type_ignores=[]), str(source), "exec"), namespace)  # verl's code, not model text
    return namespace["_write_generations"]


def validation_dump(folder: Path, step: int, **kwargs) -> None:
    """What the V1 trainer's validation does: every reward dict key as a column, plus `uid`."""
    results = [rv.compute_score(source, response, gold, None, **kwargs) for source, response, gold in MIX]
    extra = {key: [r[key] for r in results] for key in results[0]} | {"uid": [f"u{i}_0_0" for i in range(len(MIX))]}
    verl_dump_writer()(inputs=[f"question {i}" for i in range(len(MIX))], outputs=[r for _, r, _ in MIX],
                       gts=[g for _, _, g in MIX], scores=[r["score"] for r in results],
                       reward_extra_infos_dict=extra, dump_path=str(folder), global_steps=step)


def test_the_setting_adds_the_key_at_every_entry_point():
    import asyncio

    for source, response, gold in MIX:
        plain = rv.compute_score(source, response, gold)
        assert tuple(plain) == VERL_KEYS
        on = rv.compute_score(source, response, gold, data_source_key=True)
        assert tuple(on) == (*VERL_KEYS[:-1], DUMP_SOURCE_KEY, TIMING_KEY)  # the time stays last
        assert untimed(on) == {**untimed(plain), DUMP_SOURCE_KEY: source}
        assert untimed(asyncio.run(rv.compute_score_async(source, response, gold, data_source_key="true"))) == untimed(on)
    batch = rv.compute_score_batch(data_sources=[s for s, _, _ in MIX], solution_strs=[r for _, r, _ in MIX],
                                   ground_truths=[g for _, _, g in MIX], data_source_key=True)
    assert [r[DUMP_SOURCE_KEY] for r in batch] == [s for s, _, _ in MIX]


def test_the_key_passes_verls_batch_union_where_data_source_would_not():
    """verl puts reward keys into the batch beside the row's own `data_source` (object array); a
    reward key named `data_source` is a str array there, and verl's union refuses the pair."""
    from verl.protocol import union_numpy_dict

    rows = {"data_source": np.array([s for s, _, _ in MIX], dtype=object)}
    results = [rv.compute_score(s, r, g, data_source_key=True) for s, r, g in MIX]
    ours = {key: np.array([r[key] for r in results]) for key in results[0]}
    union_numpy_dict(dict(rows), ours)
    with pytest.raises(AssertionError):
        union_numpy_dict(dict(rows), {"data_source": np.array([s for s, _, _ in MIX])})


def test_a_mixed_runs_dumps_are_scored_and_reported_per_data_source(tmp_path, capsys):
    dumps = tmp_path / "validation"
    for step in (0, 10):
        validation_dump(dumps, step, data_source_key=True)
    capsys.readouterr()  # verl's writer prints "Dumped generations to ..."
    first = json.loads((dumps / "0.jsonl").read_text().splitlines()[2])
    assert first[DUMP_SOURCE_KEY] == "lighteval/MATH" and "data_source" not in first

    scored = tmp_path / "scored.jsonl"
    assert main(["score", str(dumps), "-o", str(scored), "--json"]) == 0
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    assert [r["data_source"] for r in rows] == [s for s, _, _ in MIX] * 2
    assert [r["verdict"] for r in rows] == [r["prev_verdict"] for r in rows]
    assert json.loads(capsys.readouterr().out)["errors"] == 0

    assert main(["report", str(dumps), "-o", str(tmp_path / "run.html"), "--json"]) == 0
    numbers = json.dumps(json.loads(capsys.readouterr().out))
    assert "openai/gsm8k" in numbers and "lighteval/MATH" in numbers and "(no data_source)" not in numbers


def test_without_the_setting_the_dump_cannot_say(tmp_path, capsys):
    dumps = tmp_path / "validation"
    validation_dump(dumps, 0)
    capsys.readouterr()
    assert DUMP_SOURCE_KEY not in json.loads((dumps / "0.jsonl").read_text().splitlines()[0])
    assert main(["report", str(dumps), "-o", str(tmp_path / "run.html"), "--json"]) == 0
    assert "(no data_source)" in capsys.readouterr().out


def test_every_preset_dumps_what_the_report_reads():
    """`rewards train` presets write both dump folders, each its own, with the data_source key on."""
    from cli.launch.presets import list_presets

    folders = []
    for preset in list_presets():
        dirs = [preset.overrides.get(f"trainer.{key}") for key in ("rollout_data_dir", "validation_data_dir")]
        assert all(dirs), f"{preset.name} sets no dump folder"
        assert str(preset.reward_kwargs.get("data_source_key")).lower() == "true", preset.name
        folders += dirs
    assert len(folders) == len(set(folders))


# --- a mixed run's V1 training dumps: labelled from the run's record of its training files ---------------

GSM8K_Q = ["Natalia sold 48 clips in April and half as many in May. How many in all?",
           "Weng earns $12 an hour. How much for 6 hours?", "Betty has 24 dollars and needs 96. How much more?"]
MATH_Q = ["What is $\\frac{144}{2}$?", "Compute $6 \\cdot 12$.", "Evaluate $3^4 - 9$."]
GOLDS = ["72", "72", "72"]   # one gold in both data sets: only the prompt tells them apart


def training_files(folder: Path) -> list[Path]:
    from schemas.verl_row import make_row, write_parquet

    files = []
    for name, source, questions in (("gsm8k", "openai/gsm8k", GSM8K_Q), ("math", "lighteval/MATH", MATH_Q)):
        rows = [make_row(data_source=source, prompt=[{"role": "user", "content": f"{q} Think step by step."}],
                         ground_truth=gold, extra_info={"split": "train", "index": i})
                for i, (q, gold) in enumerate(zip(questions, GOLDS))]
        (folder / name).mkdir(parents=True)
        write_parquet(rows, folder / name / "train.parquet")
        files.append(folder / name / "train.parquet")
    return files


def v1_training_dump(folder: Path, step: int) -> None:
    """What verl 0.9.1's V1 trainer writes to trainer.rollout_data_dir: the decoded chat-templated prompt,
    the response, the gold, the summed reward, the step and the uid; no data_source, none of our keys."""
    prompts = [(q, "#### 72") for q in GSM8K_Q] + [(q, "\\boxed{72}") for q in MATH_Q]
    inputs, outputs = [], []
    for question, answer in prompts:
        for k in range(2):   # n = 2 responses a prompt; one right, one wrong
            inputs.append(f"system\nYou are a helpful assistant.\nuser\n{question} Think step by step.\nassistant\n")
            outputs.append(answer if k == 0 else answer.replace("72", "71"))
    verl_dump_writer()(inputs=inputs, outputs=outputs, gts=["72"] * len(inputs), scores=[0.0] * len(inputs),
                       reward_extra_infos_dict={"uid": [f"u{i // 2}_0_{i % 2}" for i in range(len(inputs))]},
                       dump_path=str(folder), global_steps=step)


def test_a_mixed_v1_runs_training_dumps_are_reported_per_data_set_with_no_flag(tmp_path, capsys):
    from schemas.dump_sources import RECORD, record_text

    files = training_files(tmp_path / "data")
    dumps = tmp_path / "run" / "rollouts"
    for step in (1, 2):
        v1_training_dump(dumps, step)
    capsys.readouterr()
    assert main(["report", str(dumps), "-o", str(tmp_path / "before.html"), "--json", "-q"]) == 0
    assert "(no data_source)" in capsys.readouterr().out   # the dump alone cannot say
    (dumps / RECORD).write_text(record_text([str(f) for f in files], {}))
    assert main(["report", str(dumps), "-o", str(tmp_path / "run.html"), "--json", "-q"]) == 0
    sources = json.loads(capsys.readouterr().out)["sources"]
    assert sorted(sources) == ["lighteval/MATH", "openai/gsm8k"]
    for source in sources.values():
        steps = source["steps"]
        assert [s["rows"] for s in steps] == [6, 6] and [s["acc"] for s in steps] == [0.5, 0.5]
    assert main(["score", str(dumps), "--json", "-q"]) == 0   # score labels them the same way
    table = json.loads(capsys.readouterr().out)["table"]
    assert {r["data_source"]: r["count"] for r in table if r["verdict"] == "(all)"} == {
        "lighteval/MATH": 12, "openai/gsm8k": 12, "(all)": 24}


def test_train_records_the_training_files_where_the_run_dumps(tmp_path, capsys):
    """The emitted script writes the record into trainer.rollout_data_dir before verl starts; a run of one
    data set is labelled from the record alone, without its files."""
    import subprocess

    from schemas.dump_sources import RECORD, load_index

    files = training_files(tmp_path / "data")
    dumps = tmp_path / "run" / "rollouts"
    script = tmp_path / "run.sh"
    assert main(["train", "qwen3-0.6b-grpo", "--emit", str(script), "--train-files", *map(str, files),
                 "--val-files", str(files[0]), f"trainer.rollout_data_dir={dumps}"]) == 0
    text = script.read_text()
    lines = text[:text.index("python3 -m verl") if "python3 -m verl" in text else len(text)]
    record = [line for line in lines.splitlines() if line.startswith(("mkdir", "printf"))]
    assert len(record) == 2
    subprocess.run(["bash", "-c", "\n".join(record)], check=True)
    written = json.loads((dumps / RECORD).read_text())
    assert written["train_files"] == [str(f) for f in files]
    assert written["data_sources"][str(files[1])] == {"lighteval/MATH": 3}
    one = tmp_path / "one"
    one.mkdir()
    (one / RECORD).write_text(json.dumps({"train_files": ["/elsewhere/train.parquet"],
                                          "data_sources": {"/elsewhere/train.parquet": {"openai/gsm8k": 9}}}))
    assert load_index(one).label({"gts": "1", "input": "q"}) == "openai/gsm8k"
