"""Transport stand-ins for tests without sockets: :class:`FakeServer` (a real ServerProtocol,
packets sent recorded instead of written) and :class:`MemoryServer` (a real ServerEndpoint,
the one the transports share, over lists instead of sockets)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, ClassVar

from gdvariant.multiplayer import (
    PacketReceived,
    ServerProtocol,
    TransferMode,
    TransportListener,
)
from gdvariant.multiplayer._endpoint import ServerEndpoint
from gdvariant.multiplayer.wire import Packet, decode_scene_packet


class FakeServer:
    """What SceneMultiplayer uses of MultiplayerServer (the ``Transport`` shape)."""

    def __init__(self) -> None:
        self.listener: TransportListener | None = None
        self.protocol = ServerProtocol(check_path=self._check_path)
        self.on_peer_connected: Callable[[int], None] | None = None
        self.on_peer_disconnected: Callable[[int], None] | None = None
        self.on_peer_authenticating: Callable[[int], None] | None = None
        self.on_peer_authentication_failed: Callable[[int], None] | None = None
        self.on_packet: Callable[[int, Packet], None] | None = None
        self.sent: list[tuple[int, Packet]] = []
        #: each packet's kind, transfer mode and channel, in the order sent
        self.modes: list[tuple[str, TransferMode | None, int]] = []
        #: the packets that came already encoded, as bytes
        self.encoded: list[tuple[int, bytes]] = []

    def attach(self, listener: TransportListener) -> None:
        assert self.listener is None
        self.listener = listener

    def _check_path(self, path: str, checksum: str) -> bool | None:
        return True if self.listener is None else self.listener.check_path(path, checksum)

    @property
    def peers(self) -> frozenset[int]:
        return self.protocol.peers

    def send(
        self, peer: int, packet: Packet, *, mode: TransferMode | None = None, channel: int = 0
    ) -> None:
        self.sent.append((peer, packet))
        self.modes.append((type(packet).__name__, mode, channel))

    def send_encoded(self, peer: int, data: bytes, *, mode: TransferMode, channel: int = 0) -> None:
        """A packet the scene encoded itself, recorded decoded (as :meth:`send` records)."""
        self.encoded.append((peer, data))
        self.send(peer, decode_scene_packet(data), mode=mode, channel=channel)

    def send_auth(self, peer: int, data: bytes) -> None:
        self.protocol.send_auth(peer, data)

    def complete_auth(self, peer: int) -> None:
        self.protocol.complete_auth(peer)

    def disconnect_peer(self, peer: int) -> None:
        self.protocol.peer_disconnected(peer)

    def join(self, peer: int) -> None:
        self.protocol.peer_connected(peer, 0.0)
        assert self.listener is not None
        self.listener.peer_connected(peer)

    def deliver(self, peer: int, packet: Packet) -> None:
        """A decoded game packet from ``peer``, as the transport hands it on."""
        assert self.listener is not None
        self.listener.packet_received(peer, packet)

    def receive(self, peer: int, data: bytes) -> None:
        """A packet from ``peer`` through the protocol, as MultiplayerServer passes it on."""
        for event in self.protocol.receive(peer, data):
            if isinstance(event, PacketReceived):
                self.deliver(event.peer, event.packet)

    def take(self) -> list[tuple[int, Packet]]:
        out, self.sent = self.sent, []
        return out


class MemoryServer(ServerEndpoint):
    """A transport server whose peers are names in a set and whose packets go to a list: the
    endpoint's own code (admission, RAW to ``on_raw``, size limits, the peer log) runs as on
    a socket. ``join``/``leave``/``receive`` are what a socket would report; ``clock`` is
    what the authentication deadlines are read on (always 0 unless given)."""

    default_size: ClassVar[int] = 1 << 20
    default_logger: ClassVar[logging.Logger] = logging.getLogger("tests.memory_server")

    def __init__(self, *, clock: Callable[[], float] = lambda: 0.0, **options: Any) -> None:
        super().__init__(clock=clock, **options)
        self.open: set[int] = set()
        #: every packet put on the wire: (peer, bytes, mode, channel)
        self.out: list[tuple[int, bytes, TransferMode, int]] = []

    def join(self, peer: int) -> None:
        self.open.add(peer)
        self._joined(peer)

    def leave(self, peer: int) -> None:
        self.open.discard(peer)
        self._left(peer)

    def receive(
        self, peer: int, data: bytes, mode: TransferMode = TransferMode.UNRELIABLE, channel: int = 1
    ) -> None:
        self._received(peer, data, mode, channel)

    def take(self) -> list[tuple[int, bytes, TransferMode, int]]:
        out, self.out = self.out, []
        return out

    async def close(self) -> None:
        for peer in sorted(self.open):
            self.leave(peer)

    def disconnect_peer(self, peer: int) -> None:
        self.leave(peer)

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        self.out.append((peer, data, mode, channel))

    def queue_depth(self, peer: int) -> tuple[int, int]:
        return (0, 0)

    def _has_peer(self, peer: int) -> bool:
        return peer in self.open
