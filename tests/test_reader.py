"""schemas/reader.py: one InputRow per line whatever the line holds, whole-file errors in one line,
gzip and parquet by content, folders of verl step dumps in step order, streaming."""

import gzip
import io
import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas.reader import InputRow, UnreadableFile, parse_line, read_rows
from tests.helpers.bad_inputs import LINE_CASES, WHOLE_FILE_CASES, corpus_file


def test_every_bad_line_is_one_error_row_naming_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    names, _ = corpus_file(path)
    rows = list(read_rows(path))
    assert len(rows) == len(names)
    assert [r.where for r in rows] == [f"{path} line {n}" for n in range(1, len(names) + 1)]
    by_name = dict(zip(names, rows))
    assert rows[0].error is None and rows[-1].error is None  # BOM on line 1, CRLF on the last line
    for name in ("latin-1 byte", "nested 100,000 deep", "integer over 4,300 digits", "truncated line",
                 "blank line"):
        row = by_name[name]
        assert row.value is None and row.error.startswith(f"{row.where}: ") and row.text is not None
    assert "byte 0xe9" in by_name["latin-1 byte"].error and "caf\\xe9" in by_name["latin-1 byte"].text
    assert by_name["lone surrogate escape"].value["response"].startswith("\ud800")
    assert by_name["raw CR inside a string"].value["response"] == "x\ry #### 3"


def test_a_truncated_line_is_reported_at_its_real_column():
    row = parse_line(b'{"a": 1, "b": ', "f line 3")
    assert row.error == "f line 3: invalid JSON (Expecting value at column 15)"
    assert "starting at column 7)" in parse_line(b'{"a": "xyz', "f line 1").error  # "Unterminated string starting at"


@pytest.mark.parametrize("name", sorted(WHOLE_FILE_CASES))
def test_a_file_that_cannot_be_read_is_one_error(tmp_path, name):
    path = tmp_path / "x.jsonl"
    path.write_bytes(WHOLE_FILE_CASES[name])
    with pytest.raises(UnreadableFile, match=f"^{path}: "):
        read_rows(path)


def test_missing_file_and_folder_without_dumps(tmp_path):
    with pytest.raises(UnreadableFile, match="no such file"):
        read_rows(tmp_path / "nope.jsonl")
    with pytest.raises(UnreadableFile, match="folder without verl step dumps"):
        read_rows(tmp_path)


def test_gzip_is_found_by_its_bytes_not_its_name(tmp_path):
    path = tmp_path / "rows.jsonl"  # no .gz suffix
    path.write_bytes(gzip.compress(b'{"a": 1}\n{"a": 2}\n'))
    assert [r.value for r in read_rows(path)] == [{"a": 1}, {"a": 2}]


def test_gzip_cut_short_is_one_error_after_the_rows_before_it(tmp_path):
    import random

    rng = random.Random(0)  # incompressible keys, so 30 kB of gzip holds some lines but not all
    body = b"".join(json.dumps({"k": rng.randbytes(16).hex()}).encode() + b"\n" for _ in range(2000))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(body)[:30_000])
    rows = []
    with pytest.raises(UnreadableFile, match="cannot read past line"):
        for row in read_rows(path):
            rows.append(row)
    assert rows and all(r.error is None for r in rows[:-1])


