"""What a transport server and the API on it promise each other.

A transport (``websocket.MultiplayerServer``, ``enet.MultiplayerServer``, or any object of
the :class:`Transport` shape) owns the connections and the :class:`ServerProtocol`;
:class:`~gdvariant.multiplayer.SceneMultiplayer` sends through it and hands it one
:class:`TransportListener`, with :meth:`Transport.attach`, as a Godot game sets
``multiplayer.multiplayer_peer``. From then on the transport tells the listener what its
peers do, and asks it which node paths exist (docs/multiplayer.md, "The server API").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ._rpc_config import TransferMode
from ._server import PathCheck, ServerProtocol
from .wire import Packet

__all__ = ["Transport", "TransportListener"]

PeerCallback = Callable[[int], None]
PacketCallback = Callable[[int, Packet], None]
#: Seconds on a clock that never goes back (``time.monotonic``): what an adapter gives its
#: endpoint for the authentication deadlines.
Clock = Callable[[], float]


@dataclass(frozen=True)
class TransportListener:
    """The layer over a transport server, as the transport calls it: each admitted peer, each
    peer that left, started or failed authenticating, each game packet (not RAW, whose
    payloads keep going to the transport's ``on_raw``), and the verdict on each path a client
    simplifies (:data:`~gdvariant.multiplayer.PathCheck`)."""

    peer_connected: PeerCallback
    peer_disconnected: PeerCallback
    peer_authenticating: PeerCallback
    peer_authentication_failed: PeerCallback
    packet_received: PacketCallback
    check_path: PathCheck


class Transport(Protocol):
    """What :class:`~gdvariant.multiplayer.SceneMultiplayer` needs of a transport server
    (``MultiplayerServer``).

    ``send`` takes the packet's transfer mode and channel; a transport without them (as
    WebSocket, always reliable and ordered) accepts and ignores them. A transport may also
    have ``send_encoded(peer, data, *, mode, channel=0)``, ``send`` of a packet already
    encoded (the frame's SYNC and delta packets, whose bytes are shared by every peer they
    go to), and ``send_encoded_many(packets)`` for a whole frame of them, as the
    ``MultiplayerServer`` s have; without them those packets go one by one, or are decoded
    and given to ``send``. The ``on_*`` callbacks the transport was built with are read once by
    the layer that attaches, which takes over their events."""

    @property
    def protocol(self) -> ServerProtocol: ...

    @property
    def on_peer_connected(self) -> PeerCallback | None: ...

    @property
    def on_peer_disconnected(self) -> PeerCallback | None: ...

    @property
    def on_peer_authenticating(self) -> PeerCallback | None: ...

    @property
    def on_peer_authentication_failed(self) -> PeerCallback | None: ...

    @property
    def on_packet(self) -> PacketCallback | None: ...

    @property
    def peers(self) -> frozenset[int]: ...

    def attach(self, listener: TransportListener) -> None: ...

    def send(
        self, peer: int, packet: Packet, *, mode: TransferMode | None = None, channel: int = 0
    ) -> None: ...

    def send_auth(self, peer: int, data: bytes) -> None: ...

    def complete_auth(self, peer: int) -> None: ...

    def disconnect_peer(self, peer: int) -> None: ...
