"""What `rewards report` shows: statistics of scored rows, and the HTML pages that draw them.

- stats.py: one rollout file (distributions, GRPO groups, accuracy by length, wrong answers);
- runs.py: a run folder, step by step, with the flags for trouble patterns;
- charts.py and html.py: the PNG charts and the self-contained pages.

Statistics never import matplotlib; reading files and scoring rows are the caller's job (cli/report.py).
"""
