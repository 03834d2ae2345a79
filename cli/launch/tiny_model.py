"""A tiny Qwen2 causal LM and its tokenizer, built offline, for rehearsing a run on one GPU.

The folder looks like a hub model to transformers, vLLM and verl: `config.json` in the keys of a
hub Qwen2.5 config, `generation_config.json`, `model.safetensors` (random init) and a
`PreTrainedTokenizerFast` (`tokenizer.json`, `tokenizer_config.json` with a ChatML chat template).
The tokenizer is byte-level BPE with no merges: its 256 byte tokens spell any text (non-ASCII
included) and need no training corpus, so the same folder serves whatever data the rehearsal uses.
torch and transformers are imported only when a model is written (the core install has neither).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PAD, CHAT_START, EOS = "<|endoftext|>", "<|im_start|>", "<|im_end|>"
SPECIAL_TOKENS = (PAD, CHAT_START, EOS)  # ids 256, 257, 258: after the 256 bytes
# Qwen's ChatML: a turn is `<|im_start|>ROLE\nTEXT<|im_end|>\n`; no default system turn, so that a
# prompt costs only the bytes the data puts in it.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
# Qwen2's pre-tokenizer split (transformers' tokenization_qwen2.PRETOKENIZE_REGEX).
QWEN_SPLIT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"""
              r"""\s*[\r\n]+|\s+(?!\S)|\s+""")


class TinyModelError(ValueError):
    """A tiny model that cannot be written (a missing library, a bad size, an occupied folder)."""


@dataclass(frozen=True)
class TinySize:
    layers: int = 4
    hidden: int = 256
    heads: int = 4
    kv_heads: int = 4
    intermediate: int = 1024
    max_positions: int = 2048
    pad_vocab: int = 1      # vocab_size rounded up to a multiple of this (hub models pad theirs for TP)

    def check(self) -> None:
        for name in ("layers", "hidden", "heads", "kv_heads", "intermediate", "max_positions", "pad_vocab"):
            if getattr(self, name) < 1:
                raise TinyModelError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.hidden % self.heads:
            raise TinyModelError(f"--hidden {self.hidden} is not a multiple of --heads {self.heads}")
        if self.heads % self.kv_heads:
            raise TinyModelError(f"--heads {self.heads} is not a multiple of --kv-heads {self.kv_heads}")


def byte_alphabet() -> list[str]:
    """The 256 printable characters that byte-level BPE (GPT-2's `bytes_to_unicode`) stands in for
    bytes 0..255, in byte order: token id i is byte i."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for byte in range(256):
        if byte in kept:
            chars[byte] = chr(byte)
        else:
            chars[byte] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in range(256)]


def build_tokenizer(extra_tokens: tuple[str, ...] = (), chat_template: str = CHAT_TEMPLATE):
    """A `PreTrainedTokenizerFast`: 256 byte tokens, then `<|endoftext|>` (pad), `<|im_start|>`,
    `<|im_end|>` (eos), then `extra_tokens` (a vision model's image markers), and the chat template."""
    transformers = require_library("transformers")
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=_byte_tokenizer(SPECIAL_TOKENS + tuple(extra_tokens)), eos_token=EOS, pad_token=PAD,
        model_max_length=TinySize.max_positions)
    tokenizer.chat_template = chat_template
    return tokenizer


