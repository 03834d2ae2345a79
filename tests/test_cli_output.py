"""One output path for every command (cli/output.py): what `-o` does with each kind of target, and what a
full disk, a SIGTERM or a misleading extension leaves behind. Issue 28 items 1, 5 and 27.8."""

from __future__ import annotations

import gzip
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cli.main import main
from tests.helpers.cli_run import ROOT, one_line_error, rewards

ROW = {"data_source": "openai/gsm8k", "response": "so #### 7", "ground_truth": "7"}


def rows_file(path: Path, n: int = 5) -> Path:
    path.write_text("".join(json.dumps(ROW) + "\n" for _ in range(n)), encoding="utf-8")
    return path


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def device(folder: Path, name: str, minor: int) -> Path:
    """A private copy of /dev/null (minor 3) or /dev/full (minor 7), so that a failing run replaces
    this node, never the machine's own."""
    node = folder / name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc})")
    return node


def test_a_device_node_is_written_in_place_and_keeps_its_kind(tmp_path, capsys):
    """As root, `-o /dev/null` replaced the machine's /dev/null with a regular 0644 file."""
    null = device(tmp_path, "null", 3)
    before = os.stat(null)
    assert main(["score", str(rows_file(tmp_path / "in.jsonl")), "-o", str(null), "-q"]) == 0
    after = os.stat(null)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino
    assert stat.S_IMODE(after.st_mode) == stat.S_IMODE(before.st_mode)
    assert leftovers(tmp_path) == []


def test_a_fifo_with_a_reader_receives_every_row_and_stays_a_fifo(tmp_path, capsys):
    fifo = tmp_path / "rows.fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.extend(open(fifo, encoding="utf-8").read().splitlines()))
    reader.start()
    assert main(["score", str(rows_file(tmp_path / "in.jsonl", 7)), "-o", str(fifo), "-q"]) == 0
    reader.join(30)
    assert len(got) == 7 and all(json.loads(line)["verdict"] == "correct" for line in got)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


