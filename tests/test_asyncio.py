"""The asyncio adapters (``gdvariant.asyncio``): TCP streams and UDP datagrams on loopback."""

from __future__ import annotations

import asyncio
import logging
import random
import struct
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

import gdvariant as gd
from gdvariant.asyncio import DatagramPeer, Server, VariantStream, connect, open_datagram, serve
from tests.support import hostile
from tests.support.godot_describe import canon
from tests.support.random_values import random_value

Handler = Callable[[VariantStream], Awaitable[None]]


async def echo(peer: VariantStream) -> None:
    async for value in peer:
        await peer.put_var(value)


@asynccontextmanager
async def server(handler: Handler = echo, **options: Any) -> AsyncIterator[int]:
    srv = await serve(handler, "127.0.0.1", 0, **options)
    try:
        yield srv.sockets[0].getsockname()[1]
    finally:
        srv.close()
        await srv.wait_closed()


def run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 60))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"version": "3"},
        {"framing": "PacketPeerStream"},
        {"big_endian": True, "version": "pandemonium"},
    ],
)
def test_values_go_both_ways_in_order(options: dict[str, Any]) -> None:
    rng = random.Random(4)
    version = options.get("version", "4")
    values = [random_value(rng, 0, version) for _ in range(300)]

    async def main() -> None:
        async with server(**options) as port, await connect("127.0.0.1", port, **options) as peer:
            for value in values:  # one at a time
                await peer.put_var(value)
                assert canon(await peer.get_var()) == canon(value)
            for value in values:  # all queued, then all read back
                await peer.put_var(value)
            got = [await peer.get_var() for _ in values]
            assert [canon(v) for v in got] == [canon(v) for v in values]

    run(main())


def test_async_iteration_ends_when_the_peer_closes() -> None:
    async def sender(peer: VariantStream) -> None:
        for i in range(5):
            await peer.put_var(i)

    async def main() -> None:
        async with server(sender) as port:
            peer = await connect("127.0.0.1", port)
            assert [v async for v in peer] == [0, 1, 2, 3, 4]
            with pytest.raises(gd.ConnectionClosed):
                await peer.get_var()
            await peer.close()

    run(main())


async def _raw(port: int, data: bytes) -> bytes:
    """Send ``data`` on a plain socket and return what comes back before the server closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    got = await reader.read()  # b"" once the server has closed the connection
    writer.close()
    return got


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (struct.pack("<i", 12) + b"\xff" * 12, "bad frame: unknown type"),
        (struct.pack("<i", 0x7FFFFFFF), "frame length 2147483647 is outside 1..8388608"),
        (struct.pack("<i", -5), "frame length -5"),
        (gd.frame(gd.GodotObject("Node", {}), full_objects=True), "ERR_UNAUTHORIZED"),
        (gd.frame("abc")[:-2], "ended inside a frame"),
    ],
)
def test_a_bad_client_is_disconnected_with_a_logged_reason_and_others_carry_on(
    data: bytes, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def main() -> None:
        async with server() as port, await connect("127.0.0.1", port) as good:
            await good.put_var("before")
            assert await good.get_var() == "before"
            if reason == "ended inside a frame":
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(data)
                writer.write_eof()  # half-close: the server sees the end inside the frame
                assert await reader.read() == b""
                writer.close()
            else:
                assert await _raw(port, data) == b""
            await good.put_var("after")
            assert await good.get_var() == "after"

    with caplog.at_level(logging.WARNING, logger="gdvariant.asyncio"):
        run(main())
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "closing the connection from ('127.0.0.1'," in warnings[0]
    assert reason in warnings[0]


def test_objects_are_accepted_only_when_allowed() -> None:
    obj = gd.GodotObject("Resource", {"resource_name": "x"})

    async def main() -> None:
        options: dict[str, Any] = {"allow_objects": True, "full_objects": True}
        async with server(**options) as port, await connect("127.0.0.1", port, **options) as peer:
            await peer.put_var(obj)
            assert await peer.get_var() == obj

    run(main())


@pytest.mark.slow
def test_put_var_waits_while_the_peer_is_not_reading() -> None:
    stop = asyncio.Event()

    async def deaf(peer: VariantStream) -> None:
        await stop.wait()

    async def main() -> None:
        limit = 1 << 20
        async with server(deaf) as port, await connect("127.0.0.1", port, max_unsent=limit) as peer:
            chunk = b"\0" * (1 << 18)

            async def flood() -> None:
                for _ in range(800):  # 200 MiB: far more than the socket buffers hold
                    await peer.put_var(chunk)

            task = asyncio.create_task(flood())
            done, _ = await asyncio.wait([task], timeout=1.0)
            stop.set()
            assert not done  # blocked in drain(), not buffering 200 MiB in memory
            # put_var waits past half of max_unsent: at most one frame more is written.
            assert limit // 2 < peer.unsent <= limit // 2 + len(chunk) + 8
            task.cancel()

    run(main())


def test_the_handler_s_own_failure_is_logged_and_the_server_carries_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def picky(peer: VariantStream) -> None:
        value = await peer.get_var()
        if value == "boom":
            raise RuntimeError("handler bug")
        await peer.put_var(value)

    async def main() -> None:
        async with server(picky) as port:
            async with await connect("127.0.0.1", port) as peer:
                await peer.put_var("boom")
                with pytest.raises(gd.ConnectionClosed):
                    await peer.get_var()
            async with await connect("127.0.0.1", port) as peer:
                await peer.put_var("fine")
                assert await peer.get_var() == "fine"

    with caplog.at_level(logging.ERROR, logger="gdvariant.asyncio"):
        run(main())
    assert any("handler failed" in r.getMessage() and r.exc_info for r in caplog.records)


async def _mid_call_server(where: str, seen: list[str]) -> tuple[Server, int, asyncio.Event]:
    """A server whose handler, once a peer connects, sits in ``get_var`` (the peer sends
    nothing) or in ``put_var`` (it floods a peer that does not read); ``seen`` gets how the
    handler's wait ended."""
    busy = asyncio.Event()

    async def handler(peer: VariantStream) -> None:
        try:
            busy.set()
            if where == "get_var":
                await peer.get_var()
            else:
                while True:
                    await peer.put_var(b"\0" * (1 << 20))
        except BaseException as exc:
            seen.append(type(exc).__name__)
            raise

    srv = await serve(handler, "127.0.0.1", 0)
    return srv, srv.sockets[0].getsockname()[1], busy


