"""The launch plan: from a preset, the user's choices and overrides to a checked verl command.

Order matters and every step reads the previous one's result, never a second copy of it:
1. the override list (preset, then the launcher's wiring, then the user's `key=value`s);
2. verl's Hydra config composed from it (unknown keys stop here);
3. the model's shape from its config.json;
4. parallelism and batch arithmetic, the memory estimate, the data files and reward settings;
5. verl's own config checks on the composed config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from . import verl_config
from .crossover import counterparts
from .env import (FUSED_LOGPROBS, VISION_MODEL_TYPES, bridge_fusion_keys, megatron_defaults, tied_critic_finding,
                  vl_bridge_finding, wants_fused_logprobs)
from .data import (REWARD_NAME, REWARD_PATH, DataSummary, check_data, check_prompt_format, check_reward, data_files,
                   effective_settings, tokenizer_dir)
from .findings import ERROR, NOTE, WARNING, Finding, error, note, warning
from .folders import folder_findings
from .memory import MemoryEstimate, estimate, estimate_fsdp
from .model import ModelConfigError, ModelShape, find_config, local_model_dir, read_config, shape_from_config
from .overrides import Override, OverrideError, OverrideList, hydra_value, parse_override
from .parallel import ParallelPlan, plan_parallel
from .presets import STRATEGIES, Preset
from .reward_call import GSM8K_SAMPLE, REWARD_KWARGS, call_findings, length_needs, sample_rows

ENTRY = ("python3", "-m", "verl.trainer.main_ppo")
RUN_DIRS = ("trainer.rollout_data_dir", "trainer.validation_data_dir", "trainer.default_local_dir")
"""Folders a run writes: a relative one is made absolute here, as data paths are."""


@dataclass
class Request:
    """What the user asked for: a preset plus choices that override it."""

    preset: Preset
    strategy: str | None = None          # megatron, fsdp or fsdp2; None: the preset's
    model: str | None = None
    model_config: str | None = None
    tokenizer: str | None = None         # a local tokenizer folder, when the model's own folder is not here
    train_files: str | list[str] | None = None  # several: verl concatenates them
    val_files: str | list[str] | None = None
    nnodes: int | None = None
    gpus_per_node: int | None = None
    gpu_memory_gb: float | None = None
    gpu_memory_source: str | None = None   # what set gpu_memory_gb (nvidia-smi, the flag); None: the preset's
    available_gpus: int | None = None
    overrides: Sequence[str] = ()
    check_data: bool = True
    check_verl: bool = True
    memory_is_error: bool = True


@dataclass
class Plan:
    request: Request
    overrides: OverrideList
    cfg: Any = None
    model: str = ""
    model_source: str = ""
    shape: ModelShape | None = None
    parallel: ParallelPlan | None = None
    memory: MemoryEstimate | None = None
    gpu_memory_gb: float = 0.0
    data: list[DataSummary] = field(default_factory=list)
    reward_kwargs: dict[str, Any] = field(default_factory=dict)
    reward_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)   # preset overrides of the other engine (see build_overrides)

    @property
    def strategy(self) -> str:
        return self.request.strategy or self.request.preset.strategy

    @property
    def vision(self) -> bool:
        """A vision-language model (its nodes need the image stack)."""
        return self.shape is not None and self.shape.model_type in VISION_MODEL_TYPES

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def argv(self) -> list[str]:
        """The verl command, one element per override."""
        return [*ENTRY, *self.overrides.texts()]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"run": describe_run(self), "preset": self.request.preset.name,
                               "strategy": self.strategy, "ok": self.ok,
                               "model": self.model,
                               "model_source": self.model_source, "command": self.argv,
                               "findings": [{"level": f.level, "check": f.check, "message": f.message}
                                            for f in self.findings],
                               "reward_kwargs": self.reward_kwargs}
        if self.shape:
            out["params"] = self.shape.params
        if self.parallel:
            p = self.parallel
            out["parallel"] = {"world": p.world, "tp": p.actor.tp, "pp": p.actor.pp, "cp": p.actor.cp,
                               "sp": p.actor.sp, "dp": p.actor.dp, "rollout_tp": p.rollout_tp,
                               "rollout_replicas": p.rollout_replicas}
        if self.memory:
            out["memory"] = {"gpu_gib": self.memory.gpu_gib, "fits": self.memory.fits,
                             "peak_phase": self.memory.peak.name, "peak_gib": round(self.memory.peak.total, 2),
                             "phases": {ph.name: {k: round(v, 3) for k, v in ph.parts.items()}
                                        for ph in self.memory.phases},
                             "suggestion": self.memory.suggestion, "offload_note": self.memory.offload_note}
        out["data"] = [{"file": d.file, "rows": d.rows, "data_sources": d.data_sources,
                        "prompt_tokens": d.prompt_tokens, "checked": d.checked} for d in self.data]
        return out


def describe_run(plan: Plan) -> str:
    """The run in one line, from what it will do (model, algorithm, data, engine, GPUs), not from its preset."""
    cfg, p = plan.cfg, plan.parallel
    model = (plan.model or plan.request.model or plan.request.preset.model).rstrip("/").rsplit("/", 1)[-1]
    estimator = str(cfg.algorithm.adv_estimator) if cfg is not None else ""
    algorithm = {"gae": "PPO"}.get(estimator, estimator.upper().replace("_", " ")) or "?"
    sources = [s for d in plan.data if d.checked for s in d.data_sources]
    files = [f for f in data_files(unresolved(cfg, "data.train_files")) if "${" not in f] if cfg is not None else []
    data = " + ".join(dict.fromkeys(sources)) or " + ".join(Path(f).name if Path(f).stem not in _GENERIC_STEMS
                                                           else f"{Path(f).parent.name}/{Path(f).name}" for f in files)
    text = f"{model} {algorithm} on {data or '?'}"
    if p is not None:
        a = p.actor
        engine = (f"Megatron TP {a.tp} x PP {a.pp}" + (f" x CP {a.cp}" if a.cp > 1 else "") if a.strategy == "megatron"
                  else a.strategy.upper() + (f" with Ulysses SP {a.sp}" if a.sp > 1 else ""))
        text += f", {engine} on {p.world} GPU(s)"
    else:
        text += f", {plan.strategy}"
    return text


def engine_keys(strategy: str) -> tuple[str, ...]:
    """Key parts that exist only in one engine's config (dropped from a preset run on the other engine)."""
    return ("megatron",) if strategy != "megatron" else ("fsdp_config", "fsdp", "ulysses_sequence_parallel_size")


