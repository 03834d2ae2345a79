"""The one reader's limits (schemas/reader.py): memory bounded by them, not by the input, and never a
lost row; parquet values JSON has no type for reach `score -o` in their stated form. Issue 28 items 6, 7."""

from __future__ import annotations

import base64
import datetime
import decimal
import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from cli.main import main
from schemas import reader
from schemas.reader import read_rows

ROOT = Path(__file__).resolve().parents[1]
GOOD = {"data_source": "openai/gsm8k", "response": "so #### 7", "ground_truth": "7"}
PEAK_BOUND = 1 << 30


def _run_measured(code: str, cwd: Path) -> dict:
    """Run `code` in a fresh interpreter; its last stdout line is JSON, with its peak RSS added.

    The peak is the process's own memory's high-water mark (VmHWM), not getrusage's ru_maxrss: Linux
    carries ru_maxrss over fork and exec, so a child of a large pytest process reported the parent's
    1.29 GB whatever it used itself."""
    wrapper = code + textwrap.dedent("""
        import json as _json
        _hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
        print(_json.dumps({"peak": _hwm * 1024, **RESULT}))
    """)
    done = subprocess.run([sys.executable, "-c", wrapper], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


SCORE_AND_COUNT = """
import json, sys
from cli.main import main
status = main(["score", sys.argv[1] if len(sys.argv) > 1 else INPUT, "-o", "out.jsonl", "-q"])
rows = [json.loads(line) for line in open("out.jsonl", encoding="utf-8")]
RESULT = {"status": status, "verdicts": [r["verdict"] for r in rows], "errors": [r.get("error") for r in rows]}
"""


def test_a_gzip_bomb_line_is_an_error_row_under_a_fixed_memory_bound(tmp_path):
    """A 1 MB .jsonl.gz holding one 1 GB line took 4.27 GB of memory."""
    with gzip.open(tmp_path / "bomb.jsonl.gz", "wb", compresslevel=9) as out:
        out.write((json.dumps(GOOD) + "\n").encode())
        out.write(b'{"data_source": "openai/gsm8k", "ground_truth": "1", "response": "')
        piece = b"y" * 2**20
        for _ in range(1024):
            out.write(piece)
        out.write(b'"}\n' + (json.dumps(GOOD) + "\n").encode())
    assert (tmp_path / "bomb.jsonl.gz").stat().st_size < 2 * 2**20
    got = _run_measured("INPUT = 'bomb.jsonl.gz'\n" + SCORE_AND_COUNT, tmp_path)
    assert got["peak"] < PEAK_BOUND, got["peak"]
    assert got["status"] == 0 and got["verdicts"] == ["correct", "error", "correct"]
    assert "line 2: longer than the 64 MB limit of one line" in got["errors"][1]


def test_a_parquet_bomb_cell_is_an_error_row_under_a_fixed_memory_bound(tmp_path):
    """A 17 KB zstd parquet with one 512 MB cell took 3.76 GB of memory."""
    subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import pyarrow as pa, pyarrow.parquet as pq
        big = "x" * (512 * 2**20)
        rows = {"data_source": ["openai/gsm8k"] * 3, "response": ["#### 7", big, "#### 7"], "ground_truth": ["7"] * 3}
        pq.write_table(pa.table(rows), "bomb.parquet", compression="zstd", row_group_size=3)
        pq.write_table(pa.table({k: v[:1] for k, v in rows.items()}), "good.parquet")
    """)], cwd=tmp_path, check=True, timeout=300)
    assert (tmp_path / "bomb.parquet").stat().st_size < 100_000
    got = _run_measured("INPUT = 'bomb.parquet'\n" + SCORE_AND_COUNT, tmp_path)
    assert got["peak"] < PEAK_BOUND, got["peak"]
    assert got["status"] == 1 and got["verdicts"] == ["error"] * 3  # one row per input row, each saying why
    assert all("64 MB limit of one cell" in e for e in got["errors"])


def test_a_row_over_the_limit_is_an_error_row_and_its_neighbours_are_read(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "MAX_ROW_BYTES", 4096)
    table = pa.table({"response": ["#### 7", "y" * 10_000, "#### 8"], "ground_truth": ["7", "1", "8"]})
    pq.write_table(table, tmp_path / "groups.parquet", row_group_size=1)  # the big page has a group of its own
    rows = list(read_rows(tmp_path / "groups.parquet"))
    assert [r.error is None for r in rows] == [True, False, True]
    assert "has a page of" in rows[1].error and rows[2].value["ground_truth"] == "8"
    monkeypatch.setattr(reader, "_oversized_page", lambda group, path: None)  # a row over the limit, pages small
    pq.write_table(table, tmp_path / "rows.parquet")
    rows = list(read_rows(tmp_path / "rows.parquet"))
    assert [r.error is None for r in rows] == [True, False, True]
    assert "limit of one row" in rows[1].error and rows[2].value["ground_truth"] == "8"


def test_a_long_run_of_unreadable_lines_is_one_summary_row(tmp_path):
    """A 1 KB gzip of a million blank lines wrote a million error rows (135 MB)."""
    path = tmp_path / "blank.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n" * 1_000_000 + (json.dumps(GOOD) + "\n").encode() + b"\n" * 5))
    assert path.stat().st_size < 2048
    rows = list(read_rows(path))
    assert len(rows) == reader.MAX_ERROR_RUN + 1 + 1 + 5
    summary = rows[reader.MAX_ERROR_RUN]
    assert summary.where.endswith(f"lines {reader.MAX_ERROR_RUN + 1}-1000000")
    assert "999,000 more unreadable lines" in summary.error and "blank line" in summary.error
    assert rows[reader.MAX_ERROR_RUN + 1].value == GOOD  # the good line after the run is read
    assert all(r.error == f"{path} line {1_000_001 + i}: blank line" for i, r in enumerate(rows[-5:], start=1))


def test_parquet_columns_json_cannot_hold_are_written_in_their_stated_form(tmp_path, capsys):
    """bytes (verl's `images`), date, timestamp, decimal: a traceback, exit 1, no output."""
    table = pa.table({
        "data_source": ["openai/gsm8k"] * 2, "response": ["#### 7", "#### 8"], "ground_truth": ["7", "7"],
        "images": pa.array([[{"bytes": b"\x89PNG\x00", "path": None}], []],
                           pa.list_(pa.struct([("bytes", pa.binary()), ("path", pa.string())]))),
        "day": pa.array([datetime.date(2024, 1, 2), None]),
        "at": pa.array([datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.datetime(2024, 1, 2)], pa.timestamp("us")),
        "price": pa.array([decimal.Decimal("1.10"), decimal.Decimal("-3")], pa.decimal128(5, 2)),
        "took": pa.array([datetime.timedelta(seconds=90), None], pa.duration("s")),
    })
    pq.write_table(table, tmp_path / "mixed.parquet")
    assert main(["score", str(tmp_path / "mixed.parquet"), "-o", str(tmp_path / "out.jsonl"), "-q"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in rows] == ["correct", "wrong"]
    first = rows[0]
    assert base64.b64decode(first["images"][0]["bytes"]) == b"\x89PNG\x00"
    assert first["day"] == "2024-01-02" and first["at"] == "2024-01-02T03:04:05"
    assert first["price"] == "1.10" and rows[1]["price"] == "-3.00" and first["took"] == 90.0
