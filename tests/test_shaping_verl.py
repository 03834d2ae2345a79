"""Format and shaping inside the real verl 0.9.1 reward loop (CPU, real tokenizer, real managers).

- Our DAPO overlong term equals what verl's own DAPORewardManager adds, sample for sample, when it
  is given verl's token count; counted with the policy tokenizer it is one token (the EOS) short.
- Settings reach us through Hydra's `+reward.custom_reward_function.reward_kwargs.*`.
- Only the response is judged: tags in the prompt earn nothing; a pre-filled `<think>` is judged.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("verl")

from rewards.result import VERL_KEYS  # noqa: E402
from rewards.shaping import overlong_penalty  # noqa: E402
from tests.helpers.verl_rows import Row, make_batch  # noqa: E402

pytestmark = pytest.mark.verl

MAX_LEN, BUFFER = 120, 48  # the test tokenizer spends about one token per 1-3 characters
RESPONSES = [  # from well inside the budget to well inside the overlong buffer
    "#### 4",
    "Two plus two: " + "we add the units. " * 3 + "#### 4",
    "Let me think. " + "Adding two and two again to be sure. " * 3 + "#### 4",
    "Step " * 35 + "#### 4",
]


def run(manager_cls, config, tokenizer, row: Row, fn) -> dict:
    async def go():
        return await manager_cls(config, tokenizer, fn).run_single(make_batch(tokenizer, [row]))

    return asyncio.run(go())


def verl_length(tokenizer, text: str) -> int:
    """verl's valid_response_length: the response tokens plus the EOS the rollout generated."""
    return len(tokenizer.encode(text, add_special_tokens=False)) + 1


def hydra_config(*overrides: str):
    from hydra import compose, initialize_config_module

    with initialize_config_module(config_module="verl.trainer.config", version_base=None):
        return compose("ppo_trainer", overrides=list(overrides))


def loaded(config):
    from verl.trainer.ppo.reward import get_custom_reward_fn

    return get_custom_reward_fn(config)


def test_overlong_term_equals_verl_dapo_manager(tokenizer, tokenizer_dir):
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_manager.dapo import DAPORewardManager

    from rewards import compute_score

    config = OmegaConf.create({"reward": {"reward_kwargs": {
        "max_resp_len": MAX_LEN,
        "overlong_buffer_cfg": {"enable": True, "len": BUFFER, "penalty_factor": 0.5, "log": True}}}})
    lengths, penalised = [], 0
    for text in RESPONSES:
        length = verl_length(tokenizer, text)
        lengths.append(length)
        assert length <= MAX_LEN  # verl never sees more than max_resp_len tokens
        plain = run(DAPORewardManager, config, tokenizer, Row("openai/gsm8k", text, "4"),
                    lambda **kw: compute_score(**kw))
        verl_term = float(plain["reward_score"] - plain["reward_extra_info"]["score"])  # verl: a 0-d tensor
        assert plain["reward_extra_info"]["overlong_reward"] == pytest.approx(verl_term)

        ours = compute_score("openai/gsm8k", text, "4", {"response_length": length},
                             overlong_buffer_len=BUFFER, max_resp_len=MAX_LEN, overlong_penalty_factor=0.5)
        assert ours["overlong_penalty"] == pytest.approx(verl_term, abs=1e-6)
        assert ours["overlong_penalty"] <= 0.0
        penalised += verl_term < 0

        counted = compute_score("openai/gsm8k", text, "4", overlong_buffer_len=BUFFER, max_resp_len=MAX_LEN,
                                overlong_penalty_factor=0.5, length_tokenizer=str(tokenizer_dir))
        assert counted["overlong_penalty"] == pytest.approx(
            overlong_penalty(length - 1, MAX_LEN, BUFFER, 0.5), abs=1e-6)  # re-encoding misses the EOS
    assert penalised >= 2 and min(lengths) < MAX_LEN - BUFFER  # both sides of the threshold were tested


def test_settings_arrive_through_hydra_reward_kwargs(tokenizer_dir, tokenizer):
    from verl.experimental.reward_loop.reward_manager import NaiveRewardManager

    kw = "+reward.custom_reward_function.reward_kwargs"
    config = hydra_config(
        "reward.custom_reward_function.path=pkg://rewards.verl",
        f"actor_rollout_ref.model.path={tokenizer_dir}",
        f"{kw}.format_rule=think_answer", f"{kw}.format_weight=0.1", f"{kw}.think_prefilled=true",
        f"{kw}.overlong_buffer_len={BUFFER}", f"{kw}.max_resp_len={MAX_LEN}",
        f"{kw}.length_tokenizer=${{actor_rollout_ref.model.path}}",  # Hydra interpolation
    )
    fn = loaded(config)
    tagged_prompt = "Think inside <think> </think> and answer inside <answer> </answer>. What is 2+2?"
    rows = {
        "prefilled": Row("openai/gsm8k", "2 and 2 make 4.</think><answer>#### 4</answer>", "4", tagged_prompt),
        "untagged": Row("openai/gsm8k", "2 and 2 make 4. #### 4", "4", tagged_prompt),
        "reopened": Row("openai/gsm8k", "<think>2+2</think><answer>#### 4</answer>", "4", tagged_prompt),
        "long": Row("openai/gsm8k", "Step " * 25 + "</think><answer>#### 4</answer>", "4", tagged_prompt),
    }
    outs = {k: run(NaiveRewardManager, config, tokenizer, row, fn)["reward_extra_info"] for k, row in rows.items()}
    assert {frozenset(o) for o in outs.values()} == {frozenset([*VERL_KEYS, "overlong_penalty"])}
    assert (outs["prefilled"]["format"], outs["prefilled"]["score"]) == (1.0, 1.0)
    # the prompt's tags are not the response's: no format credit
    assert (outs["untagged"]["format"], outs["untagged"]["score"]) == (0.0, pytest.approx(0.9))
    # the template already opened <think>: a second one is a repeated tag in strict mode
    assert outs["reopened"]["format"] == 0.0
    assert outs["long"]["format"] == 1.0 and outs["long"]["overlong_penalty"] < 0
    assert outs["long"]["score"] == pytest.approx(1.0 + outs["long"]["overlong_penalty"])
