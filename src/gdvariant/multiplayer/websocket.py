"""A SceneMultiplayer server over WebSocket that Godot 4's ``WebSocketMultiplayerPeer`` joins.

A thin asyncio adapter on the ``websockets`` package (``pip install gdvariant[websockets]``)
around :class:`~gdvariant.multiplayer.ServerProtocol`: it answers the WebSocket handshake the
way Godot's client checks it (no extensions, no sub-protocol unless one was asked for and
offered), gives each connection a random peer id and sends it as the 4-byte little-endian first
message, then passes each binary message to the protocol as one packet and sends what the
protocol queues. A peer sending more than ``max_message_size`` bytes in one message is closed
by ``websockets`` (code 1009); a malformed packet is logged and dropped, and past
``drop_limit`` such packets the peer is closed with code 1008. A peer that does not read what
we send (pongs to its pings included) is held to ``max_unsent`` and ``stall_timeout``
(:class:`~gdvariant.multiplayer.ServerEndpoint`): full, we stop reading from it; stalled, its
TCP connection is cut. Nothing a client sends raises in the server loop, and other peers go on.

The server's connections are :class:`~gdvariant._net.ws_server.ServerConnection` objects, on
``websockets``' sans-I/O ``ServerProtocol`` under a plain ``asyncio.Protocol``: a message goes
from the socket to the protocol in the same call (no task, queue or future per message), and
a packet's frame is the one ``websockets`` would write (RFC 6455: FIN, binary, unmasked from a
server, never fragmented). The frames one turn of the event loop sends a peer with nothing
waiting are gathered and written in one write when the turn ends (:meth:`flush` writes them
sooner), up to half of ``max_unsent``; otherwise a frame is written at once, counted against
``max_unsent`` in the transport's write buffer. Pings, pongs and close frames are the
protocol's own, written to the same transport after the frames gathered before them.

docs/multiplayer.md ("WebSocket transport") has what was checked against Godot 4.6.

Usage::

    async def main() -> None:
        async with MultiplayerServer(on_raw=lambda peer, data: print(peer, data)) as server:
            await server.listen("127.0.0.1", 9080)
            await asyncio.Event().wait()
"""

from __future__ import annotations

import asyncio
import logging
import random
import struct
import time
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, Unpack

from .._net.outbox import Outbox
from .._net.peerlog import clip
from ._endpoint import (
    SERVER,
    AuthCallback,
    ClientEndpoint,
    Clock,
    EndpointOptions,
    PacketCallback,
    PeerCallback,
    RawCallback,
    ServerEndpoint,
    ServerOptions,
    TransferMode,
)
from .wire import ProtocolError

try:
    from websockets.asyncio.client import ClientConnection, connect
    from websockets.asyncio.connection import Connection
    from websockets.exceptions import ConnectionClosed
    from websockets.typing import Subprotocol

    from .._net.ws_connections import CLOSE_TIMEOUT, WatchedClientConnection, watch
    from .._net.ws_server import Listener, ServerConnection
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.multiplayer.websocket needs the 'websockets' package: "
        "pip install 'gdvariant[websockets]'"
    ) from exc

__all__ = [
    "GODOT_BUFFER_SIZE",
    "AuthCallback",
    "EndpointOptions",
    "MultiplayerClient",
    "MultiplayerServer",
    "PacketCallback",
    "PeerCallback",
    "RawCallback",
]

LOGGER = logging.getLogger("gdvariant.multiplayer.websocket")
#: WebSocketPeer's default ``inbound_buffer_size``: a Godot client closes on a larger message.
GODOT_BUFFER_SIZE = 65535
#: Godot's ``generate_unique_id`` range: never 0 or 1, top bit clear.
_ID_RANGE = (2, 2**31 - 1)
_POLICY_VIOLATION = 1008  # RFC 6455 close code for a peer that broke the protocol


_FRAME_16 = struct.Struct("!BBH")
_FRAME_64 = struct.Struct("!BBQ")
#: FIN set, opcode 2 (binary): a whole binary message in one frame (RFC 6455 §5.2)
_BINARY = 0x82
#: the heads of the frames of up to 125 bytes, built once: a packet's head is an index
_HEADS_7 = tuple(bytes((_BINARY, size)) for size in range(126))


