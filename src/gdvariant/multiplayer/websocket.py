"""A SceneMultiplayer server over WebSocket that Godot 4's ``WebSocketMultiplayerPeer`` joins.

A thin asyncio adapter on the ``websockets`` package (``pip install gdvariant[websockets]``)
around :class:`~gdvariant.multiplayer.ServerProtocol`: it answers the WebSocket handshake the
way Godot's client checks it (no extensions, no sub-protocol unless one was asked for and
offered), gives each connection a random peer id and sends it as the 4-byte little-endian first
message, then passes each binary message to the protocol as one packet and sends what the
protocol queues. A peer sending more than ``max_message_size`` bytes in one message is closed
by ``websockets`` (code 1009); a malformed packet is logged and dropped, and past
``drop_limit`` such packets the peer is closed with code 1008. Nothing a client sends raises in
the server loop, and other peers go on.

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
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Self, TypedDict, Unpack

from .. import DecodeError
from ._auth import DEFAULT_AUTH_TIMEOUT, Authenticator, AuthVerdict
from ._errors import ProtocolError
from ._packets import Packet, decode_packet, encode_packet
from ._server import (
    AuthData,
    Event,
    PacketDropped,
    PacketReceived,
    PeerAuthenticating,
    PeerAuthenticationFailed,
    PeerConnected,
    PeerDisconnected,
    ServerProtocol,
)
from ._sys import AddPeer, DelPeer, Raw, Relay

try:
    from websockets.asyncio.client import ClientConnection, connect
    from websockets.asyncio.connection import Connection
    from websockets.asyncio.server import Server, ServerConnection, serve
    from websockets.exceptions import ConnectionClosed
    from websockets.typing import Subprotocol
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.multiplayer.websocket needs the 'websockets' package: "
        "pip install 'gdvariant[websockets]'"
    ) from exc

__all__ = [
    "GODOT_BUFFER_SIZE",
    "EndpointOptions",
    "MultiplayerClient",
    "MultiplayerServer",
    "PeerCallback",
    "RawCallback",
]

LOGGER = logging.getLogger("gdvariant.multiplayer.websocket")
#: WebSocketPeer's default ``inbound_buffer_size``: a Godot client closes on a larger message.
GODOT_BUFFER_SIZE = 65535
#: Godot's ``generate_unique_id`` range: never 0 or 1, top bit clear.
_ID_RANGE = (2, 2**31 - 1)
_POLICY_VIOLATION = 1008  # RFC 6455 close code for a peer that broke the protocol
_SERVER = 1
_AUTH_TICK = 0.05  # how often pending peers are checked for their auth timeout

PeerCallback = Callable[[int], None]
RawCallback = Callable[[int, bytes], None]
#: ``auth_callback(peer, data)``: answer with ``send_auth`` / ``complete_auth`` or ``disconnect``.
AuthCallback = Callable[[int, bytes], None]
PacketCallback = Callable[[int, Packet], None]


class _Peer:
    """One connection: its id and the queue its writer task drains, in order."""

    def __init__(self, peer_id: int, connection: Connection) -> None:
        self.id = peer_id
        self.connection = connection
        self.outbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.dropped = 0
        self.closing = False

    async def write(self) -> None:
        """Send the queued packets in order; ``None`` closes the connection."""
        try:
            while (data := await self.outbox.get()) is not None:
                await self.connection.send(data)
            await self.connection.close(_POLICY_VIOLATION if self.dropped else 1000)
        except ConnectionClosed:
            pass


class EndpointOptions(TypedDict, total=False):
    """The keywords both ends take: the game's callbacks and the message limits."""

    on_peer_connected: PeerCallback | None
    on_peer_disconnected: PeerCallback | None
    on_raw: RawCallback | None
    on_packet: PacketCallback | None
    max_message_size: int  # the largest message taken (default 65535, Godot's buffer)
    max_send_size: int  # the largest packet sent (default 65535)
    logger: logging.Logger


