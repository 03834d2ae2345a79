"""Build the DataProto batches verl's reward managers receive, from plain rows and a real tokenizer.

verl's rollout hands the reward loop `prompts` (left-padded), `responses` (right-padded, ending in
EOS), one `attention_mask` over both, and the dataset row's `data_source`, `reward_model` and
`extra_info` as object arrays. This builds exactly that shape, so the tests exercise verl's own
decoding (`skip_special_tokens=True`) and length arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Row:
    data_source: str
    response: str
    ground_truth: Any
    question: str = "What is the answer?"
    extra_info: dict[str, Any] = field(default_factory=dict)


def untimed(result: dict[str, Any]) -> dict[str, Any]:
    """A `rewards.verl` result without its wall time, to compare two calls' verdicts and keys."""
    from rewards.result import TIMING_KEY

    return {k: v for k, v in result.items() if k != TIMING_KEY}


def make_batch(tokenizer, rows: list[Row]):
    """A DataProto with one entry per row, shaped as verl's rollout produces it."""
    import numpy as np
    import torch
    from verl import DataProto

    prompts = [tokenizer.apply_chat_template([{"role": "user", "content": r.question}],
                                             add_generation_prompt=True, tokenize=False) for r in rows]
    prompt_ids = [tokenizer.encode(p, add_special_tokens=False) for p in prompts]
    response_ids = [tokenizer.encode(r.response, add_special_tokens=False) + [tokenizer.eos_token_id]
                    for r in rows]
    p_len = max(map(len, prompt_ids))
    r_len = max(map(len, response_ids))
    pad = tokenizer.pad_token_id
    prompt_t = torch.tensor([[pad] * (p_len - len(p)) + p for p in prompt_ids])
    response_t = torch.tensor([r + [pad] * (r_len - len(r)) for r in response_ids])
    mask = torch.tensor([[0] * (p_len - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (r_len - len(r))
                         for p, r in zip(prompt_ids, response_ids)])
    input_ids = torch.cat([prompt_t, response_t], dim=1)
    position_ids = (mask.cumsum(dim=1) - 1).clamp(min=0)
    non_tensors = {
        "data_source": np.array([r.data_source for r in rows], dtype=object),
        "reward_model": np.array([{"style": "rule", "ground_truth": r.ground_truth} for r in rows], dtype=object),
        "extra_info": np.array([{"split": "test", "index": i, **r.extra_info} for i, r in enumerate(rows)],
                               dtype=object),
    }
    return DataProto.from_dict(
        tensors={"prompts": prompt_t, "responses": response_t, "input_ids": input_ids,
                 "attention_mask": mask, "position_ids": position_ids},
        non_tensors=non_tensors,
    )


def verl_dump_writer():
    """verl's own rollout-dump writer, `RayPPOTrainer._write_generations`, as a plain function.

    The JSONL rows are exactly the ones `trainer.rollout_data_dir` receives.
    """
    import json
    import os

    return verl_trainer_function("_write_generations", os=os, json=json)


def verl_trainer_function(name: str, **namespace):
    """A method of verl's `RayPPOTrainer` that never touches `self`, as a plain function.

    Importing verl's trainer module needs the GPU-side serving stack (vLLM/uvicorn), which CPU test
    machines lack, so the function's own source is compiled from the installed verl instead, with
    `namespace` supplying the module-level names it uses.
    """
    import ast
    from importlib.util import find_spec

    source_path = find_spec("verl").submodule_search_locations[0] + "/trainer/ppo/ray_trainer.py"
    with open(source_path) as f:
        tree = ast.parse(f.read())
    found = next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == name)
    found.decorator_list = []
    exec(compile(ast.Module(body=[found], type_ignores=[]), source_path, "exec"), namespace)
    return namespace[name]
