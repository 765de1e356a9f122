"""What the SceneMultiplayer transports share: the game's callbacks and the peer logic.

:class:`ServerEndpoint` runs a :class:`~gdvariant.multiplayer.ServerProtocol` and turns its
events into the game's callbacks; :class:`ClientEndpoint` is the client's half (auth, the
peers the server announces, relayed packets). A transport (``websocket``, ``enet``) subclasses
them and supplies only the I/O: how one packet goes to a peer (``_put``) and how a
connection is closed, and the clock the authentication deadlines are read on. Nothing here
opens a socket or imports a network package; the deadlines run on the event loop's timers.
docs/multiplayer.md ("Clients that do not read, logs they cannot flood") has the limits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import ClassVar, TypedDict, Unpack

from .. import DecodeError
from .._closing import AsyncClosing
from .._net.outbox import DEFAULT_MAX_UNSENT, DEFAULT_STALL_TIMEOUT, Backlog
from .._net.peerlog import PeerLog, clip
from ._auth import DEFAULT_AUTH_TIMEOUT, Authenticator, AuthVerdict
from ._rpc_config import TransferMode
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
from ._stats import TrafficCounter
from ._transport import Clock, PacketCallback, PeerCallback, TransportListener
from .wire import (
    AddPeer,
    Command,
    DelPeer,
    Packet,
    Raw,
    Relay,
    SysCommand,
    decode_scene_packet,
    encode_scene_packet,
)
from .wire._version import CMD_MASK, SYNC_DELTA_FLAG

__all__ = [
    "AuthCallback",
    "ClientEndpoint",
    "Clock",
    "EndpointOptions",
    "PacketCallback",
    "PeerCallback",
    "RawCallback",
    "ServerEndpoint",
    "ServerOptions",
    "TransferMode",
    "default_mode",
]

SERVER = 1
RELAY_HEAD = bytes([Command.SYS, SysCommand.RELAY])
DELTA_HEAD = bytes([Command.SYNC | SYNC_DELTA_FLAG])

RawCallback = Callable[[int, bytes], None]
#: ``auth_callback(peer, data)``: answer with ``send_auth`` / ``complete_auth`` or ``disconnect``.
AuthCallback = Callable[[int, bytes], None]


def default_mode(data: bytes) -> TransferMode:
    """The mode SceneMultiplayer itself uses for a packet it sends: a full SYNC goes
    unreliable, everything else (delta SYNC included) reliable, all on channel 0."""
    if data and data[0] & CMD_MASK == Command.SYNC and not data[0] & SYNC_DELTA_FLAG:
        return TransferMode.UNRELIABLE
    return TransferMode.RELIABLE


#: The default ``max_raw_queued``: 1 MiB of one peer's RAW payloads waiting in
#: :meth:`_Endpoint.receive_raw`'s queue (a game that reads it keeps it near empty).
DEFAULT_MAX_RAW_QUEUED = 1024 * 1024
#: What one queued RAW payload costs besides its bytes (its tuple and bytes object), so a
#: flood of empty payloads is held too.
RAW_OVERHEAD = 64
#: The whole queue holds at most this many peers' worth of ``max_raw_queued``.
RAW_QUEUE_SENDERS = 16


class EndpointOptions(TypedDict, total=False):
    """The keywords both ends take: the game's callbacks and the message limits."""

    on_peer_connected: PeerCallback | None
    on_peer_disconnected: PeerCallback | None
    on_peer_authentication_failed: PeerCallback | None
    on_raw: RawCallback | None
    on_packet: PacketCallback | None
    max_message_size: int  # the largest packet taken (default: the transport's)
    max_send_size: int  # the largest packet sent (default: the transport's)
    max_unsent: int  # the most bytes waiting for one peer (default 4 MiB)
    stall_timeout: float  # seconds a full peer has to catch up before it is dropped (10)
    max_raw_queued: int  # the most bytes of one peer's RAW waiting in receive_raw (1 MiB)
    logger: logging.Logger


class ServerOptions(EndpointOptions, total=False):
    """The keywords every server takes (see :class:`ServerEndpoint`)."""

    auth_callback: AuthCallback | None
    on_peer_authenticating: PeerCallback | None
    auth_timeout: float
    relay: bool
    drop_limit: int


