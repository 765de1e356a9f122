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
host is serviced with a zero timeout whenever its socket is readable, and when it has not been
for ``service_interval`` seconds (ENet's resends, pings and timeouts), from the event loop, at
most :data:`SERVICE_BUDGET` events a turn so that timers (authentication deadlines) still run
while clients flood it.

What is sent in one turn of the event loop leaves in one ``flush`` after it, and a frame
(``send_encoded_many``, a tick's SYNCs) in one flush when it has been handed over (Godot's
ENetMultiplayerPeer flushes after every packet): ENet then puts one peer's packets of a frame
(its SYNC, a delta, an RPC's answer) into as few datagrams as its MTU allows, and walks its
peers once per turn instead of once per packet. A receiving ENet takes such a datagram apart
into the same packets, in the same order. A wake-up costs one ENet service (the socket
read, the acknowledgements sent); the events it queued are taken with ``check_events``
(no second read, no second walk of the peers), and what their handlers sent (an RPC's
answer) leaves in one flush after them, none when nothing was sent.

What ENet holds for a peer until the peer acknowledges it counts against ``max_unsent``
(each reliable packet reports when ENet frees it; an unreliable one is sent, or throttled
away, and freed by the turn's flush, so it is not counted and needs no report. One case
escapes the count: ENet sends an unreliable packet too large for one datagram as reliable
fragments when its channel's unreliable sequence number has reached 65,535, which restarts
that numbering, so at most one such packet in 65,536 on a channel waits for its
acknowledgement uncounted, within ENet's own timeout of an unanswering peer). ENet has
one socket for every peer, so "not reading" a full peer means its packets wait unhandled,
up to ``max_unsent`` bytes too, until it has caught up; past that, or past
``stall_timeout``, it is dropped.

docs/multiplayer.md ("ENet transport") has what was checked against Godot 4.6.

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
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from functools import cache, partial
from typing import ClassVar, Unpack

from .._net.outbox import Outbox
from .._net.peerlog import PeerLog
from . import _frame
from ._endpoint import (
    SERVER,
    ClientEndpoint,
    Clock,
    EndpointOptions,
    ServerEndpoint,
    ServerOptions,
    TransferMode,
    default_mode,
)
from ._stats import TrafficCounter

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
#: Seconds between two services of an idle host (a client's; a server's without
#: ``wake_on_read``, whose reads they are).
SERVICE_INTERVAL = 0.01
#: The same for a server reading on every wake-up: each datagram a client sends (its ENet
#: pings too, every 500 ms) has the host serviced, and each flush sends ENet's pings, so the
#: timer serves only a quiet host (a resend then waits up to this long); every 10 ms it woke
#: a 30 Hz server 2-3 times a tick for nothing (docs/multiplayer.md, "ENet transport").
IDLE_SERVICE_INTERVAL = 0.1
_RECEIVE = enet.EVENT_TYPE_RECEIVE
_NONE = enet.EVENT_TYPE_NONE
#: The most ENet events handled in one turn of the event loop; the rest wait for the next.
SERVICE_BUDGET = 256
#: Seconds ``close`` waits for the other side to acknowledge a disconnection.
_CLOSE_WAIT = 2.0
#: Seconds a peer we disconnect, with nothing left to deliver, has to acknowledge it before
#: it is reset (ENet itself would wait for its 5-30 s timeout).
CLOSE_TIMEOUT = 1.0


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


#: enet_route, remembered: a packet's route is looked up, not worked out (at most 3 x 254 pairs).
_route = cache(enet_route)
#: The routes of transfer channel 0 (nearly every packet: SYNCs, deltas, spawns), indexed by
#: the mode itself (an IntEnum): no key to build and hash.
_ROUTES_0 = tuple(enet_route(TransferMode(value)) for value in range(len(TransferMode)))
#: The only mode whose packets ENet keeps until the peer acknowledges them, so the only one a
#: link counts in its outbox: an unreliable packet is sent (or throttled away) and freed by
#: the turn's flush, which the hand-over asks for (docs/multiplayer.md, "ENet transport").
_RELIABLE = TransferMode.RELIABLE.value
#: The most packet sizes a link keeps a free callback for (see :meth:`_Link.release_of`).
_RELEASES_KEPT = 64


#: The flags that say a received packet's mode (the receiver sees RELIABLE or UNSEQUENCED,
#: or neither for an unreliable-ordered packet), and the mode of each of their values.
_MODE_FLAGS = enet.PACKET_FLAG_RELIABLE | enet.PACKET_FLAG_UNSEQUENCED
_MODE_OF_FLAGS = tuple(
    TransferMode.RELIABLE
    if flags & enet.PACKET_FLAG_RELIABLE
    else TransferMode.UNRELIABLE
    if flags & enet.PACKET_FLAG_UNSEQUENCED
    else TransferMode.UNRELIABLE_ORDERED
    for flags in range(_MODE_FLAGS + 1)
)
#: The transfer channel of each ENet channel: 0 for the two reserved ones, N - 1 past them.
_CHANNEL_OF = (0,) * _RESERVED_CHANNELS + tuple(range(1, _MAX_CHANNELS - _RESERVED_CHANNELS + 1))


def transfer_of(enet_channel: int, flags: int) -> tuple[TransferMode, int]:
    """The ``(mode, channel)`` a receiver reads from an ENet packet's channel and flags
    (two table lookups, which :meth:`MultiplayerServer._packet_in` makes inline)."""
    return _MODE_OF_FLAGS[flags & _MODE_FLAGS], _CHANNEL_OF[enet_channel]


def _address(host: str | None, port: int) -> enet.Address:
    return enet.Address(host if host not in (None, "") else None, port)


class _Pump:
    """An ``enet.Host`` driven from the running loop without blocking: serviced when its
    socket is readable and when ``interval`` seconds passed without a service, each packet
    going to ``on_receive`` and each other event to ``on_event``; at most
    :data:`SERVICE_BUDGET` events a turn, the rest in the next turn. What is queued is
    flushed once a turn (:meth:`flush_soon`), a frame once handed over (:meth:`flush_frame`).

    Without ``wake_on_read`` the socket wakes nobody: the host is serviced (sent to and read
    from) by the turn's flush and by the timer, as Godot's ENetMultiplayerPeer is polled
    once a frame, so what arrives between them is taken in one service rather than a
    wake-up of the loop each; with ``read_after``, also that many seconds after each such
    flush, when the acknowledgements of what it sent are in."""

    def __init__(
        self,
        host: enet.Host,
        on_event: Callable[[enet.Event], None],
        on_receive: Callable[[enet.Event], None],
        interval: float,
        log: PeerLog,
        traffic: TrafficCounter | None = None,
        wake_on_read: bool = True,
        read_after: float = 0.0,
    ) -> None:
        self.host = host
        self.traffic = traffic  # a server's: its deferred flush is transport time too
        self.on_event = on_event  # a connection or a disconnection
        self.on_receive = on_receive  # a packet
        self.interval = interval
        self.log = log
        self._loop = asyncio.get_running_loop()
        self._time = self._loop.time
        self._fd = host.socket.fileno()
        self.wake_on_read = wake_on_read
        self.read_after = 0.0 if wake_on_read else read_after
        if wake_on_read:
            self._loop.add_reader(self._fd, self.service)
        self._timer = self._loop.call_later(interval, self._tick)
        self._more: asyncio.Handle | None = None
        self._flushing: asyncio.Handle | None = None
        self._after: asyncio.Handle | None = None  # the read read_after a flush
        self._serviced = self._loop.time()
        self.servicing = False  # inside service(): what is queued leaves with it
        self._queued = False  # something was queued inside service()
        self.closed = False

    def service(self) -> None:
        """Read what ENet has now (one service: the socket's datagrams read, the
        acknowledgements sent) and handle the events it reports (:meth:`_handle`). Most
        wake-ups bring an acknowledgement or a ping, no event: they cost this call alone."""
        self._serviced = self._time()
        if self.closed:
            return
        try:
            event = self.host.service(0, True)
        except OSError as exc:
            self.log.warning("ENet", "ENet service failed: %s", exc)
            return
        if event is not None:
            self._handle(event)

    def _handle(self, event: enet.Event) -> None:
        """Handle ``event`` and the ones after it, up to the budget, and send what they queued.

        After a packet, the events its service queued are taken with ``check_events``, which
        touches neither the socket nor the peers; after a connection or a disconnection (which
        ENet reports in the middle of its read, before it sends the acknowledgements and reads
        the rest) the next is a service again. What the handlers queued (an RPC's answer, an
        echo) leaves in one flush at the end, none when nothing was queued; cut short (the
        budget, an error), the turn's flush sends it."""
        host, on_receive = self.host, self.on_receive
        self.servicing, self._queued = True, False
        drained = read = False
        handled = 0
        try:
            while True:
                kind = event.type
                if kind == _NONE:
                    drained = True
                    break
                try:
                    if kind == _RECEIVE:
                        read = False
                        on_receive(event)
                    else:
                        read = True
                        self.on_event(event)
                except Exception:
                    self.log.exception("ENet", "handling an ENet event failed")
                handled += 1
                if self.closed:
                    break
                if handled == SERVICE_BUDGET:
                    if self._more is None:
                        self._more = self._loop.call_soon(self._go_on)
                    break
                try:
                    after = host.service(0, True) if read else host.check_events()
                except OSError as exc:
                    self.log.warning("ENet", "ENet service failed: %s", exc)
                    break
                if after is None:
                    drained = True
                    break
                event = after
        finally:
            self.servicing = False
        if self._queued:
            if drained and not self.closed:
                host.flush()
            else:
                self.flush_soon()

    def _go_on(self) -> None:
        self._more = None
        self.service()

    def flush(self) -> None:
        """Send the queued packets now."""
        if not self.closed:
            self.host.flush()

    def flush_soon(self) -> None:
        """Send the queued packets once this turn of the event loop is over, in one flush
        for everything queued meanwhile (the next turn runs it before it waits for I/O);
        inside :meth:`service`, with the service's own sends unless it is cut short."""
        if self.servicing:
            self._queued = True
        elif self._flushing is None and not self.closed:
            self._flushing = self._loop.call_soon(self._flush_queued)

    def flush_frame(self) -> None:
        """Send a frame's packets (:meth:`MultiplayerServer.send_encoded_many`) now, with
        whatever else this turn queued, in one flush and no turn of the loop after it (a
        pending :meth:`flush_soon` has nothing left to send and is dropped); inside
        :meth:`service`, with the service's own sends."""
        if self.servicing:
            self._queued = True
            return
        flushing = self._flushing
        if flushing is not None:
            flushing.cancel()
            self._flushing = None
        if not self.closed:
            self.host.flush()

    def _flush_queued(self) -> None:
        self._flushing = None
        send = self.flush if self.wake_on_read else self.service  # a service sends too
        traffic = self.traffic
        if traffic is not None and traffic.timing:
            started = time.thread_time_ns()
            send()
            traffic.add_transport(time.thread_time_ns() - started)
        else:
            send()
        if self.read_after and self._after is None and not self.closed:
            self._after = self._loop.call_later(self.read_after, self._read_after)

    def _read_after(self) -> None:
        """The read ``read_after`` seconds after a flush: the acknowledgements of what it
        sent (and whatever else came meanwhile)."""
        self._after = None
        self.service()

    def _tick(self) -> None:
        """ENet's timers (resends, pings, timeouts): a service, unless the socket's traffic
        had one serviced within the interval anyway."""
        if self._loop.time() - self._serviced >= self.interval:
            self.service()
        if not self.closed:
            self._timer = self._loop.call_at(self._serviced + self.interval, self._tick)

    def close(self) -> None:
        """Stop servicing the host (the host itself is freed with its last reference)."""
        if not self.closed:
            self.closed = True
            self._timer.cancel()
            for handle in (self._more, self._flushing, self._after):
                if handle is not None:
                    handle.cancel()
            if self.wake_on_read:
                self._loop.remove_reader(self._fd)


Deliver = Callable[["_Link", bytes, TransferMode, int], None]


class _Link:
    """One ENet peer: the id its CONNECT carried, its outbox (what ENet holds for it until
    acknowledged) and the packets it sent while full, held until it has caught up.

    ``taking`` says whether a packet from it is handled now: False from the moment its
    outbox is full (the outbox's pause) until it has caught up and what it sent meanwhile
    is handled (:meth:`replay`). One attribute, read for each packet in."""

    __slots__ = (
        "_deliver",
        "closed_at",
        "closing",
        "held",
        "held_bytes",
        "id",
        "outbox",
        "peer",
        "releases",
        "taking",
    )

    def __init__(
        self,
        peer_id: int,
        peer: enet.Peer,
        deliver: Deliver,
        limits: tuple[int, float],
        drop: Callable[[_Link, str], None],
    ) -> None:
        self.id = peer_id
        self.peer = peer
        self.closing = False
        self.closed_at = 0.0
        self._deliver = deliver
        self.held: deque[tuple[bytes, TransferMode, int]] = deque()
        self.held_bytes = 0
        self.taking = True
        self.outbox = Outbox(
            *limits, pause=self._pause, resume=self.replay, drop=partial(drop, self)
        )
        #: packet size -> the free callback releasing that many bytes (:meth:`release_of`)
        self.releases: dict[int, partial[None]] = {}

    def release_of(self, size: int) -> partial[None]:
        """The free callback of a ``size``-byte packet: its bytes leave the outbox. One
        callable serves every packet of that size (pyenet holds a reference per packet), kept
        for the first :data:`_RELEASES_KEPT` sizes; a frame's packets to a peer come in few."""
        release = self.releases.get(size)
        if release is None:
            release = partial(self.outbox.release, size)
            if len(self.releases) < _RELEASES_KEPT:
                self.releases[size] = release
        return release

    def send(self, data: bytes, mode: TransferMode, channel: int) -> bool:
        """Hand a packet to ENet, a reliable one counted until ENet frees it (an unreliable
        one leaves with the turn's flush); False when the peer is dropped for it (over
        ``max_unsent``) or ENet refused it."""
        size = len(data)
        outbox = self.outbox
        enet_channel, flags = _ROUTES_0[mode] if channel == 0 else _route(mode, channel)
        if mode != _RELIABLE:  # ENet frees it in the turn's flush: nothing to count
            return not outbox.closed and self.peer.send(enet_channel, enet.Packet(data, flags)) >= 0
        if not outbox.hold(size):
            return False
        packet = enet.Packet(data, flags)
        release = self.releases.get(size)
        packet.set_free_callback(release if release is not None else self.release_of(size))
        if self.peer.send(enet_channel, packet) < 0:
            outbox.release(size)  # ENet keeps no reference: it never frees this one
            return False
        return True

    def receive(self, data: bytes, mode: TransferMode, channel: int) -> str | None:
        """A packet from the peer: handled now, or held while the peer is full. The reason
        to drop the peer when what it holds would pass ``max_unsent``."""
        if self.taking:
            self._deliver(self, data, mode, channel)
            return None
        limit = self.outbox.backlog.limit
        if self.held_bytes + len(data) > limit:
            return (
                f"it sent {self.held_bytes + len(data):,} bytes while full (max_unsent {limit:,})"
            )
        self.held.append((data, mode, channel))
        self.held_bytes += len(data)
        return None

    def _pause(self) -> None:
        """Full: what it sends is held (ENet peers need no other pausing)."""
        self.taking = False

    def replay(self) -> None:
        """No longer full: handle what it sent meanwhile, until it is full again."""
        outbox = self.outbox
        while self.held and not outbox.full and not self.closing:
            data, mode, channel = self.held.popleft()
            self.held_bytes -= len(data)
            self._deliver(self, data, mode, channel)
        self.taking = not (self.held or outbox.full)

    def forget(self) -> None:
        """The peer is gone: drop what waits both ways."""
        self.closing = True
        self.held.clear()
        self.held_bytes = 0
        self.outbox.close()


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
    ``max_unsent`` and ``stall_timeout`` count what ENet holds for a client until it
    acknowledges it (see the module's notes). ``service_interval``: the longest the host goes
    without a service, for ENet's resends, pings and timeouts (default
    :data:`IDLE_SERVICE_INTERVAL`; :data:`SERVICE_INTERVAL` without ``wake_on_read``, where
    these services are the reads). ``wake_on_read`` False: the loop does not wake
    for each datagram that arrives; what clients sent is read when the server sends (the
    turn's flush is then a service) and every ``service_interval`` seconds otherwise, as
    Godot's server reads once a frame: fewer wake-ups a tick for a server that ticks, an
    RPC answered up to ``service_interval`` later. ``read_after`` (seconds, default 0: none;
    only without ``wake_on_read``): also read that long after each of those sends, so that
    the clients' acknowledgements of a tick's packets are read within it. ENet times its
    round trips to the read that takes the acknowledgement, and its throttle drops
    unreliable packets when they vary; read only at sends and on the timer, they took up to
    a tick and clients missed some SYNCs (a few milliseconds keeps them short). A client we
    disconnect has :data:`CLOSE_TIMEOUT` seconds to acknowledge once nothing is left to
    deliver to it, or ``stall_timeout`` while something is; then it is reset. ``clock`` is
    what the authentication deadlines are read on (default ``time.monotonic``).
    """

    default_size: ClassVar[int] = GODOT_MAX_PACKET_SIZE
    default_logger: ClassVar[logging.Logger] = LOGGER

    def __init__(
        self,
        *,
        max_clients: int = GODOT_MAX_PEERS,
        service_interval: float | None = None,
        wake_on_read: bool = True,
        read_after: float = 0.0,
        throttle: tuple[int, int, int] | None = None,
        clock: Clock = time.monotonic,
        **options: Unpack[ServerOptions],
    ) -> None:
        super().__init__(clock=clock, **options)
        self.max_clients = max_clients
        self.throttle = throttle
        if service_interval is None:
            service_interval = IDLE_SERVICE_INTERVAL if wake_on_read else SERVICE_INTERVAL
        self.service_interval = service_interval
        self.wake_on_read = wake_on_read
        if read_after < 0:
            raise ValueError(f"read_after must not be negative, not {read_after}")
        self.read_after = read_after
        self._pump: _Pump | None = None
        self._peers: dict[int, _Link] = {}
        self._slots: dict[int, _Link] = {}
        self._in_frame = False  # inside send_encoded_many: the frame is flushed at its end
        self._frame_handed = False  # a packet of the frame went to ENet

    async def listen(self, host: str | None, port: int) -> int:
        """Start accepting clients on UDP ``host:port`` (0: any free port); the port bound."""
        if self._pump is not None:
            raise RuntimeError("this server is already listening")
        try:
            enet_host = enet.Host(_address(host, port), self.max_clients, 0, 0, 0)
        except MemoryError as exc:  # pyenet's report of any enet_host_create failure
            raise OSError(f"cannot listen on {host}:{port} with ENet") from exc
        self._pump = _Pump(
            enet_host,
            self._event_in,
            self._packet_in,
            self.service_interval,
            self.peer_log,
            self.traffic,
            self.wake_on_read,
            self.read_after,
        )
        return enet_host.address.port

    async def close(self) -> None:
        """Disconnect every client (they see ``server_disconnected``) and stop listening."""
        self._stop_auth_timer()
        pump, self._pump = self._pump, None
        if pump is None:
            return
        links = list(self._peers.values())
        for link in links:
            link.peer.disconnect_now()
            link.forget()
        pump.flush()
        pump.close()
        self._peers.clear()
        self._slots.clear()
        for link in links:
            self._left(link.id)
        self.peer_log.flush()

    def disconnect_peer(self, peer: int) -> None:
        """Disconnect ``peer`` once what was queued for it is delivered; its events follow
        when ENet reports the disconnection (or when it is reset for not acknowledging)."""
        link = self._peers.get(peer)
        if link is not None and not link.closing and self._pump is not None:
            link.closing = True
            link.closed_at = asyncio.get_running_loop().time()
            link.peer.disconnect_later()
            self._pump.flush()
            self._closing(link)

    def _closing(self, link: _Link) -> None:
        """Reset a peer we disconnect that does not acknowledge in time."""
        if self._peers.get(link.id) is not link:
            return
        loop = asyncio.get_running_loop()
        waited = loop.time() - link.closed_at
        if waited >= (CLOSE_TIMEOUT if link.outbox.unsent == 0 else self.stall_timeout):
            self._reset(link)
        else:
            loop.call_later(CLOSE_TIMEOUT / 4, self._closing, link)

    def _stalled(self, link: _Link, reason: str) -> None:
        """Drop a peer that does not take what we send (its outbox said why)."""
        self.peer_log.log(
            logging.WARNING, link.id, "closing peer %d: %s", link.id, reason, final=True
        )
        link.closing = True
        asyncio.get_running_loop().call_soon(self._reset, link)

    def _reset(self, link: _Link) -> None:
        """Cut ``link`` at once (ENet reports nothing for it): it has left."""
        if self._peers.get(link.id) is not link:
            return
        link.peer.disconnect_now()
        if self._pump is not None:
            self._pump.flush()
        del self._peers[link.id]
        self._slots.pop(link.peer.incomingPeerID, None)
        link.forget()
        self._left(link.id)

    def _put_all(self, packets: Iterable[tuple[int, bytes, TransferMode, int]]) -> None:
        """:class:`ServerEndpoint`'s hand-over, the same checks, counts and order: a frame's
        SYNC packets (unreliable, channel 0, to a link that is there) go through the live
        frame's ``hand_over`` (the compiled one: no Python loop of ours a packet), any other
        through :meth:`_put_one`; the turn's flush is asked for once, not once a packet
        (while detail times each write, the shared path)."""
        pump, traffic = self._pump, self.traffic
        if pump is None or traffic.timing:
            super()._put_all(packets)
            return
        if not isinstance(packets, list | tuple):
            packets = list(packets)
        links, counts, largest = self._peers, traffic.counts, self.max_send_size
        hand_over, count = _frame.live().hand_over, len(packets)
        handed = False
        index = 0
        while index < count:
            done = hand_over(links, packets, index, counts, largest, _ROUTES_0, enet.Packet)
            if done < 0:  # packets[~done] was counted, then refused by ENet
                self._refused(packets[~done][0])
                handed, index = True, ~done + 1
                continue
            handed = handed or done > index
            if done < count:  # not a SYNC's kind: the general way
                handed = self._put_one(*packets[done]) or handed
            index = done + 1
        if handed:
            if self._in_frame:
                self._frame_handed = True  # send_encoded_many flushes once it is over
            else:
                pump.flush_soon()

    def _put_one(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> bool:
        """One packet of :meth:`_put_all` that ``hand_over`` left (reliable, on another
        channel, to a link that is gone or closing, too large): :meth:`_Link.send`, inline,
        with the hand-over's checks and count. Whether it was counted (handed over)."""
        link = self._peers.get(peer)
        if link is None or link.closing:
            return False
        size = len(data)
        if size > self.max_send_size:
            self._sendable(peer, data)  # logs it
            return False
        self.traffic.sent(peer, data)
        outbox = link.outbox
        if mode != _RELIABLE:  # ENet frees it in the turn's flush: nothing to count
            enet_channel, flags = _ROUTES_0[mode] if channel == 0 else _route(mode, channel)
            if link.peer.send(enet_channel, enet.Packet(data, flags)) >= 0:
                return True
        elif outbox.hold(size):
            enet_channel, flags = _ROUTES_0[mode] if channel == 0 else _route(mode, channel)
            packet = enet.Packet(data, flags)
            release = link.releases.get(size)
            packet.set_free_callback(release if release is not None else link.release_of(size))
            if link.peer.send(enet_channel, packet) >= 0:
                return True
            outbox.release(size)  # ENet keeps no reference: it never frees this one
        if not outbox.closed:
            self.peer_log.warning(peer, "ENet refused a packet for peer %d", peer)
        return True

    def _refused(self, peer: int) -> None:
        """ENet refused a packet ``hand_over`` counted for ``peer``: logged, as
        :meth:`_put_one` logs one, unless the peer's outbox is closed."""
        link = self._peers.get(peer)
        if link is not None and not link.outbox.closed:
            self.peer_log.warning(peer, "ENet refused a packet for peer %d", peer)

    def send_encoded_many(self, packets: Sequence[tuple[int, bytes, TransferMode, int]]) -> None:
        """:class:`ServerEndpoint`'s, with the frame's packets flushed once all are handed
        over rather than at the end of the turn (:meth:`_Pump.flush_frame`): a tick's frame
        needs no turn of the loop after it to go out, as over WebSocket. Not while detail
        times the writes, nor without ``wake_on_read`` (there a flush is a service, which
        handles what it reads: not in the middle of a frame)."""
        pump = self._pump
        if pump is None or pump.servicing or self.traffic.timing or not pump.wake_on_read:
            # inside a service (an RPC's answer) the service's own flush sends it
            ServerEndpoint.send_encoded_many(self, packets)
            return
        self._in_frame, self._frame_handed = True, False
        try:
            ServerEndpoint.send_encoded_many(self, packets)
        finally:  # what this call handed over leaves even if a hand-over raised
            self._in_frame = False
            if self._frame_handed:
                pump.flush_frame()

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        link = self._peers[peer]
        if not link.send(data, mode, channel) and not link.outbox.closed:
            self.peer_log.warning(peer, "ENet refused a packet for peer %d", peer)
        if self._pump is not None:
            self._pump.flush_soon()

    def _has_peer(self, peer: int) -> bool:
        link = self._peers.get(peer)
        return link is not None and not link.closing

    def queue_depth(self, peer: int) -> tuple[int, int]:
        link = self._peers.get(peer)
        return (0, 0) if link is None else (link.outbox.unsent, link.outbox.messages)

    def _event_in(self, event: enet.Event) -> None:
        """A connection or a disconnection (packets go to :meth:`_packet_in`)."""
        if event.type == enet.EVENT_TYPE_CONNECT:
            self._connect(event.peer, event.data)
        elif event.type == enet.EVENT_TYPE_DISCONNECT:
            link = self._slots.pop(event.peer.incomingPeerID, None)
            if link is not None:
                del self._peers[link.id]
                link.forget()
                self._left(link.id)

    def _connect(self, peer: enet.Peer, peer_id: int) -> None:
        """A client's CONNECT: its data is the id it chose; a bad or taken one is reset,
        as Godot's server does."""
        if not _ID_RANGE[0] <= peer_id <= _ID_RANGE[1] or peer_id in self._peers:
            address = peer.address.host
            self.peer_log.warning(
                address, "refusing an ENet client at %s that asked for id %d", address, peer_id
            )
            peer.reset()
            return
        if self.throttle is not None:
            interval, acceleration, deceleration = self.throttle
            peer.packetThrottleInterval = interval
            peer.packetThrottleAcceleration = acceleration
            peer.packetThrottleDeceleration = deceleration
        limits = (self.max_unsent, self.stall_timeout)
        link = _Link(peer_id, peer, self._deliver_in, limits, self._stalled)
        self._peers[peer_id] = link
        self._slots[peer.incomingPeerID] = link
        self._joined(peer_id)

    def _packet_in(self, event: enet.Event) -> None:
        """A packet event: to the endpoint now, in one call of ours (the common case: a link
        that is not full and holds nothing), else through :meth:`_Link.receive`."""
        link = self._slots.get(event.peer.incomingPeerID)
        if link is None or link.closing:
            return
        packet = event.packet
        data = packet.data
        if len(data) > self.max_message_size:
            self._too_large(link, len(data))
            return
        mode = _MODE_OF_FLAGS[packet.flags & _MODE_FLAGS]  # transfer_of, inline
        channel = _CHANNEL_OF[event.channelID]
        if link.taking:  # _Link.receive's first branch, one call of ours less
            self._received(link.id, data, mode, channel)
            return
        reason = link.receive(data, mode, channel)
        if reason is not None:
            self._stalled(link, reason)

    def _too_large(self, link: _Link, size: int) -> None:
        self.peer_log.log(
            logging.WARNING,
            link.id,
            "closing peer %d: a %d-byte packet is over the %d-byte limit",
            link.id,
            size,
            self.max_message_size,
            final=True,
        )
        self.disconnect_peer(link.id)

    def _deliver_in(self, link: _Link, data: bytes, mode: TransferMode, channel: int) -> None:
        if not link.closing:
            self._received(link.id, data, mode, channel)


class MultiplayerClient(ClientEndpoint):
    """A SceneMultiplayer client of a Godot ``ENetMultiplayerPeer.create_server``.

    The callbacks, authentication, ``max_unsent`` and ``stall_timeout`` are
    :class:`ClientEndpoint`'s (a server that does not acknowledge what we send is held to
    them). As Godot's client does, it picks its own peer id (``ids``: default random in
    Godot's range) and sends it in the ENet CONNECT. ``send`` and ``send_raw`` take a
    transfer ``mode`` and ``channel``; ``clock`` as for :class:`MultiplayerServer`.
    """

    default_size: ClassVar[int] = GODOT_MAX_PACKET_SIZE
    default_logger: ClassVar[logging.Logger] = LOGGER

    def __init__(
        self,
        *,
        auth_callback: Callable[[bytes], None] | None = None,
        ids: random.Random | None = None,
        service_interval: float = SERVICE_INTERVAL,
        clock: Clock = time.monotonic,
        **options: Unpack[EndpointOptions],
    ) -> None:
        super().__init__(clock=clock, auth_callback=auth_callback, **options)
        self.service_interval = service_interval
        self._ids = ids if ids is not None else random.SystemRandom()
        self._id = 0
        self._pump: _Pump | None = None
        self._peer: enet.Peer | None = None
        self._link: _Link | None = None
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
        limits = (self.max_unsent, self.stall_timeout)
        self._link = _Link(SERVER, self._peer, self._deliver_in, limits, self._stalled)
        self._pump = _Pump(
            enet_host, self._event_in, self._event_in, self.service_interval, self.peer_log
        )
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
        link = self._link
        if link is None or self._pump is None or self._closed.is_set():
            raise ValueError("not connected")
        if not link.send(data, mode, channel) and link.outbox.closed:
            raise ValueError("not connected")
        self._pump.flush_soon()

    def _event_in(self, event: enet.Event) -> None:
        if event.type == enet.EVENT_TYPE_CONNECT:
            # Joined here, not in connect(): the server's first packets may follow at once.
            self.unique_id = self._id
            self._joined()
            if self._connected is not None and not self._connected.done():
                self._connected.set_result(None)
        elif event.type == enet.EVENT_TYPE_RECEIVE and self._link is not None:
            data = event.packet.data
            if len(data) > self.max_message_size:
                self.peer_log.warning(SERVER, "dropped a %d-byte packet from the server", len(data))
                return
            reason = self._link.receive(data, TransferMode.RELIABLE, 0)
            if reason is not None:
                self._stalled(self._link, reason)
        elif event.type == enet.EVENT_TYPE_DISCONNECT:
            if self._connected is not None and not self._connected.done():
                self._connected.set_exception(ConnectionError("the ENet server refused us"))
            self._lost()

    def _deliver_in(self, link: _Link, data: bytes, mode: TransferMode, channel: int) -> None:
        if not self._closed.is_set():
            self._received(data)

    def _stalled(self, link: _Link, reason: str) -> None:
        """Drop a server that does not take what we send (the outbox said why)."""
        self.logger.warning("closing the connection to the server: %s", reason)
        asyncio.get_running_loop().call_soon(self._cut)

    def _cut(self) -> None:
        if self._peer is not None and not self._closed.is_set():
            self._peer.disconnect_now()
            if self._pump is not None:
                self._pump.flush()
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
        if self._link is not None:
            self._link.forget()
        if self._pump is not None:
            self._pump.close()