def test_a_symlink_to_proc_self_fd_1_streams_to_stdout_and_stays_a_link(tmp_path):
    link = tmp_path / "out"
    link.symlink_to("/proc/self/fd/1")
    done = rewards("score", rows_file(tmp_path / "in.jsonl", 4), "-o", link, "-q", "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines() if '"ground_truth"' in line]
    assert len(rows) == 4
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert leftovers(tmp_path) == []


def test_process_substitution_and_dev_stdout_are_written_directly(tmp_path):
    out = tmp_path / "x.gz"
    done = subprocess.run(["bash", "-c", f'"{sys.executable}" -m cli.main score "$1" -q -o >(gzip > "$2") >/dev/null; '
                           'status=$?; wait; exit $status', "_", str(rows_file(tmp_path / "in.jsonl", 3)), str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    for _ in range(50):  # the substituted gzip may still be finishing
        if out.exists() and out.stat().st_size:
            break
        time.sleep(0.1)
    assert len(gzip.decompress(out.read_bytes()).splitlines()) == 3
    link = tmp_path / "stdout"  # a link to /dev/stdout (never the machine's own, should a run replace it)
    link.symlink_to("/dev/stdout")
    done = rewards("score", tmp_path / "in.jsonl", "-o", link, "-q")
    assert done.returncode == 0 and sum('"verdict"' in line for line in done.stdout.splitlines()) == 3
    assert link.is_symlink()


def test_a_symlink_to_a_file_keeps_the_link_and_replaces_its_target(tmp_path, capsys):
    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    real.chmod(0o600)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert main(["score", str(rows_file(tmp_path / "in.jsonl", 2)), "-o", str(link), "-q"]) == 0
    assert link.is_symlink() and len(real.read_text().splitlines()) == 2
    assert stat.S_IMODE(real.stat().st_mode) == 0o600


def test_an_existing_file_keeps_its_mode_and_a_new_one_gets_the_umask(tmp_path, capsys):
    private = tmp_path / "private.jsonl"
    private.write_text("")
    private.chmod(0o600)
    source = str(rows_file(tmp_path / "in.jsonl", 2))
    assert main(["score", source, "-o", str(private), "-q"]) == 0
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    old = os.umask(0o027)
    try:
        assert main(["score", source, "-o", str(tmp_path / "new.jsonl"), "-q"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o640


def test_gz_is_gzip_parquet_is_parquet_and_other_formats_are_refused(tmp_path, capsys):
    """`score -o` writes what the name says, the same rows and columns in each format (a verl user's
    data is parquet); a name that says another format is refused."""
    import pyarrow.parquet as pq

    from schemas.reader import read_rows

    rows = [{**ROW, "meta": "x"}, {**ROW, "response": "no answer"}, "not an object",
            {**ROW, "extra_info": {"index": 3}, "meta": {"a": 1}}]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{broken\n")
    written = {}
    for name in ("out.jsonl", "out.jsonl.gz", "out.parquet"):
        assert main(["score", str(source), "-o", str(tmp_path / name), "-q"]) == 0
        written[name] = [r.value for r in read_rows(tmp_path / name)]
    assert len(gzip.decompress((tmp_path / "out.jsonl.gz").read_bytes()).splitlines()) == 5
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.num_rows == 5 and set(table.column_names) == {k for r in written["out.jsonl"] for k in r}
    assert written["out.jsonl.gz"] == written["out.jsonl"]
    keys = ("data_source", "score", "verdict", "extra_info")
    assert [{k: r.get(k) for k in keys} for r in written["out.parquet"]] == \
        [{k: r.get(k) for k in keys} for r in written["out.jsonl"]]
    assert written["out.parquet"][2]["input"] == written["out.jsonl"][2]["input"] == "not an object"
    assert [r["meta"] for r in written["out.parquet"]] == ['"x"', None, None, '{"a": 1}', None]  # mixed: JSON
    for name in ("out.parquet.gz", "out.csv", "out.jsonl.zst", "page.html"):
        capsys.readouterr()
        assert main(["score", str(source), "-o", str(tmp_path / name), "-q"]) == 2
        assert "writes JSON lines" in capsys.readouterr().err or name.endswith(".parquet.gz")
        assert not (tmp_path / name).exists()
    assert main(["report", str(source), "-o", str(tmp_path / "r.jsonl"), "-q"]) == 2
    assert "writes an HTML page" in capsys.readouterr().err
    assert leftovers(tmp_path) == []


def _file_size_limit(limit: int):
    def preexec():  # a disk that fills after `limit` bytes: writes past it fail with EFBIG, not a signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


@pytest.mark.parametrize("command", ["score", "report"])
def test_a_full_disk_is_one_line_exit_2_and_leaves_the_old_file(tmp_path, command):
    source = rows_file(tmp_path / "in.jsonl", 2000)
    out = tmp_path / ("out.jsonl" if command == "score" else "out.html")
    out.write_text("the previous output\n")
    done = rewards(command, source, "-o", out, "-q", preexec=_file_size_limit(10_000))
    assert "cannot write" in one_line_error(done)
    assert out.read_text() == "the previous output\n"
    assert leftovers(tmp_path) == []


def test_a_full_device_is_one_line_exit_2(tmp_path):
    done = rewards("score", rows_file(tmp_path / "in.jsonl", 50), "-o", device(tmp_path, "full", 7), "-q")
    assert "No space left on device" in one_line_error(done)
    assert stat.S_ISCHR(os.stat(tmp_path / "full").st_mode)


def test_sigterm_leaves_no_temporary_file_and_the_old_output(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("the previous output\n")
    out.chmod(0o600)
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "score", "-", "-o", str(out), "-q"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    proc.stdin.write(json.dumps(ROW) + "\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while not leftovers(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers(tmp_path), "the temporary output never appeared"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err and "terminated" in err
    assert leftovers(tmp_path) == []
    assert out.read_text() == "the previous output\n" and stat.S_IMODE(out.stat().st_mode) == 0o600


def test_a_planted_symlink_at_a_temporary_name_is_never_followed(tmp_path, capsys):
    """The temporary name is unpredictable and created exclusively: names an attacker could guess
    (the old `.NAME.<pid>.tmp`) point nowhere useful."""
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    for pid in range(os.getpid() - 2, os.getpid() + 3):
        (tmp_path / f".out.jsonl.{pid}.tmp").symlink_to(victim)
    assert main(["score", str(rows_file(tmp_path / "in.jsonl", 2)), "-o", str(tmp_path / "out.jsonl"), "-q"]) == 0
    assert victim.read_text() == "keep me"


def test_printed_text_carries_no_control_characters(tmp_path):
    """An escape sequence in a data_source or an error reached the terminal raw."""
    evil = "\x1b]0;owned\x07\x1b[2J\u202e"
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({**ROW, "data_source": "openai/gsm8k" + evil}) + "\n" + json.dumps(ROW) + "\n")
    done = rewards("score", path, "-q")
    for text in (done.stdout, done.stderr):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "openai/gsm8k]0;owned[2J" in done.stdout + done.stderr
    done = rewards("score", path, "-q", "-o", "-")  # data on stdout is written as it is (JSON escapes it)
    assert json.loads(done.stdout.splitlines()[0])["data_source"].endswith(evil)


def test_a_symlink_loop_is_one_line_exit_2(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    source = rows_file(tmp_path / "in.jsonl", 2)
    for target in (loop, loop / "out.jsonl"):
        done = rewards("score", source, "-o", target, "-q")
        assert "loop of symbolic links" in one_line_error(done)


def test_a_sigkilled_run_leaves_a_temporary_that_the_next_run_removes(tmp_path):
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "score", "-", "-o", str(out), "-q"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    proc.stdin.write(json.dumps(ROW) + "\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while not leftovers(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert leftovers(tmp_path), "the temporary output never appeared"
    proc.kill()
    proc.communicate(timeout=60)
    assert leftovers(tmp_path)  # nothing of a SIGKILLed run can clean up
    assert main(["score", str(rows_file(tmp_path / "in.jsonl", 2)), "-o", str(out), "-q"]) == 0
    assert leftovers(tmp_path) == []


def test_parquet_is_written_in_row_groups_with_one_type_per_column(tmp_path, monkeypatch):
    """Rows go out a group at a time (flat memory); a column whose groups disagree (text, then a
    mapping) is JSON text in every row, integers and floats together are floats."""
    import pyarrow.parquet as pq

    from cli import output

    monkeypatch.setattr(output, "ROW_GROUP", 2)
    rows = [{**ROW, "meta": "x", "n": 1}, {**ROW, "n": 2}, {**ROW, "meta": {"a": 1}, "n": 2.5},
            {**ROW, "n": None}, {**ROW, "later": True}]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["score", str(source), "-o", str(tmp_path / "out.parquet"), "-q"]) == 0
    table = pq.ParquetFile(tmp_path / "out.parquet")
    assert table.metadata.num_row_groups == 3 and table.metadata.num_rows == 5
    got = table.read().to_pylist()
    assert [r["meta"] for r in got] == ['"x"', None, '{"a": 1}', None, None]
    assert [r["n"] for r in got] == [1.0, 2.0, 2.5, None, None]
    assert [r["later"] for r in got] == [None, None, None, None, True]
    assert [r["verdict"] for r in got] == ["correct"] * 5