def frame_head(size: int) -> bytes:
    """The head of a ``size``-byte unmasked binary WebSocket frame, a server's (RFC 6455
    §5.2): the length in 7 bits up to 125 bytes, in 16 bits (after 126) up to 65,535, else
    in 64 bits (after 127)."""
    if size < 126:
        return _HEADS_7[size]
    if size < 65536:
        return _FRAME_16.pack(_BINARY, 126, size)
    return _FRAME_64.pack(_BINARY, 127, size)


def binary_frame(data: bytes) -> bytes:
    """``data`` as one unmasked binary WebSocket frame (:func:`frame_head`, then ``data``)."""
    return frame_head(len(data)) + data


class _Client:
    """One client of the server: its id, its connection and its outbox; the connection's
    :class:`~gdvariant._net.ws_server.Handler`."""

    __slots__ = ("closing", "connection", "id", "outbox", "server")

    def __init__(
        self, server: MultiplayerServer, peer_id: int, connection: ServerConnection, outbox: Outbox
    ) -> None:
        self.server = server
        self.id = peer_id
        self.connection = connection
        self.outbox = outbox
        self.closing = False

    def put(self, data: bytes) -> None:
        """A packet from the server: its frame written to the transport now (:meth:`write`)."""
        self.write(data, binary_frame(data))

    def write(self, data: bytes, frame: bytes) -> None:
        """``frame`` (``data``'s) written to the transport now, while the connection is open
        and we are not closing it (else dropped, as ``websockets``' ``send`` would refuse
        it). While the connection is :attr:`~ServerConnection.ready` and its transport not
        closing, that is the write and one look at the buffer (the outbox looks only if the
        transport kept some); else the outbox's :meth:`~Outbox.write_through`, after which
        the connection finds out whether it is ready again."""
        connection = self.connection
        if connection.pending is not None:
            connection.flush()  # what this turn gathered goes first
        transport = connection.transport
        if connection.ready and not transport.is_closing():
            connection.write_ready(frame)
        elif not self.closing and connection.open:
            self.outbox.write_through(data, frame, transport.write)
            connection.refresh()

    def received(self, data: bytes) -> None:
        """A message: one packet, unless we are closing the peer."""
        if not self.closing:
            self.server._received(self.id, data, TransferMode.RELIABLE, 0)

    def lost(self) -> None:
        self.server._lost(self)


class _Peer:
    """The client's connection to the server: its outbox and the writer task that sends it
    in order."""

    def __init__(self, peer_id: int, connection: Connection, outbox: Outbox) -> None:
        self.id = peer_id
        self.connection = connection
        self.outbox = outbox
        self.closing = False

    async def write(self) -> None:
        """Send the queued packets in order, then close once the outbox is finished."""
        try:
            while (data := await self.outbox.get()) is not None:
                await self.connection.send(data)
                self.outbox.check()
            if not self.outbox.closed:
                await self.connection.close(1000)
        except ConnectionClosed:
            pass

    async def readable(self) -> None:
        """Wait until a message may be read: not while the peer is full."""
        if self.outbox.full:
            await self.outbox.room()


