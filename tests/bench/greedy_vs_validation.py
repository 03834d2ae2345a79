"""A merged checkpoint's greedy answers beside the run's own validation dump of the same step.

    python tests/bench/greedy_vs_validation.py MERGED TEST.parquet VALIDATION/100.jsonl [--max-new-tokens 48]

MERGED is `rewards merge` of the step's checkpoint; TEST.parquet the run's validation rows; the dump is
what verl wrote for that step (`trainer.validation_data_dir/{step}.jsonl`: greedy vLLM answers, scored
by the run's reward). Each row is answered greedily with transformers (as `rewards warm-start --steps 0`
does) and matched to the dump by its prompt text (verl's `input`: the prompt ids decoded without special
tokens). Prints the two accuracies, how many answers are the same text, and the first rows that differ:
a near tie can go either way between vLLM's bf16 kernels and transformers', so a few differing texts
are numerics; many mean the merge is not the run's model.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("rows")
    parser.add_argument("dump")
    parser.add_argument("--max-new-tokens", type=int, default=48, help="the run's data.max_response_length")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()

    from transformers import AutoModelForCausalLM, AutoTokenizer

    from cli.launch.warm_start import read_examples
    from rewards import compute_score

    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32).to(args.device).eval()
    examples = read_examples(args.rows, tok)
    dumped = {}
    for line in open(args.dump, encoding="utf-8"):
        row = json.loads(line)
        dumped[row["input"]] = row
    ours, same, theirs_acc, ours_acc, missing, differ = {}, 0, 0.0, 0.0, 0, []
    pad = tok.pad_token_id or 0
    for start in range(0, len(examples), args.batch_size):
        chunk = examples[start:start + args.batch_size]
        width = max(len(e.prompt_ids) for e in chunk)
        ids = torch.full((len(chunk), width), pad, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for i, e in enumerate(chunk):
            ids[i, width - len(e.prompt_ids):] = torch.tensor(e.prompt_ids)
            mask[i, width - len(e.prompt_ids):] = 1
        with torch.no_grad(), torch.autocast(torch.device(args.device).type, dtype=torch.bfloat16,
                                             enabled=args.device.startswith("cuda")):
            out = model.generate(input_ids=ids.to(args.device), attention_mask=mask.to(args.device),
                                 max_new_tokens=args.max_new_tokens, do_sample=False,
                                 eos_token_id=tok.eos_token_id, pad_token_id=pad)
        for e, answer in zip(chunk, tok.batch_decode(out[:, width:], skip_special_tokens=True)):
            key = tok.decode(e.prompt_ids, skip_special_tokens=True)
            acc = float(compute_score(e.data_source, answer, e.ground_truth)["acc"])
            ours_acc += acc
            row = dumped.get(key)
            if row is None:
                missing += 1
                continue
            theirs_acc += float(row.get("acc", row.get("score", 0.0)))
            if row["output"] == answer:
                same += 1
            elif len(differ) < 5:
                differ.append({"gold": e.ground_truth, "run": row["output"], "merged": answer})
    n = len(examples)
    print(json.dumps({"rows": n, "matched_in_dump": n - missing, "same_text": same,
                      "merged_greedy_accuracy": ours_acc / n,
                      "run_validation_accuracy": theirs_acc / max(1, n - missing),
                      "first_differences": differ}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
