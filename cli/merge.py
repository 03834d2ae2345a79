"""`rewards merge`: turn a verl checkpoint (FSDP or Megatron) into a checked Hugging Face model directory.

Point it at a run directory (the latest step is taken unless `--step`), a `global_step_N` directory or
a `global_step_N/actor` directory. When the model bridge already saved HF weights (verl's default) they
are copied; otherwise verl's own merger runs (`python -m verl.model_merger merge --backend fsdp|megatron`).
Either way the output is checked: a config, weights that exist, and the parameter count the config
implies (within 2%).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from .errors import CommandError


def register(sub) -> None:
    p = sub.add_parser(
        "merge", help="export a verl checkpoint (FSDP or Megatron) as a checked Hugging Face model",
        description="Export global_step_N/actor (or critic) of a verl FSDP or Megatron run to a Hugging Face "
                    "directory and check it: config present, weights present, parameter count as the "
                    "config implies.")
    p.add_argument("checkpoint", help="run directory, global_step_N directory, or global_step_N/actor directory")
    p.add_argument("-o", "--output", "--target-dir", dest="target_dir", metavar="FOLDER",
                   help="where to write the HF model (default: <checkpoint>/huggingface_merged; --target-dir is "
                        "the older spelling)")
    p.add_argument("--step", type=int, help="which global_step_N of a run directory (default: the latest)")
    p.add_argument("--role", choices=("actor", "critic"), default="actor", help="which model to export")
    p.add_argument("--base-model", metavar="PATH", help="base model directory or config.json: the export must match its shape")
    p.add_argument("--check-only", action="store_true", help="only check an existing HF directory (CHECKPOINT)")
    p.add_argument("--dry-run", action="store_true", help="print what would run; write nothing")
    p.set_defaults(func=run)


def run(args) -> int:
    from .launch.export import CheckpointError, check_export, find_checkpoint, merger_argv

    value_model = args.role == "critic"
    if args.check_only:
        if not Path(args.checkpoint).expanduser().is_dir():
            raise CommandError(f"{args.checkpoint} is not a folder: --check-only takes a Hugging Face model folder")
        return _report(check_export(args.checkpoint, value_model, args.base_model))
    try:
        checkpoint = find_checkpoint(args.checkpoint, args.step, args.role)
    except CheckpointError as exc:
        raise CommandError(str(exc)) from None
    target = Path(args.target_dir or checkpoint.role_dir / "huggingface_merged").expanduser()
    step = f"step {checkpoint.step}" if checkpoint.step is not None else "checkpoint"
    if checkpoint.route == "huggingface":
        print(f"{step}: the model bridge saved Hugging Face weights in {checkpoint.hf_dir}; copying them to {target}")
        if args.dry_run:
            return 0
        if target.resolve() != checkpoint.hf_dir.resolve():
            _copy_whole(checkpoint.hf_dir, target)
    else:
        argv = merger_argv(checkpoint, target, python=sys.executable)
        where = "FSDP shards in" if checkpoint.route == "fsdp" else "Megatron shards in"
        shards = checkpoint.role_dir if checkpoint.route == "fsdp" else checkpoint.role_dir / "model" / "dist_ckpt"
        print(f"{step}: {where} {shards}; running verl's merger:")
        print("  " + " ".join(argv))
        if args.dry_run:
            return 0
        from .launch.command import run as run_command
        status = run_command(argv)
        if status != 0:
            needs = "torch and transformers" if checkpoint.route == "fsdp" else "megatron-core"
            raise CommandError(f"verl's model merger failed with exit status {status} (its output is above); it needs "
                               f"{needs} installed, as on the training nodes")
    return _report(check_export(target, value_model, args.base_model))


def _copy_whole(source: Path, target: Path) -> None:
    """Copy into a temporary folder beside `target` and rename it into place when complete, so that an
    interrupted or failed copy leaves no half model that --check-only or a later load could take."""
    if target.exists() and not target.is_dir():
        raise CommandError(f"-o {target} is a file: give a folder")
    if target.is_dir() and any(target.iterdir()):
        raise CommandError(f"{target} exists and is not empty: choose another -o folder or remove it")
    staging = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # An unpredictable name, created exclusively: nothing planted beside the target is followed.
        staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"))
        shutil.copytree(source, staging, dirs_exist_ok=True)
        mask = os.umask(0)
        os.umask(mask)
        staging.chmod(0o777 & ~mask)  # mkdtemp makes it private; the model folder is an ordinary one
        os.replace(staging, target)  # onto an empty folder too
    except OSError as exc:
        raise CommandError(f"cannot write {target}: {exc.strerror or exc}") from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)


def _report(check) -> int:
    print(f"\n{check.directory}: {len(check.files)} weight file(s), {check.params / 1e9:.3f} B parameters "
          f"({check.weight_bytes / 2**30:.2f} GiB); the config implies {check.expected / 1e9:.3f} B")
    for note in check.notes:
        print(f"  note: {note}")
    for problem in check.problems:
        print(f"  error: {problem}", file=sys.stderr)
    if not check.ok:
        print(f"rewards merge: the export at {check.directory} is not usable", file=sys.stderr)
        return 2
    print("  ok: config and weights present, parameter count matches the config")
    return 0
