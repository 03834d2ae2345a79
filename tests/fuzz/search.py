"""The long search (`make fuzz`): fresh random seeds, many golds per family, every finding kept.

    python -m tests.fuzz.search                 # the `fuzz` profile's examples per family
    python -m tests.fuzz.search -n 200 --seed 7 # shorter, reproducible
    python -m tests.fuzz.search --json out.json # the figures and findings as JSON too

Unlike the CI test it never stops at a failure: it judges every mutation it draws and prints the
figures (golds, mutations, cases tried, findings by mutation, each with examples). Exit status 1 when
it found a false positive, a false negative or an error.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict

from hypothesis import given, seed, settings

from rewards.testing.golds import FAMILIES, Gold
from rewards.testing.verdicts import Finding, judge
from rewards.testing.wrappers import PLACED
from tests.helpers.profiles import load_test_profile  # noqa: F401  (registers the profiles)

SEARCHED = {**FAMILIES, **PLACED}
"""Every gold family and every wrapper's placed answers, the unsettled wrappers included."""


def search(examples: int, seed_value: int) -> dict:
    golds: set[tuple[str, str]] = set()
    mutations: dict[tuple[str, str], bool] = {}
    tried = 0
    found: dict[tuple[str, str, str], list[Finding]] = defaultdict(list)
    for family, strategy in SEARCHED.items():
        def visit(gold: Gold) -> None:
            nonlocal tried
            golds.add((gold.family, gold.gold))
            for m in gold.mutations:
                mutations[(gold.family, m.name)] = m.paid
                tried += 1
                finding = judge(gold, m)
                if finding is not None:
                    found[(finding.family, finding.mutation, finding.kind)].append(finding)

        run = seed(seed_value)(settings(settings.get_profile("fuzz"), max_examples=examples)(given(strategy)(visit)))
        run()
    return {
        "seed": seed_value, "examples_per_family": examples, "families": len(SEARCHED),
        "golds": len(golds), "mutations": len(mutations),
        "meaning_changing": sum(not paid for paid in mutations.values()),
        "meaning_preserving": sum(mutations.values()), "cases": tried,
        "findings": [{"family": f, "mutation": m, "kind": k, "count": len(items),
                      "examples": [str(x) for x in items[:3]]} for (f, m, k), items in sorted(found.items())],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--examples", type=int, default=settings.get_profile("fuzz").max_examples,
                        help="golds drawn per family (default: the fuzz profile's max_examples)")
    parser.add_argument("--seed", type=int, default=None, help="default: a fresh random seed")
    parser.add_argument("--json", help="also write the figures and findings to this file")
    args = parser.parse_args(argv)
    seed_value = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    start = time.perf_counter()
    out = search(args.examples, seed_value)
    out["seconds"] = round(time.perf_counter() - start, 1)
    print(f"seed {out['seed']}: {out['families']} families, {out['golds']} golds, {out['mutations']} "
          f"mutations ({out['meaning_changing']} meaning-changing, {out['meaning_preserving']} "
          f"meaning-preserving), {out['cases']} cases tried in {out['seconds']} s")
    for kind in ("false positive", "false negative", "error"):
        rows = [f for f in out["findings"] if f["kind"] == kind]
        print(f"{kind}s: {sum(f['count'] for f in rows)} cases, {len(rows)} mutations")
        for f in rows:
            print(f"  {f['count']:6d}  {f['family']} / {f['mutation']}")
            for example in f["examples"][:2]:
                print(f"           {example}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 1 if out["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
