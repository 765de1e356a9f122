"""A WebSocket server on ``websockets``' sans-I/O :class:`~websockets.server.ServerProtocol`
under an :class:`asyncio.BufferedProtocol`: bytes in, whole messages out, in the same call.

``websockets``' asyncio server hands each message to a reader task through a queue and a
future, and writes through coroutines; a game server reads many small messages a tick
(pings, RPCs), and that machinery cost it more than handling them (docs/multiplayer.md,
"WebSocket transport"). Here :meth:`ServerConnection.data_received` feeds the chunk (read
into one buffer the listener keeps: :data:`READ_SIZE`) to the protocol, writes what it
answers (the handshake response, pongs, close frames) to the transport, and passes each
whole message to the :class:`Handler` at once. Going out, a ready
connection gathers the frames of one turn of the loop (:meth:`ServerConnection.gather`) and
the :class:`Listener` writes each connection's in one write when the turn ends: one send to
the kernel a peer a turn, not one a packet (docs/multiplayer.md, "WebSocket transport").
Coming in, an open connection reads a client's whole binary frames itself
(:mod:`.ws_frames`, compiled when built) and feeds ``websockets`` only the rest, from the first
frame of another kind, so that ``websockets`` judges every such frame as it always did; a
game's RPCs and pings then skip its generator parser (docs/multiplayer.md, "WebSocket
transport").
Only the public sans-I/O API is used: ``ServerProtocol``'s ``receive_data`` / ``events_received`` /
``data_to_send`` / ``accept`` / ``reject`` / ``send_response`` / ``send_*`` / ``fail``, its
``Frame`` events and ``http11``'s ``Request`` and ``SERVER``.

What ``websockets.asyncio.server.serve`` did around the protocol is kept, with its defaults:
the ``Server`` response header, 10 s to finish the opening handshake, a keepalive ping every
20 s answered within 20 s (else close 1011), a text message checked as UTF-8 (else close
1007), :data:`CLOSE_TIMEOUT` for the closing handshake, and on :meth:`Listener.close` close
1001 to open connections.
"""

from __future__ import annotations

import asyncio
import random
import struct
import sys
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol, cast

from . import ws_frames
from .outbox import Outbox
from .ws_connections import CLOSE_TIMEOUT
from .ws_frames import frame_size, holdable

try:
    from websockets.frames import Frame, Opcode
    from websockets.http11 import SERVER, Request
    from websockets.protocol import Event, State
    from websockets.server import ServerProtocol
    from websockets.typing import Subprotocol
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant's WebSocket server needs the 'websockets' package: "
        "pip install 'gdvariant[websockets]'"
    ) from exc

__all__ = [
    "OPEN_TIMEOUT",
    "PING_INTERVAL",
    "PING_TIMEOUT",
    "READ_SIZE",
    "Handler",
    "Listener",
    "ServerConnection",
]

#: Seconds a client has to finish the opening handshake (``serve``'s ``open_timeout``).
OPEN_TIMEOUT = 10.0
#: Seconds between keepalive pings, and to answer one (``serve``'s defaults).
PING_INTERVAL = 20.0
PING_TIMEOUT = 20.0

_OPEN = State.OPEN
_BINARY = Opcode.BINARY
_TEXT = Opcode.TEXT
_CONT = Opcode.CONT
_PONG = Opcode.PONG
_GOING_AWAY = 1001
_INVALID_DATA = 1007
_INTERNAL_ERROR = 1011
#: Bytes a read may take, into the one buffer every connection of a listener reads into
#: (asyncio's own read size). A plain ``asyncio.Protocol`` is handed a new bytes object of
#: that size for each read, which the allocator maps from the kernel and unmaps again: three
#: system calls and fresh pages for every message a client sends; a read's bytes are taken
#: out of the buffer before the next read.
READ_SIZE = 256 * 1024


class Handler(Protocol):
    """What an open connection tells its owner."""

    def received(self, data: bytes) -> None:
        """A whole message (a text one as its UTF-8 bytes)."""

    def lost(self) -> None:
        """The TCP connection is gone; nothing follows."""


