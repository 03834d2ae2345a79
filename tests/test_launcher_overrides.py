"""The override list and Hydra value formatting: what we print is what verl's Hydra parses."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from cli.launch.overrides import Override, OverrideError, OverrideList, hydra_value, parse_override
from cli.launch.presets import PresetError, load_preset

hydra_parser = pytest.importorskip("hydra.core.override_parser.overrides_parser")
PARSER = hydra_parser.OverridesParser.create()

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**9, 10**9),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=30),
)
values = st.one_of(scalars, st.lists(st.one_of(st.integers(-100, 100), st.text("abc_/.-", min_size=1, max_size=8)), max_size=4))


@given(values)
def test_hydra_reads_back_what_we_write(value):
    parsed = PARSER.parse_override("+key=" + hydra_value(value)).value()
    if isinstance(value, float):
        assert float(parsed) == value
    else:
        assert parsed == value


def test_paths_and_urls_stay_plain():
    assert hydra_value("pkg://rewards.verl") == "pkg://rewards.verl"
    assert hydra_value("/data/gsm8k/train.parquet") == "/data/gsm8k/train.parquet"
    assert hydra_value("true") == "'true'"          # a string, not a bool
    assert hydra_value(["console", "wandb"]) == "[console,wandb]"
    assert hydra_value(1e-6) == "1e-06"


@pytest.mark.parametrize("text, key, value, prefix", [
    ("data.train_batch_size=64", "data.train_batch_size", "64", ""),
    ("+reward.custom_reward_function.reward_kwargs.gsm8k_mode=flexible",
     "reward.custom_reward_function.reward_kwargs.gsm8k_mode", "flexible", "+"),
    ("++trainer.logger=[console]", "trainer.logger", "[console]", "++"),
    ("~trainer.rollout_data_dir", "trainer.rollout_data_dir", None, "~"),
    ("data.val_files=a=b.parquet", "data.val_files", "a=b.parquet", ""),
])
def test_parse_override(text, key, value, prefix):
    item = parse_override(text)
    assert (item.key, item.value, item.prefix) == (key, value, prefix)
    assert item.text == text


@pytest.mark.parametrize("text", ["data.train_batch_size", "=3", "9x=1", "a..b=1"])
def test_bad_overrides_are_one_sentence(text):
    with pytest.raises(OverrideError) as info:
        parse_override(text)
    assert "\n" not in str(info.value)


def test_later_value_replaces_in_place():
    items = OverrideList([Override("a", "1"), Override("b", "2"), Override("c", "3")])
    items.set(Override("b", "20", source="cli"))
    items.set(Override("d", "4"))
    assert items.texts() == ["a=1", "b=20", "c=3", "d=4"]


def test_an_added_key_stays_added():
    items = OverrideList([Override("x.new", "1", "+")])
    items.set(Override("x.new", "2"))
    assert items.texts() == ["+x.new=2"]


def test_preset_extends_and_overrides():
    grpo, dr = load_preset("qwen3-0.6b-grpo"), load_preset("qwen3-0.6b-drgrpo")
    assert dr.model == grpo.model and dr.n_gpus_per_node == 2
    assert dr.overrides["actor_rollout_ref.actor.loss_agg_mode"] == "seq-mean-token-sum-norm"
    assert dr.overrides["algorithm.norm_adv_by_std_in_grpo"] is False
    assert dr.overrides["actor_rollout_ref.actor.use_kl_loss"] is False
    assert grpo.overrides["actor_rollout_ref.actor.use_kl_loss"] is True
    assert isinstance(grpo.overrides["actor_rollout_ref.actor.optim.lr"], float)


def test_unknown_preset_suggests_names():
    with pytest.raises(PresetError, match="did you mean qwen3-8b-grpo"):
        load_preset("qwen3-8b-grp")


def test_preset_file_with_unknown_field(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("model: m\ntrain_files: a\nval_files: b\noverides: {}\n")
    with pytest.raises(PresetError, match="unknown field"):
        load_preset(str(path))


def test_run_folders_are_made_absolute_like_data_paths(tmp_path, monkeypatch):
    """verl's Ray actors write the dumps and checkpoints from their own working directory."""
    from cli.launch.plan import Request, build_overrides
    monkeypatch.chdir(tmp_path)
    request = Request(preset=load_preset("tiny-gsm8k-grpo"),
                      overrides=["trainer.validation_data_dir=val dumps", "trainer.default_local_dir=${oc.env:CKPT}"])
    items = build_overrides(request)
    assert items.get("trainer.rollout_data_dir").value == str(tmp_path / "runs/tiny-gsm8k-grpo/rollouts")
    assert items.get("trainer.validation_data_dir").value == hydra_value(str(tmp_path / "val dumps"))
    assert items.get("trainer.default_local_dir").value == "${oc.env:CKPT}"   # resolved where verl runs
