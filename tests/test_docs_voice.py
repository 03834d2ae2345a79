"""The docs are a manual and a reference of dated measurements: no page speaks of how the project is
worked on (its sessions, rounds, helpers or issue numbers). A measurement says when, where and what;
the guide says what to run."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]

WORKED_ON = re.compile(r"""
      \bsessions?\b
    | (?<![/\w.-])helpers?\b(?![/.])                  # tests/helpers/ is a folder, not a person
    | \bissue\s*\#?\s*\d+
    | \b(?:this|that|the|an\s+earlier)\s+(?:[\w/-]+\s+){0,5}?round\b(?!-|\s+(?:of|trip)\b)   # a round of work
    | \bwe\s+tried\b
    | \blab\s+notebook\b
    | \b(?:first|second|third|fourth|fifth|last|previous|earlier|next)\s+(?:session|turn|round)s?\b
""", re.I | re.X)


def words_about_the_work(text: str) -> list[str]:
    return [f"line {n}: {m.group(0)!r}" for n, line in enumerate(text.splitlines(), 1)
            for m in WORKED_ON.finditer(line)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_speaks_of_how_the_project_is_worked_on(page):
    assert words_about_the_work(page.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("text", ["the third session's smokes", "Sessions ran side by side", "a helper found it",
                                  "see issue #46", "issue 12", "after the verdicts-under-attack round",
                                  "this round", "at the end of the units / plain-text / engine round", "we tried vLLM", "the last turn's runs"])
def test_the_check_catches_words_about_the_work(text):
    assert words_about_the_work(text)


@pytest.mark.parametrize("text", ["tests/helpers/profiles.py", "in round-robin order", "a round trip to Ray",
                                  "bf16 rounding", "a number it does not round to", "every 8th round",
                                  "32 rounds", "the issue is the tokenizer", "a user turn", "the rehearsal kit"])
def test_the_check_leaves_ordinary_words_alone(text):
    assert words_about_the_work(text) == []
