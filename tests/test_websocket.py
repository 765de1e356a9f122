"""The WebSocket adapter (``gdvariant.websocket``, on the ``websockets`` package)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

import pytest
from godot_describe import canon
from random_values import random_value

import gdvariant as gd

if TYPE_CHECKING:
    from gdvariant.websocket import VariantWebSocket

websocket = pytest.importorskip("gdvariant.websocket", reason="the websockets extra is missing")


async def echo(peer: VariantWebSocket) -> None:
    async for value in peer:
        await peer.put_var(value)


def run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 60))


async def _server(**options: Any) -> tuple[Any, str]:
    srv = await websocket.serve(echo, "127.0.0.1", 0, **options)
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
