"""A run's own folders, read before it launches: the checkpoint verl will resume from, and the file its
file logger will write.

Resuming is verl's default (`trainer.resume_mode=auto`): a launch whose `trainer.default_local_dir`
holds `latest_checkpointed_iteration.txt` loads `global_step_N` (weights, optimizer, the data loader's
place) and trains steps N+1 to `trainer.total_training_steps`. So a user resumes after a preemption by
launching the same command again; to train on past the planned end they raise the step count. What
stops a resume is said here, before the GPUs are taken: a run already at its last step (verl would
validate once and exit), a checkpoint of the other engine, or FSDP shards of another world size.

verl's file logger (`trainer.logger` with `file`) opens `VERL_FILE_LOGGER_PATH` with mode "wb": it
neither makes the folder (the run stopped with FileNotFoundError at its first log line, minutes after
launch) nor keeps what is there (a resumed run wipes the first run's metrics).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from .findings import Finding, error, note, warning

LOGGER_PATH = "VERL_FILE_LOGGER_PATH"
TRACKER = "latest_checkpointed_iteration.txt"
_FSDP_SHARD = re.compile(r"model_world_size_(\d+)_rank_\d+\.pt$")


@dataclass(frozen=True)
class Checkpoint:
    """The checkpoint a launch resumes from."""

    folder: Path          # global_step_N
    step: int
    engine: str | None    # "fsdp" or "megatron" (who saved actor/), None when actor/ says neither
    fsdp_world: int | None = None
    megatron_split: tuple[int, int] | None = None   # (TP, PP) it was saved at


def resume_point(cfg: Any) -> Checkpoint | None:
    """The checkpoint verl's `_load_checkpoint` will load for this config, or None (a fresh start)."""
    trainer = cfg.trainer
    mode = str(trainer.get("resume_mode") or "auto")
    if mode == "disable":
        return None
    if mode == "resume_path":
        given = trainer.get("resume_from_path")
        if not given or "global_step_" not in str(given):
            return None   # resume_findings says why
        folder = Path(str(given)).expanduser()
        step = int(str(given).rstrip("/").split("global_step_")[-1])
    else:
        root = Path(str(trainer.default_local_dir)).expanduser()
        try:
            step = int((root / TRACKER).read_text().strip())
        except (OSError, ValueError):
            return None   # no tracker (or an unreadable one): verl starts from scratch too
        folder = root / f"global_step_{step}"
    if not folder.is_dir():
        return None
    return _inspect(folder, step)


def _inspect(folder: Path, step: int) -> Checkpoint:
    actor = folder / "actor"
    worlds = {int(m.group(1)) for p in (actor.iterdir() if actor.is_dir() else ()) if (m := _FSDP_SHARD.match(p.name))}
    if worlds:
        return Checkpoint(folder, step, "fsdp", fsdp_world=max(worlds))
    if (actor / "ckpt_contents.json").is_file() or (actor / "model").is_dir() or (actor / "dist_ckpt").is_dir():
        return Checkpoint(folder, step, "megatron", megatron_split=_megatron_split(actor))
    return Checkpoint(folder, step, None)


