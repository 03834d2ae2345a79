"""docs/custom-scorers.md, run: its package is written out as the page shows it, made visible to
`importlib.metadata` as `pip install` would (a dist-info folder with the entry point), and reached in
fresh processes by `rewards list`, `rewards probe`, `rewards prepare`/`validate` and
`rewards.verl.compute_score`; `--import MODULE` works from the module's own folder on every command
that scores."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib

import pytest

from cli.main import main
from rewards.registry import _entries, _lock
from tests.conftest import ROOT
from tests.helpers.verl_rows import untimed

PAGE = ROOT / "docs" / "custom-scorers.md"
BLOCK = re.compile(r"<!-- (file|run): (\S+) -->\n```\w*\n(.*?)```", re.S)
NAME = "team/arith"


def blocks(kind: str) -> dict[str, str]:
    return {m.group(2): m.group(3) for m in BLOCK.finditer(PAGE.read_text()) if m.group(1) == kind}


def commands(name: str) -> list[list[str]]:
    """The page's `rewards ...` lines of one run block (continuations joined, comments dropped)."""
    text = blocks("run")[name].replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in text.splitlines() if line.startswith("rewards ")]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The page's package, with the dist-info `pip install` writes: METADATA and entry_points.txt."""
    root = tmp_path_factory.mktemp("team")
    for path, text in blocks("file").items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    package = root / "team-rewards"
    project = tomllib.loads((package / "pyproject.toml").read_text())["project"]
    return install(package, project["name"], project["version"], project["entry-points"])


def install(package, name: str, version: str, groups: dict[str, dict[str, str]]):
    """A dist-info folder beside the package's modules, as `pip install` writes it."""
    info = package / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for group, eps in groups.items()))
    return package


def run(args: list[str], package, cwd) -> subprocess.CompletedProcess:
    """A fresh process with the package installed (on its path), as a Ray worker would have it."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(package)])}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_page_names_a_ten_line_package_with_the_entry_point():
    files = blocks("file")
    assert set(files) == {"team-rewards/pyproject.toml", "team-rewards/team_rewards/__init__.py"}
    code = [line for line in files["team-rewards/team_rewards/__init__.py"].splitlines() if line.strip()]
    assert len(code) <= 16
    assert tomllib.loads(files["team-rewards/pyproject.toml"])["project"]["entry-points"] == {
        "verl_rewards.scorers": {"team_arith": "team_rewards:arith"}}


def test_setuptools_takes_the_page_s_project_without_a_warning(caplog):
    """setuptools checks pyproject.toml when it builds, and warns for an entry point named outside
    `[\\w.-]+` (`"team/arith"`): the page's name is one it recommends."""
    from setuptools.config._validate_pyproject import validate

    project = tomllib.loads(blocks("file")["team-rewards/pyproject.toml"])
    with caplog.at_level("WARNING"):
        assert validate(project)
    assert caplog.text == ""


def test_list_and_probe_see_the_installed_entry_point(installed, tmp_path):
    listed, probed = commands("list")
    out = run(["-m", "cli.main", *listed[1:]], installed, tmp_path)
    assert out.returncode == 0 and re.search(rf"^{re.escape(NAME)}\s+Team arithmetic", out.stdout, re.M), out
    assert "team_arith" not in out.stdout  # the entry point's name only makes the module load
    out = run(["-m", "cli.main", *probed[1:]], installed, tmp_path)
    assert out.returncode == 0 and "FAIL" not in out.stdout, out.stdout + out.stderr


def test_verl_entry_point_reaches_the_scorer(installed, tmp_path):
    """What verl's reward worker runs, in a process that never imported the team's module."""
    documented = re.search(r"`rewards\.verl\.compute_score\((.*?)\)` is then.*?: `(\{.*?\})`",
                           PAGE.read_text(), re.S)
    call = f"import json; from rewards.verl import compute_score; print(json.dumps(compute_score({documented.group(1)})))"
    out = run(["-c", call], installed, tmp_path)
    assert out.returncode == 0, out.stderr
    got, shown = json.loads(out.stdout), ast.literal_eval(" ".join(documented.group(2).split()))
    assert list(got) == list(shown) and untimed(got) == untimed(shown)  # `reward_ms` is a time: it varies
    wrong = run(["-c", call.replace('"42")', '"41")')], installed, tmp_path)
    assert json.loads(wrong.stdout)["verdict"] == "wrong"


def test_prepare_and_validate_with_the_scorers_answer_format(installed, tmp_path):
    rows = [{"question": f"What is {i} times 6?", "answer": str(6 * i)} for i in range(1, 9)]
    (tmp_path / "my_problems.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    prepare, validate = commands("launch")
    assert run(["-m", "cli.main", *prepare[1:]], installed, tmp_path).returncode == 0
    out = run(["-m", "cli.main", *validate[1:]], installed, tmp_path)
    assert out.returncode == 0 and out.stdout.count("gold self-check: 4 correct") == 2, out.stdout


@pytest.fixture
def in_its_folder(installed, monkeypatch):
    """The module's own folder as the current one, and nothing that would find it otherwise (the
    `rewards` script does not put the current folder on sys.path)."""
    monkeypatch.chdir(installed)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(installed))])

    def fresh():
        sys.modules.pop("team_rewards", None)
        with _lock:
            _entries.pop(NAME, None)

    fresh()
    yield fresh
    fresh()