def build_overrides(request: Request, dropped: list[str] | None = None,
                    carried: list[str] | None = None, named: list[str] | None = None) -> OverrideList:
    """The final override list: preset, the launcher's wiring, then the user's overrides.

    The strategy picks verl's engine: `model_engine=megatron`, or `model_engine=dp` with the actor's
    (and critic's) `strategy=fsdp|fsdp2`. A preset written for the other engine keeps every common key;
    its offload and checkpointing settings are carried over to this engine's keys (`crossover`, listed
    in `carried` as "old -> new") unless the preset sets those keys itself; its other engine-only keys
    (`...megatron.*` or `...fsdp_config.*`) are left out and listed in `dropped`. A run of another
    model or data than the preset's gets a name of its own (`_name_the_run`, listed in `named`).
    """
    preset = request.preset
    strategy = request.strategy or preset.strategy
    if strategy not in STRATEGIES:
        raise OverrideError(f"strategy {strategy!r} is not one of {', '.join(STRATEGIES)}")
    items = OverrideList()
    add = lambda key, value, source="launcher", prefix="": items.set(Override(key, hydra_value(value), prefix, source))
    if strategy == "megatron":
        items.set(Override("model_engine", "megatron", "", "launcher"))
        trains_critic = (preset.overrides.get("algorithm.adv_estimator") == "gae"
                         or any(key.startswith("critic.") for key in preset.overrides))
        for key, value in megatron_defaults(trains_critic).items():
            add(key, value)
    else:
        items.set(Override("model_engine", "dp", "", "launcher"))
        add("actor_rollout_ref.actor.strategy", strategy)
        add("critic.strategy", strategy)
    for role in ("train", "val"):  # one file as a path, several as verl's list
        names = [_absolute(n, may_be_hub_id=False)
                 for n in data_files(getattr(request, f"{role}_files") or getattr(preset, f"{role}_files"))]
        add(f"data.{role}_files", names[0] if len(names) == 1 else names)
    model = _absolute(request.model or preset.model, may_be_hub_id=True)
    add("actor_rollout_ref.model.path", model)
    other_engine = set(engine_keys(strategy))
    crosses = (strategy == "megatron") != (preset.strategy == "megatron")
    for key, value in preset.overrides.items():
        carry = counterparts(key, value, strategy) if crosses else {}
        added = []
        for new_key, new_value in carry.items():
            if new_key not in preset.overrides:   # the preset's own value of that key wins
                add(new_key, new_value, "preset")
                added.append(f"{new_key}={hydra_value(new_value)}")
        if added and carried is not None:
            carried.append(f"{key}={hydra_value(value)} -> {', '.join(added)}")
        if other_engine & set(key.split(".")):
            if dropped is not None and not carry:
                dropped.append(key)
            continue
        override = parse_override(f"{key}={hydra_value(value)}", source="preset")
        items.set(override)
    if "critic.model.path" in preset.overrides:
        add("critic.model.path", model)
    add("trainer.nnodes", request.nnodes or preset.nnodes)
    add("trainer.n_gpus_per_node", request.gpus_per_node or preset.n_gpus_per_node)
    add("reward.custom_reward_function.path", REWARD_PATH)
    add("reward.custom_reward_function.name", REWARD_NAME)
    for key, value in preset.reward_kwargs.items():
        add(f"{REWARD_KWARGS}.{key}", value, "preset", "+")
    for text in request.overrides:
        override = parse_override(text, source="cli")
        if override.key.startswith(REWARD_KWARGS + ".") and override.prefix == "":
            override = Override(override.key, override.value, "+", "cli")   # verl's config declares no reward_kwargs
        items.set(override)
    _name_the_run(request, items, named)
    for key in RUN_DIRS:   # written by verl's Ray actors, whose working directory is not this one
        given = items.get(key)
        if given is not None and given.value not in (None, "null", "") and "${" not in given.value:
            path = _absolute(given.value.strip("'"), may_be_hub_id=False)
            items.set(Override(key, hydra_value(path), given.prefix, given.source))
    return items


