"""Launch plans for the launcher tests: the presets' models as local folders, GSM8K-shaped data files,
and a one-call planner (shared by test_launcher_plan.py and test_launcher_fsdp.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from cli.launch.plan import Request, make_plan
from cli.launch.presets import load_preset

MODELS = Path(__file__).resolve().parent.parent / "fixtures" / "models"
PRESET_MODEL = {
    "qwen3-0.6b-grpo": "Qwen3-0.6B-Base",
    "qwen3-0.6b-drgrpo": "Qwen3-0.6B-Base",
    "qwen3-8b-grpo": "Qwen3-8B",
    "qwen2.5-0.5b-ppo": "Qwen2.5-0.5B-Instruct",
    "qwen2.5-0.5b-ppo-gsm8k": "Qwen2.5-0.5B-Instruct",
    "qwen2.5-vl-3b-geo3k-grpo": "Qwen2.5-VL-3B-Instruct",
    "qwen2.5-vl-3b-geo3k-grpo-megatron": "Qwen2.5-VL-3B-Instruct",
    "tiny-gsm8k-grpo": "tiny-gsm8k",
}


@pytest.fixture(scope="session")
def model_dirs(tmp_path_factory, tokenizer_dir):
    """A local directory per fixture model: its published config.json plus the offline test tokenizer."""
    root = tmp_path_factory.mktemp("models")
    dirs = {}
    for name in PRESET_MODEL.values():
        target = root / name
        if not target.exists():
            shutil.copytree(tokenizer_dir, target)
            shutil.copy(MODELS / name / "config.json", target / "config.json")
        dirs[name] = target
    return dirs


def verl_rows(n: int, data_source: str = "openai/gsm8k", words: int = 12) -> pd.DataFrame:
    question = " ".join(["How many clips did Natalia sell in April and May?"] * max(1, words // 10))
    return pd.DataFrame([{
        "data_source": data_source,
        "prompt": [{"role": "user", "content": f"{question} Case {i}. Let's think step by step."}],
        "ability": "math",
        "reward_model": {"style": "rule", "ground_truth": str(72 + i)},
        "extra_info": {"split": "train", "index": i},
    } for i in range(n)])


@pytest.fixture(scope="session")
def gsm8k_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("data")
    verl_rows(256).to_parquet(root / "train.parquet")   # one batch of the largest preset (verl's quickstart)
    test = verl_rows(4)
    test["prompt"] = [[{"role": "user", "content": f"Held-out question {i}?"}] for i in range(4)]
    test.to_parquet(root / "test.parquet")
    return root / "train.parquet", root / "test.parquet"


def plan_for(preset: str, *overrides: str, model_dirs=None, data=None, **kwargs):
    request = Request(preset=load_preset(preset), overrides=list(overrides), check_data=data is not None, **kwargs)
    if model_dirs is not None:
        request.model = str(model_dirs[PRESET_MODEL[preset]])
    if data is not None:
        request.train_files, request.val_files = map(str, data)
    return make_plan(request)


def checks(plan) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for f in plan.findings:
        found.setdefault(f.check, []).append(f.message)
    return found