class _Endpoint:
    """What both ends share: the game's callbacks, the limits and the RAW queue."""

    def __init__(self, **options: Unpack[EndpointOptions]) -> None:
        self.on_peer_connected = options.get("on_peer_connected")
        self.on_peer_disconnected = options.get("on_peer_disconnected")
        self.on_raw = options.get("on_raw")
        self.on_packet = options.get("on_packet")
        self.max_message_size = options.get("max_message_size", GODOT_BUFFER_SIZE)
        self.max_send_size = options.get("max_send_size", GODOT_BUFFER_SIZE)
        self.logger = options.get("logger", LOGGER)
        self._raw: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()

    async def receive_raw(self) -> tuple[int, bytes]:
        """The next ``(sender, payload)`` sent with ``send_bytes`` (when no ``on_raw``)."""
        return await self._raw.get()

    def _deliver(self, sender: int, packet: Packet) -> None:
        """A game packet: RAW to ``on_raw`` (or the queue), the others to ``on_packet``."""
        if isinstance(packet, Raw):
            if self.on_raw is not None:
                self.on_raw(sender, packet.payload)
            else:
                self._raw.put_nowait((sender, packet.payload))
        elif self.on_packet is not None:
            self.on_packet(sender, packet)


class MultiplayerServer(_Endpoint):
    """Peer 1 of a SceneMultiplayer session, serving Godot's WebSocketMultiplayerPeer clients.

    Callbacks run in the event loop and must not block: ``on_peer_connected(peer)`` and
    ``on_peer_disconnected(peer)`` as SceneMultiplayer's signals, ``on_raw(peer, payload)`` for
    ``send_bytes`` from a client (else RAW payloads wait in :meth:`receive_raw`),
    ``on_packet(peer, packet)`` for the other game packets (RPCs, syncs), and ``auth_callback``
    (turns authentication on; clients must set one too), ``on_peer_authenticating(peer)``
    and ``on_peer_authentication_failed(peer)`` (a pending peer left, timed out or was
    refused) as those signals. ``max_message_size`` is the largest
    message taken from a client (Godot's default buffer); ``drop_limit`` the malformed packets
    a peer may send before it is closed (0: closed at the first). ``ids`` picks peer ids
    (default: random in Godot's range; pass ``random.Random(seed)`` for a fixed sequence).
    """

    def __init__(
        self,
        *,
        auth_callback: AuthCallback | None = None,
        auth_timeout: float = DEFAULT_AUTH_TIMEOUT,
        relay: bool = True,
        drop_limit: int = 0,
        subprotocols: Sequence[str] | None = None,
        ids: random.Random | None = None,
        on_peer_authenticating: PeerCallback | None = None,
        on_peer_authentication_failed: PeerCallback | None = None,
        **options: Unpack[EndpointOptions],
    ) -> None:
        self.on_peer_authenticating = on_peer_authenticating
        self.on_peer_authentication_failed = on_peer_authentication_failed
        self.protocol = ServerProtocol(
            auth=auth_callback is not None, auth_timeout=auth_timeout, relay=relay
        )
        super().__init__(**options)
        self.auth_callback = auth_callback
        self.drop_limit = drop_limit
        self.subprotocols = [Subprotocol(name) for name in subprotocols or ()]
        self._ids = ids if ids is not None else random.SystemRandom()
        self._peers: dict[int, _Peer] = {}
        self._server: Server | None = None
        self._ticker: asyncio.Task[None] | None = None

    async def listen(self, host: str | None, port: int) -> int:
        """Start accepting clients on ``host:port`` (0: any free port); the port bound."""
        if self._server is not None:
            raise RuntimeError("this server is already listening")
        self._server = await serve(
            self._handle,
            host,
            port,
            compression=None,
            max_size=self.max_message_size,
            subprotocols=self.subprotocols or None,
        )
        if self.auth_callback is not None:
            self._ticker = asyncio.create_task(self._tick())
        return int(next(iter(self._server.sockets)).getsockname()[1])

    async def close(self) -> None:
        """Close every connection and stop listening."""
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def peers(self) -> frozenset[int]:
        """The admitted peers (those ``peer_connected`` announced)."""
        return self.protocol.peers

    def send_raw(self, peer: int, payload: bytes) -> None:
        """``send_bytes(payload, peer)``: a RAW packet to one admitted peer (0: to all)."""
        targets = sorted(self.peers) if peer == 0 else [peer]
        for target in targets:
            self.send(target, Raw(bytes(payload)))

    def send(self, peer: int, packet: Packet) -> None:
        """Send any SceneMultiplayer packet to an admitted ``peer``."""
        if peer not in self.peers:
            raise ValueError(f"peer {peer} is not connected")
        self.protocol.send(peer, packet)
        self._flush()

    def send_auth(self, peer: int, data: bytes) -> None:
        """``send_auth``: auth data to a peer that is authenticating."""
        self.protocol.send_auth(peer, data)
        self._flush()

    def complete_auth(self, peer: int) -> None:
        """``complete_auth``: our side accepts; the peer is admitted once it completed too."""
        self._dispatch(self.protocol.complete_auth(peer))
        self._flush()

    def disconnect_peer(self, peer: int) -> None:
        """Close ``peer``'s connection (``disconnect_peer``); its events follow when it ends."""
        state = self._peers.get(peer)
        if state is not None and not state.closing:
            state.closing = True
            state.outbox.put_nowait(None)

    async def _handle(self, connection: ServerConnection) -> None:
        peer = _Peer(self._new_id(), connection)
        self._peers[peer.id] = peer
        writer = asyncio.create_task(peer.write())
        try:
            await connection.send(struct.pack("<i", peer.id))
            self._dispatch(self.protocol.peer_connected(peer.id, time.monotonic()))
            self._flush()
            async for message in connection:
                if peer.closing:
                    continue
                data = message.encode() if isinstance(message, str) else message
                self._dispatch(self.protocol.receive(peer.id, data))
                self._flush()
        except ConnectionClosed:
            pass
        finally:
            del self._peers[peer.id]
            writer.cancel()
            if self.protocol.auth.is_pending(peer.id) or peer.id in self.protocol.peers:
                self._dispatch(self.protocol.peer_disconnected(peer.id))
                self._flush()

    def _new_id(self) -> int:
        while True:
            peer = self._ids.randint(*_ID_RANGE)
            if peer not in self._peers:
                return peer

    def _flush(self) -> None:
        for peer_id, data in self.protocol.data_to_send():
            peer = self._peers.get(peer_id)
            if peer is None:
                continue
            if len(data) > self.max_send_size:
                self.logger.warning(
                    "not sending %d bytes to peer %d: over its %d-byte buffer",
                    len(data),
                    peer_id,
                    self.max_send_size,
                )
                continue
            peer.outbox.put_nowait(data)

    def _dispatch(self, events: list[Event]) -> None:
        for event in events:
            try:
                self._event(event)
            except Exception:
                self.logger.exception("callback failed on %s", event)

    def _event(self, event: Event) -> None:
        if isinstance(event, PeerConnected) and self.on_peer_connected is not None:
            self.on_peer_connected(event.peer)
        elif isinstance(event, PeerDisconnected) and self.on_peer_disconnected is not None:
            self.on_peer_disconnected(event.peer)
        elif isinstance(event, PeerAuthenticationFailed):
            self.disconnect_peer(event.peer)
            if self.on_peer_authentication_failed is not None:
                self.on_peer_authentication_failed(event.peer)
        elif isinstance(event, PeerAuthenticating) and self.on_peer_authenticating is not None:
            self.on_peer_authenticating(event.peer)
        elif isinstance(event, AuthData) and self.auth_callback is not None:
            self.auth_callback(event.peer, event.data)
        elif isinstance(event, PacketDropped):
            self._dropped(event)
        elif isinstance(event, PacketReceived):
            self._deliver(event.peer, event.packet)

    def _dropped(self, event: PacketDropped) -> None:
        peer = self._peers.get(event.peer)
        if peer is None:
            return
        peer.dropped += 1
        self.logger.warning("dropped a packet from peer %d: %s", event.peer, event.error)
        if peer.dropped > self.drop_limit:
            self.logger.warning("closing peer %d: too many malformed packets", event.peer)
            self.disconnect_peer(event.peer)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(_AUTH_TICK)
            self._dispatch(self.protocol.poll(time.monotonic()))


