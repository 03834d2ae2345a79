"""`rewards train PRESET --smoke`: the preset's own run, rehearsed on the GPUs at hand in minutes.

A full run fails late and expensively: a reward path that does not import, a data file without
`reward_model`, a chat template that breaks on the prompts, a config key verl refuses, an engine that
runs out of memory. The rehearsal runs the same composed config through verl's real `main_ppo` with
only what costs time made small: the model shrunk from its own config (2 layers, a narrow width,
random weights, the model's own tokenizer when it is on this machine; a Qwen2.5-VL model keeps a
2-block vision tower and its image-token layout, tiny_vl.py), batches cut to the smallest
sizes that keep verl's divisibility rules, 2 steps, validation on a handful of rows, one checkpoint.
Anything else that fails here fails there, and is reported as one sentence.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from .model import find_config, local_model_dir, read_config

STEPS = 2
VAL_ROWS = 8
LAYERS = 2
HEAD_DIM = 64
STALL_S = 180.0      # silence after a stated failure that ends the rehearsal (verl may never exit)
POLL_S = 5.0
BYTES_PER_TOKEN = 6  # a BPE token of English or LaTeX is at most a few bytes on average
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json",
                   "merges.txt", "tokenizer.model", "added_tokens.json", "chat_template.jinja",
                   "chat_template.json", "generation_config.json")


class SmokeError(RuntimeError):
    """The rehearsal could not be set up (one sentence)."""


@dataclass(frozen=True)
class Failure:
    kind: str       # what broke, in words a user searches for
    line: str       # the log line that says so

    def sentence(self) -> str:
        return f"{self.kind}: {self.line}"


# What a failed verl run says first, and what it means. The earliest line with a known cause wins.
def _causes(reward_module: str) -> tuple[tuple[str, re.Pattern], ...]:
    top = re.escape(reward_module.split(".")[0]) if reward_module else r"\w+"
    return (
        ("the reward function does not import", re.compile(
            rf"Object not found in module: object_name|No module named '{top}[.']|Reward function file .* not found")),
        ("the data does not fit verl's row schema", re.compile(
            r"KeyError: '(reward_model|ground_truth|prompt|data_source|extra_info)'")),
        ("the chat template fails on the prompts", re.compile(
            r"TemplateError|TemplateSyntaxError|UndefinedError|chat[_ ]template")),
        ("a package the run needs is missing", re.compile(
            r"^(ImportError|ModuleNotFoundError)\b|please install|doesn't seem to be installed")),
        ("a config key or value verl refuses", re.compile(
            r"ConfigAttributeError|ConfigKeyError|Could not override|is not in struct|Missing mandatory value")),
        ("out of GPU memory", re.compile(
            r"CUDA out of memory|OutOfMemoryError|No available memory for the cache blocks|"
            r"insufficient GPU memory|CUBLAS_STATUS_ALLOC_FAILED")),
        # vLLM's MultiprocExecutor picks its rendezvous port with get_open_port (bind port 0, close) and its
        # worker binds it seconds later: a process starting beside it can take the port first (verl#6677).
        ("a port was taken while vLLM started (a race with another engine or run starting at the same "
         "time; run it again, or start runs on one machine a minute apart)", re.compile(
            r"EADDRINUSE|Address already in use")),
    )


_STATES = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)(?:\(\w+\))?: \S")   # `KeyError: 'x'`
_WRAPPER = re.compile(r"^ray\.exceptions\.|^Error executing job|^\s*raise\b")
_NOISE = re.compile(r"DataLoader worker \(pid|Warning|warning|WARN|ignored|deprecat", re.I)
_STEP = re.compile(r"(?:^|[\s)])step:(\d+) - ", re.M)   # verl's console line; not timing_s/step:5.2


def first_failure(log: str, reward_module: str = "") -> Failure | None:
    """The earliest line of a verl log that states a failure (`SomeError: message`, not the traceback's
    code lines or Ray's wrappers around it), with its cause when it is a known one. `reward_module`:
    the module of reward.custom_reward_function.path, so that its ImportError is told apart."""
    lines = [_clip(line.strip()) for line in log.splitlines()]
    stated = [line for line in lines if _STATES.search(line) and not _WRAPPER.search(line) and not _NOISE.search(line)]
    for line in stated:
        for kind, pattern in _causes(reward_module):
            if pattern.search(line):
                return Failure(kind, line)
    return Failure("verl failed", stated[0]) if stated else None


def _clip(line: str, limit: int = 300) -> str:
    """The line as a person reads it: no colour codes, no Ray actor prefix, no vLLM logger prefix."""
    line = _ANSI.sub("", line).strip()
    line = _PREFIX.sub("", line).strip()
    return line if len(line) <= limit else line[: limit - 3] + "..."


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_PREFIX = re.compile(r"^(?:\(\w+ pid=\d+(?:, ip=[\d.]+)?\)\s*)*(?:(?:ERROR|WARNING|INFO) [\d-]+ [\d:]+ \[[^\]]+\]\s*)?")


def steps_done(log: str) -> int:
    return max((int(m.group(1)) for m in _STEP.finditer(log)), default=0)


# ---- the shrunk model ------------------------------------------------------------------------

def source_config(model: str, preset_model: str, preset_config: Mapping[str, Any],
                  explicit: str | None = None) -> dict[str, Any]:
    """The model's own config.json: on this machine, else the one recorded in the preset, else the
    published one built in for the model (Qwen2.5-VL-3B's)."""
    found = find_config(model, explicit)
    if found is not None:
        return read_config(found)
    if model == preset_model and preset_config:
        return dict(preset_config)
    from .tiny_vl import PUBLISHED
    if model in PUBLISHED:
        return dict(PUBLISHED[model])
    raise SmokeError(f"cannot find config.json for {model} on this machine to shrink it: pass --model-config")


def shrunk_config(config: Mapping[str, Any], tp: int = 1) -> dict[str, Any]:
    """The same architecture, 2 layers and heads of 64 wide, with two key/value heads on every rank of
    the widest tensor-parallel size `tp`, as real models have (Qwen3-8B at TP 4: 2 a rank); a grouped
    model keeps two query heads a group. (The weight-sync failures first blamed on one key/value head a
    rank were two runs crossing on one machine: host.py.) A vision-language model keeps its text heads'
    width, which its multimodal RoPE is fixed to, and gets a tower of narrow vision heads (tiny_vl.py)."""
    heads = int((config.get("text_config") or config).get("num_attention_heads") or 4)
    grouped = int((config.get("text_config") or config).get("num_key_value_heads") or heads) < heads
    kv_heads = 2 * tp
    new_heads = 2 * kv_heads if grouped else max(4, kv_heads)
    if "vision_config" in config:
        from .tiny_vl import shrunk_vl_config
        try:
            return shrunk_vl_config(config, new_heads, kv_heads, LAYERS)
        except ValueError as exc:
            raise SmokeError(f"{exc} (rehearse it with --model pointing at a small model of the same family)") from None
    if "text_config" in config:
        raise SmokeError("--smoke cannot shrink a model whose config nests a text_config without a vision tower "
                         "(rehearse it with --model pointing at a small model of the same family)")
    out = dict(config)
    out["num_attention_heads"] = new_heads
    out["num_key_value_heads"] = kv_heads
    out["hidden_size"] = new_heads * HEAD_DIM
    if "head_dim" in config:
        out["head_dim"] = HEAD_DIM
    out["intermediate_size"] = 2 * out["hidden_size"]
    out["num_hidden_layers"] = LAYERS
    for key in ("layer_types", "max_window_layers"):   # per-layer settings sized by the old depth
        if isinstance(config.get(key), list):
            out[key] = config[key][:LAYERS]
        elif key in config:
            out[key] = LAYERS
    out.pop("dtype", None)
    out["torch_dtype"] = "bfloat16"
    return out


@dataclass(frozen=True)
class ShrunkModel:
    own_tokenizer: bool     # False: the tiny byte-level tokenizer stands in (prompt room is then widened)
    tokenizer_from: str     # said to the user


def write_shrunk_model(model: str, config: Mapping[str, Any], out: Path, tp: int = 1) -> ShrunkModel:
    """A random-weight copy of the model's architecture in `out`, with the model's own tokenizer (and a
    vision model's processor) when this machine has it, else the tiny byte-level one (tiny_vl.py adds the
    image tokens, the image processor's settings and a chat template that places images)."""
    try:
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText
    except ImportError as exc:
        raise SmokeError(f"--smoke builds a small model and needs torch and transformers here ({exc})") from None
    from . import tiny_vl

    out.mkdir(parents=True, exist_ok=True)
    cfg = shrunk_config(config, tp)
    vision = tiny_vl.is_vision(cfg)
    text = cfg["text_config"] if "text_config" in cfg else cfg
    own = local_model_dir(model)
    if own is not None and any((own / name).is_file() for name in TOKENIZER_FILES[:5]):
        for name in TOKENIZER_FILES + (tiny_vl.PROCESSOR_FILES if vision else ()):
            if (own / name).is_file():
                shutil.copy2(own / name, out / name)
        what = f"the model's own tokenizer ({own})"
        if vision and not (own / "preprocessor_config.json").is_file():
            _write_json(out / "preprocessor_config.json", tiny_vl.image_processor_config(cfg["vision_config"]))
            what += " and Qwen2.5-VL's image processor settings"
        shrunk = ShrunkModel(True, what)
    else:
        from .tiny_model import build_tokenizer, save_tokenizer
        tokenizer = build_tokenizer(tiny_vl.VISION_TOKENS, tiny_vl.CHAT_TEMPLATE) if vision else build_tokenizer()
        save_tokenizer(tokenizer, out)
        text.update(vocab_size=-(-len(tokenizer) // 128) * 128,   # padded as hub models are: any TP divides it
                    eos_token_id=tokenizer.eos_token_id,
                    pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.pad_token_id)
        what = "the tiny byte-level tokenizer"
        if vision:
            cfg.update(tiny_vl.token_ids(tokenizer))
            _write_json(out / "preprocessor_config.json", tiny_vl.image_processor_config(cfg["vision_config"]))
            _write_json(out / "chat_template.json", {"chat_template": tiny_vl.CHAT_TEMPLATE})
            what += " with Qwen2.5-VL's image tokens and image processor settings"
        shrunk = ShrunkModel(False, f"{what} (the model's own is not on this machine)")
    known = {k: v for k, v in cfg.items() if k not in ("architectures", "model_type", "torch_dtype")}
    try:
        hf_config = AutoConfig.for_model(str(cfg["model_type"]), **copy.deepcopy(known))   # it edits nested dicts
    except (ValueError, KeyError) as exc:
        raise SmokeError(f"transformers here cannot build a {cfg.get('model_type')} model ({exc})") from None
    torch.manual_seed(0)
    builder = AutoModelForImageTextToText if vision else AutoModelForCausalLM
    net = builder.from_config(hf_config).to(torch.bfloat16)
    net.save_pretrained(out, safe_serialization=True)
    # The model's own config keys, not this transformers version's spelling of them.
    _write_json(out / "config.json", cfg)
    return shrunk


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


# ---- the cut-down run ------------------------------------------------------------------------

@dataclass(frozen=True)
class SmokeSplit:
    """The rehearsal's GPUs: the preset's parallel sizes capped at the GPUs at hand."""
    world: int
    tp: int             # the training engine's tensor-parallel size (1 for FSDP)
    rollout_tp: int

    @property
    def dp(self) -> int:
        return self.world // self.tp

    @property
    def widest(self) -> int:
        """The largest split the shrunk model's heads must allow."""
        return max(self.tp, self.rollout_tp)


def smoke_split(cfg: Any, gpus: int) -> SmokeSplit:
    world = max(1, gpus)
    megatron = cfg.actor_rollout_ref.actor.strategy == "megatron"
    tp = _divisor(_int(cfg.actor_rollout_ref.actor.megatron.tensor_model_parallel_size) if megatron else 1, world)
    return SmokeSplit(world, tp, _divisor(_int(cfg.actor_rollout_ref.rollout.tensor_model_parallel_size), world))


def _divisor(size: int, world: int) -> int:
    size = min(size, world)
    while world % size:
        size -= 1
    return size


def smoke_overrides(cfg: Any, split: SmokeSplit, folder: Path, byte_tokenizer: bool = False) -> list[str]:
    """Overrides that make the composed run small and short without breaking a divisibility rule.

    One prompt per data-parallel rank a step (train batch = mini-batch = dp), one sample per micro-batch,
    parallel sizes capped at the GPUs at hand, and the run's folders moved into `folder`. With the tiny
    byte-level tokenizer standing in for the model's own, prompt room is multiplied by BYTES_PER_TOKEN
    (the model's real prompt lengths were checked by the plan of the full run).
    """
    megatron = cfg.actor_rollout_ref.actor.strategy == "megatron"
    tp, dp = split.tp, split.dp
    out = [
        "trainer.nnodes=1", f"trainer.n_gpus_per_node={split.world}",
        f"data.train_batch_size={dp}", f"actor_rollout_ref.actor.ppo_mini_batch_size={dp}",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=1",
        f"actor_rollout_ref.rollout.tensor_model_parallel_size={split.rollout_tp}",
        f"data.train_max_samples={dp * STEPS}", f"data.val_max_samples={VAL_ROWS}",
        f"trainer.total_training_steps={STEPS}", f"trainer.test_freq={STEPS}", f"trainer.save_freq={STEPS}",
        "trainer.val_before_train=true", "trainer.resume_mode=disable", "trainer.logger=[console]",
        f"trainer.rollout_data_dir={folder / 'rollouts'}", f"trainer.validation_data_dir={folder / 'validation'}",
        f"trainer.default_local_dir={folder / 'checkpoints'}",
    ]
    if byte_tokenizer:
        prompt = _int(cfg.data.max_prompt_length) * BYTES_PER_TOKEN
        out.append(f"data.max_prompt_length={prompt}")
        if cfg.actor_rollout_ref.rollout.get("max_model_len"):
            out.append(f"actor_rollout_ref.rollout.max_model_len={prompt + _int(cfg.data.max_response_length)}")
    if megatron:
        for role in ("actor", "ref"):
            out += [f"actor_rollout_ref.{role}.megatron.tensor_model_parallel_size={tp}",
                    f"actor_rollout_ref.{role}.megatron.pipeline_model_parallel_size=1",
                    f"actor_rollout_ref.{role}.megatron.context_parallel_size=1"]
    if cfg.critic.get("enable"):
        out += [f"critic.ppo_mini_batch_size={dp}", "critic.ppo_micro_batch_size_per_gpu=1"]
        if megatron:
            out += [f"critic.megatron.tensor_model_parallel_size={tp}",
                    "critic.megatron.pipeline_model_parallel_size=1"]
    return out


def _int(value: Any) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return 1


def smoke_folder(requested: str | None, preset_name: str) -> Path:
    if requested:
        folder = Path(requested).expanduser().resolve()
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return Path(tempfile.mkdtemp(prefix=f"rewards-smoke-{preset_name}-"))


@dataclass
class SmokeResult:
    ok: bool
    seconds: float
    steps: int
    log: Path
    failure: Failure | None = None

    def summary(self) -> str:
        if self.ok:
            return f"smoke: pass ({self.steps} steps, validation and a checkpoint) in {self.seconds:.0f} s; log {self.log}"
        what = self.failure.sentence() if self.failure else "verl exited without a known error line"
        return f"smoke: FAIL after {self.seconds:.0f} s: {what} (log {self.log})"


def run_smoke(argv: list[str], folder: Path, timeout_s: float, reward_module: str = "") -> SmokeResult:
    """Run verl, its output to `folder/smoke.log`; pass means exit 0 after every step and a checkpoint."""
    log_path = folder / "smoke.log"
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code, stalled = _wait(proc, log_path, timeout_s, reward_module)
        except BaseException:
            _stop(proc)
            raise
        if code is None:
            _stop(proc)
    seconds = time.monotonic() - start
    text = log_path.read_text(encoding="utf-8", errors="replace")
    steps = steps_done(text)
    saved = any((folder / "checkpoints").glob("global_step_*"))
    if code == 0 and steps >= STEPS and saved:
        return SmokeResult(True, seconds, steps, log_path)
    failure = first_failure(text, reward_module)
    if failure is not None and stalled:
        failure = Failure(failure.kind, f"{failure.line} (verl did not exit: stopped after {STALL_S:.0f} s "
                                        f"without output)")
    if failure is None:
        if code is None:
            failure = Failure("it did not finish", f"no result after {timeout_s:.0f} s (raise --smoke-timeout)")
        elif code == 0:
            failure = Failure("verl stopped early", f"exit 0 after {steps} of {STEPS} steps"
                                                    + ("" if saved else ", no checkpoint written"))
        else:
            failure = Failure("verl failed", f"exit status {code}, no error line in the log")
    return SmokeResult(False, seconds, steps, log_path, failure)


def _wait(proc: subprocess.Popen, log_path: Path, timeout_s: float, reward_module: str) -> tuple[int | None, bool]:
    """(exit status or None, stalled): wait for verl, but not past `timeout_s`, nor past STALL_S of
    silence after the log stated a failure (a vLLM worker's error can leave verl waiting on it forever:
    seen at a weight sync on an H200)."""
    deadline = time.monotonic() + timeout_s
    size, quiet_since = -1, time.monotonic()
    while True:
        try:
            return proc.wait(timeout=max(0.0, min(POLL_S, deadline - time.monotonic()))), False
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if now >= deadline:
            return None, False
        grown = log_path.stat().st_size
        if grown != size:
            size, quiet_since = grown, now
        elif now - quiet_since >= STALL_S and first_failure(
                log_path.read_text(encoding="utf-8", errors="replace"), reward_module) is not None:
            return None, True


def _stop(proc: subprocess.Popen) -> None:
    """End verl and everything it started (Ray, vLLM) — it runs in its own process group."""
    import os
    import signal
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
    print(f"rewards train: verl (pid {proc.pid}) did not stop", file=sys.stderr)
