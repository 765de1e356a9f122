"""A SceneMultiplayer server over ENet that Godot 4's ``ENetMultiplayerPeer`` joins.

A thin asyncio adapter on pyenet (the ``pyenet-vladfi`` build, ``pip install
gdvariant[enet]``) around :class:`~gdvariant.multiplayer.ServerProtocol`, with the same API
as :mod:`gdvariant.multiplayer.websocket`, so the transport is a constructor choice. What
Godot 4.6's ENetMultiplayerPeer puts on the wire, as its live tests check:

* each ENet packet is one bare SceneMultiplayer packet (no header);
* the client picks its own peer id and sends it as the 32-bit data of ENet's CONNECT; the
  server resets a connection whose id is below 2 or already taken, and sends no id back;
* a packet's transfer mode and channel ride on ENet's channel and flags (:func:`enet_route`):
  ENet channel 0 carries channel 0's reliable packets, ENet channel 1 its unreliable ones, and
  channel N >= 1 is ENet channel N + 1;
* plain ENet 1.3 (no checksum, no compression); a client asks for 255 channels.

pyenet's ``Host.service`` blocks while holding the GIL, so nothing here waits in it: the
host is serviced with a zero timeout whenever its socket is readable and every
``service_interval`` seconds (ENet's resends, pings and timeouts), from the event loop.

Usage::

    async def main() -> None:
        async with MultiplayerServer(on_raw=lambda peer, data: print(peer, data)) as server:
            await server.listen("127.0.0.1", 7000)
            await asyncio.Event().wait()
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import ClassVar, Unpack

from ._endpoint import (
    ClientEndpoint,
    EndpointOptions,
    ServerEndpoint,
    ServerOptions,
    TransferMode,
    default_mode,
)

try:
    import enet
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.multiplayer.enet needs pyenet: pip install 'gdvariant[enet]'"
    ) from exc

__all__ = [
    "GODOT_MAX_PACKET_SIZE",
    "GODOT_MAX_PEERS",
    "MultiplayerClient",
    "MultiplayerServer",
    "default_mode",
    "enet_route",
    "transfer_of",
]

LOGGER = logging.getLogger("gdvariant.multiplayer.enet")
#: ``ENetMultiplayerPeer.get_max_packet_size()``: the largest packet Godot lets you send.
GODOT_MAX_PACKET_SIZE = 1 << 24
#: ``ENetMultiplayerPeer.create_server``'s default ``max_clients``.
GODOT_MAX_PEERS = 32
#: ENet channels 0 and 1 (SYSCH_RELIABLE, SYSCH_UNRELIABLE) carry transfer channel 0.
_RESERVED_CHANNELS = 2
#: ENet's most channels per peer; what a Godot client asks for when ``channel_count`` is 0.
_MAX_CHANNELS = 255
_ID_RANGE = (2, 2**31 - 1)
_FLAGS = {
    TransferMode.RELIABLE: enet.PACKET_FLAG_RELIABLE,
    TransferMode.UNRELIABLE_ORDERED: enet.PACKET_FLAG_UNRELIABLE_FRAGMENT,
    TransferMode.UNRELIABLE: enet.PACKET_FLAG_UNSEQUENCED | enet.PACKET_FLAG_UNRELIABLE_FRAGMENT,
}
#: Seconds between two services of an idle host.
SERVICE_INTERVAL = 0.01
#: Seconds ``close`` waits for the other side to acknowledge a disconnection.
_CLOSE_WAIT = 2.0


def enet_route(mode: TransferMode, channel: int = 0) -> tuple[int, int]:
    """The ENet ``(channel, flags)`` of a packet sent with ``mode`` on transfer ``channel``,
    as ENetMultiplayerPeer picks them."""
    if not 0 <= channel <= _MAX_CHANNELS - _RESERVED_CHANNELS:
        raise ValueError(
            f"transfer channel {channel} is not in 0..{_MAX_CHANNELS - _RESERVED_CHANNELS}"
        )
    if channel > 0:
        return channel + _RESERVED_CHANNELS - 1, _FLAGS[mode]
    return (0 if mode is TransferMode.RELIABLE else 1), _FLAGS[mode]


def transfer_of(enet_channel: int, flags: int) -> tuple[TransferMode, int]:
    """The ``(mode, channel)`` a receiver reads from an ENet packet's channel and flags."""
    if flags & enet.PACKET_FLAG_RELIABLE:
        mode = TransferMode.RELIABLE
    elif flags & enet.PACKET_FLAG_UNSEQUENCED:
        mode = TransferMode.UNRELIABLE
    else:
        mode = TransferMode.UNRELIABLE_ORDERED
    channel = enet_channel - _RESERVED_CHANNELS + 1 if enet_channel >= _RESERVED_CHANNELS else 0
    return mode, channel


