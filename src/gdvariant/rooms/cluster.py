"""A local cluster for development: Redis, matchmakers and room processes, one command.

:func:`run_cluster` is ``gdvariant rooms dev``: it starts ``redis-server`` on a free
loopback port with its files in a temporary folder (or uses ``--redis URL``), then the room
processes and matchmakers as child processes (``python -m gdvariant rooms host`` and
``... matchmaker``, the very commands a process manager runs), prints where each serves, and
when ``stop`` is set (Ctrl-C, SIGTERM) stops them all: SIGTERM, ``grace`` seconds, then
SIGKILL, children first and Redis last, and removes the folder. A child that dies on its
own stops the cluster too (exit status 1), so a broken room class is seen at once.

With ``redis=None`` and ``no_redis`` a single process serves everything on the embedded
:class:`~gdvariant.rooms.MemoryDirectory` (one room process, one matchmaker).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ._directory import MemoryDirectory
from .serve import load_room_types, serve_host, serve_matchmaker

__all__ = ["ClusterError", "ClusterPlan", "run_cluster"]

#: Seconds a child or redis-server has to say it serves.
START_TIMEOUT = 30.0


class ClusterError(Exception):
    """The cluster could not start (no redis-server, a child that failed); the message says
    which and why."""


@dataclass(frozen=True)
class ClusterPlan:
    """What ``gdvariant rooms dev`` starts."""

    room_classes: tuple[str, ...]
    processes: int = 2
    matchmakers: int = 1
    port: int = 2567  # the first matchmaker's; the next ones take the ports after it
    bind: str = "127.0.0.1"
    redis: str | None = None  # a Redis of your own; None starts one
    namespace: str = "gdv"
    no_redis: bool = False  # one process, the embedded directory
    ttl: float = 10.0
    grace: float = 10.0  # seconds a child has after SIGTERM before SIGKILL

    def check(self) -> None:
        load_room_types(self.room_classes)  # fails here, not in every child
        if self.processes < 1 or self.matchmakers < 1:
            raise ValueError("a cluster needs at least one room process and one matchmaker")
        if self.no_redis and (self.processes > 1 or self.matchmakers > 1 or self.redis):
            raise ValueError("--no-redis serves one room process and one matchmaker in one process")


async def run_cluster(
    plan: ClusterPlan, stop: asyncio.Event, announce: Callable[[str], None] = print
) -> int:
    """Run ``plan`` until ``stop`` is set (0) or a child dies on its own (1)."""
    plan.check()
    if plan.no_redis:
        directory = MemoryDirectory(ttl=plan.ttl)
        room_types = load_room_types(plan.room_classes)
        await asyncio.gather(
            serve_host(directory, room_types, stop, announce=announce, bind=plan.bind),
            serve_matchmaker(directory, stop, bind=plan.bind, port=plan.port, announce=announce),
        )
        return 0
    async with contextlib.AsyncExitStack() as stack:
        url = plan.redis
        if url is None:
            url = await stack.enter_async_context(_redis_server(plan.bind))
        announce(f"redis {url}")
        children = _Children(plan.grace)
        stack.push_async_callback(children.stop)
        common = ["--redis", url, "--ttl", str(plan.ttl), "--namespace", plan.namespace]
        rooms = [arg for spec in plan.room_classes for arg in ("--room-class", spec)]
        for _ in range(plan.processes):
            await children.start(["host", *common, *rooms, "--bind", plan.bind], announce)
        for index in range(plan.matchmakers):
            port = 0 if plan.port == 0 else plan.port + index
            args = ["matchmaker", *common, "--bind", plan.bind, "--port", str(port)]
            await children.start(args, announce)
        announce("cluster ready (Ctrl-C stops it)")
        return await children.wait(stop)
    raise AssertionError("unreachable")  # pragma: no cover - the block returns


class _Children:
    """The cluster's child processes: started one by one, stopped together."""

    def __init__(self, grace: float) -> None:
        self.grace = grace
        self.procs: list[asyncio.subprocess.Process] = []

    async def start(self, args: Sequence[str], announce: Callable[[str], None]) -> None:
        """Start ``gdvariant rooms ARGS`` and pass on the line it prints once it serves."""
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "gdvariant",
            "rooms",
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
        )
        self.procs.append(proc)
        assert proc.stdout is not None
        try:
            async with asyncio.timeout(START_TIMEOUT):
                line = await proc.stdout.readline()
        except TimeoutError:
            line = b""
        if not line:
            raise ClusterError(f"`gdvariant rooms {args[0]}` did not start (its errors are above)")
        announce(line.decode(errors="replace").rstrip())

    async def wait(self, stop: asyncio.Event) -> int:
        """Until ``stop`` is set (0) or a child exits (1)."""
        waits = [asyncio.create_task(proc.wait()) for proc in self.procs]
        stopped = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait([stopped, *waits], return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        for task in waits:
            task.cancel()
        return 0 if stopped in done else 1

    async def stop(self) -> None:
        """SIGTERM to every child still running, then SIGKILL past the grace; reap all."""
        for proc in self.procs:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                async with asyncio.timeout(self.grace):
                    await proc.wait()
            except TimeoutError:
                proc.kill()
                await proc.wait()


def _free_port(host: str) -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


async def _pong(host: str, port: int) -> bool:
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        return False
    try:
        writer.write(b"PING\r\n")
        async with asyncio.timeout(1.0):
            return (await reader.readline()).startswith(b"+PONG")
    except (OSError, TimeoutError):
        return False
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def _redis_server(host: str) -> AsyncIterator[str]:
    """A redis-server of the cluster's own, its files in a temporary folder; its URL."""
    program = shutil.which("redis-server")
    if program is None:
        raise ClusterError(
            "redis-server is not on PATH: install it (apt-get install redis-server), "
            "give --redis URL, or run one process with --no-redis"
        )
    folder = Path(tempfile.mkdtemp(prefix="gdvariant-rooms-"))
    port = _free_port(host)
    args = [program, "--port", str(port), "--bind", host, "--dir", str(folder)]
    args += ["--save", "", "--appendonly", "no", "--logfile", str(folder / "redis.log")]
    # A session of its own: Ctrl-C in a terminal reaches the whole foreground group, and
    # Redis must outlive the room processes that leave it as they stop.
    proc = await asyncio.create_subprocess_exec(
        *args, stdin=asyncio.subprocess.DEVNULL, start_new_session=True
    )
    try:
        loop = asyncio.get_running_loop()
        end = loop.time() + START_TIMEOUT
        while not await _pong(host, port):
            if proc.returncode is not None or loop.time() > end:
                raise ClusterError(f"redis-server did not start (see {folder / 'redis.log'})")
            await asyncio.sleep(0.05)
        yield f"redis://{host}:{port}/0"
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                async with asyncio.timeout(10):
                    await proc.wait()
            except TimeoutError:
                proc.kill()
                await proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
