"""The reward settings, run through the function verl will call, before any GPU is paid for.

verl 0.9.1 loads the reward with `get_custom_reward_fn` (the settings bound as keywords) and its
reward managers (`experimental/reward_loop/reward_manager/naive.py`, `dapo.py`) call it with the
row's `data_source`, the decoded response, `reward_model.ground_truth` and the row's `extra_info`
(the naive manager adds `num_turns` and `rollout_reward_scores`): never a `response_length`. So
length shaping in tokens needs `length_tokenizer`, and its ramp needs `max_resp_len`: the plan adds
both from the run (the policy's tokenizer, `data.max_response_length`), then makes that first call
itself on one row of each data set, so a setting that would stop the run at its first reward stops
the plan instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from .findings import Finding, error, note, warning

REWARD_KWARGS = "reward.custom_reward_function.reward_kwargs"
RESPONSE = "I am not sure of the answer."
"""The sample's response: settings are read on every sample, so any text exercises them; one with no
answer is judged in this process (no worker is started for it)."""


def length_needs(kwargs: Mapping[str, Any], cfg: Any) -> tuple[dict[str, Any], list[Finding]]:
    """The reward settings that length shaping needs and the run leaves out, with a note for each."""
    shaping = _number(kwargs.get("overlong_buffer_len")) or _number(kwargs.get("length_penalty"))
    if not shaping:
        return {}, []
    added: dict[str, Any] = {}
    found: list[Finding] = []
    limit = int(cfg.data.max_response_length)
    given = _number(kwargs.get("max_resp_len"))
    if kwargs.get("max_resp_len") is None:
        added["max_resp_len"] = limit
        found.append(note("reward-length", f"{REWARD_KWARGS}.max_resp_len={limit} added: length shaping needs it "
                                           f"and the run's data.max_response_length is {limit}"))
    elif given and given != limit:
        found.append(warning("reward-length", f"{REWARD_KWARGS}.max_resp_len={kwargs['max_resp_len']} but responses "
                                              f"stop at data.max_response_length={limit}: the length penalties are "
                                              f"placed against the wrong length; set max_resp_len={limit}"))
    if str(kwargs.get("length_unit", "tokens")) != "chars" and not kwargs.get("length_tokenizer"):
        model = cfg.actor_rollout_ref.model
        tokenizer = str(model.get("tokenizer_path") or model.path)
        added["length_tokenizer"] = tokenizer
        found.append(note("reward-length", f"{REWARD_KWARGS}.length_tokenizer={tokenizer} added: length shaping counts "
                                           f"response tokens and verl 0.9.1's reward managers pass no response_length, "
                                           f"so the reward re-encodes each response with the policy's tokenizer"))
    return added, found


def call_findings(cfg: Any, samples: Iterable[tuple[str, Any, Any]], local_tokenizer: Path | None,
                  checked_data: bool) -> list[Finding]:
    """Call the reward as verl will, once per (data_source, ground_truth, extra_info) sample; a call
    that raises is an error naming the setting's message. `local_tokenizer` stands in for a
    `length_tokenizer` that is not on this machine (the same model's tokenizer, or else characters)."""
    from omegaconf import OmegaConf

    check_cfg = OmegaConf.create(OmegaConf.to_container(cfg.reward, resolve=True))
    kwargs = check_cfg.custom_reward_function.get("reward_kwargs")
    found: list[Finding] = []
    if kwargs is not None:
        _stand_in(kwargs, local_tokenizer, found)
    if str(OmegaConf.select(cfg, "reward.reward_manager.source") or "register") != "register":
        return found   # a reward manager of the user's own: how it calls the reward is its own
    fn = _verl_reward_fn(OmegaConf.create({"reward": check_cfg}))
    manager = str(OmegaConf.select(cfg, "reward.reward_manager.name") or "naive")
    name = str(check_cfg.custom_reward_function.get("name"))
    hint = (": verl 0.9.1's reward managers call the reward one sample at a time, so use compute_score or "
            "compute_score_async" if name == "compute_score_batch" else "")
    shape = "" if checked_data else " (a GSM8K-shaped sample: the data files were not read)"
    for data_source, ground_truth, extra_info in samples:
        if not _ours(data_source):   # verl's own scorer takes it (code, search): not run at plan time
            continue
        try:
            _call(fn, data_source, ground_truth, _extra_info(extra_info, manager))
        except Exception as exc:  # what verl's reward worker would raise at the first sample
            message = str(exc).splitlines()[0] if str(exc) else ""
            found.append(error("reward-call", f"verl's first reward call for data_source {data_source}{shape} would "
                                              f"stop the run: {type(exc).__name__}: {message}{hint}"))
    return found


def sample_rows(files: Iterable[str]) -> list[tuple[str, Any, Any]]:
    """The first row of each data_source in the training files: (data_source, ground_truth, extra_info)."""
    from schemas.verl_row import read_table

    seen: dict[str, tuple[str, Any, Any]] = {}
    for name in files:
        try:
            table = read_table(Path(name).expanduser())
        except Exception:
            continue   # the data check names the file
        columns = set(table.column_names)
        if not {"data_source", "reward_model"} <= columns:
            continue
        sources = table.column("data_source").to_pylist()
        for i, source in enumerate(sources):
            if isinstance(source, str) and source not in seen:
                gold = table.column("reward_model")[i].as_py()
                extra = table.column("extra_info")[i].as_py() if "extra_info" in columns else {}
                seen[source] = (source, gold.get("ground_truth") if isinstance(gold, dict) else None, extra)
    return list(seen.values())


GSM8K_SAMPLE = ("openai/gsm8k", "72", {"split": "train", "index": 0})


def _stand_in(kwargs: Any, local_tokenizer: Path | None, found: list[Finding]) -> bool:
    """A `length_tokenizer` not on this machine: the check counts with the model's local tokenizer,
    or in characters (the reward workers must load it; nothing here can)."""
    name = kwargs.get("length_tokenizer")
    if not name or Path(str(name)).expanduser().is_dir():
        return False
    if local_tokenizer is not None:
        kwargs["length_tokenizer"] = str(local_tokenizer)
        return True
    kwargs["length_unit"] = "chars"
    kwargs.pop("length_tokenizer")
    found.append(note("reward-call", f"length_tokenizer {name} is not on this machine: the reward call was checked "
                                     f"counting characters; the reward workers load it (a path or hub id they reach)"))
    return True


def _ours(data_source: str) -> bool:
    from rewards.registry import UnknownDataSourceError, get_scorer

    try:
        get_scorer(data_source)
    except UnknownDataSourceError:
        return False
    return True


def _verl_reward_fn(cfg: Any):
    from verl.trainer.ppo.reward import get_custom_reward_fn

    return get_custom_reward_fn(cfg)


def _extra_info(row_extra: Any, manager: str) -> dict[str, Any]:
    """`extra_info` as verl's reward manager hands it over: the row's own, and what the naive manager adds."""
    extra = dict(row_extra) if isinstance(row_extra, Mapping) else {}
    if manager != "dapo":
        extra.update(num_turns=2, rollout_reward_scores={})
    return extra


def _call(fn, data_source: str, ground_truth: Any, extra_info: dict[str, Any]) -> Any:
    import inspect

    result = fn(data_source=data_source, solution_str=RESPONSE, ground_truth=ground_truth, extra_info=extra_info)
    if inspect.isawaitable(result):   # compute_score_async: verl awaits it on the reward worker's loop
        import asyncio

        async def wait():
            return await result

        return asyncio.run(wait())
    return result


def _number(value: Any) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0   # the settings check names a value that is no number