class MultiplayerServer(ServerEndpoint):
    """Peer 1 of a SceneMultiplayer session, serving Godot's WebSocketMultiplayerPeer clients.

    The callbacks, ``drop_limit``, ``max_unsent`` and ``stall_timeout`` are
    :class:`ServerEndpoint`'s. ``max_message_size`` is the largest message taken from a
    client (Godot's default buffer, 65535); ``ids`` picks peer ids (default: random in
    Godot's range; pass ``random.Random(seed)`` for a fixed sequence). Transfer modes and
    channels are accepted and ignored: WebSocket is reliable. A peer we close has
    :data:`CLOSE_TIMEOUT` seconds to answer the close frame. ``clock`` is what the
    authentication deadlines are read on (default ``time.monotonic``).
    """

    default_size: ClassVar[int] = GODOT_BUFFER_SIZE
    default_logger: ClassVar[logging.Logger] = LOGGER

    def __init__(
        self,
        *,
        subprotocols: Sequence[str] | None = None,
        ids: random.Random | None = None,
        clock: Clock = time.monotonic,
        **options: Unpack[ServerOptions],
    ) -> None:
        super().__init__(clock=clock, **options)
        self.subprotocols = [Subprotocol(name) for name in subprotocols or ()]
        self._ids = ids if ids is not None else random.SystemRandom()
        self._peers: dict[int, _Client] = {}
        self._websockets: Listener | None = None
        self._in_frame = False  # inside send_encoded_many: a frame is written at once

    async def listen(self, host: str | None, port: int) -> int:
        """Start accepting clients on ``host:port`` (0: any free port); the port bound."""
        if self._websockets is not None:
            raise RuntimeError("this server is already listening")
        self._websockets = Listener(
            self._opened, max_size=self.max_message_size, subprotocols=self.subprotocols
        )
        return await self._websockets.listen(host, port)

    async def close(self) -> None:
        """Close every connection (1001, going away) and stop listening; returns once every
        peer has left."""
        self._stop_auth_timer()
        if self._websockets is not None:
            await self._websockets.close()
            self._websockets = None
        self.peer_log.flush()

    def disconnect_peer(self, peer: int) -> None:
        """Close ``peer``'s connection (``disconnect_peer``); its events follow when it ends.
        A peer closed for malformed packets gets close code 1008."""
        state = self._peers.get(peer)
        if state is not None and not state.closing:
            state.closing = True
            state.connection.close(_POLICY_VIOLATION if peer in self._drops else 1000)

    def _put_all(self, packets: Iterable[tuple[int, bytes, TransferMode, int]]) -> None:
        """:class:`ServerEndpoint`'s hand-over, the same checks, counts and order in one
        loop (as the ENet server's): a packet costs its client's lookup, its frame and the
        outbox's write, not four calls more (while detail times each write, the shared
        path). In a frame (:meth:`send_encoded_many`), a ready peer with nothing gathered
        this turn gets its packets of the frame in one write once all are handed over: a
        tick's frame needs no turn of the loop after it to go out (docs/multiplayer.md,
        "WebSocket transport")."""
        traffic = self.traffic
        if traffic.timing:
            super()._put_all(packets)
            return
        clients, sent, largest = self._peers, traffic.sent, self.max_send_size
        heads, head_16 = _HEADS_7, _FRAME_16.pack
        at_once = self._in_frame
        started: list[ServerConnection] = []  # connections this call gathers and writes
        try:
            for peer, data, _, _ in packets:
                client = clients.get(peer)
                if client is None:
                    continue
                size = len(data)
                if size > largest:
                    self._sendable(peer, data)  # logs it
                    continue
                sent(peer, data)
                if size < 126:
                    frame = heads[size] + data
                elif size < 65536:  # a SYNC of the scene: frame_head's 16-bit form, inline
                    frame = head_16(_BINARY, 126, size) + data
                else:
                    frame = frame_head(size) + data
                connection = client.connection
                if connection.ready and connection.room >= size:  # gathered for one write
                    connection.room -= size
                    pending = connection.pending
                    if pending is None:
                        if at_once:  # held for this call's own flush below
                            connection.pending = [frame]
                            started.append(connection)
                        else:
                            connection.gather(frame)
                    else:
                        pending.append(frame)
                else:
                    client.write(data, frame)  # writes what was gathered first
        finally:  # what this call held is written even if a hand-over raised
            for connection in started:
                connection.flush()

    def send_encoded_many(self, packets: Sequence[tuple[int, bytes, TransferMode, int]]) -> None:
        """:class:`ServerEndpoint`'s, with each ready peer's packets of the frame written
        once all are handed over rather than at the end of the turn (:meth:`_put_all`)."""
        self._in_frame = True
        try:
            super().send_encoded_many(packets)
        finally:
            self._in_frame = False

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        self._peers[peer].put(data)

    def _has_peer(self, peer: int) -> bool:
        return peer in self._peers

    def queue_depth(self, peer: int) -> tuple[int, int]:
        state = self._peers.get(peer)
        if state is None:
            return (0, 0)
        size, frames = state.connection.gathered()
        return (state.outbox.unsent + size, state.outbox.messages + frames)

    def flush(self) -> None:
        """Write now what this turn of the event loop gathered for each peer (the end of
        the turn does it by itself): one write a peer."""
        if self._websockets is not None:
            self._websockets.flush()

    def _opened(self, connection: ServerConnection) -> _Client:
        """A client finished the handshake: its id goes out as the first message, then the
        endpoint hears of it."""
        peer_id = self._new_id()

        def stalled(reason: str) -> None:
            self.peer_log.log(
                logging.WARNING, peer_id, "closing peer %d: %s", peer_id, reason, final=True
            )

        outbox = connection.watch(self.max_unsent, self.stall_timeout, stalled)
        client = _Client(self, peer_id, connection, outbox)
        self._peers[peer_id] = client
        client.put(struct.pack("<i", peer_id))
        self._joined(peer_id)
        return client

    def _lost(self, client: _Client) -> None:
        del self._peers[client.id]
        client.outbox.close()
        self._left(client.id)

    def _new_id(self) -> int:
        while True:
            peer = self._ids.randint(*_ID_RANGE)
            if peer not in self._peers:
                return peer


