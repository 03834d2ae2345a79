"""Prompt templates: how a question becomes verl's `prompt` (a list of chat messages).

A template is chosen by name so that a data file records exactly how it was made (the manifest keeps
the name and the system prompt). The model's answer format must match what the data_source's scorer
reads: `####` for GSM8K, `\\boxed{}` for the MATH family; the `r1` template says which, through the
family's answer format, whose words the scorer registry owns (`rewards.registry.ANSWER_FORMATS`).

The chat template itself (`<|im_start|>` and so on) is applied by verl at training time, never here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewards.registry import ANSWER_FORMATS

# verl's own GSM8K recipe (examples/data_preprocess/gsm8k.py) appends exactly this sentence.
GSM8K_SUFFIX = 'Let\'s think step by step and output the final answer after "####".'
# The instruction the Qwen math models were tuned with; MATH-family recipes use it.
BOXED_SUFFIX = "Please reason step by step, and put your final answer within \\boxed{}."
# EasyR1's think-and-box math prompt (also verl's geometry3k recipe), kept word for word so that a
# recipe trained with it can be reproduced.
THINK_BOX = ("You FIRST think about the reasoning process as an internal monologue and then provide "
             "the final answer. The reasoning process MUST BE enclosed within <think> </think> tags. "
             "The final answer MUST BE put in \\boxed{}.")
# R1-style think-then-answer system prompt; {answer_format} names where the scorer looks.
R1_SYSTEM = ("A conversation between User and Assistant. The user asks a question and the Assistant "
             "solves it. The Assistant first reasons about the problem inside <think> </think> tags, "
             "then gives the final answer after the closing tag, {answer_format}.")
# DeepSeek-R1's own system prompt, word for word: the answer inside `<answer> </answer>` tags, the
# layout `format_rule=think_answer` pays for (and the only one under which the scorers read the tags).
R1_TAGS = ("A conversation between User and Assistant. The user asks a question, and the Assistant solves "
           "it. The assistant first thinks about the reasoning process in the mind and then provides the "
           "user with the answer. The reasoning process and answer are enclosed within <think> </think> "
           "and <answer> </answer> tags, respectively, i.e., <think> reasoning process here </think> "
           "<answer> answer here </answer>.")

# Named system prompts that `--system` accepts besides literal text.
SYSTEM_PROMPTS = {"r1": R1_SYSTEM, "r1_tags": R1_TAGS, "think_box": THINK_BOX}


class TemplateError(ValueError):
    """An unknown template or system prompt name."""


@dataclass(frozen=True)
class Template:
    name: str
    user: str
    """The user turn; `{question}` is replaced by the problem text."""
    system: str | None = None
    """A system turn the template always adds (`{answer_format}` is filled in), or None."""
    description: str = ""


TEMPLATES: dict[str, Template] = {t.name: t for t in (
    Template("gsm8k", "{question} " + GSM8K_SUFFIX,
             description="question + verl's GSM8K instruction (answer after ####)"),
    Template("boxed", "{question} " + BOXED_SUFFIX,
             description="question + 'put your final answer within \\boxed{}'"),
    Template("r1", "{question}", system=R1_SYSTEM,
             description="R1 think-and-answer system prompt, the answer after </think> as the scorer "
                         "reads it (pairs with format_rule=think_boxed for boxed answers)"),
    Template("r1_tags", "{question}", system=R1_TAGS,
             description="DeepSeek-R1's system prompt: <think> then <answer> tags (format_rule=think_answer)"),
    Template("think_box", "{question} " + THINK_BOX,
             description="question + EasyR1's think-and-box instruction (verl's geometry3k recipe)"),
    Template("plain", "{question}", description="the question alone (pair it with --system)"),
)}


def get_template(name: str) -> Template:
    try:
        return TEMPLATES[name]
    except KeyError:
        raise TemplateError(f"unknown template {name!r}; choose one of {', '.join(TEMPLATES)}") from None


def resolve_system(system: str | None) -> str | None:
    """A named system prompt (`r1`, `think_box`) or literal text; None or "" means none."""
    if not system:
        return None
    return SYSTEM_PROMPTS.get(system, system)


def build_prompt(template: Template, question: str, *, answer_format: str = "boxed",
                 system: str | None = None) -> list[dict[str, str]]:
    """The verl `prompt` for one question: an optional system turn, then the user turn.

    An explicit `system` replaces the template's own system turn.
    """
    if answer_format not in ANSWER_FORMATS:
        raise TemplateError(f"unknown answer format {answer_format!r}; one of {', '.join(ANSWER_FORMATS)}")
    fmt = ANSWER_FORMATS[answer_format].instruction
    messages = []
    system_text = resolve_system(system) or template.system
    if system_text:
        messages.append({"role": "system", "content": system_text.replace("{answer_format}", fmt)})
    messages.append({"role": "user", "content": template.user.replace("{question}", question.strip())})
    return messages
