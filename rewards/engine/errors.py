"""What `call_bounded` raises instead of a value: each names why the call produced nothing."""

from __future__ import annotations


class EngineError(RuntimeError):
    """Base class: the bounded call did not return a value."""


class WorkerTimeout(EngineError):
    """The check ran past its budget on the worker running it (that worker was killed), or,
    `queued`, its budget was spent before it could start (the enclosing scope's deadline had
    passed when the check was asked for; nothing was run)."""

    def __init__(self, timeout: float, fn_name: str = "", queued: bool = False):
        self.timeout = timeout
        self.fn_name = fn_name
        self.queued = queued
        where = f" {fn_name}" if fn_name else ""
        if queued:
            super().__init__(f"the call's {timeout:g} s deadline had passed before its check could start")
        else:
            super().__init__(f"call{where} ran past its {timeout:g} s budget; the worker was killed")


class WorkerCrashed(EngineError):
    """The worker died or ran out of memory (its memory cap) before answering."""

    def __init__(self, message: str, exitcode: int | None = None):
        self.exitcode = exitcode
        super().__init__(message)


class WorkerError(EngineError):
    """The function raised inside the worker; `type_name` and `message` are the original's."""

    def __init__(self, type_name: str, message: str, remote_traceback: str = ""):
        self.type_name = type_name
        self.message = message
        self.remote_traceback = remote_traceback
        super().__init__(f"{type_name}: {message}")