EXPERIMENT = "trainer.experiment_name"
DUMP_DIRS = ("trainer.rollout_data_dir", "trainer.validation_data_dir")
_GENERIC_STEMS = {"train", "training", "data", "dataset", "all"}


def _name_the_run(request: Request, items: OverrideList, named: list[str] | None) -> None:
    """A run of another model or other training data than its preset's is named after what it trains
    (model, algorithm, data); a run of another name than the preset's (the user's, or that one) has
    its dump folders under `runs/NAME/`, so two experiments from one preset never write into one
    folder. A folder the user gave is kept."""
    preset = request.preset
    own = preset.overrides.get(EXPERIMENT)
    given = items.get(EXPERIMENT)
    files = items.get("data.train_files")
    train = data_files(files.value) if files is not None else []
    if given is not None and given.source == "cli":
        name = given.value.strip("'")
    elif ((request.model or preset.model) == preset.model
          and train == [_absolute(f, may_be_hub_id=False) for f in data_files(preset.train_files)]):
        return
    elif any("${" in f for f in train):   # read from the cluster's environment: nothing here to name it by
        return
    else:
        estimator = items.get("algorithm.adv_estimator")
        algorithm = {"gae": "ppo"}.get(estimator.value, estimator.value) if estimator else "ppo"
        model = (request.model or preset.model).rstrip("/").rsplit("/", 1)[-1]
        data = [Path(f).parent.name if Path(f).stem.lower() in _GENERIC_STEMS and Path(f).parent.name else Path(f).stem
                for f in train]
        name = _slug("_".join([model, algorithm, *dict.fromkeys(data)]))
        items.set(Override(EXPERIMENT, hydra_value(name), "", "launcher"))
    if name == own:
        return
    moved = []
    for key in DUMP_DIRS:
        folder = items.get(key)
        if folder is None or folder.source == "cli" or folder.value in (None, "null", "") or "${" in folder.value:
            continue
        leaf = Path(folder.value.strip("'")).name
        path = f"runs/{name}/{leaf}"
        items.set(Override(key, hydra_value(path), folder.prefix, "launcher"))
        moved.append(f"{key}={path}")
    if named is not None and (moved or given is None or given.source != "cli"):
        named.append(f"{EXPERIMENT}={name}" + (f", {', '.join(moved)}" if moved else ""))


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^a-z0-9.]+", "_", text.lower()).strip("_") or "run"


