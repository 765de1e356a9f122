"""The WebSocket adapter (``gdvariant.websocket``, on the ``websockets`` package)."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pytest

import gdvariant as gd
from tests.support import hostile
from tests.support.godot_describe import canon
from tests.support.random_values import random_value

if TYPE_CHECKING:
    from gdvariant.websocket import VariantWebSocket

websocket = pytest.importorskip("gdvariant.websocket", reason="the websockets extra is missing")


async def echo(peer: VariantWebSocket) -> None:
    async for value in peer:
        await peer.put_var(value)


def run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 60))


async def _server(
    handler: Callable[[VariantWebSocket], Awaitable[None]] = echo, **options: Any
) -> tuple[Any, str]:
    srv = await websocket.serve(handler, "127.0.0.1", 0, **options)
    port = next(iter(srv.sockets)).getsockname()[1]
    return srv, f"ws://127.0.0.1:{port}"


def test_each_binary_message_is_one_value() -> None:
    rng = random.Random(11)
    values = [random_value(rng, 0, "4") for _ in range(200)]

    async def main() -> None:
        srv, uri = await _server()
        async with await websocket.connect(uri) as peer:
            for value in values:
                await peer.put_var(value)
                assert canon(await peer.get_var()) == canon(value)
            raw = peer.connection
            await raw.send(gd.dumps([1, 2]))  # what Godot's WebSocketPeer.put_var sends
            assert await raw.recv() == gd.dumps([1, 2])
        srv.close()
        await srv.wait_closed()

    run(main())


@pytest.mark.parametrize(
    ("message", "reason"),
    [("text", "a text message"), (b"\xff\0\0\0", "unknown type id 255")],
)
def test_a_bad_message_closes_that_connection_with_1007(
    message: str | bytes, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> None:
        srv, uri = await _server()
        good = await websocket.connect(uri)
        bad = await websocket.connect(uri)
        await bad.connection.send(message)
        with pytest.raises(gd.ConnectionClosed):
            await bad.get_var()
        assert bad.connection.close_code == 1007
        await good.put_var("still here")
        assert await good.get_var() == "still here"
        await good.close()
        srv.close()
        await srv.wait_closed()

    with caplog.at_level(logging.WARNING, logger="gdvariant.websocket"):
        run(main())
    warnings = [r.getMessage() for r in caplog.records if r.name == "gdvariant.websocket"]
    assert len(warnings) == 1
    assert reason in warnings[0]


def test_messages_over_max_frame_size_are_refused() -> None:
    async def main() -> None:
        srv, uri = await _server(max_frame_size=1024)
        async with await websocket.connect(uri) as peer:
            await peer.connection.send(gd.dumps(b"\0" * 2000))
            with pytest.raises(gd.ConnectionClosed):
                await peer.get_var()
            assert peer.connection.close_code == 1009  # message too big
        srv.close()
        await srv.wait_closed()

    run(main())


def test_stream_framing_is_refused() -> None:
    async def main() -> None:
        with pytest.raises(ValueError, match="one value per packet"):
            await websocket.serve(echo, "127.0.0.1", 0, framing="PacketPeerStream")

    run(main())


@pytest.mark.slow
def test_a_client_that_never_reads_is_held_to_max_unsent_then_cut(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client sends pings from a socket that reads nothing: websockets answers each with a
    pong, which used to pile up in the server's write buffer without end. Reading from it
    stops past half of max_unsent, what waits stays within the limit, another client's
    round trips go on, and after stall_timeout the silent client is cut with one line."""
    limit = 1 << 20
    peers: list[VariantWebSocket] = []

    async def keep_and_echo(peer: VariantWebSocket) -> None:
        peers.append(peer)
        await echo(peer)

    pings = hostile.client_frame(hostile.PING, b"p" * 125) * 16  # 2 KB of pings, 40,000 times

    async def main() -> None:
        srv, uri = await _server(handler=keep_and_echo, max_unsent=limit, stall_timeout=1.0)
        port = next(iter(srv.sockets)).getsockname()[1]
        good = await websocket.connect(uri)
        round_trip = hostile.echo_round_trip(good)
        await round_trip("hello")
        sock = await hostile.raw_websocket(port)
        await hostile.flood_beside(
            sock,
            pings,
            round_trip,
            limit=limit,
            backlog_peak=lambda: peers[1]._outbox.backlog.peak,
        )
        sock.close()
        await good.close()
        srv.close()
        await srv.wait_closed()

    with caplog.at_level(logging.WARNING, logger="gdvariant.websocket"):
        run(main())
    hostile.closed_once_for_stalling(caplog.records, "closing the WebSocket")


@pytest.mark.slow
def test_a_flood_of_bad_connections_logs_a_few_short_lines_a_second_and_counts_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """1,000 WebSockets from one host, each sending one bad message (a Dictionary with a
    1 KB key and a value of no known type): each is closed and logged or counted, in a few
    lines a second."""
    good = gd.dumps({"n" * 1000: 1})
    at = good.index(b"\x02\0\0\0\x01\0\0\0", 8)
    bad = hostile.client_frame(hostile.BINARY, good[:at] + b"\xff" + good[at + 1 :])
    count = 1000

    async def main() -> float:
        srv, _ = await _server()
        port = next(iter(srv.sockets)).getsockname()[1]
        loop = asyncio.get_running_loop()
        start = time.monotonic()
        for _ in range(count):
            sock = await hostile.raw_websocket(port)
            await loop.sock_sendall(sock, bad)
            sock.close()
        async with asyncio.timeout(20):
            while hostile.reported(caplog.records, "gdvariant.websocket", ["closing"]) < count:
                await asyncio.sleep(0.01)
        elapsed = time.monotonic() - start
        srv.close()
        await srv.wait_closed()
        return elapsed

    with caplog.at_level(logging.WARNING, logger="gdvariant.websocket"):
        elapsed = asyncio.run(main())
    assert hostile.reported(caplog.records, "gdvariant.websocket", ["closing"]) == count
    records = [r for r in caplog.records if r.name == "gdvariant.websocket"]
    hostile.check_log_volume(records, elapsed, loggers=1)
    assert "more from 127.0.0.1 in the last second" in caplog.text
