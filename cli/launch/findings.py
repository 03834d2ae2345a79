"""What the plan found: each finding is one actionable sentence with a level."""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING, NOTE = "error", "warning", "note"


@dataclass(frozen=True)
class Finding:
    level: str          # error (blocks the launch), warning (launches, worth reading), note
    message: str        # one sentence that says what is wrong and what to change
    check: str = ""     # short name of the check (tp-heads, batch-divides, memory, data, ...)

    def __str__(self) -> str:
        return f"{self.level}: {self.message}"


def error(check: str, message: str) -> Finding:
    return Finding(ERROR, message, check)


def warning(check: str, message: str) -> Finding:
    return Finding(WARNING, message, check)


def note(check: str, message: str) -> Finding:
    return Finding(NOTE, message, check)
