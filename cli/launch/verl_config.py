"""Compose the overrides with verl's own Hydra config and run verl's own config checks, on CPU.

Composition uses the `ppo_trainer.yaml` shipped inside the installed verl (found without importing
verl, so it takes about a second and no torch): a misspelt key fails here exactly as it would at
launch. `verl_checks` then runs what `verl.trainer.main_ppo` runs before it starts Ray
(`validate_config`) and builds the config dataclasses the workers build (actor, reference, rollout,
critic, algorithm, model), so verl itself, not our reading of it, has the last word.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import io
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

CONFIG_NAME = "ppo_trainer"


class VerlMissingError(RuntimeError):
    """verl is not installed, so its config cannot be composed."""


class ComposeError(ValueError):
    """An override does not fit verl's config (one sentence)."""


def config_dir() -> Path:
    spec = importlib.util.find_spec("verl")
    if spec is None or spec.origin is None:
        raise VerlMissingError("rewards train needs verl installed to check the config "
                               "(pip install 'verl-rewards[verl]', which pins verl==0.9.1)")
    directory = Path(spec.origin).parent / "trainer" / "config"
    if not (directory / f"{CONFIG_NAME}.yaml").is_file():
        raise VerlMissingError(f"the installed verl has no trainer/config/{CONFIG_NAME}.yaml; verl==0.9.1 is required")
    return directory


def compose(overrides: Iterable[str]) -> Any:
    """verl's trainer config with these overrides applied (an OmegaConf DictConfig)."""
    from hydra import compose as hydra_compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    overrides = list(overrides)
    try:
        with initialize_config_dir(config_dir=str(config_dir()), version_base=None):
            return hydra_compose(config_name=CONFIG_NAME, overrides=overrides)
    except (HydraException, OmegaConfBaseException) as exc:
        raise ComposeError(_explain(exc, overrides)) from None


@lru_cache(maxsize=2)
def known_keys(engine: str = "megatron") -> tuple[str, ...]:
    """Every dotted key of the default config of one engine, `megatron` or `dp` (for did-you-mean hints)."""
    from omegaconf import DictConfig, OmegaConf

    base = compose([f"model_engine={engine}"])
    keys: list[str] = []

    def walk(node: Any, prefix: str) -> None:
        for key in node.keys():
            path = f"{prefix}{key}"
            keys.append(path)
            child = node._get_node(key)
            if isinstance(child, DictConfig) and not OmegaConf.is_missing(node, key):
                walk(child, path + ".")

    walk(base, "")
    return tuple(keys)


def _explain(exc: Exception, overrides: list[str]) -> str:
    text = str(exc)
    unknown = re.search(r"Could not override '([^']+)'", text) or re.search(r"Key '([^']+)' is not in struct", text)
    if unknown:
        key = unknown.group(1)
        engine = "dp" if "model_engine=dp" in overrides else "megatron"
        close = difflib.get_close_matches(key, known_keys(engine), n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return (f"verl 0.9.1 has no config key {key}{hint}: fix the spelling, or write +{key}=... "
                f"if you mean to add a key verl's config does not declare")
    merging = re.search(r"Error merging override (\S+)", text)
    cause = text.splitlines()[1].strip() if len(text.splitlines()) > 1 else text
    if merging:
        return f"verl's config rejects the override {merging.group(1)}: {cause}"
    return f"verl's config cannot be composed from these overrides: {text.splitlines()[0]}"


def verl_checks(cfg: Any, build_model: bool = False) -> list[str]:
    """Problems verl's own config code finds (each one sentence); [] when verl accepts the config.

    `build_model` also builds `HFModelConfig`, which reads the model's config.json and tokenizer
    from `actor_rollout_ref.model.path`: only possible when the model is on this machine.
    """
    import copy
    import warnings

    from omegaconf import OmegaConf, open_dict

    problems: list[str] = []
    cfg = copy.deepcopy(cfg)
    if not build_model:
        # The critic's dataclass builds an HFModelConfig (config.json + tokenizer) from critic.model;
        # without the model on this machine, check everything else about the critic.
        with open_dict(cfg):
            cfg.critic.model = None
    with warnings.catch_warnings(), _offline_hub():
        warnings.simplefilter("ignore")
        from verl.trainer.ppo.utils import need_critic, need_reference_policy
        from verl.utils.config import omega_conf_to_dataclass, validate_config

        use_ref, use_critic = need_reference_policy(cfg), need_critic(cfg)

        def attempt(what: str, fn) -> Any:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    return fn()
            except Exception as exc:  # verl raises AssertionError, ValueError, TypeError, ...
                message = _one_line(exc)
                problems.append(f"verl's {what} rejects the config: {message}")
                return None

        attempt("validate_config (run by main_ppo before Ray starts)",
                lambda: validate_config(config=cfg, use_reference_policy=use_ref, use_critic=use_critic))
        attempt("AlgoConfig", lambda: omega_conf_to_dataclass(cfg.algorithm))
        attempt("RolloutConfig", lambda: omega_conf_to_dataclass(cfg.actor_rollout_ref.rollout))
        name = lambda node: str(node.get("_target_", "config")).rsplit(".", 1)[-1]   # McoreActorConfig, FSDPActorConfig
        attempt(name(cfg.actor_rollout_ref.actor), lambda: omega_conf_to_dataclass(cfg.actor_rollout_ref.actor))
        if use_ref:
            ref = OmegaConf.create(OmegaConf.to_container(cfg.actor_rollout_ref.ref, resolve=True))
            with open_dict(ref):  # what the ref worker does in init_model before building its config
                ref.ppo_mini_batch_size = cfg.actor_rollout_ref.actor.ppo_mini_batch_size
                ref.ppo_micro_batch_size = ref.pop("log_prob_micro_batch_size", None)
                ref.ppo_micro_batch_size_per_gpu = ref.pop("log_prob_micro_batch_size_per_gpu", None)
                ref.use_dynamic_bsz = ref.pop("log_prob_use_dynamic_bsz", False)
                ref.ppo_max_token_len_per_gpu = ref.pop("log_prob_max_token_len_per_gpu", None)
            attempt(f"reference {name(ref)}", lambda: omega_conf_to_dataclass(ref))
        if use_critic:
            attempt(name(cfg.critic), lambda: omega_conf_to_dataclass(cfg.critic))
        if build_model:
            attempt("HFModelConfig", lambda: omega_conf_to_dataclass(cfg.actor_rollout_ref.model))
        attempt("reward function loader", lambda: _load_reward_fn(cfg))
    return problems


@contextlib.contextmanager
def _offline_hub():
    """Never reach for the Hugging Face hub while checking: fail fast instead of retrying for minutes."""
    import os
    saved = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _one_line(exc: BaseException) -> str:
    """An exception chain as one line: Hydra wraps the real error as `Error in call to target ...`."""
    parts, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        if text and text not in parts:
            parts.append(text)
        exc = exc.__cause__ or exc.__context__
    message = " <- ".join(parts) or "unknown error"
    return message if len(message) <= 400 else message[:397] + "..."


def _load_reward_fn(cfg: Any) -> None:
    from verl.trainer.ppo.reward import get_custom_reward_fn

    if get_custom_reward_fn(cfg) is None:
        raise ValueError("reward.custom_reward_function.path is empty, so verl would fall back to its own scorers")
