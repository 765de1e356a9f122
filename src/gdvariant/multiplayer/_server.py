"""A SceneMultiplayer server (peer 1) as a sans-I/O state machine.

The transport tells it that peers came and went and hands it each packet; it answers with
events for the game and queues the packets to send, as ``(peer, bytes)`` pairs taken with
:meth:`ServerProtocol.data_to_send`. It runs authentication, ADD_PEER/DEL_PEER, the path
cache (confirming the paths clients simplify) and the relay; RPCs, RAW, spawns and syncs
from clients come out as :class:`PacketReceived` for the layers above. A bad packet never
raises: it becomes a :class:`PacketDropped` event (log it) and the peer's state is unchanged.
docs/multiplayer.md ("What it holds") shows it driven by a transport.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import DEFAULT_LIMITS, DecodeError
from ._auth import DEFAULT_AUTH_TIMEOUT, Authenticator, AuthVerdict
from ._frame import SWITCH
from ._relay import route_relay
from .wire import (
    AddPeer,
    Auth,
    ConfirmPath,
    DelPeer,
    Packet,
    ProtocolError,
    ReceiveCache,
    Relay,
    RemoteCall,
    SendCache,
    SimplifyPath,
    WireVersion,
    decode_scene_packet,
    encode_scene_packet,
    wire_version,
)
from .wire._rpc import SHORT_ARGS, SHORT_HEAD, read_short_call

__all__ = [
    "AuthData",
    "Event",
    "PacketDropped",
    "PacketReceived",
    "PathCheck",
    "PeerAuthenticating",
    "PeerAuthenticationFailed",
    "PeerConnected",
    "PeerDisconnected",
    "ServerProtocol",
]


#: The verdicts, read as globals (an enum class's attribute goes through its metaclass's
#: lookup on every read): every packet asks
_GAME, _DATA, _ADMITTED = AuthVerdict.GAME, AuthVerdict.DATA, AuthVerdict.ADMITTED
#: Byte 0 of an RPC in the short form, which ``read_short_call`` reads (as
#: ``decode_scene_packet`` would, with the defaults the server decodes with)
SHORT_CALL = bytes((SHORT_HEAD,))


@dataclass(frozen=True)
class PeerAuthenticating:
    """A peer arrived and must authenticate (``peer_authenticating``)."""

    peer: int


@dataclass(frozen=True)
class AuthData:
    """Auth data from a pending peer, for the auth callback."""

    peer: int
    data: bytes


@dataclass(frozen=True)
class PeerConnected:
    """A peer was admitted (``peer_connected``)."""

    peer: int


@dataclass(frozen=True)
class PeerAuthenticationFailed:
    """A pending peer left or timed out (``peer_authentication_failed``); the caller closes
    its transport connection."""

    peer: int


@dataclass(frozen=True)
class PeerDisconnected:
    """An admitted peer left (``peer_disconnected``)."""

    peer: int


@dataclass(frozen=True)
class PacketReceived:
    """A game packet from ``peer`` (the original sender, for a relayed one)."""

    peer: int
    packet: Packet


@dataclass(frozen=True)
class PacketDropped:
    """A packet from ``peer`` that was refused, and why; nothing else changed."""

    peer: int
    error: DecodeError


_new = object.__new__
_set_dict = object.__setattr__


def _packet_received(peer: int, packet: Packet) -> PacketReceived:
    """``PacketReceived(peer, packet)`` without the frozen dataclass's ``__init__`` (one
    ``object.__setattr__`` per field): one dict, the same event. One per incoming RPC
    (docs/multiplayer.md, "An RPC's way in and out")."""
    event = _new(PacketReceived)
    _set_dict(event, "__dict__", {"peer": peer, "packet": packet})
    return event


Event = (
    PeerAuthenticating
    | AuthData
    | PeerConnected
    | PeerAuthenticationFailed
    | PeerDisconnected
    | PacketReceived
    | PacketDropped
)
#: ``check_path(path, checksum)``: whether we have a node at ``path`` (relative to /root)
#: whose RPC names have the md5 ``checksum`` a client sent: True, False (it has others), or
#: None when there is no such node (then Godot sends no CONFIRM_PATH).
PathCheck = Callable[[str, str], bool | None]


class ServerProtocol:
    """Peer 1 of a SceneMultiplayer session, on the wire of Godot ``version``.

    ``auth``: whether an auth callback is set (clients must agree); ``relay``: SceneMultiplayer
    ``server_relay`` (ADD_PEER/DEL_PEER and relaying between clients); ``check_path`` judges
    the paths clients simplify (default: every path exists and matches), asked each time, so
    its owner answers from what it holds then.
    """

    def __init__(
        self,
        *,
        auth: bool = False,
        auth_timeout: float = DEFAULT_AUTH_TIMEOUT,
        relay: bool = True,
        version: str | WireVersion = "4.6",
        check_path: PathCheck | None = None,
    ) -> None:
        self.version = wire_version(version)
        self.auth = Authenticator(enabled=auth, timeout=auth_timeout, version=self.version)
        self.relay = relay
        self._check_path = check_path
        self.send_cache = SendCache()
        self.receive_cache = ReceiveCache()
        self._outgoing: list[tuple[int, bytes]] = []

    @property
    def peers(self) -> frozenset[int]:
        """The admitted peers (the same object until they change)."""
        return self.auth.connected

    def send(self, peer: int, packet: Packet) -> None:
        """Queue ``packet`` for ``peer``."""
        self._outgoing.append((peer, encode_scene_packet(packet, version=self.version)))

    @property
    def has_data_to_send(self) -> bool:
        """Whether :meth:`data_to_send` would give anything (asked after every packet, and
        nearly always no: the caller skips the flush)."""
        return bool(self._outgoing)

    def data_to_send(self) -> list[tuple[int, bytes]]:
        """Take the queued ``(peer, packet bytes)`` pairs, in order."""
        out, self._outgoing = self._outgoing, []
        return out

    def peer_connected(self, peer: int, now: float) -> list[Event]:
        """The transport accepted ``peer`` (after the id message, on WebSocket)."""
        if self.auth.add_peer(peer, now):
            return self._admitted(peer)
        return [PeerAuthenticating(peer)]

    def peer_disconnected(self, peer: int) -> list[Event]:
        """The transport lost ``peer``."""
        if self.auth.remove_peer(peer):
            return [PeerAuthenticationFailed(peer)]
        self.send_cache.remove_peer(peer)
        self.receive_cache.remove_peer(peer)
        if self.relay:
            for other in sorted(self.auth.connected):
                self.send(other, DelPeer(peer))
        return [PeerDisconnected(peer)]

    def send_auth(self, peer: int, data: bytes) -> None:
        """``send_auth``: auth data to a pending peer."""
        self._outgoing.append((peer, self.auth.send(peer, data)))

    def complete_auth(self, peer: int) -> list[Event]:
        """``complete_auth``: our side is done; the peer is admitted if it was done too."""
        packet, admitted = self.auth.complete(peer)
        self._outgoing.append((peer, packet))
        return self._admitted(peer) if admitted else []

    def poll(self, now: float) -> list[Event]:
        """Time out pending peers (the caller closes their connections)."""
        return [PeerAuthenticationFailed(peer) for peer in self.auth.expired(now)]

    def receive(self, peer: int, data: bytes) -> list[Event]:
        """One packet from ``peer``: the events it causes (never an exception)."""
        data = bytes(data)
        try:
            verdict, auth_data = self.auth.receive(peer, data)
        except DecodeError as exc:
            return [PacketDropped(peer, exc)]
        if verdict is _GAME:  # the common verdict first, and an RPC, the common packet
            try:
                if data[:1] == SHORT_CALL and len(data) >= SHORT_ARGS:  # what the reader does
                    call = read_short_call(data, False, DEFAULT_LIMITS)
                    if call is not None:
                        return [_packet_received(peer, call)]
                packet = decode_scene_packet(data, version=self.version)
            except DecodeError as exc:
                return [PacketDropped(peer, exc)]
            if type(packet) is RemoteCall:
                return [_packet_received(peer, packet)]
            return self._game_packet(peer, packet, relayed=False)
        if verdict is _DATA:
            return [AuthData(peer, auth_data)]
        if verdict is _ADMITTED:
            return self._admitted(peer)
        return []

    def receive_call(self, peer: int, data: bytes) -> RemoteCall | None:
        """The call in ``data`` when it is what nearly every packet is, an admitted peer's
        RPC in the short form (``read_short_call``): :meth:`receive` would return
        ``[PacketReceived(peer, call)]`` and change nothing else. None for any other packet,
        or one in error: then :meth:`receive` it. The endpoint's way in for an RPC, without
        the event and its list (docs/multiplayer.md, "An RPC's way in and out")."""
        if peer not in self.auth.connected:
            return None
        # the live frame's reader, which checks the form too (the compiled one reads BOOL and
        # INT arguments itself)
        read_call = SWITCH.module.read_call
        try:
            call: RemoteCall | None = read_call(
                data, False, DEFAULT_LIMITS, RemoteCall, read_short_call
            )
        except DecodeError:
            return None
        return call

    def _admitted(self, peer: int) -> list[Event]:
        if self.relay:
            for other in sorted(self.auth.connected - {peer}):
                self.send(other, AddPeer(peer))
                self.send(peer, AddPeer(other))
        return [PeerConnected(peer)]

    def _game_packet(self, peer: int, packet: Packet, *, relayed: bool) -> list[Event]:
        """What a decoded game packet from ``peer`` causes."""
        try:
            if isinstance(packet, Relay) and not relayed:
                return self._relay(peer, packet)
            if isinstance(packet, Auth | AddPeer | DelPeer | Relay):
                where = "inside a relay" if relayed else "from a client"
                raise ProtocolError(f"{type(packet).__name__} is not accepted {where}")
            if isinstance(packet, SimplifyPath):
                self._simplified(peer, packet)
            elif isinstance(packet, ConfirmPath):
                self.send_cache.confirm(peer, packet)
        except DecodeError as exc:
            return [PacketDropped(peer, exc)]
        return [PacketReceived(peer, packet)]

    def _simplified(self, peer: int, packet: SimplifyPath) -> None:
        """Cache a client's path and confirm it, as Godot does: no node, no entry and no
        confirmation (not an error: a client may name a node the server just freed); a
        checksum mismatch is confirmed as invalid."""
        check = self._check_path
        valid = True if check is None else check(packet.path, packet.checksum)
        if valid is None:
            return
        self.receive_cache.add(peer, packet)
        self.send(peer, ConfirmPath(valid, packet.cache_id, packet.path))

    def _relay(self, peer: int, packet: Relay) -> list[Event]:
        if not self.relay:
            return [PacketDropped(peer, ProtocolError("relay is off on this server"))]
        route = route_relay(peer, packet, self.auth.connected, self.version)
        for target in route.targets:
            self.send(target, route.forward)
        if route.process_locally:
            try:
                inner = decode_scene_packet(packet.packet, version=self.version)
            except DecodeError as exc:
                return [PacketDropped(peer, exc)]
            return self._game_packet(peer, inner, relayed=True)
        return []