async def _until_blocked(srv: Server, where: str) -> None:
    """Wait until the flooding handler is held in ``drain()`` (its write buffer is over the
    high-water mark)."""
    if where == "put_var":
        (peer,) = srv._peers.values()
        while peer._writer.transport.get_write_buffer_size() <= 64 * 1024:
            await asyncio.sleep(0.01)


def _asyncio_complaints(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "asyncio" and r.levelno >= logging.WARNING
    ]


@pytest.mark.parametrize("where", ["get_var", "put_var"])
def test_closing_a_server_closes_its_peers_and_waits_for_the_handlers(
    where: str, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[str] = []

    async def main() -> None:
        srv, port, busy = await _mid_call_server(where, seen)
        client = await connect("127.0.0.1", port)
        await busy.wait()
        await _until_blocked(srv, where)
        srv.close()
        closing = asyncio.create_task(srv.wait_closed())
        # What the server queued before closing still arrives, then the end.
        got = [v async for v in client]
        assert got == [b"\0" * (1 << 20)] * len(got)
        assert (len(got) > 0) == (where == "put_var")
        await asyncio.wait_for(closing, 10)  # 3.12's own wait_closed hung here
        assert seen == ["ConnectionClosed"]
        assert srv.sockets == ()
        await client.close()

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        run(main())
    assert _asyncio_complaints(caplog) == []


def test_cancelling_serve_forever_closes_the_peers_too() -> None:
    seen: list[str] = []

    async def main() -> None:
        srv, port, busy = await _mid_call_server("get_var", seen)
        async with await connect("127.0.0.1", port) as client:
            await busy.wait()
            serving = asyncio.create_task(srv.serve_forever())
            await asyncio.sleep(0)
            serving.cancel()
            with pytest.raises(asyncio.CancelledError):
                await serving
            assert seen == ["ConnectionClosed"]  # the handler has returned
            assert not srv.is_serving()
            with pytest.raises(gd.ConnectionClosed):
                await client.get_var()

    run(main())


@pytest.mark.parametrize("where", ["get_var", "put_var"])
@pytest.mark.parametrize("close_first", [True, False], ids=["closed", "left-open"])
def test_a_loop_ending_with_connected_peers_is_quiet(
    where: str, close_first: bool, caplog: pytest.LogCaptureFixture
) -> None:
    # asyncio.run cancels the handlers still running; on 3.11 a handler cancelled in there
    # used to print "Exception in callback StreamReaderProtocol.connection_made ...
    # CancelledError" from asyncio's own done-callback.
    seen: list[str] = []
    clients: list[VariantStream] = []  # kept open past the loop's end

    async def main() -> None:
        srv, port, busy = await _mid_call_server(where, seen)
        clients.append(await connect("127.0.0.1", port))
        await busy.wait()
        await _until_blocked(srv, where)
        if close_first:
            srv.close()
        # ...and return, leaving the handler and both ends of the connection to asyncio.run.

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        asyncio.run(main())
    assert _asyncio_complaints(caplog) == []
    assert len(seen) == 1  # the handler was ended, by the close or by the loop's cancel
    assert seen[0] in ("CancelledError", "ConnectionClosed")


# ---------------------------------------------------------------- UDP


async def _udp_pair(**options: Any) -> tuple[DatagramPeer, DatagramPeer]:
    srv = await open_datagram(local_addr=("127.0.0.1", 0), **options)
    client = await open_datagram(remote_addr=srv.local_address, **options)
    return srv, client


def test_udp_carries_one_value_per_datagram() -> None:
    rng = random.Random(9)
    values = [random_value(rng, 0, "3") for _ in range(200)]

    async def main() -> None:
        srv, client = await _udp_pair(version="3")
        for value in values:  # lockstep: loopback UDP may drop a burst
            client.put_var(value)
            got, addr = await srv.get_var()
            assert canon(got) == canon(value)
            srv.put_var(got, addr)
            echoed, _ = await client.get_var()
            assert canon(echoed) == canon(value)
        srv.close()
        client.close()
        with pytest.raises(gd.ConnectionClosed):
            await srv.get_var()
        assert [item async for item in client] == []

    run(main())


def test_a_bad_datagram_is_dropped_logged_and_counted(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        srv, client = await _udp_pair(max_queue=2)
        assert client._transport is not None
        client._transport.sendto(b"\xff\0\0\0")
        client.put_var("ok")
        assert (await srv.get_var())[0] == "ok"
        assert srv.dropped == 1
        for i in range(3):  # the third arrives while two wait unread
            client.put_var(i)
        await asyncio.sleep(0.2)
        assert [(await srv.get_var())[0] for _ in range(2)] == [0, 1]
        assert srv.dropped == 2
        srv.close()
        client.close()

    with caplog.at_level(logging.WARNING, logger="gdvariant.asyncio"):
        run(main())
    messages = [r.getMessage() for r in caplog.records]
    assert any("dropped a datagram" in m and "unknown type" in m for m in messages)
    assert any("queue is full" in m for m in messages)


def test_udp_refuses_stream_framing() -> None:
    async def main() -> None:
        with pytest.raises(ValueError, match="one value per packet"):
            await open_datagram(local_addr=("127.0.0.1", 0), framing="StreamPeer")

    run(main())


@pytest.mark.slow
def test_a_client_that_never_reads_is_held_to_max_unsent_then_cut(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client sends echo requests from a socket that reads nothing: the server's handler
    waits in put_var past half of max_unsent (reading nothing more from that client), what
    waits stays within the limit, another client's round trips go on, and after
    stall_timeout the silent client is cut with one line."""
    limit = 1 << 20
    peers: list[VariantStream] = []

    async def keep_and_echo(peer: VariantStream) -> None:
        peers.append(peer)
        await echo(peer)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        options = {"max_unsent": limit, "stall_timeout": 1.0}
        async with (
            server(keep_and_echo, **options) as port,
            await connect("127.0.0.1", port) as good,
        ):
            round_trip = hostile.echo_round_trip(good)
            await round_trip("hello")
            sock = hostile.tiny_socket()
            await loop.sock_connect(sock, ("127.0.0.1", port))
            await hostile.flood_beside(
                sock,
                gd.frame(bytes(1000)),
                round_trip,
                limit=limit,
                backlog_peak=lambda: peers[1]._outbox.backlog.peak,
            )
            sock.close()

    with caplog.at_level(logging.WARNING, logger="gdvariant.asyncio"):
        run(main())
    hostile.closed_once_for_stalling(caplog.records, "closing the connection")


@pytest.mark.slow
def test_a_flood_of_bad_connections_logs_a_few_short_lines_a_second_and_counts_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """2,000 connections from one host, each sending one bad frame (a Dictionary with a 1 KB
    key and a value of no known type): each is closed and logged or counted, in a few lines
    a second."""
    good = gd.dumps({"n" * 1000: 1})
    at = good.index(b"\x02\0\0\0\x01\0\0\0", 8)
    bad = struct.pack("<i", len(good)) + good[:at] + b"\xff" + good[at + 1 :]
    count = 2000

    async def main() -> float:
        async with server() as port:
            start = time.monotonic()
            for _ in range(count):
                assert await _raw(port, bad) == b""
            async with asyncio.timeout(20):
                while hostile.reported(caplog.records, "gdvariant.asyncio", ["closing"]) < count:
                    await asyncio.sleep(0.01)
            return time.monotonic() - start

    with caplog.at_level(logging.WARNING, logger="gdvariant.asyncio"):
        elapsed = asyncio.run(main())
    assert hostile.reported(caplog.records, "gdvariant.asyncio", ["closing"]) == count
    hostile.check_log_volume(caplog.records, elapsed, loggers=1)
    assert "more from 127.0.0.1 in the last second" in caplog.text
