"""The training launcher's planning parts: presets, the override list, the model's shape, the plan
(parallelism, batch arithmetic, memory, data) and the verl command. Nothing here needs a GPU.

Each module has one job: `presets` loads the recipe files, `overrides` turns values into verl's
Hydra overrides, `model` reads a config.json into a shape, `parallel` does the divisibility checks,
`memory` estimates per-GPU memory, `data` checks the data file, `verl_config` composes and checks the
result with verl's own config code, `plan` puts them together and `command` renders and runs it.
"""
