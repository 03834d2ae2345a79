"""`rewards train`: plan, check and launch a verl GRPO/PPO run on verl's FSDP or Megatron engine.

`rewards train PRESET [key=value ...] --dry-run` prints the plan and the exact verl command;
`--emit run.sh` writes the command as a script; `--json` prints the plan as data and, like
`--dry-run`, launches nothing; without any of them the command runs here (a subprocess)
or on an existing Ray cluster (`--ray-address`, through `ray job submit`). A plan with errors never
launches: every error is one sentence that says what to change.
"""

from __future__ import annotations

import json
import shlex
import sys

from .errors import CommandError


def register(sub) -> None:
    p = sub.add_parser(
        "train", help="plan, check and launch a verl GRPO/PPO run (FSDP or Megatron)",
        description="Plan a verl run from a preset, check it without GPUs (parallel split, batch sizes, "
                    "memory, data, verl's own config checks) and launch it. Overrides are verl's "
                    "key=value Hydra overrides and may come anywhere after the preset.")
    p.add_argument("preset", nargs="?", help="preset name (see --list) or path of a preset .yaml")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="verl overrides; the last value of a key wins")
    p.add_argument("--list", action="store_true", help="list the presets and exit")
    p.add_argument("--strategy", choices=("fsdp", "fsdp2", "megatron"),
                   help="verl's training engine (default: the preset's); a preset's keys for the other engine are left out")
    p.add_argument("--model", help="model path or hub id (sets actor_rollout_ref.model.path, and the critic's)")
    p.add_argument("--model-config", metavar="PATH", help="the model's config.json, when the model is not on this machine")
    p.add_argument("--tokenizer", metavar="DIR",
                   help="the model's tokenizer folder, to check prompt lengths when only its config.json is here "
                        "(--model-config)")
    p.add_argument("--train-files", nargs="+", metavar="FILE",
                   help="training parquet file(s) (data.train_files; several, or verl's [a,b], are one mix)")
    p.add_argument("--val-files", nargs="+", metavar="FILE", help="validation parquet file(s) (data.val_files)")
    p.add_argument("--nnodes", type=int, help="nodes (trainer.nnodes)")
    p.add_argument("--gpus-per-node", type=int, help="GPUs per node (trainer.n_gpus_per_node)")
    p.add_argument("--gpu-memory-gb", type=float, help="memory of one GPU in GiB as nvidia-smi reports it (default: the preset's)")
    p.add_argument("--available-gpus", type=int, help="GPUs the cluster has, to check the run asks for no more")
    p.add_argument("--dry-run", action="store_true", help="print the plan and the command; launch nothing")
    p.add_argument("--emit", metavar="SCRIPT", help="write the command as an executable script; launch nothing")
    p.add_argument("--ray-address", metavar="ADDR", help="submit to this Ray cluster (ray job submit --address ADDR)")
    p.add_argument("--no-wait", action="store_true", help="with --ray-address: submit and return without following the logs")
    p.add_argument("--skip-data-check", action="store_true", help="do not open the data files (they exist only on the cluster)")
    p.add_argument("--no-memory-check", action="store_true", help="report a memory overflow as a warning, not an error")
    p.add_argument("--smoke", action="store_true",
                   help="rehearse this run on the GPUs here in minutes: the same config with the model shrunk "
                        "(2 layers, random weights), the smallest batches, 2 steps, a few validation rows and a "
                        "checkpoint; prints pass or the first failure")
    p.add_argument("--smoke-dir", metavar="DIR", help="with --smoke: where the shrunk model, log, dumps and "
                                                      "checkpoint go (default: a new temporary folder)")
    p.add_argument("--smoke-timeout", type=float, default=1200, metavar="S",
                   help="with --smoke: give up after S seconds (default 1200)")
    p.add_argument("--json", action="store_true",
                   help="print the plan as JSON and launch nothing (as --dry-run; with --emit the script is "
                        "written too)")
    p.set_defaults(func=run)
    _collect_intermixed_overrides(p)


def _collect_intermixed_overrides(parser) -> None:
    """Let `key=value` overrides follow options (argparse alone takes positionals in one run)."""
    original = parser.parse_known_args

    def parse_known_args(args=None, namespace=None):
        namespace, extras = original(args, namespace)
        for name in ("train_files", "val_files"):  # `--train-files a.parquet data.x=1`: the override is not a file
            values = getattr(namespace, name, None) or []
            namespace.overrides.extend(v for v in values if _is_override(v))
            setattr(namespace, name, [v for v in values if not _is_override(v)] or None)
        rest = []
        for arg in extras:
            if not arg.startswith("-") and ("=" in arg or arg.startswith("~")):
                namespace.overrides.append(arg)
            else:
                rest.append(arg)
        namespace.overrides = _in_order(namespace.overrides, sys.argv[1:] if args is None else args)
        return namespace, rest

    parser.parse_known_args = parse_known_args


