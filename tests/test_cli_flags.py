"""One spelling of each flag across subcommands, older spellings kept, and errors in one line with
the subcommand's own usage."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli.main import build_parser, main


@pytest.mark.parametrize("command", ["score", "prepare", "validate", "probe", "report"])
def test_unknown_flag_prints_the_subcommands_usage(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "x", "-o", "y", "--no-such-flag"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: rewards {command} ") and "unrecognized arguments:" in err and "--no-such-flag" in err


@pytest.mark.parametrize("command, typo, meant", [("score", "--timout", "--timeout"),
                                                   ("report", "--data-sorce", "--data-source"),
                                                   ("validate", "--max-promt-length=4", "--max-prompt-length")])
def test_a_misspelt_flag_gets_did_you_mean(command, typo, meant, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "x", typo])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(
        f"unrecognized arguments: {typo} (did you mean {meant}?)")


def test_input_is_positional_and_output_is_dash_o_everywhere():
    sub = next(a for a in build_parser()._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    for name in ("score", "prepare", "validate", "probe", "report"):
        parser = sub.choices[name]
        positional = [a for a in parser._actions if not a.option_strings]
        assert positional, f"{name} takes its input positionally"
        outputs = [a for a in parser._actions if "--output" in a.option_strings]
        if name in ("score", "prepare", "report"):
            assert outputs and "-o" in outputs[0].option_strings, name
    prepare = sub.choices["prepare"]
    assert prepare.parse_args(["src", "--out", "d"]).out == prepare.parse_args(["src", "-o", "d"]).out == "d"


def test_probe_file_positional_and_the_older_flag_agree(tmp_path, capsys):
    path = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pylist([{"data_source": "openai/gsm8k",
                                          "prompt": [{"role": "user", "content": "q"}],
                                          "reward_model": {"style": "rule", "ground_truth": "3"}}]), path)
    args = ["--attacks", "empty", "--json", "-q"]
    def summary():
        (board,) = json.loads(capsys.readouterr().out)["scoreboards"]
        return board["golds"], [(a["attack"], a["samples"], a["mean_reward"]) for a in board["attacks"]]

    assert main(["probe", str(path), *args]) == 0
    positional = summary()
    assert main(["probe", "--file", str(path), *args]) == 0
    assert summary() == positional and positional[0] == 1
    assert main(["probe", str(path), "--file", str(tmp_path / "other.parquet"), *args]) == 2
    assert "two files given" in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly(monkeypatch, capsys):
    """`rewards list --json | head -1`: the reader leaves early; no traceback, status 141 (SIGPIPE)."""
    import os
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    with os.fdopen(write_end, "w") as closed:
        monkeypatch.setattr(sys, "stdout", closed)
        status = main(["list", "--json"])
        monkeypatch.undo()
    assert status == 141
    assert "Traceback" not in capsys.readouterr().err
