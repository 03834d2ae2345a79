"""`rewards tiny-model`: write a tiny random-weight Qwen2 model and byte-level tokenizer, offline.

For rehearsing a run on one GPU: the folder loads like a hub model in transformers, vLLM and verl
(see `cli/launch/tiny_model.py`); `rewards warm-start` then fine-tunes it on prepared rows.
"""

from __future__ import annotations

import json

from .errors import CommandError


def register(sub) -> None:
    from .launch.tiny_model import TinySize

    d = TinySize()
    p = sub.add_parser(
        "tiny-model", help="write a tiny random-weight Qwen2 model and byte-level tokenizer (offline)",
        description="Write a small Qwen2 causal LM (random init, safetensors, tied embeddings) and a "
                    "byte-level tokenizer with a ChatML chat template into FOLDER; transformers, vLLM and "
                    "verl load it like a hub model. Needs torch and transformers; downloads nothing.")
    p.add_argument("output", metavar="FOLDER", help="where to write the model (created; must be empty)")
    p.add_argument("--layers", type=int, default=d.layers, help=f"decoder layers (default {d.layers})")
    p.add_argument("--hidden", type=int, default=d.hidden, help=f"hidden size (default {d.hidden})")
    p.add_argument("--heads", type=int, default=d.heads,
                   help=f"attention heads; head size is hidden/heads (default {d.heads})")
    p.add_argument("--kv-heads", type=int, help="key/value heads (default: as many as --heads)")
    p.add_argument("--intermediate", type=int, help="MLP width (default: 4 x hidden)")
    p.add_argument("--max-positions", type=int, default=d.max_positions,
                   help=f"max_position_embeddings (default {d.max_positions})")
    p.add_argument("--pad-vocab", type=int, default=d.pad_vocab, metavar="N",
                   help="round vocab_size up to a multiple of N, as hub models do, so that a tensor-parallel "
                        "size dividing N divides the embedding (Megatron TP 2 needs 2; default 1: 259 rows)")
    p.add_argument("--fill-tokenizer", action="store_true",
                   help="with --pad-vocab: give the tokenizer an unused special token for every padded row, so "
                        "that the rollout (vLLM under verl masks rows past the tokenizer) and the trainer "
                        "(log-softmax over every row) normalise over the same rows")
    p.add_argument("--seed", type=int, default=0, help="seed of the random init (default 0)")
    p.add_argument("--overwrite", action="store_true", help="write into a folder that is not empty")
    p.set_defaults(func=run)


def run(args) -> int:
    from .launch.tiny_model import TinyModelError, TinySize, write_tiny_model

    size = TinySize(layers=args.layers, hidden=args.hidden, heads=args.heads,
                    kv_heads=args.kv_heads or args.heads, intermediate=args.intermediate or 4 * args.hidden,
                    max_positions=args.max_positions, pad_vocab=args.pad_vocab)
    try:
        summary = write_tiny_model(args.output, size, seed=args.seed, overwrite=args.overwrite,
                                   fill_tokenizer=args.fill_tokenizer)
    except TinyModelError as exc:
        raise CommandError(str(exc)) from None
    print(json.dumps(summary))
    return 0
