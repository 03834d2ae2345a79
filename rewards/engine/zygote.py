"""The zygote: a prepared, single-threaded interpreter that forks new workers on request.

A worker started from scratch needs ~2 s (and as much CPU) to import sympy and warm up; a worker
killed at its deadline would leave the pool a worker short for that long, and a burst of timeouts
would cost seconds of CPU in restarts. The zygote pays that once: it is a fresh
`python -m rewards.engine.zygote` (never a fork of the caller, which may hold threads, CUDA or
Ray state), imports and warms up, and then forks each worker in milliseconds. It never starts a
thread, so forking it is safe; each forked worker caps its own memory and runs calls exactly like
a worker started on its own.

Protocol on one Unix socket (length-prefixed pickles; a spawn request carries the worker's two
pipe ends as SCM_RIGHTS file descriptors):
  -> ("init", sys_path, preload, memory_mb)   <- ("ready", pid, loaded)
  -> ("spawn", preload) + 2 fds               <- ("spawned", pid)
  -> ("reap", pid)                            <- ("reaped", exit code or None)
Children are reaped only on request, so a worker's pid is never reused while the pool may still
kill it. The zygote exits when the socket closes (the pool shut down or its process died).
"""

from __future__ import annotations

import os
import pickle
import select
import socket
import struct
import sys

from .worker import die_with_parent, prepare, run_forked

_HEADER = struct.Struct("!I")


def send_message(sock: socket.socket, message: object, fds: list[int] | None = None) -> None:
    data = pickle.dumps(message)
    payload = _HEADER.pack(len(data)) + data
    if fds:
        socket.send_fds(sock, [payload], fds)
    else:
        sock.sendall(payload)


def recv_message(sock: socket.socket, max_fds: int = 0) -> tuple[object, list[int]]:
    """One message and any file descriptors sent with it; EOFError when the peer has gone."""
    if max_fds:
        head, fds, _, _ = socket.recv_fds(sock, _HEADER.size, max_fds)
    else:
        head, fds = sock.recv(_HEADER.size), []
    head += _recv_exact(sock, _HEADER.size - len(head)) if head else b""
    if not head:
        raise EOFError
    (size,) = _HEADER.unpack(head)
    return pickle.loads(_recv_exact(sock, size)), list(fds)


def _recv_exact(sock: socket.socket, size: int) -> bytes:
    chunks = []
    while size:
        chunk = sock.recv(size)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def serve(sock: socket.socket) -> None:
    (kind, sys_path, preload, memory_mb), _ = recv_message(sock)
    assert kind == "init", kind
    loaded = prepare(sys_path, preload)
    send_message(sock, ("ready", os.getpid(), loaded))
    parent = os.getppid()
    while True:
        # No threads here (forking must stay safe), so the parent is watched between requests.
        if not select.select([sock], [], [], 1.0)[0]:
            if os.getppid() != parent:
                return
            continue
        try:
            message, fds = recv_message(sock, max_fds=2)
        except (EOFError, OSError):
            return
        if message[0] == "spawn":
            missing = tuple(m for m in message[1] if m.partition(":")[0] not in loaded)
            if missing:  # modules first seen since start-up: import them once, here
                loaded += prepare(sys_path, missing)
            me = os.getpid()
            pid = os.fork()
            if pid == 0:  # the new worker
                sock.close()
                try:
                    run_forked(fds[0], fds[1], memory_mb, loaded, me)
                finally:
                    os._exit(0)
            for fd in fds:
                os.close(fd)
            send_message(sock, ("spawned", pid))
        elif message[0] == "reap":
            try:
                _, status = os.waitpid(message[1], 0)
                code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                code = None
            send_message(sock, ("reaped", code))


def main(argv: list[str]) -> None:
    die_with_parent(int(argv[1]))
    serve(socket.socket(fileno=int(argv[0])))


if __name__ == "__main__":
    main(sys.argv[1:])
