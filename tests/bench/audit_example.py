"""The worked example of docs/probe-and-report.md, "Audit a finished run": a generated GSM8K-shaped
GRPO run whose dumps carry verl 0.9.1's own reward, audited by `rewards score` and `rewards report`.

    python tests/bench/audit_example.py OUT_DIR [--screenshot docs/images/audit-report.png]

Writes OUT_DIR/rollouts/<step>.jsonl (16 steps of 64 prompts x 8 samples: tests/helpers/audit_dumps.py),
prints what `rewards score` prints for it, writes the run page OUT_DIR/rollouts.report.html and,
with --screenshot, a PNG of the page's audit section in headless Chromium.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers.audit_dumps import generate  # noqa: E402
from tests.helpers.browser import chromium, screenshot  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path)
    p.add_argument("--screenshot", type=Path)
    args = p.parse_args(argv)
    folder = args.out / "rollouts"
    generate(folder, "gsm8k", steps=16, prompts=64, n=8, seed=2026)
    rewards = [sys.executable, "-m", "cli.main"]  # run in OUT_DIR, so rows are named rollouts/<step>.jsonl
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([*rewards, "score", "rollouts", "--data-source", "openai/gsm8k", "-q", "-o", "scored.jsonl"],
                   cwd=args.out, env=env, check=True)
    page = args.out / "rollouts.report.html"
    subprocess.run([*rewards, "report", "rollouts", "--data-source", "openai/gsm8k", "-q", "-o", page.name,
                    "--title", "Run report: a GSM8K GRPO run trained with verl's default_compute_score"],
                   cwd=args.out, env=env, check=True)
    if args.screenshot:
        if chromium() is None:
            raise SystemExit("no chromium to take the screenshot with (apt-get install -y chromium)")
        section = args.out / "audit-section.html"  # the audit section alone, so the shot shows it whole
        html = page.read_text(encoding="utf-8")
        head, body = html.split("<body>", 1)
        start, end = body.index('<h2 id="audit">'), body.index("<h2>openai/gsm8k</h2>")
        section.write_text(head + "<body>" + body[start:end] + "</body></html>", encoding="utf-8")
        screenshot(section, args.screenshot, args.out / "profile", size="1400,1350")
    return 0


if __name__ == "__main__":
    sys.exit(main())