def _address(host: str | None, port: int) -> enet.Address:
    return enet.Address(host if host not in (None, "") else None, port)


class _Pump:
    """An ``enet.Host`` driven from the running loop without blocking: serviced when its
    socket is readable and every ``interval`` seconds, each event going to ``on_event``."""

    def __init__(
        self,
        host: enet.Host,
        on_event: Callable[[enet.Event], None],
        on_tick: Callable[[], None],
        interval: float,
        logger: logging.Logger,
    ) -> None:
        self.host = host
        self.on_event = on_event
        self.on_tick = on_tick
        self.interval = interval
        self.logger = logger
        self._loop = asyncio.get_running_loop()
        self._fd = host.socket.fileno()
        self._loop.add_reader(self._fd, self.service)
        self._timer = self._loop.call_later(interval, self._tick)
        self.closed = False

    def service(self) -> None:
        """Handle every event ENet has now (and send what it queued)."""
        while not self.closed:
            try:
                event = self.host.service(0, True)
            except OSError as exc:
                self.logger.warning("ENet service failed: %s", exc)
                return
            if event is None:
                return
            try:
                self.on_event(event)
            except Exception:
                self.logger.exception("handling an ENet event failed")

    def flush(self) -> None:
        """Send the queued packets now."""
        if not self.closed:
            self.host.flush()

    def _tick(self) -> None:
        self.service()
        if self.closed:
            return
        try:
            self.on_tick()
        except Exception:
            self.logger.exception("a periodic check failed")
        self._timer = self._loop.call_later(self.interval, self._tick)

    def close(self) -> None:
        """Stop servicing the host (the host itself is freed with its last reference)."""
        if not self.closed:
            self.closed = True
            self._timer.cancel()
            self._loop.remove_reader(self._fd)


class _Link:
    """One ENet peer of the server: the id its CONNECT carried."""

    def __init__(self, peer_id: int, peer: enet.Peer) -> None:
        self.id = peer_id
        self.peer = peer
        self.closing = False