class _Endpoint:
    """What both ends share: the game's callbacks, the limits and the RAW queue.

    ``max_unsent`` and ``stall_timeout`` hold each connection to what its peer takes
    (:mod:`gdvariant._net.outbox`): past half of ``max_unsent`` bytes waiting for a peer we stop
    reading from it; still over after ``stall_timeout`` seconds, or taken past
    ``max_unsent`` by other traffic, it is dropped. Lines about what a peer sent are logged
    at most a few times a second per peer, its data clipped (:mod:`gdvariant._net.peerlog`).
    ``clock`` is the adapter's: authentication deadlines are read on it.
    """

    #: The transport's default for both size limits.
    default_size: ClassVar[int]
    default_logger: ClassVar[logging.Logger]

    def __init__(self, options: EndpointOptions, clock: Clock) -> None:
        self.clock = clock
        self.on_peer_connected = options.get("on_peer_connected")
        self.on_peer_disconnected = options.get("on_peer_disconnected")
        self.on_peer_authentication_failed = options.get("on_peer_authentication_failed")
        self.on_raw = options.get("on_raw")
        self.on_packet = options.get("on_packet")
        self.max_message_size = options.get("max_message_size", self.default_size)
        self.max_send_size = options.get("max_send_size", self.default_size)
        self.max_unsent = options.get("max_unsent", DEFAULT_MAX_UNSENT)
        self.stall_timeout = options.get("stall_timeout", DEFAULT_STALL_TIMEOUT)
        Backlog(self.max_unsent, self.stall_timeout)  # refuses bad values now
        self.logger = options.get("logger", self.default_logger)
        self.peer_log = PeerLog(self.logger)
        self.max_raw_queued = options.get("max_raw_queued", DEFAULT_MAX_RAW_QUEUED)
        if self.max_raw_queued < 1:
            raise ValueError(f"max_raw_queued must be at least 1 byte, not {self.max_raw_queued}")
        self._raw: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
        self._raw_held: dict[int, int] = {}  # bytes (each payload + RAW_OVERHEAD) by sender
        self._raw_total = 0

    async def receive_raw(self) -> tuple[int, bytes]:
        """The next ``(sender, payload)`` sent with ``send_bytes`` (when no ``on_raw``)."""
        sender, payload = await self._raw.get()
        cost = len(payload) + RAW_OVERHEAD
        self._raw_total -= cost
        left = self._raw_held.get(sender, 0) - cost
        if left > 0:
            self._raw_held[sender] = left
        else:
            self._raw_held.pop(sender, None)
        return sender, payload

    def queue_raw(self, sender: int, payload: bytes) -> None:
        """Put a RAW payload in :meth:`receive_raw`'s queue: what a filter that took over
        ``on_raw`` (:class:`~gdvariant.multiplayer.snapshots.SnapshotLink`) passes on when the
        game set no ``on_raw`` of its own. Held to ``max_raw_queued`` bytes per sender (and
        ``RAW_QUEUE_SENDERS`` times that in all): past it a payload is dropped and logged, so
        a peer cannot grow a game that does not read the queue."""
        cost = len(payload) + RAW_OVERHEAD
        held = self._raw_held.get(sender, 0)
        limit = self.max_raw_queued
        total = self._raw_total
        if (held and held + cost > limit) or (total and total + cost > limit * RAW_QUEUE_SENDERS):
            self.peer_log.warning(
                sender,
                "RAW from peer %d dropped: %d bytes of its RAW wait unread in receive_raw "
                "(max_raw_queued %d); read them, or set on_raw",
                sender,
                held,
                limit,
            )
            return
        self._raw_held[sender] = held + cost
        self._raw_total += cost
        self._raw.put_nowait((sender, payload))

    def _deliver(self, sender: int, packet: Packet) -> None:
        """A game packet: RAW to ``on_raw`` (or the queue), the others to ``on_packet``."""
        if isinstance(packet, Raw):
            if self.on_raw is not None:
                self.on_raw(sender, packet.payload)
            else:
                self.queue_raw(sender, packet.payload)
        else:
            self._game_packet(sender, packet)

    def _game_packet(self, sender: int, packet: Packet) -> None:
        if self.on_packet is not None:
            self.on_packet(sender, packet)


