"""Benchmark `rewards prepare` and `rewards validate` as a user runs them (fresh processes, wall time).

1. prepare: a GSM8K-shaped hub-layout folder (openai/gsm8k's `main` config, parquet) with 7,500 train
   and 1,319 test rows → train.parquet, test.parquet, manifest.json. Target: under 5 s.
2. validate: a 100,000-row verl file (80% GSM8K rows, 20% MATH rows, all prompts distinct) with the
   offline test tokenizer's chat template and --max-prompt-length. Target: under 60 s on 2 cores.

    .venv/bin/python tests/bench/prepare_validate.py [--rows 100000] [--work DIR]

Prints one JSON line per measurement; docs/benchmarks.md quotes them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

NAMES = ["Marta", "Tom", "Lena", "Sam", "Ivy", "Omar", "Kenji", "Rosa"]
ITEMS = ["apples", "muffins", "crayons", "tulips", "stamps", "marbles"]


def gsm8k_row(rng: random.Random) -> dict:
    name, item = rng.choice(NAMES), rng.choice(ITEMS)
    a, b, price = rng.randint(2, 900), rng.randint(2, 900), rng.randint(1, 40)
    total = (a + b) * price
    question = (f"{name} sold {a} {item} on Monday and {b} {item} on Tuesday at ${price} each. "
                f"How many dollars did {name} earn on those two days?")
    answer = (f"{name} sold {a}+{b} = <<{a}+{b}={a + b}>>{a + b} {item}.\n"
              f"That earned {a + b}*{price} = <<{a + b}*{price}={total}>>{total} dollars.\n#### {total:,}")
    return {"question": question, "answer": answer}


def make_gsm8k_folder(folder: Path, train: int, test: int, seed: int = 0) -> None:
    import datasets

    rng = random.Random(seed)
    (folder / "main").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: main\n  data_files:\n  - split: train\n    path: main/train-*\n"
        "  - split: test\n    path: main/test-*\n---\n")
    for split, n in (("train", train), ("test", test)):
        rows = [gsm8k_row(rng) for _ in range(n)]
        datasets.Dataset.from_list(rows).to_parquet(str(folder / "main" / f"{split}-00000-of-00001.parquet"))


def make_verl_file(path: Path, rows: int, seed: int = 0) -> None:
    from schemas.verl_row import make_row, write_parquet

    rng = random.Random(seed)
    math_golds = ["\\frac{3}{4}", "12", "(-\\infty, 2]", "5\\sqrt{2}", "9\\pi", "(3,2)", "x+1", "\\text{(A)}"]
    out = []
    for i in range(rows):
        if i % 5 == 4:
            k = rng.randint(1, 10**6)
            prompt = [{"role": "user", "content": f"Problem {k}: simplify the expression number {i}. "
                                                  "Please reason step by step, and put your final answer "
                                                  "within \\boxed{}."}]
            out.append(make_row(data_source="lighteval/MATH", prompt=prompt, ground_truth=rng.choice(math_golds),
                                extra_info={"split": "train", "index": i}))
        else:
            raw = gsm8k_row(rng)
            prompt = [{"role": "user", "content": f"{raw['question']} (#{i}) Let's think step by step and "
                                                  "output the final answer after \"####\"."}]
            gold = raw["answer"].rsplit("#### ", 1)[1].replace(",", "")
            out.append(make_row(data_source="openai/gsm8k", prompt=prompt, ground_truth=gold,
                                extra_info={"split": "train", "index": i}))
    write_parquet(out, path)


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[dict, int, str]:
    """Wall and CPU seconds, exit status and output of one fresh process. CPU time is reported too
    because the machine's 2 cores are shared: wall time grows with other load, CPU time much less."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    times = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "load_avg": round(os.getloadavg()[0], 1)}
    return times, proc.returncode, proc.stdout + proc.stderr


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-data-"))
    rewards = str(Path(sys.executable).parent / "rewards")
    env_note = {"cpus": os.cpu_count()}

    source = work / "openai" / "gsm8k"
    if not source.exists():
        make_gsm8k_folder(source, 7500, 1319)
    cold_cache = tempfile.mkdtemp(prefix="hf-cache-", dir=work)
    for attempt in ("cold: datasets builds its cache", "warm: cache built"):
        times, code, out = timed([rewards, "prepare", str(source), "--out", str(work / "prepared"), "-q"],
                                 {"HF_DATASETS_CACHE": cold_cache})
        assert code == 0, out
        print(json.dumps({"bench": "prepare", "rows": 7500 + 1319, "run": attempt, **times, **env_note}))

    from tests.helpers.tokenizer import make_tokenizer

    tok = make_tokenizer(work / "tokenizer")
    big = work / f"verl-{args.rows}.parquet"
    if not big.exists():
        make_verl_file(big, args.rows)
    times, code, out = timed([rewards, "validate", str(big), "--tokenizer", str(tok), "--max-prompt-length", "512",
                                "--json"])
    report = json.loads(out[out.index("{"):])["reports"][0]
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({"bench": "validate", "rows": report["stats"]["rows"], **times,
                      "exit": code, "gold": report["stats"].get("gold"),
                      "prompt_tokens": report["stats"].get("prompt_tokens"),
                      "peak_rss_mb": round(peak_mb), **env_note}))


if __name__ == "__main__":
    main()