class ServerConnection(asyncio.BufferedProtocol):
    """One client's connection: the sans-I/O protocol, its transport and its timers.

    ``handler`` is None until the opening handshake succeeds (then ``listener.opened`` gives
    it). While :meth:`pause_reading` holds (an outbox that is full), messages already read
    wait in order and go out on :meth:`resume_reading`.
    """

    transport: asyncio.Transport

    def __init__(self, listener: Listener) -> None:
        self.listener = listener
        self.protocol = ServerProtocol(
            subprotocols=listener.subprotocols or None, max_size=listener.max_size
        )
        self.handler: Handler | None = None
        self.outbox: Outbox | None = None
        #: whether a frame may go straight to the transport, looked at only after: open,
        #: nothing buffered at the last look, the outbox neither full nor closed nor queuing
        #: (kept by every call that may change one of them; :meth:`refresh` finds it again)
        self.ready = False
        #: frames gathered this turn of the loop for one write (:meth:`gather`, or by an
        #: owner that writes them with :meth:`flush` itself), only while ready; ``room``: how
        #: many payload bytes more the turn may gather (half of the outbox's limit, 0 until
        #: :meth:`watch`)
        self.pending: list[bytes] | None = None
        self.room = 0
        self._room = 0
        self.paused = False
        self._held: deque[bytes] = deque()
        self._fragments: list[bytes] = []
        #: the frame reader (None: the protocol reads every frame), its size limit, and
        #: whether it reads: only once the protocol, open, was fed the request alone
        self._read = listener.read_frames or ws_frames.read
        self._limit = sys.maxsize if listener.max_size is None else listener.max_size
        self._fast = False
        self._first = True
        #: what the protocol holds of a frame: bytes still to come (its size known), or the
        #: part of its head; and whether it holds part of a message in fragments
        self._owed = 0
        self._head = b""
        self._continuing = False
        #: the start of a frame the reader will take once whole, held while the protocol
        #: holds nothing (given to the protocol before an end of stream)
        self._start = b""
        self._text = False  # whether the message in _fragments is a text one
        self._loop = asyncio.get_running_loop()
        self.lost_waiter: asyncio.Future[None] = self._loop.create_future()
        self._deadline: asyncio.TimerHandle | None = None
        self._keepalive: asyncio.TimerHandle | None = None
        #: pings sent and not answered: data -> (the caller's future or None for keepalive, sent at)
        self._pings: dict[bytes, tuple[asyncio.Future[float] | None, float]] = {}

    # asyncio.BufferedProtocol

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.listener.read_buffer

    def buffer_updated(self, nbytes: int) -> None:
        """A read into the listener's buffer. A connection that reads frames itself reads it
        in place (:meth:`_mixed`): its whole binary frames are taken straight from the
        buffer, each payload unmasked into its own bytes, and only what is kept or fed to
        the protocol is copied out. Otherwise the read is copied out whole
        (:meth:`data_received`)."""
        view = self.listener.read_buffer[:nbytes]
        if self._fast:
            self._mixed(view)
        else:
            self.data_received(view.tobytes())

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.listener.connections.add(self)
        self._deadline = self._loop.call_later(OPEN_TIMEOUT, self.transport.abort)

    def data_received(self, data: bytes) -> None:
        """A chunk of the stream read: whole messages on, the rest to the protocol (and its
        answers out). While the connection is open and the protocol holds no part of a
        frame or message, the client's whole binary frames are read here (:mod:`.ws_frames`);
        at the first other frame the rest goes to the protocol (:meth:`_mixed`)."""
        if self._fast:
            self._mixed(data)
            return
        protocol = self.protocol
        protocol.receive_data(data)
        events = protocol.events_received()
        writes = protocol.data_to_send()
        if writes:
            self._write(writes)
        elif self.ready and protocol.state is not _OPEN:
            self.flush()
            self.ready = False
        if self.handler is None:
            first, self._first = self._first, False
            if not self._handshake(events):
                return
            # the protocol holds nothing after the request only if it ended the first chunk
            end = data.find(b"\r\n\r\n") + 4
            self._fast = first and end == len(data) and self.listener.read_frames is not None
        self._hand(cast(list[object], events))

    def eof_received(self) -> None:
        self.flush()
        self.ready = False
        self._give_back()
        self.protocol.receive_eof()
        self._write(self.protocol.data_to_send())
        # returning None closes the transport: the closing handshake needs nothing more

    def connection_lost(self, exc: Exception | None) -> None:
        self.ready = False
        self.pending = None  # nowhere to write it
        self._give_back()
        self.protocol.receive_eof()  # idempotent: the protocol is CLOSED
        for timer in (self._deadline, self._keepalive):
            if timer is not None:
                timer.cancel()
        self._deadline = self._keepalive = None
        closed = self.protocol.close_exc
        for future, _ in self._pings.values():
            if future is not None and not future.done():
                future.set_exception(closed)
                future.exception()  # nobody need await it
        self._pings.clear()
        self._held.clear()
        self.listener.connections.discard(self)
        if self.handler is not None:
            self.handler.lost()
        self.lost_waiter.set_result(None)

    # what the owner calls

    @property
    def open(self) -> bool:
        """Whether a data frame may be written now (open, not closing)."""
        return self.protocol.state is _OPEN and not self.transport.is_closing()

    def refresh(self) -> None:
        """Find out whether the connection is :attr:`ready` (after a write that was not)."""
        outbox = self.outbox
        self.ready = (
            outbox is not None
            and not (outbox.queued or outbox.held or outbox.closed or outbox.full)
            and self.open
            and not self.transport.get_write_buffer_size()
        )

    def close(self, code: int) -> None:
        """Start the closing handshake with ``code``; the transport is cut if the client has
        not finished it within :data:`CLOSE_TIMEOUT`."""
        self.flush()
        self.ready = False
        if self.protocol.state is _OPEN:
            self.protocol.send_close(code)
            self._write(self.protocol.data_to_send())
        elif self.handler is None:
            self.transport.abort()

    async def ping(self, data: bytes | None = None) -> asyncio.Future[float]:
        """Send a ping; the future gets the round trip in seconds when its pong (or a later
        one's) arrives."""
        future: asyncio.Future[float] = self._loop.create_future()
        self._send_ping(data, future)
        return future

    def watch(self, limit: int, timeout: float, drop: Callable[[str], None]) -> Outbox:
        """An outbox counting this transport's write buffer (pongs included): full, it stops
        reading; dropped, it calls ``drop(reason)`` (log it) and aborts the connection."""
        transport = self.transport

        def dropped(reason: str) -> None:
            self.flush()
            self.ready = False
            drop(reason)
            transport.abort()

        self.outbox = Outbox(
            limit,
            timeout,
            pause=self.pause_reading,
            resume=self.resume_reading,
            drop=dropped,
            buffered=transport.get_write_buffer_size,
        )
        self.room = self._room = self.outbox.backlog.half
        return self.outbox

    def gather(self, frame: bytes) -> None:
        """The first frame of this turn for a :attr:`ready` connection: it waits in
        :attr:`pending` (the owner appends the next ones, while ``room`` lasts) until the
        listener writes every connection's frames at the end of the turn, one write each."""
        self.pending = [frame]
        listener = self.listener
        listener.gathered.append(self)
        if listener.flushing is None:
            listener.flushing = self._loop.call_soon(listener.flush)

    def flush(self) -> None:
        """Write the frames gathered this turn in one write (none while the transport is
        closing, as none would have been written one by one), then look at the buffer once
        (:meth:`write_ready`'s look, here without a call more a peer and a tick)."""
        pending = self.pending
        if pending is None:
            return
        self.pending = None
        self.room = self._room
        transport = self.transport
        if not transport.is_closing():
            transport.write(pending[0] if len(pending) == 1 else b"".join(pending))
            if transport.get_write_buffer_size():
                self._kept()

    def write_ready(self, data: bytes) -> None:
        """Write ``data`` to a :attr:`ready` transport that is not closing, then look at its
        buffer once: if it kept some, the connection is no longer ready and the outbox
        looks (the outbox is not asked while the kernel takes everything)."""
        transport = self.transport
        transport.write(data)
        if transport.get_write_buffer_size():
            self._kept()

    def _kept(self) -> None:
        """The transport kept some of a write: not ready any more, and the outbox looks."""
        self.ready = False
        if self.outbox is not None:
            self.outbox.check()

    def gathered(self) -> tuple[int, int]:
        """Bytes and frames gathered this turn, not written yet."""
        pending = self.pending or ()
        return sum(map(len, pending)), len(pending)

    def pause_reading(self) -> None:
        """Stop reading; messages of a chunk already read wait."""
        self.paused = True
        self.transport.pause_reading()

    def resume_reading(self) -> None:
        """Hand over the messages that waited, then read again (unless paused meanwhile)."""
        self.paused = False
        held, handler = self._held, self.handler
        while held and not self.paused and handler is not None:
            handler.received(held.popleft())
        if not self.paused and not self.transport.is_closing():
            self.transport.resume_reading()

    # inside

    def _write(self, writes: list[bytes]) -> None:
        """Write what the protocol answered: bytes, or b"" for the end of our half."""
        self.flush()  # after the frames gathered before it
        self.ready = False  # found again by the next frame's write
        transport = self.transport
        for data in writes:
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                try:
                    transport.write_eof()
                except Exception:  # pragma: no cover - uvloop may raise on a dead socket
                    transport.abort()
            else:  # pragma: no cover - TLS
                transport.close()
        if self.outbox is not None:
            self.outbox.check()
        if self._deadline is None and self.protocol.close_expected():
            self._deadline = self._loop.call_later(CLOSE_TIMEOUT, transport.abort)

    def _mixed(self, data: bytes | memoryview) -> None:
        """Read ``data`` (behind the start of a frame held here) with the protocol's help:
        the reader takes the whole binary frames it can, the protocol is fed one of its
        frames at a time (or all that is left once it is not open), and what it answers is
        written before anything is handed on, as when it read the whole chunk. ``data`` may
        be a view of the listener's buffer: only what is kept (a frame's start) or fed to
        the protocol is copied out."""
        if self._start:
            data, self._start = self._start + data, b""
        protocol, read, limit = self.protocol, self._read, self._limit
        items: list[object] = []
        writes: list[bytes] | None = None  # what the protocol answered, once it was fed
        pos, end = 0, len(data)
        while pos < end:
            if protocol.state is not _OPEN:
                span = end - pos
            else:
                if not (self._owed or self._head or self._continuing):
                    found, pos = read(data, pos, limit)
                    items += found
                    if pos == end:
                        break
                    if holdable(data, pos, limit):
                        self._start = bytes(data[pos:])
                        break
                span = self._span(data, pos)
            protocol.receive_data(bytes(data[pos : pos + span]))
            pos += span
            events = protocol.events_received()
            for event in cast(list[Frame], events):
                opcode = event.opcode
                if opcode is _BINARY or opcode is _TEXT:
                    self._continuing = not event.fin
                elif opcode is _CONT and event.fin:
                    self._continuing = False
            items += events
            if writes is None:
                writes = protocol.data_to_send()
            else:
                writes += protocol.data_to_send()
        if writes is not None:  # the protocol's state changes only when it is fed
            if writes:
                self._write(writes)
            elif self.ready and protocol.state is not _OPEN:
                self.flush()
                self.ready = False
        if items:  # none when a read ends in a frame's head, as Godot's often do
            self._hand(items)

    def _give_back(self) -> None:
        """Before the end of the stream: the start of a frame held here goes to the protocol,
        which then ends the stream as it would have with those bytes (cut mid-frame)."""
        if self._start:
            start, self._start = self._start, b""
            self.protocol.receive_data(start)  # a frame it would take: no event, no answer

    def _span(self, data: bytes | memoryview, pos: int) -> int:
        """How many bytes from ``pos`` are the protocol's: the rest of the frame it holds
        part of, else the frame at ``pos``; what of it is still to come is noted (its size
        in :attr:`_owed`, or the part of a head in :attr:`_head`)."""
        end = len(data)
        if self._head:
            held = self._head + data[pos : pos + 14]  # a head is at most 14 bytes
            size = frame_size(held, 0)
            if size is None:
                self._head = held
                return end - pos
            owed = size - len(self._head)
            self._head = b""
        elif self._owed:
            owed = self._owed
        else:
            size = frame_size(data, pos)
            if size is None:
                self._head = bytes(data[pos:])
                return end - pos
            owed = size
        if owed > end - pos:
            self._owed = owed - (end - pos)
            return end - pos
        self._owed = 0
        return owed

    def _hand(self, events: Sequence[object]) -> None:
        """Hand on the messages of what was read: payloads the fast path took (bytes) and
        the protocol's frames, in the stream's order."""
        for event in events:
            if type(event) is bytes:
                if self.paused:
                    self._held.append(event)
                else:
                    self.handler.received(event)  # type: ignore[union-attr]
                continue
            frame = cast(Frame, event)
            if frame.opcode is _BINARY and frame.fin and not self._fragments:
                # a frame's data is bytes: websockets reads it with read_exact
                if self.paused:
                    self._held.append(frame.data)  # type: ignore[arg-type]
                else:
                    cast(Handler, self.handler).received(frame.data)  # type: ignore[arg-type]
            elif not self._frame(frame):
                return  # the connection failed: nothing after it is read

    def _handshake(self, events: list[Event]) -> bool:
        """Answer the opening request if it came; whether the connection is open now, and
        ``events`` left with the frames that came after the request."""
        protocol, transport = self.protocol, self.transport
        if not events or not isinstance(events[0], Request):
            if protocol.close_expected():  # not an HTTP request: websockets sent EOF
                transport.close()
            return False
        request = cast(Request, events.pop(0))
        if self.listener.closing:
            response = protocol.reject(503, "Server is shutting down.\n")
        else:
            response = protocol.accept(request)
        response.headers["Server"] = SERVER
        protocol.send_response(response)
        self._write(protocol.data_to_send())
        if protocol.state is not _OPEN:
            transport.close()
            return False
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.handler = self.listener.opened(self)
        self._keepalive = self._loop.call_later(PING_INTERVAL, self._send_ping, None, None)
        return True

    def _frame(self, frame: Frame) -> bool:
        """A frame other than a whole binary message: a part, a text message, a pong (pings
        and closes the protocol answered itself); False if it failed the connection."""
        opcode = frame.opcode
        if opcode is _BINARY or opcode is _TEXT or opcode is _CONT:
            if opcode is not _CONT:
                self._text = opcode is _TEXT
            self._fragments.append(cast(bytes, frame.data))
            if not frame.fin:
                return True
            data = b"".join(self._fragments)
            self._fragments.clear()
            if not self._valid_text(data):
                return False
            if self.paused:
                self._held.append(data)
            elif self.handler is not None:
                self.handler.received(data)
        elif opcode is _PONG:
            self._pong(cast(bytes, frame.data))
        return True

    def _valid_text(self, data: bytes) -> bool:
        """Binary, or valid UTF-8 text; else the connection fails with 1007, as
        ``websockets``' ``recv`` does."""
        if not self._text:
            return True
        try:
            data.decode()
        except UnicodeDecodeError as exc:
            self.protocol.fail(_INVALID_DATA, f"{exc.reason} at position {exc.start}")
            self._write(self.protocol.data_to_send())
            return False
        return True

    def _send_ping(self, data: bytes | None, future: asyncio.Future[float] | None) -> None:
        self._keepalive = None if future is None else self._keepalive
        if self.protocol.state is not _OPEN:
            if future is not None:
                future.set_exception(self.protocol.close_exc)
            return
        while data is None or data in self._pings:
            data = struct.pack("!I", random.getrandbits(32))
        self._pings[data] = (future, self._loop.time())
        self.protocol.send_ping(data)
        self._write(self.protocol.data_to_send())
        if future is None:
            self._keepalive = self._loop.call_later(PING_TIMEOUT, self._ping_timed_out)

    def _pong(self, data: bytes) -> None:
        """A pong answers its ping and every one sent before it."""
        if data not in self._pings:
            return
        now = self._loop.time()
        for key in list(self._pings):
            future, sent = self._pings.pop(key)
            if future is None:
                if self._keepalive is not None:
                    self._keepalive.cancel()
                delay = max(0.0, PING_INTERVAL - (now - sent))
                self._keepalive = self._loop.call_later(delay, self._send_ping, None, None)
            elif not future.done():
                future.set_result(now - sent)
            if key == data:
                return

    def _ping_timed_out(self) -> None:
        self._keepalive = None
        if self.protocol.state is _OPEN:
            self.protocol.fail(_INTERNAL_ERROR, "keepalive ping timeout")
            self._write(self.protocol.data_to_send())