class ServerEndpoint(_Endpoint, AsyncClosing):
    """Peer 1 of a SceneMultiplayer session, whatever carries its packets.

    Callbacks run in the event loop and must not block: ``on_peer_connected(peer)`` and
    ``on_peer_disconnected(peer)`` as SceneMultiplayer's signals, ``on_raw(peer, payload)`` for
    ``send_bytes`` from a client (else RAW payloads wait in :meth:`receive_raw`),
    ``on_packet(peer, packet)`` for the other game packets (RPCs, syncs), and ``auth_callback``
    (turns authentication on; clients must set one too) with
    ``on_peer_authenticating(peer)`` when a peer starts authenticating and
    ``on_peer_authentication_failed(peer)`` for one that left, timed out or was refused
    while authenticating. ``drop_limit`` is how many malformed packets a peer may send before it
    is closed (0: closed at the first). A pending peer is timed out by a timer at its
    deadline (``auth_timeout`` after it arrived, on the adapter's ``clock``), however busy
    the loop is with other peers. A layer such as ``SceneMultiplayer`` takes over the peer
    events, the game packets and the verdict on simplified paths with :meth:`attach`.
    """

    def __init__(self, *, clock: Clock, **options: Unpack[ServerOptions]) -> None:
        super().__init__(options, clock)
        self.auth_callback = options.get("auth_callback")
        self.on_peer_authenticating = options.get("on_peer_authenticating")
        self._listener: TransportListener | None = None
        self.protocol = ServerProtocol(
            auth=self.auth_callback is not None,
            auth_timeout=options.get("auth_timeout", DEFAULT_AUTH_TIMEOUT),
            relay=options.get("relay", True),
            check_path=self._check_path,
        )
        self.drop_limit = options.get("drop_limit", 0)
        self._drops: dict[int, int] = {}
        self._auth_timer: asyncio.TimerHandle | None = None
        self._auth_due_at: float | None = None
        #: The transfer mode and channel of the packet being handled, for callbacks (Godot's
        #: ``get_packet_mode()`` and ``get_packet_channel()``).
        self.packet_mode = TransferMode.RELIABLE
        self.packet_channel = 0
        #: every packet handed to the transport, counted (``SceneMultiplayer.stats``)
        self.traffic = TrafficCounter()

    async def close(self) -> None:
        """Close every connection and stop listening."""
        raise NotImplementedError

    @property
    def peers(self) -> frozenset[int]:
        """The admitted peers (those ``peer_connected`` announced): the protocol's, read
        where it keeps them (every RPC asks; a property less)."""
        return self.protocol.auth.connected

    @property
    def listener(self) -> TransportListener | None:
        """The layer :meth:`attach` gave the peer events to (None: the ``on_*`` callbacks
        get them)."""
        return self._listener

    def attach(self, listener: TransportListener) -> None:
        """Hand the peer events, the game packets (RAW aside) and the verdict on the paths
        clients simplify to ``listener`` instead of this server's ``on_*`` callbacks: how
        ``SceneMultiplayer`` sits on a transport. Once per server."""
        if self._listener is not None:
            raise ValueError("a layer is attached to this server already")
        self._listener = listener

    def _check_path(self, path: str, checksum: str) -> bool | None:
        """What the listener says of a simplified path; without one, every path matches."""
        return True if self._listener is None else self._listener.check_path(path, checksum)

    def _game_packet(self, sender: int, packet: Packet) -> None:
        if self._listener is not None:
            self._listener.packet_received(sender, packet)
        elif self.on_packet is not None:
            self.on_packet(sender, packet)

    def send_raw(
        self,
        peer: int,
        payload: bytes,
        *,
        mode: TransferMode = TransferMode.RELIABLE,
        channel: int = 0,
    ) -> None:
        """``send_bytes(payload, peer, mode, channel)``: a RAW packet to one admitted peer
        (0: to all)."""
        targets = sorted(self.peers) if peer == 0 else [peer]
        for target in targets:
            self.send(target, Raw(bytes(payload)), mode=mode, channel=channel)

    def send(
        self,
        peer: int,
        packet: Packet,
        *,
        mode: TransferMode | None = None,
        channel: int = 0,
    ) -> None:
        """Send any SceneMultiplayer packet to an admitted ``peer``, with ``mode`` (default:
        the one Godot uses for that packet) on ``channel``."""
        if peer not in self.protocol.peers:
            raise ValueError(f"peer {peer} is not connected")
        self._flush()
        data = encode_scene_packet(packet, version=self.protocol.version)
        if mode is None:
            mode, channel = default_mode(data), 0
        self._put_all(((peer, data, mode, channel),))

    def send_encoded(self, peer: int, data: bytes, *, mode: TransferMode, channel: int = 0) -> None:
        """Send a SceneMultiplayer packet already encoded (SceneMultiplayer's SYNC and
        delta packets, the same bytes for every peer) to an admitted ``peer``: what
        :meth:`send` does once the packet is encoded, with no copy."""
        self.send_encoded_many([(peer, data, mode, channel)])

    def send_encoded_many(self, packets: Sequence[tuple[int, bytes, TransferMode, int]]) -> None:
        """:meth:`send_encoded` of each ``(peer, data, mode, channel)`` in order (a frame's
        packets): all are checked before any is sent."""
        peers = self.protocol.auth.connected  # what protocol.peers returns, a property less
        delta_sync = self.protocol.version.delta_sync
        for peer, data, _, _ in packets:
            if peer not in peers:
                raise ValueError(f"peer {peer} is not connected")
            if not delta_sync and data[:1] == DELTA_HEAD:
                raise ValueError(f"Godot {self.protocol.version.name} has no delta sync")
        if self.protocol.has_data_to_send:  # what the protocol queued goes first
            self._flush()
        self._put_all(packets)

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
        raise NotImplementedError

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        """Send one packet to a peer of the transport (known to be there)."""
        raise NotImplementedError

    def queue_depth(self, peer: int) -> tuple[int, int]:
        """Bytes and packets handed to the transport for ``peer`` and not written (or not
        acknowledged) yet; (0, 0) for a peer it does not have."""
        raise NotImplementedError

    def _has_peer(self, peer: int) -> bool:
        """Whether the transport still has a connection to ``peer``."""
        raise NotImplementedError

    def _joined(self, peer: int) -> None:
        """The transport accepted ``peer``: start its authentication (or admit it)."""
        self._dispatch(self.protocol.peer_connected(peer, self.clock()))
        self._flush()
        self._arm_auth()

    def _received(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        """One packet from ``peer``; what it relays keeps its ``mode`` and ``channel``.
        A pending peer past its deadline is timed out first, and its packet ignored."""
        listener = self._listener
        if listener is not None:  # an admitted peer's RPC, the common packet, goes straight up
            call = self.protocol.receive_call(peer, data)
            if call is not None:
                self.packet_mode, self.packet_channel = mode, channel
                try:
                    listener.packet_received(peer, call)
                except Exception:
                    event = PacketReceived(peer, call)
                    self.peer_log.exception(peer, "callback failed on %s", clip(event))
                if self.protocol.has_data_to_send:
                    self._flush(mode, channel, relays_only=True)
                return
        deadline = self.protocol.auth.deadline(peer)
        if deadline is not None and deadline <= self.clock():
            self._check_auth()
            return
        self.packet_mode, self.packet_channel = mode, channel
        self._dispatch(self.protocol.receive(peer, data))
        self._flush(mode, channel, relays_only=True)

    def _left(self, peer: int) -> None:
        """The transport lost ``peer``."""
        self._drops.pop(peer, None)
        self.traffic.forget(peer)
        if self.protocol.auth.is_pending(peer) or peer in self.protocol.peers:
            self._dispatch(self.protocol.peer_disconnected(peer))
            self._flush()

    def _check_auth(self) -> None:
        """Time out the peers that did not authenticate in time."""
        self._dispatch(self.protocol.poll(self.clock()))
        self._arm_auth()

    def _arm_auth(self) -> None:
        """Have a timer check the pending peers at the earliest deadline (none: no timer)."""
        deadline = self.protocol.auth.next_deadline()
        due = self._auth_due_at
        if due is not None and deadline is not None and due <= deadline:
            return  # the timer set for an earlier peer checks this one too
        self._stop_auth_timer()
        if deadline is not None:
            delay = max(0.0, deadline - self.clock())
            self._auth_timer = asyncio.get_running_loop().call_later(delay, self._auth_due)
            self._auth_due_at = deadline

    def _auth_due(self) -> None:
        self._auth_timer = self._auth_due_at = None
        self._check_auth()

    def _stop_auth_timer(self) -> None:
        """The transport closed: no more deadlines."""
        if self._auth_timer is not None:
            self._auth_timer.cancel()
            self._auth_timer = self._auth_due_at = None

    def _flush(
        self, mode: TransferMode | None = None, channel: int = 0, *, relays_only: bool = False
    ) -> None:
        """Send what the protocol queued: with ``mode`` and ``channel`` (all packets, or only
        the relayed ones), else with Godot's own mode on channel 0."""
        queued = self.protocol.data_to_send()
        if not queued:
            return
        self._put_all(
            [
                (peer, data, default_mode(data), 0)
                if mode is None or (relays_only and not data.startswith(RELAY_HEAD))
                else (peer, data, mode, channel)
                for peer, data in queued
            ]
        )

    def _put_all(self, packets: Iterable[tuple[int, bytes, TransferMode, int]]) -> None:
        """Every packet the server sends leaves through here, in order: not to a peer the
        transport lost, nor over ``max_send_size`` (logged); the rest counted, then given to
        :meth:`_put` (each timed while :attr:`traffic` is timing)."""
        sendable, put, traffic = self._sendable, self._put, self.traffic
        sent, timing = traffic.sent, traffic.timing
        for peer, data, mode, channel in packets:
            if not sendable(peer, data):
                continue
            sent(peer, data)
            if timing:
                started = time.thread_time_ns()
                put(peer, data, mode, channel)
                traffic.add_transport(time.thread_time_ns() - started)
            else:
                put(peer, data, mode, channel)

    def _sendable(self, peer: int, data: bytes) -> bool:
        """Whether the transport still has ``peer`` and ``data`` is within ``max_send_size``
        (a packet over it is logged)."""
        if not self._has_peer(peer):
            return False
        if len(data) > self.max_send_size:
            self.peer_log.warning(
                peer,
                "not sending %d bytes to peer %d: over the %d-byte limit",
                len(data),
                peer,
                self.max_send_size,
            )
            return False
        return True

    def _dispatch(self, events: list[Event]) -> None:
        for event in events:
            try:
                listener = self._listener
                if (
                    type(event) is PacketReceived
                    and listener is not None
                    and type(event.packet) is not Raw
                ):  # the common event (an RPC) straight to the layer above: what _event does
                    listener.packet_received(event.peer, event.packet)
                else:
                    self._event(event)
            except Exception:
                self.peer_log.exception(event.peer, "callback failed on %s", clip(event))

    def _event(self, event: Event) -> None:
        if isinstance(event, PacketReceived):  # the common event first
            self._deliver(event.peer, event.packet)
            return
        listener = self._listener
        if isinstance(event, PeerConnected):
            on = self.on_peer_connected if listener is None else listener.peer_connected
            _tell(on, event.peer)
        elif isinstance(event, PeerDisconnected):
            on = self.on_peer_disconnected if listener is None else listener.peer_disconnected
            _tell(on, event.peer)
        elif isinstance(event, PeerAuthenticationFailed):
            self.disconnect_peer(event.peer)
            if listener is None:
                _tell(self.on_peer_authentication_failed, event.peer)
            else:
                listener.peer_authentication_failed(event.peer)
        elif isinstance(event, PeerAuthenticating):
            on = self.on_peer_authenticating if listener is None else listener.peer_authenticating
            _tell(on, event.peer)
        elif isinstance(event, AuthData) and self.auth_callback is not None:
            self.auth_callback(event.peer, event.data)
        elif isinstance(event, PacketDropped):
            self._dropped(event)

    def _dropped(self, event: PacketDropped) -> None:
        if not self._has_peer(event.peer):
            return
        drops = self._drops[event.peer] = self._drops.get(event.peer, 0) + 1
        self.peer_log.warning(
            event.peer, "dropped a packet from peer %d: %s", event.peer, clip(event.error)
        )
        if drops > self.drop_limit:
            self.peer_log.log(
                logging.WARNING,
                event.peer,
                "closing peer %d: too many malformed packets",
                event.peer,
                final=True,
            )
            self.disconnect_peer(event.peer)


class ClientEndpoint(_Endpoint):
    """A SceneMultiplayer client of a Godot server, whatever carries its packets.

    The same callbacks as :class:`ServerEndpoint`, where ``peer`` is the sender: 1 for the
    server, another client's id for what the server relayed. With ``auth_callback(data)`` set
    (the server must have one too) the client starts out authenticating: send
    :meth:`send_auth` and answer with :meth:`complete_auth`; ``on_peer_connected(1)`` marks
    admission. Packets the server sends are not answered (no CONFIRM_PATH); they come out of
    ``on_packet``.
    """

    def __init__(
        self,
        *,
        clock: Clock,
        auth_callback: Callable[[bytes], None] | None = None,
        **options: Unpack[EndpointOptions],
    ) -> None:
        super().__init__(options, clock)
        self.auth_callback = auth_callback
        self.auth = Authenticator(enabled=auth_callback is not None)
        self.unique_id = 0
        self._others: set[int] = set()

    @property
    def peers(self) -> frozenset[int]:
        """The server (once admitted) and the other clients it announced."""
        return frozenset(self._others | (self.auth.connected & {SERVER}))

    def send_auth(self, data: bytes) -> None:
        """``send_auth(1, data)`` while authenticating."""
        self._put_checked(self.auth.send(SERVER, data), TransferMode.RELIABLE, 0)

    def complete_auth(self) -> None:
        """``complete_auth(1)``: admitted once the server completed too."""
        packet, admitted = self.auth.complete(SERVER)
        self._put_checked(packet, TransferMode.RELIABLE, 0)
        if admitted:
            self._call(self.on_peer_connected, SERVER)

    def send_raw(
        self,
        payload: bytes,
        peer: int = SERVER,
        *,
        mode: TransferMode = TransferMode.RELIABLE,
        channel: int = 0,
    ) -> None:
        """``send_bytes(payload, peer, mode, channel)``: to the server (1) or, relayed, to
        other peers."""
        self.send(Raw(bytes(payload)), peer, mode=mode, channel=channel)

    def send(
        self,
        packet: Packet,
        peer: int = SERVER,
        *,
        mode: TransferMode | None = None,
        channel: int = 0,
    ) -> None:
        """Any packet, to the server or relayed by it (0: everybody, -N: all but N), with
        ``mode`` (default: the one Godot uses for that packet) on ``channel``."""
        if SERVER not in self.auth.connected:
            raise ValueError("not connected to the server (yet)")
        data = encode_scene_packet(packet)
        chosen = default_mode(data) if mode is None else mode
        self._put_checked(
            data if peer == SERVER else encode_scene_packet(Relay(peer, data)), chosen, channel
        )

    def _put_checked(self, data: bytes, mode: TransferMode, channel: int) -> None:
        if len(data) > self.max_send_size:
            raise ValueError(f"a {len(data)}-byte packet is over the {self.max_send_size} limit")
        self._put(data, mode, channel)

    def _put(self, data: bytes, mode: TransferMode, channel: int) -> None:
        """Send one packet to the server; ValueError when not connected."""
        raise NotImplementedError

    def _joined(self) -> None:
        """The transport connected: authenticate, or be admitted at once."""
        if self.auth.add_peer(SERVER, self.clock()):
            self._call(self.on_peer_connected, SERVER)

    def _received(self, data: bytes) -> None:
        """One packet from the server; a bad one is logged and dropped."""
        try:
            verdict, auth_data = self.auth.receive(SERVER, data)
            if verdict is AuthVerdict.DATA and self.auth_callback is not None:
                self.auth_callback(auth_data)
            elif verdict is AuthVerdict.ADMITTED:
                self._call(self.on_peer_connected, SERVER)
            elif verdict is AuthVerdict.GAME:
                self._packet(SERVER, decode_scene_packet(data))
        except DecodeError as exc:
            self.peer_log.warning(SERVER, "dropped a packet from the server: %s", clip(exc))
        except Exception:
            self.peer_log.exception(SERVER, "callback failed on a packet from the server")

    def _left(self) -> None:
        """The connection ended: every peer goes, the server last."""
        for peer in sorted(self._others):
            self._call(self.on_peer_disconnected, peer)
        self._others.clear()
        admitted = SERVER in self.auth.connected
        if self.auth.remove_peer(SERVER):
            self._call(self.on_peer_authentication_failed, SERVER)
        if admitted:
            self._call(self.on_peer_disconnected, SERVER)

    def _packet(self, sender: int, packet: Packet) -> None:
        if isinstance(packet, Relay) and sender == SERVER:
            self._packet(packet.peer, decode_scene_packet(packet.packet))
        elif isinstance(packet, AddPeer) and sender == SERVER:
            self._others.add(packet.peer)
            self._call(self.on_peer_connected, packet.peer)
        elif isinstance(packet, DelPeer) and sender == SERVER:
            self._others.discard(packet.peer)
            self._call(self.on_peer_disconnected, packet.peer)
        else:
            self._deliver(sender, packet)

    def _call(self, callback: PeerCallback | None, peer: int) -> None:
        if callback is None:
            return
        try:
            callback(peer)
        except Exception:
            self.logger.exception("callback failed for peer %d", peer)


def _tell(callback: PeerCallback | None, peer: int) -> None:
    if callback is not None:
        callback(peer)