def _absolute(path: str, may_be_hub_id: bool) -> str:
    """verl opens data and model paths from its own working directory on the cluster, so a local path
    is written absolute (`~` expanded, relative paths resolved here); a URL or a model's hub id
    (`Qwen/Qwen3-8B`, when no such folder is here) stays as it is."""
    import os
    from pathlib import Path
    if path.startswith("~"):
        return os.path.expanduser(path)
    if "://" in path or os.path.isabs(path):
        return path
    if may_be_hub_id and not path.startswith(".") and not Path(path).exists():
        return path
    return str(Path(path).resolve())


def cluster_paths(plan: "Plan") -> list[str]:
    """Data and model paths of the command that do not exist on this machine (they must on the cluster)."""
    from pathlib import Path
    cfg = plan.cfg
    if cfg is None:
        return []
    keys = ["data.train_files", "data.val_files", "actor_rollout_ref.model.path"]
    if plan.parallel is not None and plan.parallel.critic is not None:
        keys.append("critic.model.path")
    paths = [(key, path) for key in keys for path in data_files(unresolved(cfg, key))]
    return [f"{key}={path}" for key, path in paths
            if "${" not in path and path.startswith("/") and not Path(path).exists()]


def _launcher_sets(plan: Plan, key: str, value: Any, prefix: str = "") -> None:
    """A key the launcher adds to the run: in the command, and in the composed config the checks read."""
    from omegaconf import OmegaConf

    plan.overrides.set(Override(key, hydra_value(value), prefix, "launcher"))
    OmegaConf.update(plan.cfg, key, value, force_add=True)


def unresolved(cfg: Any, key: str) -> str | list:
    """A config value as written, interpolations (`${oc.env:...}`, which may hold a secret) not resolved."""
    from omegaconf import OmegaConf

    parent, _, leaf = key.rpartition(".")
    value = OmegaConf.to_container(OmegaConf.select(cfg, parent), resolve=False).get(leaf)
    return value if isinstance(value, list) else str(value)


def reward_kwargs_of(cfg: Any) -> dict[str, Any]:
    from omegaconf import OmegaConf
    node = cfg.reward.custom_reward_function.get("reward_kwargs")
    return dict(OmegaConf.to_container(node, resolve=True)) if node is not None else {}


