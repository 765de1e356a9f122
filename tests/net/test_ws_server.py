"""gdvariant._net.ws_server: the WebSocket server connection on websockets' sans-I/O
``ServerProtocol``, driven with a fake transport and checked with websockets' own sans-I/O
client (``ClientProtocol``), so every byte each way is parsed by code that is not ours."""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

pytest.importorskip("websockets", reason="the websockets extra is missing")

from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.typing import Subprotocol
from websockets.uri import parse_uri

from gdvariant._net import ws_frames, ws_server
from tests.support.ws_frames import client_frame, random_frames


class FakeTransport(asyncio.Transport):
    """What the connection writes, and what it asked of the transport."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.eof = False
        self.closed = False
        self.aborted = False
        self.reading = True

    def write(self, data: bytes | bytearray | memoryview) -> None:
        assert not self.eof and not self.closed
        self.written += data

    def write_eof(self) -> None:
        self.eof = True

    def can_write_eof(self) -> bool:
        return True

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def get_write_buffer_size(self) -> int:
        return 0

    def take(self) -> bytes:
        data, self.written = bytes(self.written), bytearray()
        return data


class Recorder:
    """A handler that keeps what it heard."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.lost_count = 0
        self.pause_after: bytes | None = None  # this message pauses its connection
        self.connection: Any = None

    def received(self, data: bytes) -> None:
        self.messages.append(data)
        if data == self.pause_after:
            self.connection.pause_reading()

    def lost(self) -> None:
        self.lost_count += 1


class Rig:
    """One server connection on a fake transport, and a websockets client protocol."""

    def __init__(
        self,
        *,
        max_size: int | None = 65535,
        subprotocols: tuple[str, ...] = (),
        reader: Any = ws_frames.read,
    ):
        self.handler = Recorder()
        self.opened: list[Any] = []
        self.listener = ws_server.Listener(
            self._opened, max_size=max_size, subprotocols=[Subprotocol(p) for p in subprotocols]
        )
        self.listener.read_frames = reader
        self.connection = ws_server.ServerConnection(self.listener)
        self.transport = FakeTransport()
        self.connection.connection_made(self.transport)
        self.client = ClientProtocol(parse_uri("ws://127.0.0.1:1/"))

    def _opened(self, connection: Any) -> Recorder:
        self.opened.append(connection)
        self.handler.connection = connection
        return self.handler

    def send(self, data: bytes, chunk: int | None = None) -> None:
        """``data`` to the server, in chunks of ``chunk`` bytes (default: one, up to a read's
        size), each read as the event loop reads: into the buffer ``get_buffer`` gives, then
        ``buffer_updated``."""
        step = min(chunk or len(data) or 1, ws_server.READ_SIZE)
        for start in range(0, len(data), step):
            piece = data[start : start + step]
            self.connection.get_buffer(-1)[: len(piece)] = piece
            self.connection.buffer_updated(len(piece))

    def from_client(self) -> bytes:
        return b"".join(self.client.data_to_send())

    def to_client(self) -> list[Any]:
        """Feed what the server wrote to the client; the client's events."""
        self.client.receive_data(self.transport.take())
        return self.client.events_received()

    def handshake(self, **headers: str) -> Response:
        request = self.client.connect()
        for name, value in headers.items():
            request.headers[name] = value
        self.client.send_request(request)
        self.send(self.from_client())
        (response,) = self.to_client()
        assert isinstance(response, Response)
        return response

    def lose(self) -> None:
        self.connection.connection_lost(None)