class Listener:
    """A listening socket and its connections; ``opened(connection)`` gives the handler of
    each connection that finished the handshake."""

    def __init__(
        self,
        opened: Callable[[ServerConnection], Handler],
        *,
        max_size: int | None,
        subprotocols: Sequence[Subprotocol] = (),
    ) -> None:
        self.opened = opened
        self.max_size = max_size
        self.subprotocols = list(subprotocols)
        self.connections: set[ServerConnection] = set()
        #: connections with frames gathered this turn, and the call that writes them
        self.gathered: list[ServerConnection] = []
        self.flushing: asyncio.Handle | None = None
        self.closing = False
        self.read_buffer = memoryview(bytearray(READ_SIZE))
        #: how connections read a client's whole binary frames themselves (None: the
        #: protocol reads every frame; tests compare the two)
        self.read_frames: ws_frames.Reader | None = ws_frames.read
        self._server: asyncio.Server | None = None

    async def listen(self, host: str | None, port: int) -> int:
        """Accept connections on ``host:port`` (0: any free port); the port bound."""
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: ServerConnection(self), host, port)
        return int(self._server.sockets[0].getsockname()[1])

    def flush(self) -> None:
        """Write every connection's frames gathered this turn (what the end of the turn
        does by itself), one write each."""
        if self.flushing is not None:
            self.flushing.cancel()
            self.flushing = None
        gathered, self.gathered = self.gathered, []
        for connection in gathered:
            connection.flush()

    async def close(self) -> None:
        """Stop listening, close open connections with 1001 (those still in the handshake
        are cut) and wait until every connection is gone."""
        self.flush()
        self.closing = True
        if self._server is not None:
            self._server.close()
        connections = list(self.connections)
        for connection in connections:
            connection.close(_GOING_AWAY)
        if connections:
            await asyncio.wait([connection.lost_waiter for connection in connections])
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