def test_import_works_from_the_modules_folder_on_every_command(in_its_folder, tmp_path, capsys):
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text(json.dumps({"data_source": NAME, "response": "6 * 7 = 42\n#### 42", "ground_truth": "42"}) + "\n")
    scored = tmp_path / "scored.jsonl"
    assert main(["score", str(rollouts), "--import", "team_rewards", "-o", str(scored)]) == 0
    assert json.loads(scored.read_text())["verdict"] == "correct"
    in_its_folder()
    assert main(["report", str(scored), "--import", "team_rewards", "--rescore", "-o", str(tmp_path / "r.html")]) == 0
    in_its_folder()
    from schemas.verl_row import make_row, write_parquet

    write_parquet([make_row(data_source=NAME, prompt=[{"role": "user", "content": "6 * 7?"}], ground_truth="42",
                            extra_info={"split": "train", "index": 0})], tmp_path / "train.parquet")
    assert main(["validate", str(tmp_path / "train.parquet"), "--import", "team_rewards", "-q"]) == 0
    assert "1 correct" in capsys.readouterr().out
    in_its_folder()
    assert main(["probe", "--import", "team_rewards", "--data-source", NAME, "--sample", "gsm8k", "-q"]) == 0
    in_its_folder()
    assert main(["list", "--import", "team_rewards"]) == 0 and NAME in capsys.readouterr().out
    assert main(["score", str(rollouts), "--import", "team_rewards.py"]) == 2
    assert "give the module's name, not its file" in capsys.readouterr().err


def test_entry_points_named_as_before_keep_working(tmp_path):
    """An entry point named as the data_source its decorated scorer registers (the page's earlier
    form) adds nothing to it; one whose function registers nothing itself names its data_source,
    and two entry points may give one such function two names."""
    package = tmp_path / "old-team"
    (package / "team_rewards").mkdir(parents=True)
    (package / "team_rewards" / "__init__.py").write_text(blocks("file")["team-rewards/team_rewards/__init__.py"])
    (package / "team_plain.py").write_text(
        "from rewards import Result, Verdict\n\n\n"
        "def plain(response, ground_truth, extra_info, settings):\n"
        '    """Plain: the whole response, exactly the gold."""\n'
        "    return Result(Verdict.CORRECT if response == ground_truth else Verdict.WRONG, response)\n")
    install(package, "old-team", "0.1.0", {"verl_rewards.scorers": {
        NAME: "team_rewards:arith", "team_plain": "team_plain:plain", "team.plain2": "team_plain:plain"}})
    call = ("import json; from rewards import compute_score; from rewards.registry import list_scorers; "
            "print(json.dumps([[e.name, e.answer_format] for e in list_scorers() if 'team' in e.name])); "
            "print(json.dumps([compute_score(n, '42', '42')['verdict'] for n in ('team_plain', 'team.plain2')]))")
    out = run(["-c", call], package, tmp_path)
    assert out.returncode == 0, out.stderr
    listed, verdicts = map(json.loads, out.stdout.splitlines())
    assert listed == [["team.plain2", "boxed"], [NAME, "gsm8k"], ["team_plain", "boxed"]]
    assert verdicts == ["correct", "correct"]


def test_a_scorer_with_an_answer_format_of_its_own(tmp_path, capsys):
    """A team's `<answer>yes</answer>` scorer says how a gold is written as a response (its golds are
    self-checked that way), or says nothing (its golds are counted unchecked, with a note): validate
    and train's data check pass, and every other check still runs."""
    from omegaconf import OmegaConf

    from cli.launch.data import check_data
    from rewards import Result, Verdict, register_scorer
    from schemas.verl_row import make_row, write_parquet

    def tagged(response, ground_truth, extra_info, settings):
        found = re.search(r"<answer>(.*?)</answer>", response)
        if found is None:
            return Result(Verdict.NO_ANSWER)
        return Result(Verdict.CORRECT if found.group(1).strip() == ground_truth else Verdict.WRONG, found.group(1))

    register_scorer("test-tags/said", scorer=tagged, answer_format=None, override=True,
                    gold_response=lambda gold: f"<answer>{gold}</answer>")
    register_scorer("test-tags/unsaid", scorer=tagged, answer_format=None, override=True)
    rows = [make_row(data_source=source, prompt=[{"role": "user", "content": f"Is {i} even?"}],
                     ground_truth=gold, extra_info={"split": "train", "index": i})
            for i, (source, gold) in enumerate([("test-tags/said", "yes"), ("test-tags/said", "no"),
                                                ("test-tags/unsaid", "yes"), ("test-tags/unsaid", "yes")])]
    rows.append({**rows[2], "extra_info": {"split": "train", "index": 4}})  # a duplicate prompt: still found
    write_parquet(rows, tmp_path / "train.parquet")
    assert main(["validate", str(tmp_path / "train.parquet"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "gold self-check: 2 correct, 3 unchecked" in out
    assert "(3 test-tags/unsaid gold(s) not self-checked: its scorer reads a format of its own" in out
    assert "row 4: prompt: duplicate of row 2" in out
    _, findings = check_data({"train": str(tmp_path / "train.parquet")},
                             OmegaConf.create({"data": {"max_prompt_length": 512, "train_batch_size": 2}}), None)
    assert [f.level for f in findings if f.check.startswith("data-gold")] == ["note"]
    assert not [f for f in findings if f.level == "error"]
    with pytest.raises(ValueError, match="or None for a format of the scorer's own"):
        register_scorer("test-tags/typo", scorer=tagged, answer_format="tags")
