"""Hostile clients for the server tests: raw sockets that send requests and never read the
replies (a tiny receive buffer, reading stopped after the handshake), the flood a server must
hold within its limit while other clients are served, and the memory and log checks that go
with them (the asyncio, websockets and SceneMultiplayer servers' tests share them)."""

from __future__ import annotations

import asyncio
import base64
import logging
import math
import os
import re
import socket
import tracemalloc
from collections.abc import Awaitable, Callable, Iterable, Sequence
from types import TracebackType
from typing import Any

#: A receive buffer a peer that reads nothing fills at once (Linux doubles it, to 4,608).
TINY_RCVBUF = 2304


def tiny_socket() -> socket.socket:
    """A non-blocking TCP socket whose receive buffer is as small as Linux allows."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, TINY_RCVBUF)
    sock.setblocking(False)
    return sock


async def read_exactly(sock: socket.socket, size: int) -> bytes:
    """``size`` bytes, read one call at a time, never more than asked."""
    loop = asyncio.get_running_loop()
    data = b""
    while len(data) < size:
        chunk = await loop.sock_recv(sock, size - len(data))
        if not chunk:
            raise ConnectionError("closed during the handshake")
        data += chunk
    return data


async def raw_websocket(port: int, first_message: int = 0) -> socket.socket:
    """A WebSocket client on a bare socket: the opening handshake, then ``first_message``
    bytes of the first server message (a SceneMultiplayer peer id: 6), then nothing read."""
    loop = asyncio.get_running_loop()
    sock = tiny_socket()
    await loop.sock_connect(sock, ("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    await loop.sock_sendall(sock, request.encode())
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += await read_exactly(sock, 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    await read_exactly(sock, first_message)
    return sock


def client_frame(opcode: int, payload: bytes) -> bytes:
    """A client's WebSocket frame (FIN set, masked with a zero key: the payload as is)."""
    size = len(payload)
    if size < 126:
        head = bytes([0x80 | opcode, 0x80 | size])
    elif size < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + size.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + size.to_bytes(8, "big")
    return head + bytes(4) + payload


PING = 0x9
BINARY = 0x2


async def flood(sock: socket.socket, chunk: bytes, times: int) -> int:
    """Send ``chunk`` ``times`` times or until the server cuts the connection; how many went.
    A server that stops reading makes this wait once the kernel's buffers are full."""
    loop = asyncio.get_running_loop()
    sent = 0
    try:
        for _ in range(times):
            await loop.sock_sendall(sock, chunk)
            sent += 1
    except OSError:
        pass
    return sent


async def flood_beside(
    sock: socket.socket,
    chunk: bytes,
    round_trip: Callable[[Any], Awaitable[None]],
    *,
    limit: int,
    backlog_peak: Callable[[], int],
    times: int = 40_000,
) -> None:
    """A client that never reads floods the server from ``sock`` (``chunk``, ``times`` times)
    while a good client makes 20 round trips: the server must cut the flood (within 20 s)
    before it is all sent, keep this process's allocations under 4 x ``limit`` (its
    ``max_unsent``), hold the stalled peer's outbox past half of ``limit`` but not over it
    (``backlog_peak()``, read after), and still serve the good client after."""
    with PeakGrowth() as memory:
        attack = asyncio.create_task(flood(sock, chunk, times))
        for i in range(20):
            await round_trip(i)
        async with asyncio.timeout(20):
            sent = await attack
    assert memory.peak < 4 * limit, (memory.peak, sent)
    assert sent < times  # it was stopped
    assert limit // 2 < backlog_peak() <= limit
    await round_trip("after")


def echo_round_trip(client: Any) -> Callable[[Any], Awaitable[None]]:
    """A round trip through an echo server for a client with ``put_var``/``get_var``."""

    async def round_trip(value: Any) -> None:
        await client.put_var(value)
        assert await client.get_var() == value

    return round_trip


def closed_once_for_stalling(records: Iterable[logging.LogRecord], marker: str) -> None:
    """The server logged the stalled client's end in one line (the one holding ``marker``),
    saying how long its bytes waited."""
    closing = [r.getMessage() for r in records if marker in r.getMessage()]
    assert len(closing) == 1 and "bytes unsent for 1 s" in closing[0], closing


def rss() -> int:
    """This process's resident memory in bytes (Linux)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakGrowth:
    """How far Python's allocations rose above where they were at the start (tracemalloc)."""

    def __init__(self) -> None:
        self.peak = 0

    def __enter__(self) -> PeakGrowth:
        tracemalloc.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


SUMMARY = re.compile(r"\.\.\. and (\d+) more from (.+) in the last second")


def reported(records: Iterable[logging.LogRecord], logger: str, markers: Sequence[str]) -> int:
    """What ``logger``'s lines account for: those naming one of ``markers``, plus the counts
    its "... and N more" lines report."""
    total = 0
    for record in records:
        if record.name != logger:
            continue
        message = record.getMessage()
        summary = SUMMARY.fullmatch(message)
        if summary is not None:
            total += int(summary[1])
        elif any(marker in message for marker in markers):
            total += 1
    return total


def check_log_volume(
    records: Sequence[logging.LogRecord], seconds: float, loggers: int, peers: int = 1
) -> None:
    """At most 3 lines a second per peer (and 1 count line) on each of ``loggers`` rate-limited
    loggers, over ``seconds`` (rounded up, plus the second that was under way), and no line
    with more than 100 characters of one client's data."""
    windows = math.ceil(seconds) + 1
    assert len(records) <= loggers * peers * (3 + 1) * windows, (len(records), seconds)
    for record in records:
        message = record.getMessage()
        assert len(message) <= 400, message
        assert not re.search(r"(.)\1{100}", message), message
