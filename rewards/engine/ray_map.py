"""Spread chunks of work over a Ray cluster, results back in input order, memory bounded.

For scoring very large rollout dumps on a cluster that already exists (verl ships with Ray). Each
chunk is one Ray task; at most `max_in_flight` chunks are out at once and results are taken in
submission order, so the caller streams input and output with a bounded number of chunks held
anywhere. Ray is imported only when this is used.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def connect(address: str | None = None) -> Any:
    """`ray.init` once: `address` None or "" starts or joins the default (RAY_ADDRESS or local)."""
    import ray

    if not ray.is_initialized():
        ray.init(address=address or None, ignore_reinit_error=True, log_to_driver=False,
                 include_dashboard=False)
    return ray


def ordered_map(chunks: Iterable[T], *, submit: Callable[[T], Any], fetch: Callable[[Any], R],
                max_in_flight: int) -> Iterator[R]:
    """Each chunk's result in input order, with at most `max_in_flight` submitted and unread.

    `submit`/`fetch` are the cluster's (Ray's `remote(...)` and `ray.get`); kept as parameters so
    the windowing logic is tested without a cluster.
    """
    if max_in_flight < 1:
        raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
    window: deque = deque()
    for chunk in chunks:
        window.append(submit(chunk))
        if len(window) >= max_in_flight:
            yield fetch(window.popleft())
    while window:
        yield fetch(window.popleft())


def ray_ordered_map(fn: Callable[..., R], chunks: Iterable[T], *, args: tuple = (),
                    address: str | None = None, max_in_flight: int | None = None,
                    env: Mapping[str, str] | None = None) -> Iterator[R]:
    """`ordered_map` on a Ray cluster: `fn(chunk, *args)` (top-level, importable on every node)
    runs as one task per chunk; `args` are shipped once; `env` is set in the task processes."""
    ray = connect(address)
    options: dict[str, Any] = {"num_cpus": 1, "max_retries": 2}
    if env:
        options["runtime_env"] = {"env_vars": dict(env)}
    remote = ray.remote(fn).options(**options)
    shared = [ray.put(a) for a in args]
    if max_in_flight is None:
        max_in_flight = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    return ordered_map(chunks, submit=lambda chunk: remote.remote(chunk, *shared), fetch=ray.get,
                       max_in_flight=max_in_flight)