def test_parquet_rows_count_from_zero(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "train.data"  # found by its magic bytes
    pq.write_table(pa.Table.from_pylist([{"a": i} for i in range(2500)]), path)
    rows = list(read_rows(path))
    assert len(rows) == 2500 and rows[0] == InputRow(f"{path} row 0", value={"a": 0})
    assert rows[-1].where.endswith("row 2499")


def test_folder_of_step_dumps_in_step_order_tagged_with_the_step(tmp_path):
    for step in (10, 2, 1):
        (tmp_path / f"{step}.jsonl").write_text(json.dumps({"output": f"s{step}"}) + "\n")
    (tmp_path / "notes.txt").write_text("not a dump")
    rows = list(read_rows(tmp_path))
    assert [(r.step, r.value["output"]) for r in rows] == [(1, "s1"), (2, "s2"), (10, "s10")]
    assert rows[2].where == f"{tmp_path / '10.jsonl'} line 1"


def test_standard_input(tmp_path):
    import io

    rows = list(read_rows("-", stdin=io.BufferedReader(io.BytesIO(b'{"a": 1}\nx\n'))))
    assert rows[0].value == {"a": 1} and rows[1].where == "<stdin> line 2" and rows[1].error


def test_streaming_memory_does_not_grow_with_the_file(tmp_path):
    path = tmp_path / "big.jsonl"
    line = json.dumps({"data_source": "openai/gsm8k", "response": "#### 3" * 10, "ground_truth": "3"})
    with open(path, "w") as out:
        for _ in range(200_000):
            out.write(line + "\n")
    tracemalloc.start()
    count = sum(1 for _ in read_rows(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 200_000 and peak < 2_000_000  # the file is ~22 MB


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), min_size=1, max_size=20))
def test_property_rows_out_equal_lines_in_whatever_the_bytes(tmp_path_factory, lines):
    path = tmp_path_factory.mktemp("p") / "x.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    try:
        rows = list(read_rows(path))
    except UnreadableFile as exc:  # only a file that looks binary or UTF-16 as a whole
        assert "\n" not in str(exc)
        return
    assert len(rows) == len(lines)
    for row in rows:
        assert (row.error is None) != (row.value is None and row.text is not None) or row.value is None


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(
    st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
    st.builds(lambda r, g: json.dumps({"data_source": "openai/gsm8k", "response": r, "ground_truth": g}).encode(),
              st.text(max_size=20), st.sampled_from(["3", "x", ""]))), min_size=1, max_size=30))
def test_property_score_gives_one_result_per_row_in_order(lines):
    from cli.score import score_rows

    rows = [parse_line(data, f"f line {n}") for n, data in enumerate(lines, start=1)]
    out = list(score_rows(rows, None, {}))
    assert [item.where for item, _, _ in out] == [r.where for r in rows]
    for item, _, result in out:
        assert result["verdict"] in {"correct", "wrong", "no_answer", "unparsable_pred", "unparsable_gold",
                                     "timeout", "error"}
        assert (item.error is None) or result["verdict"] == "error"


def test_no_arrow_thread_reads_a_python_file_object(tmp_path, monkeypatch):
    """Arrow reads a Python file object from its own I/O threads, which must take the GIL: one still
    doing so at interpreter exit aborted `rewards validate` after its work was done (exit 134,
    "terminate called without an active exception"). Every pyarrow reader gets Arrow's own file."""
    import builtins
    import threading

    from schemas.verl_row import make_row, read_table, write_parquet

    caller, foreign, real_open = threading.get_ident(), [], builtins.open

    class Watched(io.FileIO):
        def readinto(self, b):
            if threading.get_ident() != caller:
                foreign.append(self.name)
            return super().readinto(b)

        def read(self, size=-1):
            if threading.get_ident() != caller:
                foreign.append(self.name)
            return super().read(size)

    def watched_open(file, mode="r", *args, **kwargs):
        mine = mode == "rb" and str(tmp_path) in str(file)
        return Watched(file, "rb") if mine else real_open(file, mode, *args, **kwargs)

    rows = [make_row(data_source="openai/gsm8k", prompt=[{"role": "user", "content": f"q{i}"}],
                     ground_truth=str(i), extra_info={"split": "train", "index": i}) for i in range(50)]
    write_parquet(rows, tmp_path / "rows.parquet")
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setattr(builtins, "open", watched_open)
    assert len(list(read_rows(tmp_path / "rows.parquet"))) == 50
    assert read_table(tmp_path / "rows.parquet").num_rows == read_table(tmp_path / "rows.jsonl").num_rows == 50
    assert foreign == []
