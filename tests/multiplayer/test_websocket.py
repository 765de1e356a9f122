"""The WebSocket transport of gdvariant.multiplayer (``MultiplayerServer``), with plain
``websockets`` clients standing in for Godot's WebSocketMultiplayerPeer (the live test with
real Godot clients is tests/live/multiplayer/test_websocket.py)."""

from __future__ import annotations

import asyncio
import importlib
import logging
import random
import socket
import struct
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from gdvariant.multiplayer import ProtocolError, SceneMultiplayer
from gdvariant.multiplayer.wire import (
    AddPeer,
    DelPeer,
    RemoteCall,
    SimplifyPath,
    decode_scene_packet,
    encode_scene_packet,
)
from tests.support import hostile
from tests.support.multiplayer_serving import run, until
from tests.support.multiplayer_serving import serving as serving_with

mpws = pytest.importorskip(
    "gdvariant.multiplayer.websocket", reason="the websockets extra is missing"
)
MultiplayerServer = mpws.MultiplayerServer


async def join(port: int, **options: Any) -> tuple[ClientConnection, int]:
    """Connect as Godot's client does (no compression offered) and read the peer id."""
    options.setdefault("compression", None)
    client = await connect(f"ws://127.0.0.1:{port}", **options)
    message = await recv(client)
    assert len(message) == 4
    return client, struct.unpack("<i", message)[0]


async def recv(client: ClientConnection) -> bytes:
    """The next message, which the server always sends binary."""
    message = await client.recv()
    assert isinstance(message, bytes)
    return message


async def closed_code(client: ClientConnection) -> int | None:
    with pytest.raises(ConnectionClosed):
        while True:
            await client.recv()
    return client.close_code


async def left(server: Any, peer: int) -> None:
    """Wait until the server has seen ``peer`` go (its handler ends after the close)."""
    while peer in server.peers:
        await asyncio.sleep(0.01)


def serving(**options: Any) -> Callable[[Callable[..., Awaitable[None]]], Callable[[], None]]:
    return serving_with(MultiplayerServer, **options)


def test_peer_ids_are_the_4_byte_first_message_and_follow_the_rng() -> None:
    expected = random.Random(5)
    connected: list[int] = []

    @serving(ids=random.Random(5), on_peer_connected=connected.append)
    async def body(server: Any, port: int) -> None:
        for _ in range(3):
            client, peer = await join(port)
            assert peer == expected.randint(2, 2**31 - 1)
            await asyncio.sleep(0.05)
            assert peer in server.peers and connected[-1] == peer
            await client.close()

    body()


def test_the_handshake_is_what_godots_client_checks() -> None:
    @serving()
    async def body(server: Any, port: int) -> None:
        # websockets' client offers permessage-deflate: the server must not take it.
        client, _ = await join(port, compression="deflate")
        assert client.response is not None
        headers = client.response.headers
        assert headers.get_all("Connection") == ["Upgrade"]
        assert headers["Upgrade"] == "websocket"
        assert "Sec-WebSocket-Protocol" not in headers
        assert "Sec-WebSocket-Extensions" not in headers
        await client.close()

    body()


def test_a_sub_protocol_is_chosen_only_when_offered() -> None:
    @serving(subprotocols=["game-v1"])
    async def body(server: Any, port: int) -> None:
        client, _ = await join(port, subprotocols=["other", "game-v1"])
        assert client.subprotocol == "game-v1"
        await client.close()

    body()


def test_raw_both_ways_and_relay_announcements() -> None:
    received: list[tuple[int, bytes]] = []

    @serving(on_raw=lambda peer, data: received.append((peer, data)))
    async def body(server: Any, port: int) -> None:
        a, a_id = await join(port)
        b, b_id = await join(port)
        assert decode_scene_packet(await recv(a)) == AddPeer(b_id)
        assert decode_scene_packet(await recv(b)) == AddPeer(a_id)
        await a.send(b"\x03hello")
        await b.send("\x03text frames are packets too")
        server.send_raw(a_id, b"\x00\x01")
        server.send_raw(0, b"all")
        assert await recv(a) == b"\x03\x00\x01"
        assert await recv(a) == b"\x03all"
        assert await recv(b) == b"\x03all"
        await b.close()
        assert decode_scene_packet(await recv(a)) == DelPeer(b_id)
        assert received == [(a_id, b"hello"), (b_id, b"text frames are packets too")]
        await a.close()

    body()


def test_raw_waits_in_receive_raw_without_a_callback() -> None:
    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        await client.send(b"\x03\x07")
        assert await server.receive_raw() == (peer, b"\x07")
        await client.close()

    body()


def test_other_game_packets_go_to_on_packet() -> None:
    packets: list[tuple[int, Any]] = []
    call = RemoteCall(method_id=1, args=(5, "x"), node_id=3)

    @serving(on_packet=lambda peer, packet: packets.append((peer, packet)))
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        await client.send(encode_scene_packet(call))
        server.send(peer, call)
        assert decode_scene_packet(await recv(client)) == call
        assert packets == [(peer, call)]
        await client.close()

    body()


def test_messages_over_godots_buffer_close_the_sender_only() -> None:
    received: list[bytes] = []

    @serving(on_raw=lambda peer, data: received.append(data))
    async def body(server: Any, port: int) -> None:
        big, big_id = await join(port)
        other, other_id = await join(port)
        await big.send(b"\x03" + bytes(65534))  # 65535 bytes: taken
        await big.send(b"\x03" + bytes(65535))  # 65536 bytes: closed with "message too big"
        assert await closed_code(big) == 1009
        assert received == [bytes(65534)]
        await left(server, big_id)
        server.send_raw(other_id, b"still here")
        assert [decode_scene_packet(await recv(other)) for _ in range(2)] == [
            AddPeer(big_id),
            DelPeer(big_id),
        ]
        assert await recv(other) == b"\x03still here"
        await other.close()

    body()