class MultiplayerServer(ServerEndpoint):
    """Peer 1 of a SceneMultiplayer session, serving Godot's ENetMultiplayerPeer clients.

    The callbacks and ``drop_limit`` are :class:`ServerEndpoint`'s. ``max_clients`` is the
    ENet host's peer count (Godot's default 32); ``max_message_size`` the largest packet taken
    from a client (larger ones close it) and ``max_send_size`` the largest sent (both default
    to Godot's 16 MiB). ``send`` and ``send_raw`` take a transfer ``mode`` and ``channel``.
    ``throttle`` is ENet's packet throttle of each client, ``(interval_ms, acceleration,
    deceleration)`` as Godot's ``ENetPacketPeer.throttle_configure`` takes it, for what we
    send (None: ENet's 5000, 2, 2). ENet drops unreliable packets (full SYNCs, unreliable
    RPCs) while round trips vary, up to all but 1 in 32; deceleration 0 never drops them.
    """

    default_size: ClassVar[int] = GODOT_MAX_PACKET_SIZE
    default_logger: ClassVar[logging.Logger] = LOGGER

    def __init__(
        self,
        *,
        max_clients: int = GODOT_MAX_PEERS,
        service_interval: float = SERVICE_INTERVAL,
        throttle: tuple[int, int, int] | None = None,
        **options: Unpack[ServerOptions],
    ) -> None:
        super().__init__(**options)
        self.max_clients = max_clients
        self.throttle = throttle
        self.service_interval = service_interval
        self._pump: _Pump | None = None
        self._peers: dict[int, _Link] = {}
        self._slots: dict[int, _Link] = {}

    async def listen(self, host: str | None, port: int) -> int:
        """Start accepting clients on UDP ``host:port`` (0: any free port); the port bound."""
        if self._pump is not None:
            raise RuntimeError("this server is already listening")
        try:
            enet_host = enet.Host(_address(host, port), self.max_clients, 0, 0, 0)
        except MemoryError as exc:  # pyenet's report of any enet_host_create failure
            raise OSError(f"cannot listen on {host}:{port} with ENet") from exc
        self._pump = _Pump(
            enet_host, self._event_in, self._check_auth, self.service_interval, self.logger
        )
        return enet_host.address.port

    async def close(self) -> None:
        """Disconnect every client (they see ``server_disconnected``) and stop listening."""
        pump, self._pump = self._pump, None
        if pump is None:
            return
        links = list(self._peers.values())
        for link in links:
            link.peer.disconnect_now()
        pump.flush()
        pump.close()
        self._peers.clear()
        self._slots.clear()
        for link in links:
            self._left(link.id)

    def disconnect_peer(self, peer: int) -> None:
        """Disconnect ``peer`` once what was queued for it is delivered; its events follow
        when ENet reports the disconnection."""
        link = self._peers.get(peer)
        if link is not None and not link.closing and self._pump is not None:
            link.closing = True
            link.peer.disconnect_later()
            self._pump.flush()

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        enet_channel, flags = enet_route(mode, channel)
        if self._peers[peer].peer.send(enet_channel, enet.Packet(data, flags)) < 0:
            self.logger.warning("ENet refused a packet for peer %d", peer)
        if self._pump is not None:
            self._pump.flush()

    def _has_peer(self, peer: int) -> bool:
        link = self._peers.get(peer)
        return link is not None and not link.closing

    def _event_in(self, event: enet.Event) -> None:
        if event.type == enet.EVENT_TYPE_CONNECT:
            self._connect(event.peer, event.data)
        elif event.type == enet.EVENT_TYPE_RECEIVE:
            link = self._slots.get(event.peer.incomingPeerID)
            if link is not None and not link.closing:
                self._packet_in(link, event)
        elif event.type == enet.EVENT_TYPE_DISCONNECT:
            link = self._slots.pop(event.peer.incomingPeerID, None)
            if link is not None:
                del self._peers[link.id]
                self._left(link.id)

    def _connect(self, peer: enet.Peer, peer_id: int) -> None:
        """A client's CONNECT: its data is the id it chose; a bad or taken one is reset,
        as Godot's server does."""
        if not _ID_RANGE[0] <= peer_id <= _ID_RANGE[1] or peer_id in self._peers:
            self.logger.warning("refusing an ENet client that asked for id %d", peer_id)
            peer.reset()
            return
        if self.throttle is not None:
            interval, acceleration, deceleration = self.throttle
            peer.packetThrottleInterval = interval
            peer.packetThrottleAcceleration = acceleration
            peer.packetThrottleDeceleration = deceleration
        link = _Link(peer_id, peer)
        self._peers[peer_id] = link
        self._slots[peer.incomingPeerID] = link
        self._joined(peer_id)

    def _packet_in(self, link: _Link, event: enet.Event) -> None:
        packet = event.packet
        data = packet.data
        if len(data) > self.max_message_size:
            self.logger.warning(
                "closing peer %d: a %d-byte packet is over the %d-byte limit",
                link.id,
                len(data),
                self.max_message_size,
            )
            self.disconnect_peer(link.id)
            return
        mode, channel = transfer_of(event.channelID, packet.flags)
        self._received(link.id, data, mode, channel)