class MultiplayerClient(_Endpoint):
    """A SceneMultiplayer client of a Godot ``WebSocketMultiplayerPeer.create_server``.

    The same callbacks as :class:`MultiplayerServer`, where ``peer`` is the sender: 1 for the
    server, another client's id for what the server relayed. With ``auth_callback(data)`` set
    (the server must have one too) the client starts out authenticating: send
    :meth:`send_auth` and answer with :meth:`complete_auth`; ``on_peer_connected(1)`` marks
    admission. Packets the server sends are not answered (no CONFIRM_PATH); they come out of
    ``on_packet``.
    """

    def __init__(
        self,
        *,
        auth_callback: Callable[[bytes], None] | None = None,
        **options: Unpack[EndpointOptions],
    ) -> None:
        super().__init__(**options)
        self.auth_callback = auth_callback
        self.auth = Authenticator(enabled=auth_callback is not None)
        self.unique_id = 0
        self._others: set[int] = set()
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
        )
        first = await connection.recv()
        if isinstance(first, str):  # Godot takes a text message as its bytes
            first = first.encode()
        peer = struct.unpack("<i", first)[0] if len(first) == 4 else 0
        if peer < 2:
            await connection.close(_POLICY_VIOLATION)
            raise ProtocolError(f"invalid peer id message from the server: {first!r}")
        self._server = _Peer(_SERVER, connection)
        self.unique_id = peer
        self._writer = asyncio.create_task(self._server.write())
        self._reader = asyncio.create_task(self._read(connection))
        if self.auth.add_peer(_SERVER, time.monotonic()):
            self._emit_connected(_SERVER)
        return peer

    @property
    def peers(self) -> frozenset[int]:
        """The server (once admitted) and the other clients it announced."""
        return frozenset(self._others | (self.auth.connected & {_SERVER}))

    async def wait_closed(self) -> None:
        """Until the server closed the connection (or :meth:`close` did)."""
        if self._reader is not None:
            await asyncio.shield(self._reader)

    async def close(self) -> None:
        """Close the connection; ``on_peer_disconnected(1)`` follows if we were admitted."""
        if self._server is not None and not self._server.closing:
            self._server.closing = True
            self._server.outbox.put_nowait(None)
        await self.wait_closed()

    def send_auth(self, data: bytes) -> None:
        """``send_auth(1, data)`` while authenticating."""
        self._put(self.auth.send(_SERVER, data))

    def complete_auth(self) -> None:
        """``complete_auth(1)``: admitted once the server completed too."""
        packet, admitted = self.auth.complete(_SERVER)
        self._put(packet)
        if admitted:
            self._emit_connected(_SERVER)

    def send_raw(self, payload: bytes, peer: int = _SERVER) -> None:
        """``send_bytes(payload, peer)``: to the server (1) or, relayed, to other peers."""
        self.send(Raw(bytes(payload)), peer)

    def send(self, packet: Packet, peer: int = _SERVER) -> None:
        """Any packet, to the server or relayed by it (0: everybody, -N: all but N)."""
        if _SERVER not in self.auth.connected:
            raise ValueError("not connected to the server (yet)")
        data = encode_packet(packet)
        self._put(data if peer == _SERVER else encode_packet(Relay(peer, data)))

    def _put(self, data: bytes) -> None:
        if self._server is None or self._server.closing:
            raise ValueError("not connected")
        if len(data) > self.max_send_size:
            raise ValueError(f"a {len(data)}-byte packet is over the {self.max_send_size} limit")
        self._server.outbox.put_nowait(data)

    async def _read(self, connection: ClientConnection) -> None:
        try:
            async for message in connection:
                data = message.encode() if isinstance(message, str) else message
                try:
                    self._receive(data)
                except DecodeError as exc:
                    self.logger.warning("dropped a packet from the server: %s", exc)
                except Exception:
                    self.logger.exception("callback failed on a packet from the server")
        except ConnectionClosed:
            pass
        finally:
            if self._writer is not None:
                self._writer.cancel()
            if self._server is not None:
                self._server.closing = True
            for peer in sorted(self._others):
                self._call(self.on_peer_disconnected, peer)
            self._others.clear()
            admitted = _SERVER in self.auth.connected
            self.auth.remove_peer(_SERVER)
            if admitted:
                self._call(self.on_peer_disconnected, _SERVER)

    def _receive(self, data: bytes) -> None:
        verdict, auth_data = self.auth.receive(_SERVER, data)
        if verdict is AuthVerdict.DATA and self.auth_callback is not None:
            self.auth_callback(auth_data)
        elif verdict is AuthVerdict.ADMITTED:
            self._emit_connected(_SERVER)
        elif verdict is AuthVerdict.GAME:
            self._packet(_SERVER, decode_packet(data))

    def _packet(self, sender: int, packet: Packet) -> None:
        if isinstance(packet, Relay) and sender == _SERVER:
            self._packet(packet.peer, decode_packet(packet.packet))
        elif isinstance(packet, AddPeer) and sender == _SERVER:
            self._others.add(packet.peer)
            self._emit_connected(packet.peer)
        elif isinstance(packet, DelPeer) and sender == _SERVER:
            self._others.discard(packet.peer)
            self._call(self.on_peer_disconnected, packet.peer)
        else:
            self._deliver(sender, packet)

    def _emit_connected(self, peer: int) -> None:
        self._call(self.on_peer_connected, peer)

    def _call(self, callback: PeerCallback | None, peer: int) -> None:
        if callback is None:
            return
        try:
            callback(peer)
        except Exception:
            self.logger.exception("callback failed for peer %d", peer)