class MultiplayerClient(ClientEndpoint):
    """A SceneMultiplayer client of a Godot ``WebSocketMultiplayerPeer.create_server``.

    The callbacks, authentication, ``max_unsent`` and ``stall_timeout`` are
    :class:`ClientEndpoint`'s: a server that does not read what we send is held to them as
    a client is by our server. ``clock`` as for :class:`MultiplayerServer`.
    """

    default_size: ClassVar[int] = GODOT_BUFFER_SIZE
    default_logger: ClassVar[logging.Logger] = LOGGER

    def __init__(
        self,
        *,
        auth_callback: Callable[[bytes], None] | None = None,
        clock: Clock = time.monotonic,
        **options: Unpack[EndpointOptions],
    ) -> None:
        super().__init__(clock=clock, auth_callback=auth_callback, **options)
        self._server: _Peer | None = None
        self._reader: asyncio.Task[None] | None = None
        self._writer: asyncio.Task[None] | None = None

    async def connect(self, uri: str, *, subprotocols: Sequence[str] | None = None) -> int:
        """Connect to ``ws://host:port`` and read our peer id (returned)."""
        if self._server is not None:
            raise RuntimeError("this client is already connected")
        connection = await connect(
            uri,
            compression=None,
            max_size=self.max_message_size,
            subprotocols=[Subprotocol(name) for name in subprotocols or ()] or None,
            create_connection=WatchedClientConnection,
            close_timeout=CLOSE_TIMEOUT,
        )
        first = await connection.recv()
        if isinstance(first, str):  # Godot takes a text message as its bytes
            first = first.encode()
        peer = struct.unpack("<i", first)[0] if len(first) == 4 else 0
        if peer < 2:
            await connection.close(_POLICY_VIOLATION)
            raise ProtocolError(f"invalid peer id message from the server: {clip(first)}")

        def stalled(reason: str) -> None:
            self.logger.warning("closing the connection to the server: %s", reason)

        outbox = watch(connection, self.max_unsent, self.stall_timeout, stalled)
        self._server = _Peer(SERVER, connection, outbox)
        self.unique_id = peer
        self._writer = asyncio.create_task(self._server.write())
        self._reader = asyncio.create_task(self._read(connection))
        self._joined()
        return peer

    async def wait_closed(self) -> None:
        """Until the server closed the connection (or :meth:`close` did)."""
        if self._reader is not None:
            await asyncio.shield(self._reader)

    async def close(self) -> None:
        """Close the connection; ``on_peer_disconnected(1)`` follows if we were admitted."""
        if self._server is not None and not self._server.closing:
            self._server.closing = True
            self._server.outbox.finish()
        await self.wait_closed()

    def _put(self, data: bytes, mode: TransferMode, channel: int) -> None:
        if self._server is None or self._server.closing or not self._server.outbox.put(data):
            raise ValueError("not connected")

    async def _read(self, connection: ClientConnection) -> None:
        assert self._server is not None
        server = self._server
        try:
            while True:
                await server.readable()
                message = await connection.recv()
                self._received(message.encode() if isinstance(message, str) else message)
        except ConnectionClosed:
            pass
        finally:
            if self._writer is not None:
                self._writer.cancel()
            server.closing = True
            server.outbox.close()
            self._left()
