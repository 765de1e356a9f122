"""A transport stand-in for SceneMultiplayer tests without sockets: a real ServerProtocol,
packets sent recorded instead of written."""

from __future__ import annotations

from collections.abc import Callable

from gdvariant.multiplayer import Packet, PacketReceived, ServerProtocol


class FakeServer:
    """The attributes SceneMultiplayer uses of MultiplayerServer."""

    def __init__(self) -> None:
        self.protocol = ServerProtocol()
        self.on_peer_connected: Callable[[int], None] | None = None
        self.on_peer_disconnected: Callable[[int], None] | None = None
        self.on_packet: Callable[[int, Packet], None] | None = None
        self.sent: list[tuple[int, Packet]] = []

    @property
    def peers(self) -> frozenset[int]:
        return self.protocol.peers

    def send(self, peer: int, packet: Packet) -> None:
        self.sent.append((peer, packet))

    def send_auth(self, peer: int, data: bytes) -> None:
        self.protocol.send_auth(peer, data)

    def complete_auth(self, peer: int) -> None:
        self.protocol.complete_auth(peer)

    def disconnect_peer(self, peer: int) -> None:
        self.protocol.peer_disconnected(peer)

    def join(self, peer: int) -> None:
        self.protocol.peer_connected(peer, 0.0)
        assert self.on_peer_connected is not None
        self.on_peer_connected(peer)

    def receive(self, peer: int, data: bytes) -> None:
        """A packet from ``peer`` through the protocol, as MultiplayerServer passes it on."""
        for event in self.protocol.receive(peer, data):
            if isinstance(event, PacketReceived) and self.on_packet is not None:
                self.on_packet(event.peer, event.packet)

    def take(self) -> list[tuple[int, Packet]]:
        out, self.sent = self.sent, []
        return out