def test_a_packet_over_the_clients_buffer_is_not_sent(caplog: pytest.LogCaptureFixture) -> None:
    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        server.send_raw(peer, bytes(65535))  # 65536 bytes with the command byte
        server.send_raw(peer, b"after")
        assert await recv(client) == b"\x03after"
        with pytest.raises(ValueError, match="not connected"):
            server.send_raw(peer + 1, b"x")
        await client.close()

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.websocket"):
        body()
    assert "not sending 65536 bytes" in caplog.text


@pytest.mark.parametrize("garbage", [b"", b"\xff\x13\x37", b"\x00", bytes(AddPeer(9).encode())])
def test_garbage_closes_that_client_and_others_play_on(
    garbage: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    gone: list[int] = []
    received: list[bytes] = []

    @serving(on_peer_disconnected=gone.append, on_raw=lambda peer, data: received.append(data))
    async def body(server: Any, port: int) -> None:
        bad, bad_id = await join(port)
        good, _ = await join(port)
        await bad.send(garbage)
        assert await closed_code(bad) == 1008
        await good.send(b"\x03ok")
        while decode_scene_packet(await recv(good)) != DelPeer(bad_id):
            pass
        assert gone == [bad_id] and received == [b"ok"]
        await good.close()

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.websocket"):
        body()
    assert "dropped a packet from peer" in caplog.text


def test_drop_limit_tolerates_some_malformed_packets() -> None:
    received: list[bytes] = []

    @serving(drop_limit=1, on_raw=lambda peer, data: received.append(data))
    async def body(server: Any, port: int) -> None:
        client, _ = await join(port)
        await client.send(b"\xff")
        await client.send(b"\x03kept")
        await client.send(b"\xff")
        assert await closed_code(client) == 1008
        assert received == [b"kept"]

    body()


def test_auth_accept_reject_and_timeout() -> None:
    """Accepted, rejected and early clients on a server whose timeout never runs out in the
    test (a stalled test process must not turn a rejection into a timeout); then a silent
    client on one whose timeout does."""
    connected: list[int] = []
    tokens: list[bytes] = []

    def auth(peer: int, data: bytes) -> None:
        tokens.append(data)
        if data == b"good":
            server.send_auth(peer, b"welcome")
            server.complete_auth(peer)
        else:
            server.disconnect_peer(peer)

    authenticating: list[int] = []
    failed: list[int] = []
    server = MultiplayerServer(
        auth_callback=auth,
        auth_timeout=600,
        on_peer_connected=connected.append,
        on_peer_authenticating=authenticating.append,
        on_peer_authentication_failed=failed.append,
    )
    timed_out: list[int] = []
    impatient = MultiplayerServer(
        auth_callback=auth, auth_timeout=0.3, on_peer_authentication_failed=timed_out.append
    )

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            good, good_id = await join(port)
            await good.send(b"\x07\x00good")
            assert await recv(good) == b"\x07\x00welcome"
            assert await recv(good) == b"\x07\x00"  # our completion
            assert connected == []
            await good.send(b"\x07\x00")  # the client's completion
            bad, bad_id = await join(port)
            await bad.send(b"\x07\x00bad")
            assert await closed_code(bad) == 1000
            early, early_id = await join(port)
            await early.send(b"\x03not yet")  # game packets wait for authentication
            assert await closed_code(early) == 1008
            assert connected == [good_id] and tokens == [b"good", b"bad"]
            assert authenticating == [good_id, bad_id, early_id]
            async with asyncio.timeout(5):
                while len(failed) < 2:
                    await asyncio.sleep(0.01)
            assert failed == [bad_id, early_id]
            await good.close()
        async with impatient:
            port = await impatient.listen("127.0.0.1", 0)
            silent, silent_id = await join(port)
            assert await closed_code(silent) == 1000  # the auth timeout
            async with asyncio.timeout(5):
                while not timed_out:
                    await asyncio.sleep(0.01)
            assert timed_out == [silent_id] and tokens == [b"good", b"bad"]

    run(main())


def test_auth_deadlines_are_read_on_the_clock_the_server_is_given() -> None:
    """The endpoint reads no clock of its own: a pending peer's deadline passes when the
    adapter's ``clock`` says so (here at once, while no real second passes)."""
    now = [1000.0]
    tokens: list[bytes] = []
    failed: list[int] = []
    server = MultiplayerServer(
        auth_callback=lambda peer, data: tokens.append(data),
        auth_timeout=600,
        clock=lambda: now[0],
        on_peer_authentication_failed=failed.append,
    )

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            client, peer = await join(port)
            await client.send(b"\x07\x00early")  # before the deadline: for the callback
            async with asyncio.timeout(5):
                while not tokens:
                    await asyncio.sleep(0.01)
            now[0] += 600  # the deadline, on the server's clock
            await client.send(b"\x07\x00late")
            async with asyncio.timeout(5):
                assert await closed_code(client) == 1000
            assert failed == [peer] and tokens == [b"early"]

    run(main())


def test_a_failing_callback_is_logged_and_the_server_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def explode(peer: int, data: bytes) -> None:
        raise RuntimeError("game bug")

    @serving(on_raw=explode)
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        await client.send(b"\x03x")
        server.send_raw(peer, b"y")
        assert await recv(client) == b"\x03y"
        await client.close()

    with caplog.at_level(logging.ERROR, "gdvariant.multiplayer.websocket"):
        body()
    assert "game bug" in caplog.text


def test_listen_twice_is_refused() -> None:
    @serving()
    async def body(server: Any, port: int) -> None:
        with pytest.raises(RuntimeError, match="already listening"):
            await server.listen("127.0.0.1", 0)

    body()


def test_the_core_does_not_need_websockets(
    hide_package: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(__import__("sys").modules, "gdvariant.multiplayer.websocket")
    hide_package("websockets")
    importlib.import_module("gdvariant.multiplayer")
    with pytest.raises(ImportError, match=r"pip install 'gdvariant\[websockets\]'"):
        importlib.import_module("gdvariant.multiplayer.websocket")


MultiplayerClient = mpws.MultiplayerClient


def test_client_and_server_authenticate_relay_and_part() -> None:
    def auth(peer: int, data: bytes) -> None:
        server.send_auth(peer, data.upper())
        server.complete_auth(peer)

    server = MultiplayerServer(auth_callback=auth)
    events: list[tuple[str, int, Any]] = []

    def make(index: int) -> Any:
        return MultiplayerClient(
            auth_callback=lambda data: events.append(("auth", index, data)),
            on_peer_connected=lambda peer: events.append(("in", index, peer)),
            on_peer_disconnected=lambda peer: events.append(("out", index, peer)),
        )

    async def main() -> None:
        async with server:
            url = f"ws://127.0.0.1:{await server.listen('127.0.0.1', 0)}"
            a, b = make(0), make(1)
            a_id, b_id = await a.connect(url), await b.connect(url)
            with pytest.raises(ValueError, match="not connected"):
                a.send_raw(b"too early")
            for client in (a, b):
                client.send_auth(b"hi")
            await until(lambda: len([e for e in events if e[0] == "auth"]) == 2)
            a.complete_auth()
            b.complete_auth()
            await until(lambda: a.peers == {1, b_id} and b.peers == {1, a_id})
            a.send_raw(b"to b", b_id)
            a.send_raw(b"to all", 0)
            a.send_raw(b"to server")
            assert await b.receive_raw() == (a_id, b"to b")
            assert await b.receive_raw() == (a_id, b"to all")
            assert await server.receive_raw() == (a_id, b"to all")
            assert await server.receive_raw() == (a_id, b"to server")
            server.send_raw(0, b"news")
            assert await a.receive_raw() == (1, b"news")
            with pytest.raises(ValueError, match="over the 65535 limit"):
                a.send_raw(bytes(65535))
            with pytest.raises(RuntimeError, match="already connected"):
                await a.connect(url)
            await b.close()
            await until(lambda: ("out", 0, b_id) in events)
            server.disconnect_peer(a_id)
            await a.wait_closed()
        assert sorted(e for e in events if e[0] == "auth") == [
            ("auth", 0, b"HI"),
            ("auth", 1, b"HI"),
        ]
        assert ("in", 0, 1) in events and ("in", 0, b_id) in events
        assert ("out", 0, 1) in events and ("out", 1, 1) in events

    run(main())


@pytest.mark.parametrize(
    "first", [b"\x01\x00\x00\x00", b"\xfb\xff\xff\xff", b"\x05\x00\x00\x00\x00", "\x01\x00\x00\x00"]
)
def test_client_refuses_a_bad_id_message(first: bytes | str) -> None:
    async def handler(connection: Any) -> None:
        await connection.send(first)
        await connection.wait_closed()

    async def main() -> None:
        async with serve(handler, "127.0.0.1", 0) as raw_server:
            port = next(iter(raw_server.sockets)).getsockname()[1]
            with pytest.raises(ProtocolError, match="invalid peer id message"):
                await MultiplayerClient().connect(f"ws://127.0.0.1:{port}")

    run(main())


def test_client_takes_a_text_id_message_as_godot_does() -> None:
    async def handler(connection: Any) -> None:
        await connection.send("\x07\x00\x00\x00")
        await connection.wait_closed()

    async def main() -> None:
        async with serve(handler, "127.0.0.1", 0) as raw_server:
            port = next(iter(raw_server.sockets)).getsockname()[1]
            client = MultiplayerClient()
            assert await client.connect(f"ws://127.0.0.1:{port}") == 7
            await client.close()

    run(main())


@pytest.mark.slow
def test_a_client_that_never_reads_is_held_to_max_unsent_then_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client sends pings and RAW echo requests from a socket that reads nothing: the
    server stops reading from it, what waits for it stays within max_unsent (its own count
    and Python's allocations), another client's round trips go on, and the stalled client
    is cut after stall_timeout with one line."""
    limit = 1 << 20

    def echo(peer: int, data: bytes) -> None:
        server.send_raw(peer, data)

    server = MultiplayerServer(on_raw=echo, max_unsent=limit, stall_timeout=1.0)
    # One round: a ping (answered with a pong) and a 1 KB echo request; 40,000 of them make
    # 50 MB of replies, which the server used to keep until the client left.
    request = hostile.client_frame(hostile.PING, b"p" * 125) + hostile.client_frame(
        hostile.BINARY, b"\x03" + bytes(1000)
    )

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            good, good_id = await join(port)
            sock = await hostile.raw_websocket(port, first_message=6)
            await until(lambda: len(server.peers) == 2)
            bad_id = next(iter(server.peers - {good_id}))
            bad = server._peers[bad_id]
            assert decode_scene_packet(await recv(good)) == AddPeer(bad_id)

            async def round_trip(value: Any) -> None:
                if value == "after":  # the server told us the stalled peer left, first
                    assert decode_scene_packet(await recv(good)) == DelPeer(bad_id)
                await good.send(b"\x03round %s" % str(value).encode())
                assert await recv(good) == b"\x03round %s" % str(value).encode()

            await hostile.flood_beside(
                sock, request, round_trip, limit=limit, backlog_peak=lambda: bad.outbox.backlog.peak
            )
            await until(lambda: bad_id not in server.peers)
            sock.close()
            await good.close()

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.websocket"):
        run(main())
    hostile.closed_once_for_stalling(caplog.records, "closing peer")


@pytest.mark.slow
def test_a_flood_of_refused_packets_logs_a_few_short_lines_a_second_and_counts_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """3,000 each of an RPC on an undeclared 1 KB path, a SIMPLIFY_PATH naming it and a
    malformed packet: every refusal is logged or counted, in a few lines a second, none
    holding more than 100 characters of the path."""
    server = MultiplayerServer(drop_limit=10**9)
    SceneMultiplayer(server)
    long_path = "Main/" + "n" * 1000
    packets = [
        encode_scene_packet(RemoteCall(0, (1,), path=long_path)),
        encode_scene_packet(SimplifyPath(7, long_path)),
        b"\xff" + long_path.encode(),  # no such command: malformed
    ]
    count = 3000
    scene, transport = "gdvariant.multiplayer", "gdvariant.multiplayer.websocket"

    def accounted() -> int:  # the scene's lines count against the transport's budget
        markers = ["refused a packet", "not declared", "dropped a packet"]
        return sum(hostile.reported(caplog.records, name, markers) for name in (scene, transport))

    async def main() -> float:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            client, _ = await join(port)
            start = time.monotonic()
            for _ in range(count):
                for packet in packets:
                    await client.send(packet)
            async with asyncio.timeout(20):
                await until(lambda: accounted() == 3 * count)
            elapsed = time.monotonic() - start
            await client.close()
            return elapsed

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer"):
        elapsed = asyncio.run(main())
    hostile.check_log_volume(caplog.records, elapsed, loggers=1)
    assert "... (1,005 characters)" in caplog.text


@pytest.mark.slow
def test_pending_peers_are_cut_at_their_deadline_while_other_clients_flood() -> None:
    """30 clients that never authenticate nor read, while three admitted clients keep the
    server busy with echo requests: each is timed out at its deadline and its connection
    cut a moment later (it has 1 s to answer the close frame; websockets' default was 10)."""
    timeout = 0.5
    started: dict[int, float] = {}
    failed: dict[int, float] = {}

    def auth(peer: int, data: bytes) -> None:
        if data == b"good":
            server.complete_auth(peer)

    def echo(peer: int, data: bytes) -> None:
        server.send_raw(peer, data)

    server = MultiplayerServer(
        auth_callback=auth,
        auth_timeout=timeout,
        on_raw=echo,
        on_peer_authenticating=lambda peer: started.setdefault(peer, time.monotonic()),
        on_peer_authentication_failed=lambda peer: failed.setdefault(peer, time.monotonic()),
    )

    async def busy(port: int, stop: asyncio.Event) -> None:
        client, _ = await join(port)
        await client.send(b"\x07\x00good")
        await client.send(b"\x07\x00")
        while not stop.is_set():
            await client.send(b"\x03" + bytes(2000))
            await recv(client)
        await client.close()

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            stop = asyncio.Event()
            load = [asyncio.create_task(busy(port, stop)) for _ in range(3)]
            await until(lambda: len(server.peers) == 3)
            admitted = set(server.peers)
            socks = [await hostile.raw_websocket(port, first_message=6) for _ in range(30)]
            # The deadline, the 1 s the close frame waits for an answer, and slack.
            async with asyncio.timeout(timeout + 1.0 + 3):
                await until(lambda: len(failed) == 30 and len(server._peers) == 3)
            stop.set()
            await asyncio.gather(*load)
            for sock in socks:
                sock.close()
            assert admitted.isdisjoint(failed) and set(started) - admitted == set(failed)

    run(main())
    # Each on time: a deadline missed by a tick of a busy loop, never by seconds.
    assert all(failed[peer] - started[peer] < timeout + 1.0 for peer in failed)


def test_our_client_is_held_to_max_unsent_by_a_server_that_never_reads(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The client's queue is bounded the same way: against a server that stops reading, our
    sends are refused once max_unsent would be passed, and the connection is cut."""
    limit = 64 * 1024
    left: list[int] = []

    async def deaf(connection: Any) -> None:
        await connection.send(struct.pack("<i", 77))
        connection.transport.pause_reading()
        await connection.wait_closed()

    async def main() -> None:
        async with serve(deaf, "127.0.0.1", 0, compression=None, close_timeout=0.1) as raw_server:
            port = next(iter(raw_server.sockets)).getsockname()[1]
            client = MultiplayerClient(max_unsent=limit, on_peer_disconnected=left.append)
            await client.connect(f"ws://127.0.0.1:{port}")
            outbox = client._server.outbox
            with pytest.raises(ValueError, match="not connected"):
                for i in range(100_000):  # 100 MB, far past any socket buffer
                    client.send_raw(bytes(1000))
                    if i % 16 == 0:
                        await asyncio.sleep(0)
            assert i < 100_000 and outbox.backlog.peak <= limit
            await client.wait_closed()
            assert left == [1]

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.websocket"):
        run(main())
    assert "closing the connection to the server: " in caplog.text
    assert "over max_unsent 65,536" in caplog.text


# ---------------------------------------------------------------- frames written directly


def parsed_frame(data: bytes) -> Frame:
    """``data`` read by websockets' own frame parser, as a client reads a server's frame
    (unmasked), with nothing left over."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        assert not reader.buffer  # nothing after the frame
        frame: Frame = done.value
        return frame
    raise AssertionError("the frame is incomplete")


@pytest.mark.parametrize(
    ("size", "head"),
    [
        (0, b"\x82\x00"),
        (1, b"\x82\x01"),
        (125, b"\x82\x7d"),  # the largest 7-bit length
        (126, b"\x82\x7e\x00\x7e"),  # 126: the 16-bit form follows
        (65535, b"\x82\x7e\xff\xff"),
        (65536, b"\x82\x7f\x00\x00\x00\x00\x00\x01\x00\x00"),  # 127: the 64-bit form
        (200_003, b"\x82\x7f\x00\x00\x00\x00\x00\x03\x0d\x43"),
    ],
)
def test_a_servers_frame_is_one_unmasked_binary_rfc_6455_frame(size: int, head: bytes) -> None:
    data = bytes(random.Random(size).getrandbits(8) for _ in range(size))
    frame = mpws.binary_frame(data)
    assert frame == head + data  # FIN, opcode 2, no mask bit, the shortest length form
    parsed = parsed_frame(frame)
    assert (parsed.opcode, parsed.fin, parsed.data) == (Opcode.BINARY, True, data)
    assert not (parsed.rsv1 or parsed.rsv2 or parsed.rsv3)
    assert frame == Frame(Opcode.BINARY, data).serialize(mask=False)


def spy_writes(server: Any, peer: int) -> list[bytes]:
    """What the server writes to ``peer``'s transport from now on, in order."""
    transport = server._peers[peer].connection.transport
    writes: list[bytes] = []
    write = transport.write

    def spy(data: bytes) -> None:
        writes.append(bytes(data))
        write(data)

    transport.write = spy
    return writes


@pytest.mark.parametrize("turn_ends", [False, True])
def test_a_turns_packets_to_an_idle_open_peer_are_one_write_at_its_end(turn_ends: bool) -> None:
    """No writer task woken: the frames a turn of the loop sends a ready peer are gathered
    and written in one write when the turn ends (or on ``flush``), and counted meanwhile
    in the peer's queue depth."""

    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        server.send_raw(peer, b"0")  # the connection finds out it is ready
        await asyncio.sleep(0)
        writes = spy_writes(server, peer)
        server.send_raw(peer, b"x")
        server.send_raw(peer, bytes(300))
        assert writes == [] and server.queue_depth(peer) == (4 + 305, 2)
        if turn_ends:
            await asyncio.sleep(0)
        else:
            server.flush()
        assert writes == [b"\x82\x02\x03x" + b"\x82\x7e\x01\x2d\x03" + bytes(300)]
        assert server._peers[peer].outbox.empty and server.queue_depth(peer) == (0, 0)
        assert await recv(client) == b"\x030"
        assert await recv(client) == b"\x03x"
        assert await recv(client) == b"\x03" + bytes(300)
        await client.close()

    body()


def test_a_frame_to_idle_peers_is_written_before_the_turn_ends() -> None:
    """A frame (``send_encoded_many``, what ``sync()`` hands over) to ready peers with
    nothing gathered: each peer's packets are one write before the call returns, in order
    even when the frame interleaves peers, and no call is left for the end of the turn; a
    peer that has frames gathered this turn gets the frame's behind them at the turn's end."""

    @serving()
    async def body(server: Any, port: int) -> None:
        clients = [await join(port) for _ in range(3)]
        peers = [peer for _, peer in clients]
        for peer in peers:
            server.send_raw(peer, b"0")  # the connections find out they are ready
        await asyncio.sleep(0)
        writes = {peer: spy_writes(server, peer) for peer in peers}
        server.send_raw(peers[2], b"r")  # gathered for the end of the turn
        mode = mpws.TransferMode.UNRELIABLE
        frame = [(peers[i % 3], b"\x03" + bytes([i]) * (i + 1), mode, 0) for i in range(9)]
        server.send_encoded_many(frame)
        for peer in peers[:2]:
            data = [d for p, d, _, _ in frame if p == peer]
            assert writes[peer] == [b"".join(mpws.binary_frame(d) for d in data)]
            assert server.queue_depth(peer) == (0, 0)
        assert writes[peers[2]] == []
        assert server._websockets.gathered == [server._peers[peers[2]].connection]
        await asyncio.sleep(0)
        late = [b"\x03r"] + [d for p, d, _, _ in frame if p == peers[2]]
        assert writes[peers[2]] == [b"".join(mpws.binary_frame(d) for d in late)]
        for index, (client, peer) in enumerate(clients):
            expected = [b"\x030", *([b"\x03r"] if index == 2 else [])]
            expected += [d for p, d, _, _ in frame if p == peer]
            got: list[bytes] = []
            while len(got) < len(expected):
                message = await recv(client)
                if message[:1] == b"\x03":  # RAW packets (not the peers' joins)
                    got.append(message)
            assert got == expected
            await client.close()

    body()


def test_a_frames_packets_are_all_checked_before_any_is_sent() -> None:
    """``send_encoded_many``: a packet for a peer that is not there refuses the whole
    frame; a good frame goes out in order."""

    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        writes = spy_writes(server, peer)
        mode = mpws.TransferMode.UNRELIABLE
        with pytest.raises(ValueError, match="peer 77 is not connected"):
            server.send_encoded_many([(peer, b"\x03a", mode, 0), (77, b"\x03b", mode, 0)])
        assert writes == []
        server.send_encoded_many([(peer, b"\x03a", mode, 0), (peer, b"\x03bc", mode, 0)])
        server.flush()
        assert b"".join(writes) == b"\x82\x02\x03a\x82\x03\x03bc"
        assert await recv(client) == b"\x03a"
        assert await recv(client) == b"\x03bc"
        await client.close()

    body()


@pytest.mark.parametrize("timing", [False, True])
def test_a_frame_goes_out_as_the_shared_hand_over_sends_it(
    timing: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """The server's one-loop hand-over of a frame, and the endpoint's shared one (taken
    while detail times each write), write the same frames in the same order, count the same
    packets, log and skip one over ``max_send_size``, and count but do not write those for a
    peer being closed; checked against what RFC 6455 frames and the counts must be."""

    @serving(max_send_size=64)
    async def body(server: Any, port: int) -> None:
        clients = [await join(port) for _ in range(3)]
        peers = [peer for _, peer in clients]
        server.disconnect_peer(peers[2])  # closing (its close frame written): counted only
        writes = {peer: spy_writes(server, peer) for peer in peers}
        server.traffic.timing = timing
        before = {
            peer: (server.traffic.messages[peer], server.traffic.bytes[peer]) for peer in peers
        }
        mode = mpws.TransferMode.UNRELIABLE
        frame = [(peers[i % 3], b"\x03" + bytes([i]) * (i * 5), mode, 0) for i in range(20)]
        server.send_encoded_many(frame)
        server.flush()  # one write a peer, or one a packet while timing: the same bytes
        for peer in peers[:2]:
            expected = [data for p, data, _, _ in frame if p == peer and len(data) <= 64]
            assert len(writes[peer]) == (len(expected) if timing else 1)
            assert b"".join(writes[peer]) == b"".join(bytes((0x82, len(d))) + d for d in expected)
        assert writes[peers[2]] == []
        for peer in peers:
            counted = [data for p, data, _, _ in frame if p == peer and len(data) <= 64]
            messages, sizes = before[peer]
            assert server.traffic.messages[peer] - messages == len(counted)
            assert server.traffic.bytes[peer] - sizes == sum(map(len, counted))
        for client, _ in clients[:2]:
            await client.close()

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.websocket"):
        body()
    assert "not sending 66 bytes" in caplog.text


def test_frames_never_overtake_queued_ones() -> None:
    """The peer id is queued for the writer when a client joins; what the game sends in the
    same turn (on_peer_connected) queues behind it, and what follows once the queue is empty
    goes straight to the transport: the client reads all of it in order."""
    sent: list[bytes] = []

    def greet(peer: int) -> None:
        for i in range(30):
            server.send_raw(peer, b"early %d" % i)
            sent.append(b"\x03early %d" % i)

    server = MultiplayerServer(on_peer_connected=greet)

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            client, peer = await join(port)
            writes = spy_writes(server, peer)
            for i in range(30):  # some now, while the client reads, some after a pause
                server.send_raw(peer, b"late %d" % i)
                sent.append(b"\x03late %d" % i)
                if i % 7 == 0:
                    await asyncio.sleep(0)
            received = [await recv(client) for _ in sent]
            assert received == sent
            assert b"".join(writes) == b"".join(mpws.binary_frame(data) for data in sent[30:])
            await client.close()

    run(main())


def test_the_close_handshake_follows_the_frames_written_directly() -> None:
    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        for i in range(20):
            server.send_raw(peer, b"%d" % i)
        server.disconnect_peer(peer)  # the close frame goes after them
        server.send_raw(peer, b"too late")  # a closing peer takes no more
        assert [await recv(client) for _ in range(20)] == [b"\x03%d" % i for i in range(20)]
        assert await closed_code(client) == 1000
        await left(server, peer)

    body()


def test_a_client_closing_while_the_server_sends_ends_cleanly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """While the client's close frame is on its way the server goes on sending: frames while
    the connection is open, then the writer's queue (closing), and nothing raises."""

    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        closing = asyncio.create_task(client.close())
        while peer in server.peers:
            server.send_raw(peer, b"more")
            await asyncio.sleep(0)
        await closing
        assert client.close_code == 1000

    with caplog.at_level(logging.WARNING):
        body()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_keepalive_pings_both_ways_among_frames_written_directly() -> None:
    """websockets writes its pings and pongs into the same transport: each one whole,
    between our frames, and every message and pong arrives."""

    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        connection = server._peers[peer].connection
        pongs = []
        for i in range(50):
            server.send_raw(peer, b"%d" % i)
            if i % 10 == 0:
                pongs.append(await connection.ping(b"server %d" % i))
                pongs.append(await client.ping(b"client %d" % i))
        assert [await recv(client) for _ in range(50)] == [b"\x03%d" % i for i in range(50)]
        async with asyncio.timeout(5):
            await asyncio.gather(*pongs)
        await client.close()

    body()


def test_a_peer_that_reads_nothing_is_cut_at_max_unsent_by_direct_writes(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Frames written directly count in the transport's write buffer: a peer that reads
    nothing is paused, then dropped before what waits for it passes max_unsent."""
    limit = 64 * 1024

    @serving(max_unsent=limit, stall_timeout=30)
    async def body(server: Any, port: int) -> None:
        sock = await hostile.raw_websocket(port, first_message=6)
        await until(lambda: len(server.peers) == 1)
        peer = next(iter(server.peers))
        outbox = server._peers[peer].outbox
        sends = 0
        while peer in server._peers and sends < 100_000:  # 100 MB, far past any buffer
            server.send_raw(peer, bytes(1000))
            sends += 1
            if sends % 16 == 0:
                await asyncio.sleep(0)
        await until(lambda: peer not in server.peers)
        assert sends < 100_000 and outbox.backlog.peak <= limit
        sock.close()

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.websocket"):
        body()
    assert f"over max_unsent {limit:,}" in caplog.text


def test_a_joined_peer_costs_the_server_no_task() -> None:
    """The connection is a plain asyncio protocol: no reader, writer or keepalive task per
    peer, so a message is handled in the call that reads it."""

    @serving()
    async def body(server: Any, port: int) -> None:
        before = len(asyncio.all_tasks())
        socks = [await hostile.raw_websocket(port, first_message=6) for _ in range(5)]
        await until(lambda: len(server.peers) == 5)
        assert len(asyncio.all_tasks()) == before
        for sock in socks:
            sock.close()
        await until(lambda: not server.peers)

    body()


def test_a_message_split_into_one_byte_writes_is_one_packet() -> None:
    received: list[tuple[int, bytes]] = []

    @serving(on_raw=lambda peer, data: received.append((peer, data)))
    async def body(server: Any, port: int) -> None:
        loop = asyncio.get_running_loop()
        sock = await hostile.raw_websocket(port, first_message=6)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await until(lambda: len(server.peers) == 1)
        (peer,) = server.peers
        frames = hostile.client_frame(hostile.BINARY, b"\x03" + bytes(range(200))) * 2
        for i in range(len(frames)):
            await loop.sock_sendall(sock, frames[i : i + 1])
            if i % 16 == 0:
                await asyncio.sleep(0.001)  # let the server read what came so far
        await until(lambda: len(received) == 2)
        assert received == [(peer, bytes(range(200)))] * 2
        sock.close()

    body()


def test_a_peer_cut_mid_frame_leaves_once_and_others_go_on() -> None:
    received: list[tuple[int, bytes]] = []
    left_peers: list[int] = []

    @serving(
        on_raw=lambda peer, data: received.append((peer, data)),
        on_peer_disconnected=left_peers.append,
    )
    async def body(server: Any, port: int) -> None:
        loop = asyncio.get_running_loop()
        good, good_id = await join(port)
        sock = await hostile.raw_websocket(port, first_message=6)
        await until(lambda: len(server.peers) == 2)
        (bad_id,) = server.peers - {good_id}
        frame = hostile.client_frame(hostile.BINARY, b"\x03" + bytes(1000))
        await loop.sock_sendall(sock, frame[:500])
        sock.close()
        await until(lambda: bad_id not in server.peers)
        await good.send(b"\x03still here")
        await until(lambda: len(received) == 1)
        assert received == [(good_id, b"still here")] and left_peers == [bad_id]
        await good.close()

    body()


def test_a_text_message_that_is_not_utf8_closes_the_peer_with_1007() -> None:
    received: list[tuple[int, bytes]] = []

    @serving(on_raw=lambda peer, data: received.append((peer, data)))
    async def body(server: Any, port: int) -> None:
        loop = asyncio.get_running_loop()
        sock = await hostile.raw_websocket(port, first_message=6)
        await until(lambda: len(server.peers) == 1)
        await loop.sock_sendall(sock, hostile.client_frame(0x1, b"\x03\xff\xfe"))
        head = await hostile.read_exactly(sock, 4)
        assert head[:2] == b"\x88\x02" or head[0] == 0x88  # a close frame
        assert int.from_bytes(head[2:4], "big") == 1007
        await until(lambda: not server.peers)
        assert received == []
        sock.close()

    body()


def counted_looks(
    monkeypatch: pytest.MonkeyPatch, kind: type[Any]
) -> tuple[dict[Any, int], dict[Any, int]]:
    """Calls of ``get_write_buffer_size`` of transports of class ``kind``, by transport, and
    what each one is made to report (a buffer the socket did not take); patched on the
    class, so that outboxes made afterwards count (they keep the bound method)."""
    looks: dict[Any, int] = {}
    kept: dict[Any, int] = {}
    real = kind.get_write_buffer_size

    def look(self: Any) -> int:
        looks[self] = looks.get(self, 0) + 1
        return int(kept.get(self, real(self)))

    monkeypatch.setattr(kind, "get_write_buffer_size", look)
    return looks, kept


async def join_counted(
    server: Any, port: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[ClientConnection, int, dict[Any, int], dict[Any, int]]:
    """A client joined once the server's transports' buffer looks are counted
    (:func:`counted_looks`, the class found by a first client)."""
    first, peer = await join(port)
    looks, kept = counted_looks(monkeypatch, type(server._peers[peer].connection.transport))
    await first.close()
    client, peer = await join(port)
    return client, peer, looks, kept


def test_a_turns_packets_to_a_ready_peer_cost_one_write_and_one_look(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While nothing waits for a peer, the packets a turn sends it, alone or in frames, are
    one write of their frames at the end of the turn and one look at the transport's buffer
    after it (not one before and one after each packet); the client gets all, in order."""

    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer, looks, _ = await join_counted(server, port, monkeypatch)
        transport = server._peers[peer].connection.transport
        server.send_raw(peer, b"first")  # the connection finds out it is ready
        await asyncio.sleep(0)
        writes = spy_writes(server, peer)
        before = looks[transport]
        mode = mpws.TransferMode.RELIABLE
        for i in range(10):
            server.send_raw(peer, b"%d" % i)
        server.send_encoded_many([(peer, b"\x03" + bytes([i]) * 200, mode, 0) for i in range(5)])
        assert looks[transport] == before and writes == []
        await asyncio.sleep(0)
        assert looks[transport] - before == 1
        expected = [b"\x03%d" % i for i in range(10)]
        expected += [b"\x03" + bytes([i]) * 200 for i in range(5)]
        assert writes == [b"".join(mpws.binary_frame(data) for data in expected)]
        assert [await recv(client) for _ in range(16)] == [b"\x03first", *expected]
        await client.close()

    body()


def test_a_direct_write_the_socket_keeps_pauses_then_drops_the_peer_as_before(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The one look after a direct write is the outbox's: a transport that keeps 600 bytes
    of max_unsent 1,000 pauses reading from the peer; while it is full a packet is admitted
    by the outbox, and one that would pass the limit drops the peer; once the buffer drains
    the peer is written directly again."""

    @serving(max_unsent=1000, stall_timeout=30)
    async def body(server: Any, port: int) -> None:
        client, peer, _, kept = await join_counted(server, port, monkeypatch)
        state = server._peers[peer]
        connection, transport = state.connection, state.connection.transport
        server.send_raw(peer, b"a")
        server.flush()
        assert connection.ready and not state.outbox.full
        kept[transport] = 600  # the socket took only part of the next one
        server.send_raw(peer, b"b")
        server.flush()
        assert state.outbox.full and not connection.ready and not transport.is_reading()
        kept[transport] = 0  # drained: the outbox's poll resumes reading
        await until(lambda: not state.outbox.full)
        server.send_raw(peer, b"c")  # through the outbox, then found ready again
        assert connection.ready and transport.is_reading()
        assert [await recv(client) for _ in range(3)] == [b"\x03a", b"\x03b", b"\x03c"]
        kept[transport] = 600
        server.send_raw(peer, b"d")
        server.flush()
        server.send_raw(peer, bytes(499))  # 600 + 500 > 1,000: dropped, not written
        assert state.outbox.closed and not connection.ready
        await left(server, peer)

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.websocket"):
        body()
    assert "1,100 bytes would wait for it, over max_unsent 1,000" in caplog.text


def test_a_transport_closing_under_a_ready_peer_takes_no_frame(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A transport cut by asyncio (a failed send or read) before the peer is told it left:
    the frames sent meanwhile are not written, and asyncio logs nothing about them."""

    @serving()
    async def body(server: Any, port: int) -> None:
        _client, peer = await join(port)
        server.send_raw(peer, b"a")
        connection = server._peers[peer].connection
        assert connection.ready
        writes = spy_writes(server, peer)
        connection.transport.abort()  # as asyncio's fatal error does; connection_lost follows
        for i in range(10):
            server.send_raw(peer, b"%d" % i)
        server.send_encoded_many([(peer, b"\x03x", mpws.TransferMode.RELIABLE, 0)] * 10)
        assert writes == []
        await left(server, peer)

    with caplog.at_level(logging.DEBUG, "asyncio"):
        body()
    assert "socket.send() raised exception" not in caplog.text


def test_frames_gathered_go_before_what_websockets_writes_in_the_same_turn() -> None:
    """A ping (or pong, or close frame) written in the turn that gathered frames goes after
    them: the gathered frames are written first."""

    @serving()
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        server.send_raw(peer, b"0")
        await asyncio.sleep(0)
        connection = server._peers[peer].connection
        writes = spy_writes(server, peer)
        server.send_raw(peer, b"a")
        server.send_raw(peer, b"b")
        pong = await connection.ping(b"p")
        assert writes[0] == b"\x82\x02\x03a\x82\x02\x03b"
        assert writes[1][:1] == b"\x89" and len(writes) == 2  # FIN, opcode 9: the ping
        assert [await recv(client) for _ in range(3)] == [b"\x030", b"\x03a", b"\x03b"]
        async with asyncio.timeout(5):
            await pong
        await client.close()

    body()


def test_a_turn_gathers_at_most_half_of_max_unsent_for_a_peer() -> None:
    """What a turn gathers for one peer stays within half of ``max_unsent`` (where the
    outbox would call it full): a packet past that writes what was gathered, goes out
    directly and looked at, and the turn gathers again behind it."""

    @serving(max_unsent=1000, stall_timeout=30)
    async def body(server: Any, port: int) -> None:
        client, peer = await join(port)
        server.send_raw(peer, b"0")
        await asyncio.sleep(0)
        writes = spy_writes(server, peer)
        packets = [b"\x03" + bytes([i]) * 100 for i in range(10)]
        for packet in packets:
            server.send_raw(peer, packet[1:])
        frames = [mpws.binary_frame(packet) for packet in packets]
        # 4 x 101 bytes gathered, the 5th past 500: written, then it directly; and again
        assert writes == [b"".join(frames[:4]), frames[4], b"".join(frames[5:9]), frames[9]]
        assert [await recv(client) for _ in range(11)] == [b"\x030", *packets]
        await client.close()

    body()