class MultiplayerClient(ClientEndpoint):
    """A SceneMultiplayer client of a Godot ``ENetMultiplayerPeer.create_server``.

    The callbacks and authentication are :class:`ClientEndpoint`'s. As Godot's client does,
    it picks its own peer id (``ids``: default random in Godot's range) and sends it in the
    ENet CONNECT. ``send`` and ``send_raw`` take a transfer ``mode`` and ``channel``.
    """

    default_size: ClassVar[int] = GODOT_MAX_PACKET_SIZE
    default_logger: ClassVar[logging.Logger] = LOGGER

    def __init__(
        self,
        *,
        auth_callback: Callable[[bytes], None] | None = None,
        ids: random.Random | None = None,
        service_interval: float = SERVICE_INTERVAL,
        **options: Unpack[EndpointOptions],
    ) -> None:
        super().__init__(auth_callback=auth_callback, **options)
        self.service_interval = service_interval
        self._ids = ids if ids is not None else random.SystemRandom()
        self._id = 0
        self._pump: _Pump | None = None
        self._peer: enet.Peer | None = None
        self._connected: asyncio.Future[None] | None = None
        self._closed = asyncio.Event()

    async def connect(
        self, host: str, port: int, *, channels: int = 0, timeout: float = 5.0
    ) -> int:
        """Connect to a Godot ENet server at ``host:port`` with ``channels`` transfer
        channels (0: ENet's most, as Godot asks); our peer id once connected."""
        if self._pump is not None:
            raise RuntimeError("this client is already connected")
        self._id = self._ids.randint(*_ID_RANGE)
        enet_host = enet.Host(None, 1, 0, 0, 0)
        count = channels + _RESERVED_CHANNELS if channels > 0 else _MAX_CHANNELS
        self._connected = asyncio.get_running_loop().create_future()
        self._peer = enet_host.connect(_address(host, port), count, self._id)
        self._pump = _Pump(enet_host, self._event_in, _nothing, self.service_interval, self.logger)
        self._pump.flush()
        try:
            await asyncio.wait_for(asyncio.shield(self._connected), timeout)
        except TimeoutError:
            self._stop()
            raise ConnectionError(f"no ENet server answered at {host}:{port}") from None
        except ConnectionError:
            self._stop()
            raise
        return self.unique_id

    async def wait_closed(self) -> None:
        """Until the server closed the connection (or :meth:`close` did)."""
        if self._pump is not None:
            await self._closed.wait()

    async def close(self) -> None:
        """Disconnect once what was queued is delivered; ``on_peer_disconnected(1)`` follows
        if we were admitted."""
        if self._pump is None or self._peer is None:
            return
        if not self._closed.is_set():
            self._peer.disconnect_later()
            self._pump.flush()
            try:
                await asyncio.wait_for(self._closed.wait(), _CLOSE_WAIT)
            except TimeoutError:
                self._peer.reset()
                self._lost()

    def _put(self, data: bytes, mode: TransferMode, channel: int) -> None:
        if self._peer is None or self._pump is None or self._closed.is_set():
            raise ValueError("not connected")
        enet_channel, flags = enet_route(mode, channel)
        self._peer.send(enet_channel, enet.Packet(data, flags))
        self._pump.flush()

    def _event_in(self, event: enet.Event) -> None:
        if event.type == enet.EVENT_TYPE_CONNECT:
            # Joined here, not in connect(): the server's first packets may follow at once.
            self.unique_id = self._id
            self._joined()
            if self._connected is not None and not self._connected.done():
                self._connected.set_result(None)
        elif event.type == enet.EVENT_TYPE_RECEIVE:
            data = event.packet.data
            if len(data) > self.max_message_size:
                self.logger.warning("dropped a %d-byte packet from the server", len(data))
            else:
                self._received(data)
        elif event.type == enet.EVENT_TYPE_DISCONNECT:
            if self._connected is not None and not self._connected.done():
                self._connected.set_exception(ConnectionError("the ENet server refused us"))
            self._lost()

    def _lost(self) -> None:
        """The connection ended (or never came): stop the pump and tell the game."""
        if self._closed.is_set():
            return
        self._stop()
        if self.unique_id:
            self._left()

    def _stop(self) -> None:
        self._closed.set()
        if self._pump is not None:
            self._pump.close()


def _nothing() -> None:
    """A client has no periodic checks of its own."""