def _megatron_split(actor: Path) -> tuple[int, int] | None:
    import json
    try:
        config = json.loads((actor / "transformer_config.json").read_text())
        return int(config["tensor_model_parallel_size"]), int(config.get("pipeline_model_parallel_size") or 1)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def resume_findings(cfg: Any, strategy: str, world: int | None, split: tuple[int, int] | None) -> list[Finding]:
    """What the launch will resume, and what would stop it. `world`: the actor's GPUs; `split`: the
    Megatron actor's (TP, PP)."""
    trainer = cfg.trainer
    if str(trainer.get("resume_mode") or "auto") == "resume_path":
        given = trainer.get("resume_from_path")
        if not given or "global_step_" not in str(given):
            return [error("resume", f"trainer.resume_mode=resume_path needs trainer.resume_from_path=.../global_step_N "
                                    f"(got {given!r}): verl asserts on it after the cluster is up")]
        if not Path(str(given)).expanduser().is_dir():
            return [error("resume", f"trainer.resume_from_path={given} does not exist on this machine")]
    saved = resume_point(cfg)
    if saved is None:
        return []
    total = _int(trainer.get("total_training_steps"))
    out = []
    engine = "megatron" if strategy == "megatron" else "fsdp"
    if saved.engine is not None and saved.engine != engine:
        out.append(error("resume", f"{saved.folder}/actor was saved by verl's {saved.engine} engine and this run uses "
                                   f"{engine}: verl cannot load a checkpoint across engines; export it with "
                                   f"`rewards merge {saved.folder}` and start a new run from the merged model (--model) "
                                   f"in another trainer.default_local_dir"))
    elif saved.fsdp_world is not None and world is not None and saved.fsdp_world != world:
        out.append(error("resume", f"{saved.folder}/actor holds FSDP shards of {saved.fsdp_world} GPU(s) and this run "
                                   f"has {world}: FSDP shards load only on as many GPUs as saved them; resume on "
                                   f"{saved.fsdp_world} GPU(s), or merge it (`rewards merge`) and start anew"))
    elif saved.megatron_split is not None and split is not None and saved.megatron_split != split:
        (tp, pp), (now_tp, now_pp) = saved.megatron_split, split
        out.append(error("resume", f"{saved.folder}/actor was saved at Megatron TP {tp} x PP {pp} and this run is TP "
                                   f"{now_tp} x PP {now_pp}: verl's optimizer checkpoint (dp_reshardable) reloads at the "
                                   f"same TP and PP only; resume at TP {tp} x PP {pp}"))
    if total is not None and saved.step >= total and not trainer.get("val_only"):
        out.append(error("resume", f"{saved.folder} is step {saved.step} and trainer.total_training_steps={total}: "
                                   f"verl would resume there, validate once and stop without training; to train on, "
                                   f"raise it (e.g. trainer.total_training_steps={saved.step + 20}); to start over, "
                                   f"give another trainer.default_local_dir (or trainer.resume_mode=disable, which "
                                   f"overwrites these checkpoints as it saves)"))
    if not out:
        upto = f" to {total}" if total is not None else ""
        check = (f"; validation before training reads step {saved.step}'s weights"
                 if trainer.get("val_before_train", True) else "")
        out.append(note("resume", f"resumes from {saved.folder} (verl's trainer.resume_mode="
                                  f"{trainer.get('resume_mode') or 'auto'}): weights, optimizer and the data loader's "
                                  f"place, then steps {saved.step + 1}{upto}{check} (trainer.resume_mode=disable and "
                                  f"another trainer.default_local_dir start over)"))
    return out


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def writes_file_log(cfg: Any) -> bool:
    logger = cfg.trainer.get("logger")
    names = [logger] if isinstance(logger, str) else list(logger or [])
    return "file" in [str(n) for n in names]


def metrics_findings(cfg: Any, environ: Mapping[str, str] | None = None, resuming: bool = False) -> list[Finding]:
    """The file logger's path: a folder the launch will make, a folder given as the file, a file verl
    would overwrite."""
    environ = os.environ if environ is None else environ
    if not writes_file_log(cfg):
        return []
    given = environ.get(LOGGER_PATH)
    if not given:
        if resuming:
            return [warning("metrics-file", f"verl's file logger writes ./{cfg.trainer.project_name}/"
                                            f"{cfg.trainer.experiment_name}.jsonl from scratch (mode 'wb'): the resumed "
                                            f"run replaces the earlier run's metrics there; set {LOGGER_PATH} to a new "
                                            f"file for this run")]
        return []
    path = Path(given).expanduser()
    if path.is_dir():
        return [error("metrics-file", f"{LOGGER_PATH}={given} is a folder: give the path of a file "
                                      f"(e.g. {path / 'metrics.jsonl'})")]
    out = []
    if not path.parent.is_dir():
        out.append(note("metrics-file", f"{path.parent} (the folder of {LOGGER_PATH}) does not exist: the launch makes "
                                        f"it (verl's file logger does not, and would stop at its first line)"))
    elif path.is_file() and path.stat().st_size > 0:
        out.append(warning("metrics-file", f"{LOGGER_PATH}={given} already holds {_lines(path)} line(s): verl's file "
                                           f"logger opens it with mode 'wb' and replaces them; give this run a new "
                                           f"file (e.g. {path.with_name(path.stem + '-2' + path.suffix)})"))
    return out


def _lines(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def prepare_metrics_file(cfg: Any, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Before verl starts: make the folder of VERL_FILE_LOGGER_PATH and return the environment
    variables to hand verl (the path made absolute: verl's actors open it from their own working
    directory). Empty when the run writes no file log or the variable is unset."""
    environ = os.environ if environ is None else environ
    given = environ.get(LOGGER_PATH)
    if not given or not writes_file_log(cfg):
        return {}
    path = Path(given).expanduser().resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    return {LOGGER_PATH: str(path)}


def folder_findings(cfg: Any, strategy: str, parallel: Any = None) -> list[Finding]:
    """The plan's reading of the run's folders: the resume, then the metrics file."""
    world = parallel.world if parallel is not None else None
    split = (parallel.actor.tp, parallel.actor.pp) if parallel is not None and strategy == "megatron" else None
    return [*resume_findings(cfg, strategy, world, split),
            *metrics_findings(cfg, resuming=resume_point(cfg) is not None)]


def script_prelude(cfg: Any) -> list[str]:
    """What an emitted script runs before verl: make the folder of VERL_FILE_LOGGER_PATH, as a launch does,
    whatever the variable holds where the script runs."""
    if not writes_file_log(cfg):
        return []
    return [f'if [ -n "${{{LOGGER_PATH}:-}}" ]; then mkdir -p "$(dirname "${LOGGER_PATH}")"; fi   '
            f'# verl\'s file logger makes no folder']
