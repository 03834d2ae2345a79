"""A warm start: a short supervised fine-tune on prepared verl rows, so GRPO starts from a policy
that sometimes answers right (a policy that never does earns reward 0 everywhere: zero advantage,
zero gradient, a flat curve).

The input of each example is exactly what verl feeds the policy: the row's `prompt` messages through
the tokenizer's chat template with the generation prompt. The target is the worked solution that
`rewards prepare` keeps in `extra_info.answer` (GSM8K-shaped rows) followed by eos; the loss counts
the target tokens only. Held-out rows are answered greedily and scored by the package's own scorer
for the row's data_source, so "accuracy" means what the GRPO run's reward will mean. The run stops
at `steps`, at `max_seconds`, or as soon as held-out accuracy reaches `until_accuracy`, whichever
comes first: the point is a start with room to rise (10-60%), not the best model.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .tiny_model import require_library

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt")
WEIGHT_INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")


class WarmStartError(ValueError):
    """A warm start that cannot run: the message names the file, the row or the setting."""


@dataclass
class WarmStartOptions:
    model: str
    train_file: str
    output: str | None = None
    """Where the fine-tuned model goes; None: back into `model`."""
    val_file: str | None = None
    """Held-out rows; None: the last `eval_rows` of the shuffled training rows, left out of training."""
    steps: int = 1000
    max_seconds: float | None = None
    until_accuracy: float | None = None
    batch_size: int = 128
    lr: float = 1e-3
    warmup_steps: int = 50
    eval_every: int = 100
    eval_rows: int = 256
    max_new_tokens: int | None = None
    """None: the longest held-out target plus 16."""
    seed: int = 0
    device: str | None = None
    """None: cuda when available, else cpu."""

    def check(self) -> None:
        if self.steps < 0:
            raise WarmStartError(f"--steps must be at least 0 (0: evaluate only), got {self.steps}")
        for name in ("batch_size", "eval_every", "eval_rows"):
            if getattr(self, name) < 1:
                raise WarmStartError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.warmup_steps < 0 or self.lr <= 0:
            raise WarmStartError("--lr must be positive and --warmup-steps at least 0")
        if self.max_seconds is not None and self.max_seconds <= 0:
            raise WarmStartError(f"--max-seconds must be positive, got {self.max_seconds}")
        if self.until_accuracy is not None and not 0 < self.until_accuracy <= 1:
            raise WarmStartError(f"--until-accuracy is a fraction in (0, 1], got {self.until_accuracy}")
        if self.max_new_tokens is not None and self.max_new_tokens < 1:
            raise WarmStartError(f"--max-new-tokens must be at least 1, got {self.max_new_tokens}")


@dataclass
class Example:
    prompt_ids: list[int]
    target_ids: list[int]
    data_source: str
    ground_truth: str


def read_examples(path: str, tokenizer) -> list[Example]:
    """Prepared verl rows → (prompt ids as verl builds them, solution ids + eos)."""
    from schemas.verl_row import RowFileError, read_table

    if not Path(path).expanduser().is_file():
        raise WarmStartError(f"{path}: no such file (give a train.parquet written by `rewards prepare`)")
    try:
        rows = read_table(Path(path).expanduser()).to_pylist()
    except (RowFileError, OSError, ValueError) as exc:
        raise WarmStartError(f"{path}: cannot read ({str(exc).splitlines()[0] if str(exc) else exc})") from None
    if not rows:
        raise WarmStartError(f"{path}: no rows")
    prompts, answers = [], []
    for number, row in enumerate(rows, 1):
        prompt, answer = row.get("prompt"), (row.get("extra_info") or {}).get("answer")
        if not isinstance(prompt, list) or not prompt:
            raise WarmStartError(f"{path} row {number}: field 'prompt' is not a list of chat messages")
        if not isinstance(answer, str) or not answer.strip():
            raise WarmStartError(f"{path} row {number}: field 'extra_info.answer' (the worked solution to "
                                 f"learn) is missing or empty; prepare GSM8K-shaped rows, e.g. from "
                                 f"`rewards tiny-data`")
        if not (row.get("reward_model") or {}).get("ground_truth") or not row.get("data_source"):
            raise WarmStartError(f"{path} row {number}: field 'reward_model.ground_truth' or 'data_source' is missing")
        prompts.append(tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False))
        answers.append(answer)
    prompt_ids = tokenizer(prompts, add_special_tokens=False)["input_ids"]
    answer_ids = tokenizer(answers, add_special_tokens=False)["input_ids"]
    eos = tokenizer.eos_token_id
    _check_scorers(path, {row["data_source"] for row in rows})
    return [Example(p, a + [eos], row["data_source"], str(row["reward_model"]["ground_truth"]))
            for p, a, row in zip(prompt_ids, answer_ids, rows)]


def _check_scorers(path: str, data_sources: set[str]) -> None:
    """Held-out answers are scored by the registry's scorer: every data_source must have one."""
    from rewards import UnknownDataSourceError
    from rewards.registry import get_scorer

    for name in sorted(data_sources):
        try:
            get_scorer(name)
        except UnknownDataSourceError as exc:
            raise WarmStartError(f"{path}: {exc}") from None