def _in_order(overrides: list[str], argv: list[str]) -> list[str]:
    """The overrides in the order they were typed (the last value of a key wins), wherever argparse found them."""
    from collections import Counter

    pending, ordered = Counter(overrides), []
    for arg in argv:
        if pending[arg] > 0:
            pending[arg] -= 1
            ordered.append(arg)
    return ordered + list(pending.elements())


def _is_override(arg: str) -> bool:
    from .launch.overrides import OverrideError, parse_override

    if arg.startswith("-") or not ("=" in arg or arg.startswith("~")):
        return False
    try:
        parse_override(arg)
    except OverrideError:
        return False  # a file name holding `=` (`step=100/train.parquet`)
    return True


def run(args) -> int:
    from .launch.presets import PresetError, list_presets, load_preset

    if args.list:
        if args.json:
            print(json.dumps([{"name": p.name, "strategy": p.strategy, "nnodes": p.nnodes,
                               "gpus_per_node": p.n_gpus_per_node, "gpu_memory_gb": p.gpu_memory_gb,
                               "model": p.model, "description": p.description} for p in list_presets()], indent=2))
            return 0
        for preset in list_presets():
            print(f"{preset.name:<36} {preset.strategy:<9} {preset.nnodes}x{preset.n_gpus_per_node} GPUs  "
                  f"{preset.description}")
        return 0
    if not args.preset:
        raise CommandError("name a preset (`rewards train --list` shows them) or the path of a preset .yaml")
    try:
        preset = load_preset(args.preset)
    except PresetError as exc:
        raise CommandError(str(exc)) from None
    args.gpu_memory_source = "--gpu-memory-gb" if args.gpu_memory_gb else None
    if args.gpu_memory_gb is None and _runs_here(args):   # plan for the GPUs here, not the preset's guess
        from .launch.host import local_gpu_memory
        found = local_gpu_memory()
        if found is not None:
            args.gpu_memory_gb, args.gpu_memory_source = found
    plan = _plan(args, preset)
    if args.smoke:
        return _smoke(args, preset, plan)

    from .launch.command import local_argv, ray_submit_argv, render_command, render_script, write_script
    argv = ray_submit_argv(args.ray_address, plan.argv, args.no_wait) if args.ray_address else plan.argv
    if args.json:
        print(json.dumps(plan.to_dict(), indent=2, default=str))
    else:
        from .launch.plan_text import render_plan
        print(render_plan(plan))
        shown = plan.argv if args.ray_address or args.emit else local_argv(plan.argv)  # what runs, where it runs
        print("\nCommand:\n" + (shlex.join(argv[:argv.index("--") + 1]) + " \\\n    " if args.ray_address else "")
              + render_command(shown))
    if not plan.ok:
        print(f"\nrewards train: not launched: {len(plan.errors)} error(s) above.", file=sys.stderr)
        return 2
    if args.emit:
        from .launch.plan import describe_run
        header = [f"Run: {describe_run(plan)} (from preset {preset.name})"]
        if plan.memory:
            header.append(f"Memory estimate: peak {plan.memory.peak.name} {plan.memory.peak.total:.1f} of "
                          f"{plan.memory.gpu_gib:g} GiB per GPU.")
        from .launch.plan import cluster_paths
        elsewhere = cluster_paths(plan)
        if elsewhere:
            header.append("Not on this machine, so these must exist on the cluster: " + ", ".join(elsewhere))
        from .launch.folders import script_prelude
        prelude = [] if args.ray_address else [*script_prelude(plan.cfg), *_record_lines(plan)]   # a submitted job runs elsewhere
        path = write_script(args.emit, render_script(plan.argv, header, args.ray_address, prelude), _inputs(args, plan))
        notes = sys.stderr if args.json else sys.stdout  # stdout stays one JSON document
        print(f"\nwrote {path or 'the script to standard output'}", file=notes)
        for item in elsewhere:
            print(f"  must exist on the cluster (not on this machine): {item}", file=notes)
        return 0
    if args.dry_run or args.json:  # a request for the plan as data is never a launch
        return 0
    return _launch(args, plan, argv)


def _runs_here(args) -> bool:
    """Whether this command runs verl on this machine's GPUs (a launch or a smoke, not a plan or a script)."""
    if args.dry_run or args.json:
        return False
    return args.smoke or not (args.emit or args.ray_address)


