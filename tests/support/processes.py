"""Every process a test starts ends with the pytest that started it, however pytest ends.

A time limit ends pytest with ``os._exit`` (pytest-timeout, faulthandler): no fixture's
clean-up runs, and the engines, redis-servers and servers the tests started would run on,
holding CPU and ports. So each test starts its processes through :func:`watch` (or
:func:`run`), which hands a pidfd of the new process to a guard: a small process of its own
session, started once per pytest, that holds the other end of a socket. When pytest ends, the
socket closes; the guard then stops each watched process still running and everything under
it (a Godot behind its chroot launcher, a cluster's own redis-server in a session of its own),
and kills them all. Only processes pytest started and their descendants are touched: each is
signalled through a pidfd taken while it was known to be one of them, so a reused process id
cannot redirect a signal. Normal runs are unchanged: the tests still stop what they start, and
the guard finds nothing left. Where pidfds are missing (not Linux) :func:`watch` does nothing.

Run as a script (``python -I -S processes.py``, the socket as stdin) this module is the guard.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import selectors
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypeVar, overload

#: Whether this system has what the guard needs (Linux 5.3 and later).
SUPPORTED = hasattr(os, "pidfd_open") and sys.platform == "linux"


class _Started(Protocol):
    @property
    def pid(self) -> int: ...


P = TypeVar("P", bound=_Started)

_lock = threading.Lock()
_guard: socket.socket | None = None


def _start_guard() -> socket.socket:
    """A new guard, its socket as its stdin, in a session of its own (so that a signal to
    pytest's process group, Ctrl-C or a CI runner's, does not end it before it does its work);
    our end of the socket."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with theirs:
        os.posix_spawn(
            sys.executable,
            [sys.executable, "-I", "-S", __file__],
            os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, theirs.fileno(), 0), (os.POSIX_SPAWN_CLOSE, 1)],
            setsid=True,
        )
    return ours


def _close_guard() -> None:
    """Close our end of the guard's socket as this pytest exits (the guard then does its
    work, as it would when the process ended), rather than leave it to the interpreter's
    teardown, which warns of an unclosed socket."""
    global _guard
    with _lock:
        if _guard is not None:
            _guard.close()
            _guard = None


atexit.register(_close_guard)


def watch(process: P) -> P:
    """``process`` (a ``subprocess.Popen`` or an asyncio ``Process`` just started), watched:
    it and all it starts are killed when this pytest ends, should they outlive it."""
    if not SUPPORTED:
        return process
    global _guard
    try:
        pidfd = os.pidfd_open(process.pid)
    except ProcessLookupError:  # it has ended and been reaped already
        return process
    try:
        with _lock:
            for attempt in (1, 2):
                if _guard is None:
                    _guard = _start_guard()
                try:
                    socket.send_fds(_guard, [str(process.pid).encode()], [pidfd])
                    break
                except OSError:  # the guard has gone: a new one
                    _guard.close()
                    _guard = None
                    if attempt == 2:
                        raise
    finally:
        os.close(pidfd)
    return process


@overload
def run(
    args: Sequence[str],
    *,
    text: Literal[True],
    timeout: float | None = None,
    check: bool = False,
    capture_output: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[str]: ...


@overload
def run(
    args: Sequence[str],
    *,
    text: Literal[False] = False,
    timeout: float | None = None,
    check: bool = False,
    capture_output: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[bytes]: ...


def run(
    args: Sequence[str],
    *,
    text: bool = False,
    timeout: float | None = None,
    check: bool = False,
    capture_output: bool = False,
    **options: Any,
) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` with the process watched (see :func:`watch`): ``options`` go to
    ``subprocess.Popen``; past ``timeout`` it is killed and ``TimeoutExpired`` raised."""
    if capture_output:
        options["stdout"] = options["stderr"] = subprocess.PIPE
    with watch(subprocess.Popen(args, text=text, **options)) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except BaseException:
            process.kill()
            raise
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    if check:
        done.check_returncode()
    return done


# The guard's side.


def _parent(pid: int | str) -> int:
    """The parent of process ``pid`` (read from /proc), or 0 once it has ended."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except OSError:
        return 0


def _parents() -> dict[int, int]:
    """Each running process's parent."""
    found = {
        int(entry.name): _parent(entry.name)
        for entry in os.scandir("/proc")
        if entry.name.isdigit()
    }
    return {pid: parent for pid, parent in found.items() if parent}


def _ended(pidfd: int) -> bool:
    """Whether the process of ``pidfd`` has ended (its pidfd is then readable)."""
    return bool(select.select([pidfd], [], [], 0)[0])


def _signal(pidfd: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(pidfd, signum)


def _end(roots: dict[int, int]) -> None:
    """Kill the processes of ``roots`` (pid -> pidfd) and every process under them: each is
    stopped first, so that none starts another (or is orphaned to init) while the tree is
    read, then all are killed together."""
    held = {pid: pidfd for pid, pidfd in roots.items() if not _ended(pidfd)}
    for pidfd in held.values():
        _signal(pidfd, signal.SIGSTOP)
    while True:
        parents = _parents()
        new = [pid for pid, parent in parents.items() if parent in held and pid not in held]
        if not new:
            break
        for pid in new:
            try:
                pidfd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            if _parent(pid) in held:  # still the process found under one of ours
                _signal(pidfd, signal.SIGSTOP)
                held[pid] = pidfd
            else:
                os.close(pidfd)
    for pidfd in held.values():
        _signal(pidfd, signal.SIGKILL)


def guard(channel: socket.socket) -> None:
    """Hold the pidfds that arrive on ``channel``, dropping each once its process ends; when
    the channel closes (pytest has ended), end every process still held and all under it."""
    held: dict[int, int] = {}  # pidfd -> pid
    with selectors.DefaultSelector() as selector:
        selector.register(channel, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                if key.fileobj is channel:
                    data, fds, _, _ = socket.recv_fds(channel, 64, 1)
                    if not data:
                        _end({pid: pidfd for pidfd, pid in held.items()})
                        return
                    for pidfd in fds:
                        held[pidfd] = int(data)
                        selector.register(pidfd, selectors.EVENT_READ)
                else:  # a pidfd is readable once its process has ended
                    pidfd = int(key.fd)
                    selector.unregister(pidfd)
                    os.close(pidfd)
                    del held[pidfd]


if __name__ == "__main__":
    guard(socket.socket(fileno=0))