def warm_start(opts: WarmStartOptions, log: Callable[[str], None] = lambda line: print(line, file=sys.stderr)
               ) -> dict[str, Any]:
    """Fine-tune, evaluate, save; returns the summary (also what the command prints as one JSON line)."""
    opts.check()
    torch = require_library("torch")
    transformers = require_library("transformers")
    source = Path(opts.model).expanduser()
    if not (source / "config.json").is_file():
        raise WarmStartError(f"{opts.model}: not a model folder (no config.json); write one with `rewards tiny-model`")
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(source))
    if tokenizer.eos_token_id is None or tokenizer.chat_template is None:
        raise WarmStartError(f"{opts.model}: the tokenizer needs an eos token and a chat template")
    examples = read_examples(opts.train_file, tokenizer)
    train, held_out = _split(examples, opts, tokenizer)
    device = torch.device(opts.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch.manual_seed(opts.seed)
    model = transformers.AutoModelForCausalLM.from_pretrained(str(source), dtype=torch.float32).to(device)
    save_dtype = getattr(torch, str(_config_dtype(source)), torch.float32)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
    max_new = opts.max_new_tokens or max(len(e.target_ids) for e in held_out) + 16

    def autocast():  # bf16 compute on the GPU over fp32 weights; plain fp32 on the CPU
        return torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")

    started = time.monotonic()
    if opts.steps == 0:   # evaluation only: the model as it is (a merged checkpoint), nothing written
        accuracy = evaluate(model, tokenizer, held_out, max_new, opts.batch_size, device, autocast, torch)
        return {"steps": 0, "seconds": round(time.monotonic() - started, 2), "accuracy": accuracy,
                "eval_rows": len(held_out), "max_new_tokens": max_new, "stopped": "evaluation only",
                "device": str(device), "output": None}
    batches = _Batches(train, opts.batch_size, tokenizer.pad_token_id or 0, device, opts.seed, torch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts.lr, weight_decay=0.0, betas=(0.9, 0.95),
                                  **({"fused": True} if device.type == "cuda" else {}))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, _schedule(opts.warmup_steps, opts.steps))
    started = segment = time.monotonic()
    train_seconds, step, stopped = 0.0, 0, "steps"
    tokens = torch.zeros((), dtype=torch.long, device=device)
    loss_sum, loss_count, last_loss = torch.zeros((), device=device), 0, float("nan")
    evals: list[tuple[int, float, float]] = []  # (step, mean loss since the last, accuracy)
    model.train()
    while step < opts.steps:
        input_ids, attention, labels = batches.next()
        with autocast():
            loss = model(input_ids=input_ids, attention_mask=attention, labels=labels).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        loss_sum += loss.detach()
        loss_count += 1
        tokens += batches.last_tokens
        step += 1
        out_of_time = opts.max_seconds is not None and time.monotonic() - started >= opts.max_seconds
        if step % opts.eval_every == 0 or step == opts.steps or out_of_time:
            last_loss = float(loss_sum) / loss_count  # waits for the queued steps: the segment's true time
            train_seconds += time.monotonic() - segment
            loss_sum.zero_()
            loss_count = 0
            accuracy = evaluate(model, tokenizer, held_out, max_new, opts.batch_size, device, autocast, torch)
            model.train()
            segment = time.monotonic()
            evals.append((step, last_loss, accuracy))
            log(f"step {step}  loss {last_loss:.4f}  held-out accuracy {accuracy:.3f}  "
                f"{time.monotonic() - started:.1f} s")
            if opts.until_accuracy is not None and accuracy >= opts.until_accuracy:
                stopped = "until_accuracy"
                break
            if out_of_time:
                stopped = "max_seconds"
                break
    output = Path(opts.output).expanduser() if opts.output else source
    save_next_to(model.to(save_dtype), source, output)
    return {"steps": step, "seconds": round(time.monotonic() - started, 2), "loss": round(last_loss, 4),
            "accuracy": evals[-1][2], "eval_rows": len(held_out), "train_rows": len(train),
            "tokens_per_s": round(int(tokens) / train_seconds) if train_seconds else 0, "stopped": stopped,
            "evals": [[s, round(l, 4), round(a, 4)] for s, l, a in evals], "device": str(device), "output": str(output)}


