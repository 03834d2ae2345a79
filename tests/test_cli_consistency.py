"""One behaviour across commands (issue 27 item 8, issue 28's smaller items): an empty input is exit 1
everywhere, errors name flags, a family name is a source, an offline hub fails in seconds with the hint,
`prepare` stages its files under unguessable names."""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from pathlib import Path

import pytest

from cli.main import main


@pytest.mark.parametrize("command", [["score"], ["report", "-o", "{dir}/r.html"], ["validate"], ["probe"],
                                     ["prepare", "-o", "{dir}/out"]])
def test_an_empty_file_is_exit_1_in_every_command(tmp_path, capsys, command):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    args = [command[0], str(empty), *(a.format(dir=tmp_path) for a in command[1:]), "-q"]
    assert main(args) == 1
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("command", [["score", "{file}"], ["report", "{file}", "-o", "{dir}/r.html"], ["probe"]])
def test_setting_errors_name_the_flag_not_the_keyword(tmp_path, capsys, command):
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"data_source": "openai/gsm8k", "response": "#### 1", "ground_truth": "1"}) + "\n")
    args = [a.format(file=rows, dir=tmp_path) for a in command]
    assert main([*args, "-q", "--format-weight", "0.9"]) == 2
    err = capsys.readouterr().err
    assert "--format-weight must be in [0, 0.5]" in err and "format_weight" not in err


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_hub_check_answers_in_seconds_and_trusts_hf_hub_offline(monkeypatch):
    from rewards.hub import hub_unreachable

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    monkeypatch.delenv("https_proxy", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    started = time.monotonic()
    assert "cannot reach 127.0.0.1" in hub_unreachable()
    assert time.monotonic() - started < 5
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert hub_unreachable() is None


def test_prepare_takes_a_family_name_and_an_offline_hub_fails_fast_with_the_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    monkeypatch.delenv("https_proxy", raising=False)
    started = time.monotonic()
    assert main(["prepare", "gsm8k", "-o", str(tmp_path / "x"), "-q"]) == 2
    err = capsys.readouterr().err
    assert time.monotonic() - started < 15
    assert "'openai/gsm8k'" in err and "HF_HUB_OFFLINE=1" in err  # the family's hub id, not "no such file"


def test_a_tokenizer_hub_id_offline_fails_fast_with_the_hint(monkeypatch):
    pytest.importorskip("transformers")
    import transformers  # noqa: F401  (imported before the clock starts: the import alone takes seconds)

    from rewards.tokenizer import TokenizerError, load_tokenizer

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.delenv("HTTPS_PROXY", raising=False)
    monkeypatch.delenv("https_proxy", raising=False)
    started = time.monotonic()
    with pytest.raises(TokenizerError, match="HF_HUB_OFFLINE=1"):
        load_tokenizer("nobody-here/no-such-tokenizer")
    assert time.monotonic() - started < 20


def test_prepare_stages_under_unguessable_names_and_writes_ordinary_files(tmp_path, capsys):
    source = tmp_path / "gsm.jsonl"
    source.write_text("".join(json.dumps({"question": f"q{i}?", "answer": f"so #### {i}"}) + "\n" for i in range(6)))
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    for name in ("train.parquet", "test.parquet", "manifest.json"):
        for pid in range(os.getpid() - 2, os.getpid() + 3):
            (out / f".{name}.{pid}.tmp").symlink_to(victim)
    old = os.umask(0o022)
    try:
        assert main(["prepare", str(source), "-o", str(out), "--family", "gsm8k", "--test-size", "2", "-q"]) == 0
    finally:
        os.umask(old)
    assert victim.read_text() == "keep me"
    for name in ("train.parquet", "test.parquet", "manifest.json"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o644, name
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp") and not p.is_symlink()]


def test_report_names_nan_and_infinite_rewards_and_no_nan_group_is_zero_variance(tmp_path, capsys):
    rows = [(1.0, "g1"), (float("nan"), "g1"), (float("nan"), "g2"), (float("inf"), "g2"), (0.0, "g3"), (0.0, "g3")]
    path = tmp_path / "scored.jsonl"
    path.write_text("".join(json.dumps({"data_source": "openai/gsm8k", "response": "#### 1", "ground_truth": "1",
                                        "score": s, "verdict": "wrong", "uid": g}) + "\n" for s, g in rows))
    assert main(["report", str(path), "-o", str(tmp_path / "r.html"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "zero-variance groups 1/3 (2 with a NaN or infinite reward" in out
    assert "rewards not finite (counted as 0): 2 NaN, 1 inf" in out
    assert "NaN or infinite reward" in (tmp_path / "r.html").read_text()


def test_report_and_validate_take_a_file_name_that_is_not_utf8(tmp_path, capsys):
    name = os.fsdecode(b"bad\xffname.jsonl")
    path = tmp_path / name
    path.write_text(json.dumps({"data_source": "$x^2$ \\$", "response": "#### 1", "ground_truth": "1"}) + "\n")
    assert main(["report", str(path), "-o", str(tmp_path / "r.html"), "-q"]) == 0
    assert "$x^2$" in capsys.readouterr().out
    assert main(["score", str(path), "-q", "-o", str(tmp_path / "out.jsonl")]) == 1  # no such scorer, no crash
    code = main(["validate", str(path), "-q"])
    err = capsys.readouterr()
    assert code in (0, 1) and "encode" not in err.out + err.err and "Traceback" not in err.err


def test_rescoring_a_scored_file_keeps_the_original_reward(tmp_path, capsys):
    first = tmp_path / "dump.jsonl"
    first.write_text(json.dumps({"data_source": "openai/gsm8k", "response": "#### 2", "ground_truth": "2",
                                 "score": 0.25}) + "\n")
    assert main(["score", str(first), "-o", str(tmp_path / "once.jsonl"), "-q"]) == 0
    assert main(["score", str(tmp_path / "once.jsonl"), "-o", str(tmp_path / "twice.jsonl"), "-q"]) == 0
    row = json.loads((tmp_path / "twice.jsonl").read_text())
    assert row["prev_score"] == 0.25 and row["score"] == 1.0
