"""Generated verl step dumps for the reward audit: GSM8K- and MATH-shaped GRPO runs whose `score`
is verl 0.9.1's real `default_compute_score`, as `trainer.rollout_data_dir` writes them.

Each response is written in one answer shape (rewards/reporting/shapes.py names them), about a
value that is right or wrong; accuracy rises over the steps as in a run that learns. The generator
returns, beside the dump rows, the shape each response was written in, so that a test can check
the audit's causes against what was generated, not against the audit's own reading.
"""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path
from typing import Any, Callable

FILLER = ("First, we find how many items there are in total. Then we split them evenly between the "
          "groups and check the remainder. Adding the parts back together confirms the count. ")


def _gsm8k_shapes(v: int, gold: int) -> list[tuple[str, str, float]]:
    """(shape, answer text, weight): how a GSM8K response may end, about the value v (digit groups
    only where v has them: weight 0 otherwise)."""
    work = f"We compute {gold // 3 or 1} * 3 and adjust.\n"
    return [("same_spelling", f"{work}#### {v}", 8.0),
            ("dollar", f"{work}So she earns #### ${v:,}", 1.2),
            ("thousands_separator", f"{work}#### {v:,}", 0.6 if v >= 1000 else 0.0),
            ("unit", f"{work}#### {v} dollars", 0.5),
            ("no_marker", f"{work}The answer is {v}.", 1.0),
            ("marker_spacing", f"{work}####{v}", 0.6),
            ("equivalent_spelling", f"{work}#### {v}.00", 0.5),
            ("clipped", f"{work}#### {v}\n\nTo double-check: " + FILLER * 2, 0.8),
            ("not_whole_answer", f"{work}#### {v} or {v + 1}", 0.4),
            ("answer_in_think", f"<think>{work}#### {v}</think>\nI am not sure about this one.", 0.4),
            ("cut_off", f"<think>{work}Let me recount the ", 0.4)]


def _math_shapes(v: int, gold: int) -> list[tuple[str, str, float]]:
    """(shape, answer text, weight) for a MATH response about v (gold written as \\frac{gold}{2})."""
    work = "We simplify the expression and solve for $x$.\n"
    half = f"\\frac{{{v}}}{{2}}"
    decimal = f"{v / 2:g}"
    return [("same_spelling", f"{work}The answer is $\\boxed{{{half}}}$.", 8.0),
            ("equivalent_spelling", f"{work}So $x = \\boxed{{{decimal}}}$.", 1.5),
            ("boxed_missing", f"{work}The final answer is ${half}$.", 1.0),
            ("several_boxes", f"{work}Both parts: $\\boxed{{{v}}}$, $\\boxed{{{half}}}$.", 0.8),
            ("thousands_separator", f"{work}$x = \\boxed{{{v / 2:,}}}$", 0.6 if v >= 2000 else 0.0),
            ("not_whole_answer", f"{work}$\\boxed{{{half} \\text{{ or }} {v + 1}/2}}$", 0.5),
            ("unit", f"{work}$\\boxed{{{half}\\text{{ cm}}}}$", 0.4),
            ("dollar", f"{work}$\\boxed{{\\${half}}}$", 0.4),
            ("answer_in_think", f"<think>{work}$\\boxed{{{half}}}$</think>\nDone.", 0.4),
            ("cut_off", f"{work}$\\boxed{{\\frac{{{v}}}{{", 0.4)]


FAMILIES: dict[str, tuple[str, Callable[[int], Any], Callable[..., list]]] = {
    "gsm8k": ("openai/gsm8k", lambda g: str(g), _gsm8k_shapes),
    "math": ("lighteval/MATH", lambda g: f"\\frac{{{g}}}{{2}}", _math_shapes),
}


def generate(folder: Path, family: str = "gsm8k", steps: int = 4, prompts: int = 16, n: int = 4,
             seed: int = 0, scorer: Callable[..., Any] | None = None) -> list[dict[str, Any]]:
    """Write `<step>.jsonl` dumps into `folder`; return per row (in file order) what was generated:
    its step, uid, shape, whether the value was right, and the dump row itself."""
    if scorer is None:
        from verl.utils.reward_score import default_compute_score as scorer
    data_source, gold_text, shapes = FAMILIES[family]
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for step in range(1, steps + 1):
        p_right = 0.35 + 0.4 * (step - 1) / max(1, steps - 1)
        rows = []
        for _ in range(prompts):
            gold = rng.choice([rng.randint(2, 99), rng.randint(100, 999), rng.randint(1000, 9999)])
            uid = str(uuid.UUID(int=rng.getrandbits(128)))
            prompt = f"user\nQuestion {uid[:8]}: how many? Let's think step by step.\nassistant\n"
            for _ in range(n):
                right = rng.random() < p_right
                v = gold if right else gold + rng.choice([-10, -1, 1, 2, 7, 100])
                options = shapes(v, gold)
                shape, text, _ = rng.choices(options, weights=[w for *_, w in options])[0]
                response = FILLER[: FILLER.index(" ", rng.randint(40, 160)) + 1] + text
                score = scorer(data_source, response, gold_text(gold))
                row = {"input": prompt, "output": response, "gts": gold_text(gold),
                       "score": float(score["score"] if isinstance(score, dict) else score),
                       "step": step, "uid": uid}
                rows.append(row)
                written.append({"step": step, "uid": uid, "shape": shape, "right": right, "row": row,
                                "data_source": data_source})
        rng.shuffle(rows)  # verl's balance_batch reorders a step's samples: a group is not contiguous
        order = {id(r): i for i, r in enumerate(rows)}
        written[-len(rows):] = sorted(written[-len(rows):], key=lambda w: order[id(w["row"])])
        with open(folder / f"{step}.jsonl", "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return written
