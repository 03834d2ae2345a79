"""Two readings of a trained tiny model against its start, for the Megatron trainer-rollout gap.

    python tests/bench/weight_drift.py START TRAINED [--rows-file test.parquet] [--rows 64]

START and TRAINED are Hugging Face folders (the warm-started `rewards tiny-model`, and `rewards merge`
of a run's checkpoint). Runs on a CPU in seconds; needs torch and transformers.

1. Per tensor: how many elements changed and by how much, in the stored dtype, and for the norm
   weights (near 1) the change in units of the bf16 step at that value: a bf16 weight near 1
   moves only once its fp32 master copy has drifted half a step (2**-9 below 1, 2**-8 above), so
   a norm that trains slowly reads "unchanged" in a bf16 export while its master copy moved.
2. The probability mass on the embedding rows past the tokenizer (a vocabulary padded for tensor
   parallelism): vLLM, under verl, sets those logits to -inf (`monkey_patch_compute_logits`), while
   the trainer's log-softmax runs over every row, so each trainer log-prob is lower by
   delta = logsumexp(all rows) - logsumexp(tokenizer rows) = -log(1 - padded mass). verl's
   `rollout_corr/kl` is mean(rollout log-prob - trainer log-prob), so it reads about mean(delta).
   delta is measured teacher-forced on the rows' worked solutions (`extra_info.answer`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def load(folder: str):
    from transformers import AutoModelForCausalLM, AutoTokenizer
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32)   # bf16 -> fp32 is exact
    return model.eval(), AutoTokenizer.from_pretrained(folder)


def stored_tensors(folder: str) -> dict[str, torch.Tensor]:
    """The weights as stored (their own dtype), from the folder's safetensors files."""
    from safetensors.torch import load_file
    out: dict[str, torch.Tensor] = {}
    for path in sorted(Path(folder).glob("*.safetensors")):
        out.update(load_file(str(path)))
    return out


def bf16_steps(before: torch.Tensor, after: torch.Tensor) -> float:
    """The largest change of a tensor in units of the bf16 step at each element's old value."""
    old = before.float()
    exponent = torch.floor(torch.log2(old.abs().clamp_min(2 ** -126)))
    step = torch.pow(2.0, exponent - 7)
    return float(((after.float() - old).abs() / step).max())


def drift_table(start: str, trained: str) -> list[str]:
    a, b = stored_tensors(start), stored_tensors(trained)
    lines = [f"{'tensor':<52} {'shape':<14} {'dtype':<9} {'changed':>15} {'max |diff|':>11} {'bf16 steps':>10}"]
    unchanged = 0
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            lines.append(f"{name:<52} only in {'start' if name in a else 'trained'}")
            continue
        x, y = a[name], b[name]
        if x.shape != y.shape:
            lines.append(f"{name:<52} shape {tuple(x.shape)} -> {tuple(y.shape)}")
            continue
        diff = (y.float() - x.float()).abs()
        changed = int((diff > 0).sum())
        unchanged += changed == 0
        steps = f"{bf16_steps(x, y):10.1f}" if "norm" in name else f"{'':>10}"   # weights near 1
        lines.append(f"{name:<52} {str(tuple(x.shape)):<14} {str(y.dtype).removeprefix('torch.'):<9} "
                     f"{changed:>7}/{x.numel():<7} {float(diff.max()):11.3e} {steps}")
    lines.append(f"{unchanged} of {len(set(a) & set(b))} tensors bit-identical")
    return lines


def chat_rows(path: str, rows: int) -> list[tuple[list, str]]:
    from schemas.verl_row import read_table
    table = read_table(Path(path)).to_pylist()[:rows]
    return [(r["prompt"], r["extra_info"]["answer"]) for r in table]


@torch.no_grad()
def padded_mass(folder: str, rows: list[tuple[list, str]]) -> tuple[int, int, float, float]:
    """(vocabulary rows, tokenizer tokens, mean delta, mean padded probability) over the answers' tokens."""
    model, tok = load(folder)
    vocab, tokens = model.config.vocab_size, len(tok)
    deltas, masses = [], []
    for prompt, answer in rows:
        text = tok.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
        p = tok(text, add_special_tokens=False)["input_ids"]
        r = tok(answer, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        ids = torch.tensor([p + r])
        logits = model(input_ids=ids).logits[0, len(p) - 1:-1].float()   # the positions that predict the answer
        whole = torch.logsumexp(logits, -1)
        kept = torch.logsumexp(logits[:, :tokens], -1)
        deltas.append(whole - kept)
        masses.append(1 - torch.exp(kept - whole))
    return vocab, tokens, float(torch.cat(deltas).mean()), float(torch.cat(masses).mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("start")
    parser.add_argument("trained")
    parser.add_argument("--rows-file", help="prepared rows (test.parquet) for the padded-mass reading")
    parser.add_argument("--rows", type=int, default=64)
    args = parser.parse_args()
    print("\n".join(drift_table(args.start, args.trained)))
    if args.rows_file:
        rows = chat_rows(args.rows_file, args.rows)
        for label, folder in (("start", args.start), ("trained", args.trained)):
            vocab, tokens, delta, mass = padded_mass(folder, rows)
            print(json.dumps({"model": label, "vocab_rows": vocab, "tokenizer_tokens": tokens,
                              "padded_rows": vocab - tokens, "mean_delta": delta, "mean_padded_mass": mass,
                              "predicted_rollout_corr_kl": delta if vocab > tokens else 0.0}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
