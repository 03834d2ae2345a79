"""A reward-hacking probe: score canned attack responses and report what the reward pays for.

A policy under RL finds whatever a reward pays for, including what it should not. Before a run,
the probe builds, for each gold answer, responses that deserve no reward (an empty answer, every
candidate listed, the answer only inside `<think>`, a correct answer later retracted, LaTeX that
makes sympy hang, ...), scores them through the same call verl makes, and tallies a scoreboard.

Three modules: `attacks` (the responses, as data and builders), `scoreboard` (scoring them through
the reward function and the pass/fail gate), `samples` (built-in golds when no data file is given).
"""