def _training_record(plan):
    """(the training dump folder, `data_sources.json`'s text) for a run that dumps training rollouts, else
    None: verl's V1 trainer writes no data_source into those dumps, and `rewards report` labels each row
    by data set from this record (schemas/dump_sources.py)."""
    from schemas.dump_sources import record_text

    from .launch.data import data_files
    from .launch.plan import unresolved
    folder = unresolved(plan.cfg, "trainer.rollout_data_dir") if plan.cfg is not None else None
    if not folder or folder in ("None", "null") or "${" in str(folder):
        return None
    files = data_files(unresolved(plan.cfg, "data.train_files"))
    if any("${" in f for f in files):   # named by the cluster's environment (perhaps a secret): not written here
        return None
    checked = {d.file: d.data_sources for d in plan.data if d.checked and d.file in files}
    return str(folder), record_text(files, checked)


def _record_lines(plan) -> list[str]:
    """The emitted script's lines that write the record where and when the run starts."""
    from schemas.dump_sources import RECORD

    record = _training_record(plan)
    if record is None:
        return []
    folder, text = record
    return ["# The training files' data_sources, beside verl's training dumps (`rewards report` reads them)",
            f"mkdir -p {shlex.quote(folder)}",
            f"printf '%s\\n' {shlex.quote(text)} > {shlex.quote(folder + '/' + RECORD)}"]


def _record_training_files(plan) -> None:
    """The record written here, before verl is launched on this machine."""
    from pathlib import Path

    from schemas.dump_sources import RECORD

    record = _training_record(plan)
    if record is None:
        return
    folder, text = record
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / RECORD).write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"rewards train: note: cannot write {Path(folder) / RECORD} ({exc.strerror or exc}); `rewards "
              f"report` of the training dumps then cannot tell a mixed run's data sets apart", file=sys.stderr)


def _inputs(args, plan) -> list[str]:
    """What `--emit` must never overwrite: the preset file and the data and model files it names."""
    from pathlib import Path

    named = [args.preset, *(args.train_files or []), *(args.val_files or []), args.model_config, args.model]
    if plan.cfg is not None:
        for key in ("data.train_files", "data.val_files", "actor_rollout_ref.model.path", "critic.model.path"):
            value = _config_value(plan.cfg, key)
            named.extend(value if isinstance(value, list) else [value])
    return [str(p) for p in named if p and Path(str(p)).expanduser().exists()]


def _config_value(cfg, key: str):
    from omegaconf import OmegaConf

    try:
        value = OmegaConf.select(cfg, key)
        return OmegaConf.to_container(value) if OmegaConf.is_config(value) else value
    except Exception:  # an interpolation that cannot resolve here (an env var of the cluster)
        return None


def _plan(args, preset):
    from .launch.overrides import OverrideError
    from .launch.plan import Request, make_plan
    from .launch.verl_config import VerlMissingError

    from pathlib import Path
    from .launch.data import data_files
    args.train_files, args.val_files = data_files(args.train_files) or None, data_files(args.val_files) or None
    for values, flag in ((args.train_files, "--train-files"), (args.val_files, "--val-files")):
        for value in values or []:
            if Path(value).expanduser().is_dir():
                found = sorted(p.name for p in Path(value).expanduser().glob("*.parquet"))[:3]
                hint = f" (it holds {', '.join(found)})" if found else ""
                raise CommandError(f"{flag} {value} is a folder: give parquet files{hint}")
    request = Request(preset=preset, strategy=args.strategy, model=args.model, model_config=args.model_config,
                      tokenizer=args.tokenizer,
                      train_files=args.train_files, val_files=args.val_files, nnodes=args.nnodes,
                      gpus_per_node=args.gpus_per_node, gpu_memory_gb=args.gpu_memory_gb,
                      gpu_memory_source=getattr(args, "gpu_memory_source", None),
                      available_gpus=args.available_gpus, overrides=list(args.overrides or []),
                      check_data=not args.skip_data_check, memory_is_error=not args.no_memory_check)
    for value, flag in ((args.nnodes, "--nnodes"), (args.gpus_per_node, "--gpus-per-node"),
                        (args.available_gpus, "--available-gpus")):
        if value is not None and value < 1:
            raise CommandError(f"{flag} must be at least 1, not {value}")
    try:
        return make_plan(request)
    except (OverrideError, VerlMissingError) as exc:
        raise CommandError(str(exc)) from None


