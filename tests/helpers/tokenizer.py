"""A small real tokenizer made offline: byte-level BPE trained on math text, with a chat template.

Hub tokenizers cannot be downloaded here; verl's dataset and reward manager only need a
`transformers` tokenizer with `apply_chat_template`, `decode` and special tokens, which this is.
"""

from __future__ import annotations

from pathlib import Path

# A Qwen-style ChatML template: system/user/assistant turns, generation prompt on request.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}{% else %}<|image_pad|>{% endif %}"
    "{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|image_pad|>"]

_CORPUS = [
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May.",
    "Let's think step by step and output the final answer after \"####\". #### 72",
    "What is the value of \\frac{1}{2} + \\sqrt{3}? The answer is \\boxed{\\frac{\\sqrt{3}}{2}}.",
    "<think> Let x = 3, then x^2 = 9 and 2x + 1 = 7. </think> So the final answer is \\boxed{7}.",
    "Find all real solutions to x^2 - 5x + 6 = 0. The solutions are (2, 3) and the interval [0, \\infty).",
    "0123456789 + - * / = ( ) [ ] { } \\ ^ _ $ , . ; : ! ? ' \" # % & < > | ~",
    "Please reason step by step, and put your final answer within \\boxed{}.",
] * 20


def make_tokenizer(directory: str | Path) -> Path:
    """Train and save the tokenizer into `directory` (idempotent); returns the directory."""
    directory = Path(directory)
    if (directory / "tokenizer.json").exists():
        return directory
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE(unk_token=None))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    core.train_from_iterator(_CORPUS, trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  additional_special_tokens=["<|im_start|>", "<|image_pad|>"])
    tok.chat_template = CHAT_TEMPLATE
    directory.mkdir(parents=True, exist_ok=True)
    tok.save_pretrained(directory)
    return directory
