"""`rewards warm-start`: a short supervised fine-tune on prepared verl rows, so that GRPO starts with
some accuracy (see `cli/launch/warm_start.py`). Prints one JSON line: steps, seconds, loss, held-out
accuracy, tokens/s."""

from __future__ import annotations

import json

from .errors import CommandError


def register(sub) -> None:
    from .launch.warm_start import WarmStartOptions

    d = WarmStartOptions(model="", train_file="")
    p = sub.add_parser(
        "warm-start", help="fine-tune a model on prepared rows' worked solutions before GRPO",
        description="Supervised fine-tune of MODEL on TRAIN.parquet (rows from `rewards prepare` with the "
                    "worked solution in extra_info.answer, e.g. from `rewards tiny-data`): input = the "
                    "chat-templated prompt verl feeds the policy, target = the solution + eos. Held-out "
                    "rows are answered greedily and scored by this package's scorer every --eval-every "
                    "steps; stops at --steps, --max-seconds or --until-accuracy. Saves in place unless -o.")
    p.add_argument("model", help="model folder (e.g. from `rewards tiny-model`)")
    p.add_argument("train_file", metavar="TRAIN.parquet", help="prepared training rows")
    p.add_argument("-o", "--output", metavar="FOLDER", help="write the fine-tuned model here (default: over MODEL)")
    p.add_argument("--val-file", metavar="PARQUET",
                   help="held-out rows (default: --eval-rows of the training rows, left out of training)")
    p.add_argument("--steps", type=int, default=d.steps, help=f"at most this many steps; the lr schedule's length (default {d.steps}); 0: only "
                        f"evaluate MODEL on the held-out rows (e.g. a merged checkpoint) and write nothing")
    p.add_argument("--max-seconds", type=float, help="stop after this long (checked every step)")
    p.add_argument("--until-accuracy", type=float, metavar="FRACTION",
                   help="stop at the first evaluation with held-out accuracy at least this (e.g. 0.3)")
    p.add_argument("--batch-size", type=int, default=d.batch_size, help=f"rows per step (default {d.batch_size})")
    p.add_argument("--lr", type=float, default=d.lr, help=f"peak AdamW learning rate (default {d.lr})")
    p.add_argument("--warmup-steps", type=int, default=d.warmup_steps, help=f"linear warm-up (default {d.warmup_steps})")
    p.add_argument("--eval-every", type=int, default=d.eval_every, help=f"evaluate every K steps (default {d.eval_every})")
    p.add_argument("--eval-rows", type=int, default=d.eval_rows, help=f"held-out rows per evaluation (default {d.eval_rows})")
    p.add_argument("--max-new-tokens", type=int, help="greedy answer length (default: the longest held-out solution + 16)")
    p.add_argument("--seed", type=int, default=d.seed, help=f"shuffling and init seed (default {d.seed})")
    p.add_argument("--device", help="cuda, cuda:1, cpu (default: cuda when available)")
    p.set_defaults(func=run)


def run(args) -> int:
    from .launch.tiny_model import TinyModelError
    from .launch.warm_start import WarmStartError, WarmStartOptions, warm_start

    opts = WarmStartOptions(
        model=args.model, train_file=args.train_file, output=args.output, val_file=args.val_file,
        steps=args.steps, max_seconds=args.max_seconds, until_accuracy=args.until_accuracy,
        batch_size=args.batch_size, lr=args.lr, warmup_steps=args.warmup_steps, eval_every=args.eval_every,
        eval_rows=args.eval_rows, max_new_tokens=args.max_new_tokens, seed=args.seed, device=args.device)
    try:
        summary = warm_start(opts)
    except (WarmStartError, TinyModelError) as exc:
        raise CommandError(str(exc)) from None
    print(json.dumps(summary))
    return 0