def _smoke(args, preset, plan) -> int:
    """Plan the full run, then the same run made small, then run that one for real (see launch/smoke.py)."""
    import copy
    from .launch import smoke
    from .launch.command import count_local_gpus, local_argv
    from .launch.env import tied_critic_finding
    from .untie import write_untied

    if not plan.ok:   # the full run's own checks: the failure it would hit, found with no GPU
        print(f"smoke: FAIL before launch: {plan.errors[0].message}")
        return 1
    gpus = min(count_local_gpus() or plan.parallel.gpus_per_node, plan.parallel.gpus_per_node)
    split = smoke.smoke_split(plan.cfg, gpus)
    folder = smoke.smoke_folder(args.smoke_dir, preset.name)
    try:
        config = smoke.source_config(plan.model, preset.model, preset.model_config, args.model_config)
        shrunk = smoke.write_shrunk_model(plan.model, config, folder / "model", split.widest)
    except smoke.SmokeError as exc:
        raise CommandError(str(exc)) from None
    small_args = copy.copy(args)
    small_args.model, small_args.model_config, small_args.tokenizer = str(folder / "model"), None, None
    small_args.overrides = [*(args.overrides or []),
                            *smoke.smoke_overrides(plan.cfg, split, folder, byte_tokenizer=not shrunk.own_tokenizer)]
    if tied_critic_finding(plan.cfg, tied=bool(config.get("tie_word_embeddings"))):
        # the full run's critic is an untied copy (its plan passed): the shrunk critic is one too
        write_untied(folder / "model", folder / "critic")
        small_args.overrides.append(f"critic.model.path={folder / 'critic'}")
    small = _plan(small_args, preset)
    print(f"smoke: {preset.name} on {split.world} GPU(s), model {plan.model} shrunk to 2 layers in {folder / 'model'} "
          f"with {shrunk.tokenizer_from}")
    if args.dry_run or args.json:
        from .launch.command import render_command
        from .launch.plan_text import render_plan
        print(json.dumps(small.to_dict(), indent=2, default=str) if args.json
              else render_plan(small) + "\n\nCommand:\n" + render_command(small.argv))
        return 0 if small.ok else 2
    if not small.ok:
        print(f"smoke: FAIL before launch: {small.errors[0].message}")
        return 1
    from .launch.env import check_environment, missing_sentence
    findings, missing = check_environment(small.cfg, launching=True, vision=small.vision)
    blocking = [f.message for f in findings if f.level == "error"]
    from .launch.host import machine_findings
    blocking += [f.message for f in machine_findings(small.cfg)]
    if missing or blocking:
        print(f"smoke: FAIL before launch: {missing_sentence(missing, small.cfg) if missing else blocking[0]}")
        return 1
    reward_path = str(small.cfg.reward.custom_reward_function.get("path") or "")
    print("smoke: launching verl", flush=True)
    result = smoke.run_smoke(local_argv(small.argv), folder, args.smoke_timeout,
                             reward_module=reward_path.removeprefix("pkg://").removesuffix(".py"))
    print(result.summary())
    return 0 if result.ok else 1


def _launch(args, plan, argv) -> int:
    from .launch.command import count_local_gpus, local_argv, run as run_command

    if args.ray_address:
        print(f"\nsubmitting to the Ray cluster at {args.ray_address}", flush=True)
        return run_command(argv)
    per_node = plan.parallel.gpus_per_node
    found = count_local_gpus()
    if found is None:
        print("rewards train: warning: cannot count this machine's GPUs (no nvidia-smi); launching anyway",
              file=sys.stderr)
    elif found < per_node:
        raise CommandError(f"this machine has {found} GPU(s) but the run asks for trainer.n_gpus_per_node={per_node}: "
                           f"lower --gpus-per-node or launch on a bigger node")
    from .launch.env import check_environment, missing_sentence
    findings, missing = check_environment(plan.cfg, launching=True, vision=plan.vision)
    for finding in findings:
        print(f"rewards train: {finding}", file=sys.stderr)
    blocking = [f for f in findings if f.level == "error"]
    if blocking:
        raise CommandError(blocking[0].message)
    if missing:
        raise CommandError(missing_sentence(missing, plan.cfg) + ": install them here (verl's extras list the "
                                                                     "tested versions) or use --ray-address")
    from .launch.host import machine_findings
    for finding in machine_findings(plan.cfg):
        raise CommandError(finding.message)
    if plan.parallel.nnodes > 1:
        print(f"rewards train: note: trainer.nnodes={plan.parallel.nnodes}: this machine must be a node of a Ray "
              f"cluster started with `ray start` (verl joins it); otherwise use --ray-address", file=sys.stderr)
    import os
    from .launch.folders import prepare_metrics_file
    os.environ.update(prepare_metrics_file(plan.cfg))   # verl's file logger makes no folder
    _record_training_files(plan)
    print("\nlaunching verl", flush=True)
    return run_command(local_argv(plan.argv))