def evaluate(model, tokenizer, examples: list[Example], max_new_tokens: int, batch_size: int, device,
             autocast, torch) -> float:
    """Greedy answers to held-out rows, scored by the package's scorer for each row's data_source."""
    from rewards import compute_score

    model.eval()
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id or 0
    correct = 0.0
    for start in range(0, len(examples), batch_size):
        chunk = examples[start:start + batch_size]
        width = max(len(e.prompt_ids) for e in chunk)
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for i, e in enumerate(chunk):  # left padding: every prompt ends where generation starts
            ids[i, width - len(e.prompt_ids):] = torch.tensor(e.prompt_ids)
            mask[i, width - len(e.prompt_ids):] = 1
        with torch.no_grad(), autocast():
            out = model.generate(input_ids=ids.to(device), attention_mask=mask.to(device),
                                 max_new_tokens=max_new_tokens, do_sample=False, eos_token_id=eos,
                                 pad_token_id=pad)
        texts = tokenizer.batch_decode(out[:, width:], skip_special_tokens=True)
        correct += sum(compute_score(e.data_source, text, e.ground_truth)["acc"] for e, text in zip(chunk, texts))
    return correct / len(examples)


class _Batches:
    """Every example padded once into one tensor on the device; a step takes a random batch of rows
    and cuts the padding to the batch's longest row (no per-token Python)."""

    def __init__(self, examples: list[Example], batch_size: int, pad: int, device, seed: int, torch):
        self.torch, self.batch_size, self.device = torch, min(batch_size, len(examples)), device
        lengths = [len(e.prompt_ids) + len(e.target_ids) for e in examples]
        width = max(lengths)
        ids = torch.full((len(examples), width), pad, dtype=torch.long)
        labels = torch.full((len(examples), width), -100, dtype=torch.long)
        for i, e in enumerate(examples):
            n = len(e.prompt_ids)
            ids[i, :lengths[i]] = torch.tensor(e.prompt_ids + e.target_ids)
            labels[i, n:lengths[i]] = torch.tensor(e.target_ids)
        self.ids, self.labels = ids.to(device), labels.to(device)
        self.lengths = torch.tensor(lengths, device=device)
        self.positions = torch.arange(width, device=device)
        self.generator = torch.Generator().manual_seed(seed)
        self.order, self.at = self._shuffle(), 0
        self.last_tokens = 0

    def _shuffle(self):
        return self.torch.randperm(len(self.lengths), generator=self.generator).to(self.device)

    def next(self):
        if self.at + self.batch_size > len(self.order):
            self.order, self.at = self._shuffle(), 0
        rows = self.order[self.at:self.at + self.batch_size]
        self.at += self.batch_size
        lengths = self.lengths[rows]
        self.last_tokens = lengths.sum()
        width = int(lengths.max())
        attention = (self.positions[:width] < lengths[:, None]).long()
        return self.ids[rows, :width], attention, self.labels[rows, :width]


def _split(examples: list[Example], opts: WarmStartOptions, tokenizer):
    """(training examples, held-out examples): the validation file's, else the last `eval_rows` of
    the shuffled training rows, which are then not trained on."""
    import random

    order = list(range(len(examples)))
    random.Random(opts.seed).shuffle(order)
    if opts.val_file:
        held = read_examples(opts.val_file, tokenizer)
        random.Random(opts.seed).shuffle(held)
        return [examples[i] for i in order], held[:opts.eval_rows]
    if len(examples) <= opts.eval_rows:
        raise WarmStartError(f"{opts.train_file} has {len(examples)} rows, not more than --eval-rows "
                             f"{opts.eval_rows}; lower --eval-rows or pass --val-file")
    return [examples[i] for i in order[:-opts.eval_rows]], [examples[i] for i in order[-opts.eval_rows:]]


def _schedule(warmup: int, steps: int) -> Callable[[int], float]:
    """Linear warm-up, then cosine decay to a tenth of the peak at `steps`."""
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        progress = min(1.0, (step - warmup) / max(1, steps - warmup))
        return 0.1 + 0.45 * (1 + math.cos(math.pi * progress))
    return factor


def _config_dtype(folder: Path) -> str:
    config = json.loads((folder / "config.json").read_text())
    return config.get("torch_dtype") or config.get("dtype") or "float32"


def save_next_to(model, source: Path, output: Path) -> None:
    """Write the weights into `output`, with the source folder's own config, generation config and
    tokenizer files (transformers would rewrite config.json in its own version's keys). Files are
    written beside the target first and moved in at the end, so a failure leaves the old model whole."""
    output.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".warm-start.", dir=output))
    try:
        model.save_pretrained(staging, safe_serialization=True)
        weights = {p.name for p in staging.iterdir() if _is_weights(p)}
        for name in weights:
            os.replace(staging / name, output / name)
        for old in output.iterdir():  # weights of another layout (shards) would be loaded beside the new
            if old.is_file() and _is_weights(old) and old.name not in weights:
                old.unlink()
        if output.resolve() != source.resolve():
            for path in source.iterdir():
                if path.is_file() and not _is_weights(path):
                    shutil.copy2(path, output / path.name)
    except OSError as exc:
        raise WarmStartError(f"cannot write the model to {output}: {exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _is_weights(path: Path) -> bool:
    return path.suffix in WEIGHT_SUFFIXES or path.name in WEIGHT_INDEXES
