"""Per-data_source, per-verdict tallies of scored rows, printed as a plain table."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Mapping, TextIO

ALL = "(all)"


@dataclass
class Tally:
    count: int = 0
    score: float = 0.0
    acc: float = 0.0

    def add(self, result: Mapping[str, Any]) -> None:
        self.count += 1
        self.score += float(result["score"])
        self.acc += float(result["acc"])


@dataclass
class Summary:
    cells: dict[tuple[str, str], Tally] = field(default_factory=lambda: defaultdict(Tally))

    def add(self, data_source: str, result: Mapping[str, Any]) -> None:
        for key in ((data_source, result["verdict"]), (data_source, ALL), (ALL, ALL)):
            self.cells[key].add(result)

    @property
    def total(self) -> int:
        return self.cells[(ALL, ALL)].count if (ALL, ALL) in self.cells else 0

    def count(self, verdict: str) -> int:
        """Rows with this verdict, over every data_source (the table's own cells, summed)."""
        return sum(t.count for (s, v), t in self.cells.items() if v == verdict and s != ALL)

    def rows(self) -> list[dict[str, Any]]:
        """Table rows: per source its verdicts, then its total; the grand total last."""
        def order(key: tuple[str, str]) -> tuple:
            source, verdict = key
            return (source == ALL, source, verdict == ALL, verdict)
        return [{"data_source": s, "verdict": v, "count": t.count,
                 "mean_score": t.score / t.count, "acc": t.acc / t.count}
                for (s, v), t in sorted(self.cells.items(), key=lambda kv: order(kv[0]))]

    def print(self, out: TextIO) -> None:
        from rewards.reporting.stats import fixed

        rows = self.rows()
        if not rows:
            print("no rows", file=out)
            return
        w = max(len("data_source"), *(len(r["data_source"]) for r in rows))
        print(f"{'data_source':<{w}}  {'verdict':<15}  {'count':>7}  {'mean_score':>10}  {'acc':>6}", file=out)
        for r in rows:
            print(f"{r['data_source']:<{w}}  {r['verdict']:<15}  {r['count']:>7}  "
                  f"{fixed(r['mean_score']):>10}  {fixed(r['acc']):>6}", file=out)