def _wrong_type(exc: Exception, overrides) -> str:
    """Name the override whose value the planner could not read as a number (the exception names
    only the value)."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    culprits = [o.text for o in overrides if o.value is not None and repr(o.value.strip()) in message]
    where = f" in {', '.join(culprits)}" if culprits else ""
    return f"a size, count or fraction is not a number{where} ({message}): give a number, as verl's config does"


def make_plan(request: Request) -> Plan:
    """Every check that can run without GPUs; `plan.ok` says whether to launch."""
    dropped: list[str] = []
    carried: list[str] = []
    named: list[str] = []
    plan = Plan(request=request, overrides=build_overrides(request, dropped, carried, named), dropped=dropped)
    out = plan.findings
    if named:
        out.append(note("run-name", f"this run is not preset {request.preset.name}'s own (another model, data or "
                                    f"experiment name), so its name and dump folders are its own: {named[0]}"))
    if carried:
        out.append(note("strategy", f"preset {request.preset.name} is written for {request.preset.strategy}; "
                                    f"its settings carried over to {plan.strategy}: {'; '.join(carried)}"))
    if dropped:
        out.append(note("strategy", f"preset {request.preset.name} is written for {request.preset.strategy}; "
                                    f"its {request.preset.strategy}-only keys are left out: {', '.join(dropped)}"))
    try:
        plan.cfg = cfg = verl_config.compose(plan.overrides.texts())
    except verl_config.ComposeError as exc:
        out.append(error("unknown-key", str(exc)))
        return plan
    if wants_fused_logprobs(cfg, plan.overrides):
        _launcher_sets(plan, FUSED_LOGPROBS, True)
        out.append(note("speed", f"{FUSED_LOGPROBS}=true: without flash-attn verl computes log-probs one token "
                                 f"at a time; its fused kernels do it in chunks (set it false to keep verl's path)"))
    fusion = bridge_fusion_keys(cfg, plan.overrides)
    if fusion:
        for key in fusion:
            _launcher_sets(plan, key, False, prefix="+")   # verl's config does not declare the key
        out.append(note("fusion", f"{'=false, '.join(fusion)}=false: Megatron-Bridge turns gradient-accumulation "
                                  f"fusion on, which needs Apex (its model build stops without it); install Apex "
                                  f"and set it true to keep the fusion"))
    engine = "megatron" if plan.strategy == "megatron" else "dp"
    if cfg.get("model_engine") != engine or cfg.actor_rollout_ref.actor.strategy != plan.strategy:
        out.append(error("engine", f"the strategy is {plan.strategy}: choose it with --strategy (or the preset's "
                                   f"`strategy`), not with model_engine or actor_rollout_ref.actor.strategy"))
        return plan

    plan.model = str(cfg.actor_rollout_ref.model.path)
    try:
        plan.shape, plan.model_source = _model_shape(plan.model, request)
    except ModelConfigError as exc:
        out.append(error("model-config", str(exc)))
        return plan
    critic_shape = None
    critic_path = str(cfg.critic.model.path)
    try:
        plan.parallel = parallel = plan_parallel(cfg, plan.shape, request.available_gpus)
    except (TypeError, ValueError) as exc:  # a size or count given as text (data.train_batch_size=abc)
        out.append(error("value-type", _wrong_type(exc, plan.overrides)))
        return plan
    out.extend(parallel.findings)
    out.extend(_step_size_hint(parallel))
    if parallel.critic is not None and critic_path != plan.model:
        given = plan.overrides.get("critic.model.path")
        if given is None or given.source != "cli":   # a critic the user named (an untied copy) is meant
            out.append(warning("critic-model", f"the critic is {critic_path} but the actor (and its reference) is "
                                               f"{plan.model}: --model sets both; pass critic.model.path=... too "
                                               f"when actor_rollout_ref.model.path is overridden, unless another "
                                               f"critic is meant"))
        try:
            critic_shape, _ = _model_shape(critic_path, Request(preset=request.preset))
        except ModelConfigError:
            out.append(warning("critic-config", f"the critic's config.json ({critic_path}) is not on this machine; "
                                                f"its memory is estimated with the actor's shape"))
    for finding in (tied_critic_finding(cfg, (critic_shape or plan.shape).tie_embeddings),
                    vl_bridge_finding(cfg, plan.shape.model_type)):
        if finding:
            out.append(finding)
    max_len = plan.shape.max_positions
    total_len = parallel.prompt_len + parallel.response_len
    if max_len and total_len > max_len:
        out.append(error("context", f"data.max_prompt_length + data.max_response_length = {total_len} tokens exceeds "
                                    f"the model's max_position_embeddings {max_len}: shorten them"))

    plan.gpu_memory_gb = request.gpu_memory_gb or request.preset.gpu_memory_gb
    if not any(f.check in ("too-few-gpus", "world-divides", "parallel-size") for f in out):
        if plan.strategy == "megatron":
            dist_opt = bool(cfg.actor_rollout_ref.actor.megatron.use_distributed_optimizer)
            plan.memory = estimate(parallel, plan.shape, plan.gpu_memory_gb, critic_shape, dist_opt)
        else:
            plan.memory = estimate_fsdp(parallel, plan.shape, plan.gpu_memory_gb, critic_shape)
        _memory_findings(plan)

    plan.reward_kwargs = reward_kwargs_of(cfg)
    ours = cfg.reward.custom_reward_function.get("path") == REWARD_PATH
    if ours:
        added, found = length_needs(plan.reward_kwargs, cfg)
        for key, value in added.items():
            _launcher_sets(plan, f"{REWARD_KWARGS}.{key}", value, prefix="+")   # verl's config declares no reward_kwargs
        out.extend(found)
        plan.reward_kwargs = reward_kwargs_of(cfg)
    own_tokenizer = tokenizer_dir(_local_dir(plan.model, request))   # the model's own folder, when it has one
    tokenizer = own_tokenizer
    if request.tokenizer:
        tokenizer = tokenizer_dir(Path(request.tokenizer).expanduser())
        if tokenizer is None:
            out.append(error("tokenizer", f"--tokenizer {request.tokenizer} holds no tokenizer (no tokenizer.json, "
                                          f"tokenizer_config.json or vocab.json): give the folder the model's "
                                          f"tokenizer files are in"))
    if request.check_data:
        files = {"train": data_files(cfg.data.train_files), "val": data_files(cfg.data.val_files)}
        plan.data, data_findings = check_data(files, cfg, tokenizer)
        out.extend(data_findings)
    else:
        out.append(note("data", "data files not checked (--skip-data-check): run `rewards validate` on them where they live"))
    sources = sorted({s for d in plan.data for s in d.data_sources})
    out.extend(check_reward(plan.reward_kwargs, sources))
    plan.reward_settings = effective_settings(plan.reward_kwargs, sources)
    if ours and not any(f.check == "reward-kwargs" for f in out):   # a rejected setting is named once, above
        samples = sample_rows(data_files(cfg.data.train_files)) if plan.data else []
        out.extend(call_findings(cfg, samples or [GSM8K_SAMPLE], tokenizer, checked_data=bool(samples)))
    out.extend(check_prompt_format(plan.data, plan.reward_settings))

    from .env import check_environment
    out.extend(check_environment(cfg, launching=False, vision=plan.vision)[0])
    _reward_wiring_findings(plan)
    _bridge_findings(plan)
    out.extend(folder_findings(cfg, plan.strategy, plan.parallel))

    if request.check_verl:
        for problem in verl_config.verl_checks(cfg, build_model=own_tokenizer is not None):
            out.append(error("verl", problem))
    return plan


FEW_RESPONSES_PER_GPU = 8


def _step_size_hint(p: ParallelPlan) -> list[Finding]:
    """A step of few responses per GPU leaves the rollout engines generating a handful of sequences
    each, so most of each step the GPUs wait: name the batch that gives every GPU enough."""
    if p.world < 1 or p.responses_per_step >= FEW_RESPONSES_PER_GPU * p.world:
        return []
    mini = max(p.actor.mini, 1)
    wanted = -(-FEW_RESPONSES_PER_GPU * p.world // max(p.n, 1))      # prompts, rounded up
    batch = -(-wanted // mini) * mini                                # ... to whole mini-batches
    return [note("step-size", f"{p.responses_per_step} responses a step (data.train_batch_size={p.train_batch} x "
                              f"n={p.n}) over {p.world} GPUs is {p.responses_per_step / p.world:g} a GPU: the rollout "
                              f"replicas generate a few sequences each and the GPUs mostly wait; "
                              f"data.train_batch_size={batch} gives {batch * p.n // p.world} a GPU "
                              f"(or raise actor_rollout_ref.rollout.n)")]


def _reward_wiring_findings(plan: Plan) -> None:
    cfg, out = plan.cfg, plan.findings
    legacy = cfg.get("custom_reward_function") or {}
    if any(v is not None for v in legacy.values()):
        out.append(warning("reward-wiring", "verl 0.9.1's main_ppo ignores the top-level custom_reward_function.*: "
                                            "write reward.custom_reward_function.* instead"))
    path = cfg.reward.custom_reward_function.get("path")
    if path != REWARD_PATH:
        out.append(warning("reward-wiring", f"reward.custom_reward_function.path is {path!r}, not {REWARD_PATH}: "
                                            f"this package's scorers and checks do not apply to that reward"))


def _bridge_findings(plan: Plan) -> None:
    """verl 0.9.1's Megatron engine builds models only through a bridge: `MegatronEngine.__init__`
    asserts `use_mbridge`, after the cluster is up."""
    if plan.strategy != "megatron":
        return
    sections = {"actor_rollout_ref.actor": plan.cfg.actor_rollout_ref.actor}
    if plan.parallel is not None and plan.parallel.critic is not None:
        sections["critic"] = plan.cfg.critic
    for key, section in sections.items():
        if not section.megatron.get("use_mbridge", True):
            plan.findings.append(error("bridge", f"{key}.megatron.use_mbridge=false: verl 0.9.1's Megatron engine has "
                                                 f"no path without a model bridge (it stops with 'use_mbridge must be "
                                                 f"True'); leave it true and pick the bridge with vanilla_mbridge"))


def _local_dir(model: str, request: Request):
    if request.model_config:
        return None   # an explicit config.json says nothing about a local tokenizer
    return local_model_dir(model)


def _model_shape(model: str, request: Request) -> tuple[ModelShape, str]:
    found = find_config(model, request.model_config)
    if found is not None:
        return shape_from_config(read_config(found)), str(found)
    preset = request.preset
    if model == preset.model and preset.model_config:
        return (shape_from_config(preset.model_config),
                f"the published config.json recorded in preset {preset.name} ({model} is not on this machine)")
    from pathlib import Path
    local = Path(model).expanduser()
    if local.is_dir():
        raise ModelConfigError(f"model folder {model} has no config.json: pass the folder that holds the model's "
                               f"config.json and weights")
    if model.startswith(("/", ".", "~")) or model.count("/") > 1:
        raise ModelConfigError(f"model folder {model} does not exist on this machine: fix the path, or pass "
                               f"--model-config PATH/config.json if the model exists only on the cluster")
    raise ModelConfigError(f"cannot find config.json for {model} on this machine: download the model "
                           f"(huggingface-cli download {model}) or pass --model-config PATH/config.json")


def _memory_findings(plan: Plan) -> None:
    mem, out = plan.memory, plan.findings
    if mem.rollout_weights_gib >= mem.rollout_budget_gib:
        out.append(error("memory", f"the rollout engine's share of each GPU (gpu_memory_utilization x {mem.gpu_gib:g} "
                                   f"= {mem.rollout_budget_gib:.1f} GiB) cannot hold its own weights "
                                   f"({mem.rollout_weights_gib:.1f} GiB at rollout TP {plan.parallel.rollout_tp}): raise "
                                   f"actor_rollout_ref.rollout.gpu_memory_utilization or its tensor_model_parallel_size"))
    if mem.offload_note:
        out.append(note("offload", mem.offload_note))
    if not mem.fits and mem.peak.total > mem.gpu_gib:
        level = error if plan.request.memory_is_error else warning
        out.append(level("memory", f"the {mem.peak.name} phase needs about {mem.peak.total:.1f} GiB per GPU but a GPU has "
                                   f"{mem.gpu_gib:g} GiB: {mem.suggestion}"))
