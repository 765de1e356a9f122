"""A ``redis-server`` of a test's own: started on a free loopback port with its files in a
folder the test owns, stopped afterwards. Without the program the tests that need it skip
with a reason, and fail when ``GDVARIANT_REQUIRE_REDIS=1`` or ``GDVARIANT_REQUIRE_ENGINES=1``
is set (``.ci/run`` installs Debian's redis-server and sets both), as the engine tests do."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support import processes

#: How to get the program, said in the skip reason.
INSTALL_HINT = "install it with `apt-get install -y redis-server` (.ci/run does)"
#: Seconds a server has to answer its first PING.
START_TIMEOUT = 30.0


def redis_required() -> bool:
    """Whether a missing redis-server fails the run instead of skipping its tests."""
    return any(
        os.environ.get(name, "") not in ("", "0")
        for name in ("GDVARIANT_REQUIRE_REDIS", "GDVARIANT_REQUIRE_ENGINES")
    )


def find_redis() -> tuple[str | None, str]:
    """The redis-server program, or None and why it is missing."""
    path = shutil.which("redis-server")
    if path is None:
        return None, f"redis-server is not on PATH; {INSTALL_HINT}"
    return path, ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisProcess:
    """A redis-server the test may kill and start again on the same port and folder (no
    snapshots, no append-only file: it comes back empty, the harder case)."""

    def __init__(self, program: str, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.program = program
        self.folder = folder
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> str:
        """Start it (on its port again if it ran before, else on a free one); its URL. A
        port taken between choosing and binding is retried with another."""
        for _ in range(5):
            port = self.port or _free_port()
            log = self.folder / f"redis-{port}.log"
            args = [self.program, "--port", str(port), "--bind", "127.0.0.1"]
            args += ["--dir", str(self.folder), "--save", "", "--appendonly", "no"]
            args += ["--logfile", str(log)]
            proc = processes.watch(
                subprocess.Popen(args, stdin=subprocess.DEVNULL, cwd=self.folder)
            )
            deadline = time.monotonic() + START_TIMEOUT
            while proc.poll() is None and time.monotonic() < deadline and not _answers(port):
                time.sleep(0.02)
            if proc.poll() is None and _answers(port):
                self.port, self.proc = port, proc
                return self.url
            proc.kill()
            proc.wait()
            if self.port:  # its own port again, still held: wait a little and retry
                time.sleep(0.5)
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"redis-server did not start:\n{tail}")

    def kill(self) -> None:
        """SIGKILL it and reap it."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None


@contextmanager
def redis_server(program: str, folder: Path) -> Iterator[str]:
    """Run ``program`` with its files in ``folder`` (no snapshots, no append-only file);
    yield its ``redis://`` URL; stop it after."""
    server = RedisProcess(program, folder)
    try:
        yield server.start()
    finally:
        server.stop()