def run(body: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(body())


def test_the_handshake_opens_with_no_extension_and_the_server_header() -> None:
    async def body() -> None:
        rig = Rig()
        response = rig.handshake(**{"Sec-WebSocket-Extensions": "permessage-deflate"})
        assert response.status_code == 101
        assert rig.client.state is State.OPEN and rig.opened == [rig.connection]
        assert "Sec-WebSocket-Extensions" not in response.headers
        assert "Sec-WebSocket-Protocol" not in response.headers
        assert response.headers["Server"].startswith("Python/")
        assert rig.connection.open

    run(body)


def test_a_sub_protocol_only_when_asked_and_offered() -> None:
    async def body() -> None:
        rig = Rig(subprotocols=("game-v1",))
        response = rig.handshake(**{"Sec-WebSocket-Protocol": "other, game-v1"})
        assert response.headers["Sec-WebSocket-Protocol"] == "game-v1"
        assert "Sec-WebSocket-Protocol" not in Rig(subprotocols=("game-v1",)).handshake().headers

    run(body)


def test_a_request_that_is_not_an_upgrade_is_refused_cleanly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A browser's plain GET: an HTTP error response, the socket closed, no handler, and
    nothing logged past INFO."""

    async def body() -> None:
        rig = Rig()
        rig.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        head = rig.transport.take()
        assert head.startswith(b"HTTP/1.1 426 Upgrade Required\r\n")
        assert b"\r\nServer: Python/" in head
        assert rig.transport.eof and rig.transport.closed and rig.opened == []
        rig.lose()
        assert rig.handler.lost_count == 0 and not rig.listener.connections

    with caplog.at_level(logging.DEBUG):
        run(body)
    assert not [r for r in caplog.records if r.levelno > logging.INFO], caplog.text


def test_garbage_instead_of_a_request_closes_without_an_answer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def body() -> None:
        rig = Rig()
        rig.send(b"\x16\x03\x01 not http at all\r\n\r\n")
        assert rig.transport.take() == b"" and rig.transport.closed and rig.opened == []

    with caplog.at_level(logging.DEBUG):
        run(body)
    assert not [r for r in caplog.records if r.levelno > logging.INFO], caplog.text


def test_a_server_closing_refuses_a_handshake_with_503() -> None:
    async def body() -> None:
        rig = Rig()
        rig.listener.closing = True
        assert rig.handshake().status_code == 503 and rig.opened == []

    run(body)


@pytest.mark.parametrize("chunk", [1, 2, 7, 1000])
def test_messages_split_across_chunks_arrive_whole_and_in_order(chunk: int) -> None:
    """Every byte of the handshake and of three messages (7-bit, 16-bit and 64-bit lengths,
    masked as a client's are) in chunks as small as one byte."""

    async def body() -> None:
        rig = Rig(max_size=None)
        request = rig.client.connect()
        rig.client.send_request(request)
        rig.send(rig.from_client(), chunk)
        assert rig.opened and rig.to_client()[0].status_code == 101
        rig.to_client()  # the peer id is the owner's business; nothing else was written
        messages = [b"a", bytes(range(256)) * 2, bytes(70_000)]
        for message in messages:
            rig.client.send_binary(message)
        rig.send(rig.from_client(), chunk)
        assert rig.handler.messages == messages

    run(body)


def test_reads_go_through_one_buffer_of_the_listener_and_messages_are_copies() -> None:
    """As the event loop reads: into the buffer ``get_buffer`` gives, then ``buffer_updated``
    with the count. Every connection of a listener reads into the same one (no new bytes
    object of the read size a message), and what a handler got stays as it was when the
    buffer is read into again."""

    async def body() -> None:
        rig = Rig(max_size=None)
        other = ws_server.ServerConnection(rig.listener)
        buffer = rig.connection.get_buffer(-1)
        assert buffer is other.get_buffer(-1) is rig.listener.read_buffer
        assert len(buffer) == ws_server.READ_SIZE

        def read(data: bytes) -> None:
            for start in range(0, len(data), 5):
                chunk = data[start : start + 5]
                rig.connection.get_buffer(-1)[: len(chunk)] = chunk
                rig.connection.buffer_updated(len(chunk))

        rig.client.send_request(rig.client.connect())
        read(rig.from_client())
        assert rig.to_client()[0].status_code == 101
        messages = [b"first message", bytes(range(40)), b"x"]
        for message in messages:
            rig.client.send_binary(message)
        read(rig.from_client())
        buffer[:64] = bytes(64)
        assert rig.handler.messages == messages

    run(body)


def test_fragmented_and_text_messages_are_one_message_each() -> None:
    async def body() -> None:
        rig = Rig()
        rig.handshake()
        rig.client.send_binary(b"one ", fin=False)
        rig.client.send_continuation(b"two ", fin=False)
        rig.client.send_continuation(b"three", fin=True)
        rig.client.send_text("héllo".encode())
        rig.client.send_text(b"par", fin=False)
        rig.client.send_continuation(b"ts", fin=True)
        rig.send(rig.from_client(), 3)
        assert rig.handler.messages == [b"one two three", "héllo".encode(), b"parts"]

    run(body)


def test_a_text_message_that_is_not_utf8_closes_with_1007() -> None:
    async def body() -> None:
        rig = Rig()
        rig.handshake()
        rig.client.send_text(b"\xff\xfe")
        rig.client.send_binary(b"after")
        rig.send(rig.from_client())
        events = rig.to_client()
        assert rig.handler.messages == []
        assert [e.opcode for e in events] == [Opcode.CLOSE] and rig.client.close_rcvd is not None
        assert rig.client.close_rcvd.code == 1007 and rig.transport.eof

    run(body)


def test_a_message_over_max_size_closes_with_1009_even_in_fragments() -> None:
    async def body() -> None:
        for fragments in ([1001], [600, 401]):
            rig = Rig(max_size=1000)
            rig.handshake()
            for i, size in enumerate(fragments):
                fin = i == len(fragments) - 1
                if i == 0:
                    rig.client.send_binary(bytes(size), fin=fin)
                else:
                    rig.client.send_continuation(bytes(size), fin=fin)
            rig.send(rig.from_client())
            rig.to_client()
            assert rig.handler.messages == []
            assert rig.client.close_rcvd is not None and rig.client.close_rcvd.code == 1009

    run(body)


def test_a_peer_closing_mid_frame_ends_once_with_nothing_delivered() -> None:
    async def body() -> None:
        rig = Rig()
        rig.handshake()
        rig.client.send_binary(b"complete")
        rig.client.send_binary(bytes(300))
        data = rig.from_client()
        rig.send(data[: len(data) - 100])  # the second frame cut in its payload
        rig.connection.eof_received()
        rig.lose()
        assert rig.handler.messages == [b"complete"] and rig.handler.lost_count == 1
        assert rig.connection.lost_waiter.done() and not rig.connection.open

    run(body)


def test_pings_are_answered_and_a_closing_handshake_ends_the_connection() -> None:
    async def body() -> None:
        rig = Rig()
        rig.handshake()
        rig.client.send_ping(b"hi")
        rig.client.send_close(1000)
        rig.send(rig.from_client())
        events = rig.to_client()
        assert [(e.opcode, e.data) for e in events[:1]] == [(Opcode.PONG, b"hi")]
        assert rig.client.close_rcvd is not None and rig.client.close_rcvd.code == 1000
        assert rig.transport.eof  # the server ends its half once the handshake is done

    run(body)


def test_messages_read_while_paused_wait_and_go_in_order_on_resume() -> None:
    async def body() -> None:
        rig = Rig()
        rig.handshake()
        for i in range(4):
            rig.client.send_binary(b"%d" % i)
        data = rig.from_client()
        rig.handler.pause_after = b"1"
        rig.send(data)  # one chunk: 0 and 1 delivered, 1 pauses, 2 and 3 wait
        assert rig.handler.messages == [b"0", b"1"] and not rig.transport.reading
        rig.connection.resume_reading()
        assert rig.handler.messages == [b"0", b"1", b"2", b"3"] and rig.transport.reading

    run(body)


def test_close_waits_close_timeout_for_the_client_then_cuts(monkeypatch: Any) -> None:
    monkeypatch.setattr(ws_server, "CLOSE_TIMEOUT", 0.01)

    async def body() -> None:
        rig = Rig()
        rig.handshake()
        rig.connection.close(1008)
        rig.to_client()
        assert rig.client.close_rcvd is not None and rig.client.close_rcvd.code == 1008
        assert not rig.connection.open and not rig.transport.aborted
        await asyncio.sleep(0.05)
        assert rig.transport.aborted

    run(body)


def test_a_handshake_not_finished_in_open_timeout_is_cut(monkeypatch: Any) -> None:
    monkeypatch.setattr(ws_server, "OPEN_TIMEOUT", 0.01)

    async def body() -> None:
        rig = Rig()
        rig.send(b"GET / HTTP/1.1\r\n")
        await asyncio.sleep(0.05)
        assert rig.transport.aborted and rig.opened == []

    run(body)


def test_keepalive_pings_and_closes_1011_when_no_pong_comes(monkeypatch: Any) -> None:
    monkeypatch.setattr(ws_server, "PING_INTERVAL", 0.01)
    monkeypatch.setattr(ws_server, "PING_TIMEOUT", 0.05)

    async def body() -> None:
        rig = Rig()
        rig.handshake()
        await asyncio.sleep(0.03)
        pings = [e for e in rig.to_client() if e.opcode is Opcode.PING]
        assert len(pings) == 1
        rig.send(rig.from_client())  # the client's pong: the next ping follows
        await asyncio.sleep(0.03)
        assert [e.opcode for e in rig.to_client()] == [Opcode.PING]
        await asyncio.sleep(0.08)  # no pong this time
        rig.to_client()
        assert rig.client.close_rcvd is not None and rig.client.close_rcvd.code == 1011

    run(body)


def test_ping_returns_a_future_its_pong_resolves() -> None:
    async def body() -> None:
        rig = Rig()
        rig.handshake()
        first = await rig.connection.ping(b"one")
        second = await rig.connection.ping()
        rig.to_client()
        rig.send(rig.from_client())  # both pongs
        assert first.result() >= 0 and second.result() >= 0
        pending = await rig.connection.ping(b"never answered")
        rig.lose()
        assert isinstance(pending.exception(), Exception)

    run(body)


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_listener_close_sends_1001_and_waits_for_every_connection(loop: str) -> None:
    """Over real sockets, on asyncio's loop and uvloop's (whose transports are not
    ``asyncio.Transport`` subclasses): messages both ways, then close."""

    async def body() -> None:
        from websockets.asyncio.client import connect

        lost: list[int] = []
        received: list[bytes] = []

        class Handler:
            def received(self, data: bytes) -> None:
                received.append(data)

            def lost(self) -> None:
                lost.append(1)

        listener = ws_server.Listener(lambda connection: Handler(), max_size=1000)
        port = await listener.listen("127.0.0.1", 0)
        clients = [await connect(f"ws://127.0.0.1:{port}", compression=None) for _ in range(3)]
        for i, client in enumerate(clients):
            await client.send(b"%d" % i)
        while len(received) < 3:
            await asyncio.sleep(0.01)
        await listener.close()
        assert lost == [1, 1, 1] and not listener.connections
        for client in clients:
            await client.wait_closed()
            assert client.close_code == 1001
        assert sorted(received) == [b"0", b"1", b"2"]

    if loop == "uvloop":
        uvloop = pytest.importorskip("uvloop", reason="the uvloop extra is missing")
        uvloop.run(body())
    else:
        run(body)


def test_gathered_frames_are_one_write_and_go_before_the_close_answer() -> None:
    """A ready connection's gathered frames: nothing written until the listener flushes
    (one write, then the room is whole again); a close frame from the client, answered in
    the same turn, is written after them, and the connection is no longer ready."""

    async def body() -> None:
        rig = Rig()
        rig.handshake()
        connection = rig.connection
        connection.watch(1000, 10.0, lambda reason: None)
        assert not connection.ready and connection.room == 500
        connection.refresh()
        assert connection.ready
        frames = [Frame(Opcode.BINARY, b"%d" % i).serialize(mask=False) for i in range(3)]
        connection.gather(frames[0])
        connection.pending.extend(frames[1:])
        connection.room -= 3
        assert rig.transport.written == b"" and connection.gathered() == (9, 3)
        rig.listener.flush()
        assert rig.transport.take() == b"".join(frames)
        assert connection.pending is None and connection.room == 500 and connection.ready
        connection.gather(frames[0])
        rig.client.send_close(1000)
        rig.send(rig.from_client())  # answered in the turn that gathered
        events = rig.to_client()
        assert [(e.opcode, e.data) for e in events[:1]] == [(Opcode.BINARY, b"0")]
        assert events[1].opcode is Opcode.CLOSE and not connection.ready
        rig.listener.flush()  # nothing left to write
        assert rig.transport.written == b""

    run(body)


def test_frames_gathered_for_a_connection_lost_are_dropped() -> None:
    async def body() -> None:
        rig = Rig()
        rig.handshake()
        rig.connection.watch(1000, 10.0, lambda reason: None)
        rig.connection.refresh()
        rig.connection.gather(Frame(Opcode.BINARY, b"x").serialize(mask=False))
        rig.lose()
        rig.listener.flush()
        assert rig.transport.written == b"" and not rig.connection.ready

    run(body)


class Replier(Recorder):
    """A handler that also writes a reply at once for each message (as a game's RPC answer
    may), so that its order against the protocol's own answers shows."""

    def received(self, data: bytes) -> None:
        super().received(data)
        if self.connection.open:
            self.connection.transport.write(b"<reply %d>" % len(data))


def _outcome(reader: Any, stream: bytes, cuts: list[int], pause_after: bytes | None) -> Any:
    """Everything a connection did with ``stream`` (after its handshake) read in the chunks
    ``cuts`` makes: messages handed on, bytes written, how the transport ended, close codes."""
    rig = Rig(reader=reader)
    rig.handler = Replier()
    rig.handler.pause_after = pause_after
    rig.handshake()
    rig.transport.take()
    protocol = rig.connection.protocol
    steps = []  # what each chunk changed, so that nothing is answered a chunk late
    for start, end in itertools.pairwise(cuts):
        rig.send(stream[start:end])
        if rig.connection.paused:
            rig.connection.resume_reading()
        steps.append((len(rig.handler.messages), len(rig.transport.written), protocol.state))
    rig.connection.eof_received()
    return (
        steps,
        repr(protocol.parser_exc),
        rig.handler.messages,
        rig.transport.take(),
        (rig.transport.eof, rig.transport.closed, rig.transport.aborted),
        protocol.state,
        protocol.close_sent and (protocol.close_sent.code, protocol.close_sent.reason),
        protocol.close_rcvd and (protocol.close_rcvd.code, protocol.close_rcvd.reason),
    )


@pytest.mark.parametrize("name", sorted(ws_frames.implementations()))
def test_the_frame_reader_changes_nothing_websockets_would_do(name: str) -> None:
    """The differential test of the fast path: the same random client streams (whole binary
    messages of sizes at every length form's edge, pings, pongs, text, messages in fragments,
    closes and bad frames) cut at random into chunks, read by a connection whose frames
    websockets alone reads and by one that reads whole binary frames itself: the same
    messages handed on, the same bytes written back (pongs, closes, and a handler's replies
    between them), the same close codes and end. The reader must have taken frames."""
    reader = ws_frames.implementations()[name]
    taken = 0

    def counting(data: bytes, start: int, limit: int) -> tuple[list[bytes], int]:
        nonlocal taken
        found, stop = reader(data, start, limit)
        taken += len(found)
        return found, stop

    async def body() -> None:
        rng = random.Random(1400)
        for _ in range(400):
            frames = [one for _ in range(rng.randrange(1, 30)) for one in random_frames(rng)]
            stream = b"".join(frames)
            if rng.random() < 0.2:  # the client's stream ends mid-frame
                stream = stream[: rng.randrange(len(stream))] or stream
            cuts = sorted(
                {0, len(stream), *(rng.randrange(len(stream)) for _ in range(rng.randrange(6)))}
            )
            if rng.random() < 0.4:  # chunks at frame boundaries, as most reads are
                edges = [0]
                for one in frames:
                    edges.append(edges[-1] + len(one))
                cuts = sorted(
                    set(rng.sample(edges, rng.randrange(1, len(edges) + 1))) | {0, len(stream)}
                )
            if rng.random() < 0.1 and len(stream) < 3000:
                cuts = list(range(len(stream) + 1))  # a byte at a time
            pause = rng.choice([None, b""]) if rng.random() < 0.2 else None
            expected = _outcome(None, stream, cuts, pause)
            assert _outcome(counting, stream, cuts, pause) == expected

    run(body)
    assert taken > 1000


def test_frames_after_the_request_in_its_chunk_stay_websockets_own() -> None:
    """A client that sends a frame in the request's chunk: the connection cannot know what of
    it websockets holds, so websockets reads every frame of that connection."""

    async def body() -> None:
        taken = []

        def counting(data: bytes, start: int, limit: int) -> tuple[list[bytes], int]:
            found, stop = ws_frames.read(data, start, limit)
            taken.extend(found)
            return found, stop

        rig = Rig(reader=counting)
        rig.client.send_request(rig.client.connect())
        # a message whose payload (masked with zeros) looks like a whole frame of its own
        inner = client_frame(b"fake")
        early = client_frame(inner, mask=bytes(4))
        rig.send(rig.from_client() + early[:6])  # its head and mask
        rig.send(early[6:] + client_frame(b"later"))
        assert rig.handler.messages == [inner, b"later"] and taken == []
        other = Rig(reader=counting)
        other.handshake()
        other.send(client_frame(b"fast"))
        assert other.handler.messages == [b"fast"] and taken == [b"fast"]

    run(body)


def test_a_frame_whose_head_and_payload_come_apart_is_still_the_readers() -> None:
    """A Godot client writes a frame's head and its payload apart, and a read can end
    between them: the connection holds the head (websockets has nothing) and the reader
    takes the frame whole on the next read. A stream that ends there ends as websockets
    would end it, cut mid-frame (1006, nothing handed on)."""

    async def body() -> None:
        taken: list[bytes] = []

        def counting(data: bytes, start: int, limit: int) -> tuple[list[bytes], int]:
            found, stop = ws_frames.read(data, start, limit)
            taken.extend(found)
            return found, stop

        rig = Rig(reader=counting)
        rig.handshake()
        one, two = client_frame(b"first"), client_frame(bytes(300))
        rig.send(one[:6])
        rig.send(one[6:] + two[:3])
        rig.send(two[3:9])
        assert rig.handler.messages == [b"first"] == taken
        rig.send(two[9:])
        assert rig.handler.messages == [b"first", bytes(300)] == taken
        rig.send(client_frame(b"cut")[:7])
        rig.connection.eof_received()
        alone = Rig(reader=None)
        alone.handshake()
        alone.send(client_frame(b"cut")[:7])
        alone.connection.eof_received()
        assert repr(rig.connection.protocol.parser_exc) == repr(
            alone.connection.protocol.parser_exc
        )
        assert "expected 3 bytes" in str(rig.connection.protocol.parser_exc)
        assert rig.handler.messages == [b"first", bytes(300)]

    run(body)
