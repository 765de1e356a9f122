"""What the rooms tests share: the directory maker's type, and waiting for what must happen
within a TTL without timing it (poll with a generous deadline)."""

from __future__ import annotations

import asyncio
import json
import sys
from asyncio.subprocess import Process
from collections.abc import Awaitable, Callable
from typing import Any

from gdvariant.rooms import Directory
from tests.support import processes
from tests.support.paths import ROOT

#: A short lease for the tests, in seconds: long enough for a loaded machine's heartbeat.
TEST_TTL = 3.0
#: A generous deadline for what must happen "within the TTL" on a loaded machine (seconds).
DEADLINE = 30.0

#: ``make(ttl=TEST_TTL)``: a directory on the test's store (see tests/rooms/conftest.py).
DirectoryMaker = Callable[..., Directory]


async def eventually(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll ``check`` until it holds, failing only past :data:`DEADLINE`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while not await check():
        if loop.time() > end:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.05)


async def http(
    port: int, method: str, target: str, body: bytes | None = None, *, raw: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request to 127.0.0.1:``port`` on a connection of its own (``Connection: close``);
    the status, the headers (lower-case names) and the body. ``raw`` sends those bytes as
    they are instead."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if raw is None:
        head = f"{method} {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        raw = head.encode() + b"\r\n" + (body or b"")
    writer.write(raw)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), DEADLINE)
    writer.close()
    head_bytes, _, content = answer.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, content


async def start_rooms(*args: str, env: dict[str, str] | None = None, **options: Any) -> Process:
    """``python -m gdvariant rooms ARGS`` started from the repository's root (so room classes
    in ``tests.support`` import), its stdout a pipe; ``options`` go to the process's start."""
    return processes.watch(
        await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "gdvariant", "rooms", *args],
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            **options,
        )
    )


async def spawn_rooms(*args: str, env: dict[str, str] | None = None) -> tuple[Process, str]:
    """:func:`start_rooms`, once it has printed the line it prints once it serves."""
    proc = await start_rooms(*args, env=env)
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), DEADLINE)
    assert line, f"`gdvariant rooms {' '.join(args)}` did not start"
    return proc, line.decode().strip()


async def stop_process(proc: Process) -> None:
    """SIGKILL ``proc`` if it still runs, and reap it."""
    if proc.returncode is None:
        proc.kill()
    await proc.wait()


async def try_http(
    port: int, method: str, target: str, body: bytes | None = None
) -> tuple[int, dict[str, Any]] | OSError:
    """One request as :func:`http` sends it: (status, JSON body), or the connection error a
    client sees when the server dies before answering (an early EOF is one)."""
    try:
        status, _, content = await http(port, method, target, body)
    except TimeoutError:  # an OSError too: told apart, as a hang is what must not happen
        raise AssertionError(f"{method} {target}: neither answer nor error (a hang)") from None
    except (OSError, IndexError, ValueError) as exc:
        return exc if isinstance(exc, OSError) else ConnectionError(f"no answer: {exc!r}")
    return status, json.loads(content)


class Player:
    """A Python SceneMultiplayer client in a room, admitted with a seat token: ``admitted``
    once the room let it in, ``closed`` once its connection ended."""

    def __init__(self) -> None:
        self.admitted = asyncio.Event()
        self.endpoint: Any = None

    @classmethod
    async def join(cls, address: str, token: str) -> Player:
        """Connect to ``address`` (``ws://``) and send ``token`` as the AUTH data; OSError
        if nothing listens there."""
        from gdvariant.multiplayer import websocket

        player = cls()
        player.endpoint = websocket.MultiplayerClient(
            auth_callback=lambda data: None,
            on_peer_connected=lambda peer: player.admitted.set(),
        )
        await player.endpoint.connect(address)
        player.endpoint.send_auth(token.encode())
        player.endpoint.complete_auth()
        return player

    @property
    def closed(self) -> bool:
        reader = self.endpoint._reader
        return reader is None or reader.done()

    async def wait_closed(self) -> None:
        await asyncio.wait_for(self.endpoint.wait_closed(), DEADLINE)

    async def close(self) -> None:
        await self.endpoint.close()