def _byte_tokenizer(specials: tuple[str, ...] = SPECIAL_TOKENS):
    """The pipeline of Qwen2's own tokenizer (NFC, Qwen's split, byte level), with no merges:
    transformers 5 rebuilds any `qwen2` model's tokenizer that way from the vocabulary, so the
    tokenizer.json a loader reads and the one transformers rebuilds give the same ids."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

    core = Tokenizer(models.BPE(vocab={c: i for i, c in enumerate(byte_alphabet())}, merges=[]))
    core.normalizer = normalizers.NFC()
    core.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    core.decoder = decoders.ByteLevel()
    core.add_special_tokens(list(specials))
    return core


def save_tokenizer(tokenizer, out: Path) -> None:
    """tokenizer.json and a tokenizer_config.json that holds the chat template, as Qwen's hub
    models have them (transformers 5 would write the template to a side file and name a class
    older versions do not know)."""
    tokenizer.backend_tokenizer.save(str(out / "tokenizer.json"))
    special = {str(i): {
        "content": t.content, "lstrip": False, "normalized": False, "rstrip": False, "single_word": False,
        "special": True} for i, t in sorted(tokenizer.added_tokens_decoder.items())}
    config = {"added_tokens_decoder": special, "bos_token": None, "chat_template": tokenizer.chat_template,
              "clean_up_tokenization_spaces": False, "eos_token": EOS, "errors": "replace",
              "model_max_length": tokenizer.model_max_length, "pad_token": PAD,
              "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer"}
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")


def hub_config(size: TinySize, vocab: int, token_ids: dict[str, int]) -> dict[str, Any]:
    """config.json in the keys of a hub Qwen2.5 model (what every loader has read for years)."""
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "attention_dropout": 0.0,
        "bos_token_id": token_ids[PAD],
        "eos_token_id": token_ids[EOS],
        "hidden_act": "silu",
        "hidden_size": size.hidden,
        "initializer_range": 0.02,
        "intermediate_size": size.intermediate,
        "max_position_embeddings": size.max_positions,
        "max_window_layers": size.layers,
        "model_type": "qwen2",
        "num_attention_heads": size.heads,
        "num_hidden_layers": size.layers,
        "num_key_value_heads": size.kv_heads,
        "rms_norm_eps": 1e-06,
        "rope_theta": 10000.0,
        "sliding_window": size.max_positions,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": vocab,
    }


FILLER = "<|fill_{}|>"


def write_tiny_model(out: str | Path, size: TinySize = TinySize(), *, seed: int = 0,
                     overwrite: bool = False, fill_tokenizer: bool = False) -> dict[str, Any]:
    """Write the model and tokenizer into `out`; returns a summary (path, parameters, vocabulary).

    `fill_tokenizer`: the padded rows get unused special tokens. verl's vLLM rollout sets the logits
    of ids past len(tokenizer) to -inf while its trainers take the log-softmax over every row, so the
    rows of a padded vocabulary that no token names make every trainer log-prob lower than the
    rollout's by -log(1 - their mass): a warm-started tiny model's fresh rows keep enough mass to show
    as verl's rollout_corr/kl (hub models train theirs down to nothing)."""
    size.check()
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise TinyModelError(f"{out} is a file; give a folder")
    if out.is_dir() and any(out.iterdir()) and not overwrite:
        raise TinyModelError(f"{out} is not empty; pass --overwrite to replace the model there")
    torch = require_library("torch")
    transformers = require_library("transformers")
    tokenizer = build_tokenizer()
    vocab = -(-len(tokenizer) // size.pad_vocab) * size.pad_vocab
    if fill_tokenizer:
        tokenizer = build_tokenizer(tuple(FILLER.format(i) for i in range(vocab - len(tokenizer))))
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    config = hub_config(size, vocab, ids)
    torch.manual_seed(seed)
    model = transformers.AutoModelForCausalLM.from_config(transformers.Qwen2Config(**config))
    save_model(model.to(torch.bfloat16), tokenizer, out, config)
    params = sum(p.numel() for p in model.parameters())
    return {"model": str(out), "parameters": params, "vocab_size": config["vocab_size"],
            "tokens": len(tokenizer), "layers": size.layers,
            "hidden": size.hidden, "heads": size.heads, "kv_heads": size.kv_heads, "seed": seed}


def save_model(model, tokenizer, out: Path, config: dict[str, Any]) -> None:
    """Save weights and tokenizer, then config.json and generation_config.json as a hub model has
    them (transformers would write its own version's keys, which older loaders may not read)."""
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    save_tokenizer(tokenizer, out)
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    generation = {"bos_token_id": config["bos_token_id"], "eos_token_id": config["eos_token_id"],
                  "pad_token_id": tokenizer.pad_token_id}
    (out / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")


def require_library(name: str):
    """torch or transformers, or one sentence saying how to get them."""
    from importlib import import_module

    try:
        return import_module(name)
    except ImportError:
        raise TinyModelError(f"{name} is not installed: the tiny model needs torch and transformers "
                             f"(pip install 'verl-rewards[verl]' or torch and transformers)") from None
