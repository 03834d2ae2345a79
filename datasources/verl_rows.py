"""Sets published already in verl's row format, DAPO-Math-17k (`BytedTsinghua-SIA/DAPO-Math-17k`)
first: columns data_source, prompt, ability, reward_model, extra_info.

Such rows keep their own prompt (DAPO's asks for an `Answer:` line) and their own data_source
(DAPO's is `math_dapo`, the name verl's reward dispatch and our DAPO scorer use); `prepare` only
re-indexes them, checks their golds and writes the manifest. `--data-source` still relabels them.
"""

from __future__ import annotations

from typing import Any, Mapping

from .base import Extracted, Family, SkipRow

VERL_COLUMNS = frozenset({"data_source", "prompt", "reward_model"})


def extract(raw: Mapping[str, Any]) -> Extracted:
    prompt = raw.get("prompt")
    if not isinstance(prompt, list) or not prompt or not all(isinstance(m, Mapping) for m in prompt):
        raise SkipRow("prompt is not a list of {role, content} messages")
    messages = [{"role": str(m.get("role")), "content": str(m.get("content"))} for m in prompt]
    reward_model = raw.get("reward_model")
    gold = reward_model.get("ground_truth") if isinstance(reward_model, Mapping) else None
    if gold is None or not str(gold).strip():
        raise SkipRow("reward_model.ground_truth is missing or empty")
    extra = raw.get("extra_info") if isinstance(raw.get("extra_info"), Mapping) else {}
    kept = {("source_id" if k == "index" else k): v for k, v in extra.items() if k != "split"}
    question = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    source = raw.get("data_source")
    return Extracted(question, str(gold).strip(), kept, prompt=messages,
                     data_source=str(source) if source else None)


DAPO_MATH = Family(
    name="dapo_math",
    hub_ids=("BytedTsinghua-SIA/DAPO-Math-17k",),
    columns=VERL_COLUMNS,
    shapes=(VERL_COLUMNS | {"ability", "extra_info"},),
    names=("dapo-math-17k",),
    keeps_data_source=True,
    extract=extract,
    default_template="plain",
    answer_format="boxed",
    splits=("train",),
    description="BytedTsinghua-SIA/DAPO-Math-17k (and any verl-format file): rows keep their prompt and data_source",
)
