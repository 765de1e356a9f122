"""Replication snapshots over SceneMultiplayer: RAW packets a stock Godot client takes.

A Godot client already connected with ``ENetMultiplayerPeer`` or ``WebSocketMultiplayerPeer``
needs no socket of its own for :mod:`gdvariant.replication`: :class:`SnapshotLink` sends each
client's snapshot packet as a SceneMultiplayer RAW packet (what ``multiplayer.send_bytes``
sends; the client's ``multiplayer.peer_packet`` gets it), unreliable, on a transfer channel of
its own, and takes the acks the client sends back the same way. RPCs, spawns and syncs keep
going over the same connection. Both directions start with one tag byte (:data:`TAG`); the
game's own RAW packets, which must not start with it, pass through to its ``on_raw`` (or
``receive_raw``). :func:`receiver_script` writes the client's half, a GDScript node. The guide
is docs/replication-transport.md.
"""

from __future__ import annotations

import importlib.resources
import struct
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from string import Template
from typing import Any

from .._net.peerlog import clip
from ..replication import AckError, Client, SnapshotEncoder
from ._endpoint import RawCallback, ServerEndpoint
from ._rpc_config import TransferMode
from ._scene import SceneMultiplayer
from .wire import Command

__all__ = ["ACK", "CHANNEL", "TAG", "LinkStats", "SnapshotLink", "receiver_script"]

#: The first byte of every snapshot (server to client) and ack (client to server) payload.
#: 0xFF starts neither UTF-8 text nor ``var_to_bytes`` output (whose first byte is a type id
#: below 64), so a game's text or Variant RAW packets never collide with it.
TAG = 0xFF
#: The default transfer channel: ENet's channel 2, apart from channel 0's reliable traffic
#: (RPCs, spawns) and its unreliable SYNCs. WebSocket has no channels and ignores it.
CHANNEL = 1
#: An ack: :data:`TAG`, then the newest tick the client holds as a little-endian u32.
ACK = struct.Struct("<BI")

ClientIdOf = Callable[[int], Hashable]
JoinCallback = Callable[[int, Client], None]


@dataclass
class LinkStats:
    """What a :class:`SnapshotLink` did since it was made (plain counts, nothing kept per
    packet): snapshot packets and bytes sent (the RAW header and tag included), acks taken,
    acks refused (logged), and the game's RAW payloads passed on."""

    packets: int = 0
    bytes: int = 0
    acks: int = 0
    refused: int = 0
    passed: int = 0


class SnapshotLink:
    """A :class:`~gdvariant.replication.SnapshotEncoder`'s clients on a SceneMultiplayer server.

    ``on`` is a transport server (``enet.MultiplayerServer``, ``websocket.MultiplayerServer``)
    or the :class:`~gdvariant.multiplayer.SceneMultiplayer` on one: the link follows its
    ``peer_connected`` and ``peer_disconnected`` (peers already admitted are added at once).
    Each peer becomes the encoder client ``client_id(peer)`` (default: the peer id itself; a
    second peer with the same client id replaces the first), and ``on_join(peer, client)``
    runs once it is added (the place to give it an interest area or a team). :meth:`send`,
    after each ``encoder.snapshot()``, sends every client its packet; the acks that come back
    go to ``encoder.ack``. A malformed or impossible ack (wrong length, a tick the world has
    not reached, one whose packet was never made for that client, from a peer that gets no
    snapshots) is refused and logged on the server's rate-limited ``peer_log``; acks are
    handled as they arrive, never queued. ``tag`` and ``channel`` must match the client's
    (:func:`receiver_script`). The link takes over the server's ``on_raw`` and passes the
    game's RAW payloads to the one it had (else to ``receive_raw``): set it before.
    """

    def __init__(
        self,
        on: ServerEndpoint | SceneMultiplayer,
        encoder: SnapshotEncoder,
        *,
        channel: int = CHANNEL,
        tag: int = TAG,
        client_id: ClientIdOf | None = None,
        on_join: JoinCallback | None = None,
    ) -> None:
        _check(tag, channel)
        server = on.transport if isinstance(on, SceneMultiplayer) else on
        if not isinstance(server, ServerEndpoint):
            raise TypeError(
                f"a SnapshotLink needs a MultiplayerServer, not {type(server).__name__}"
            )
        if not isinstance(on, SceneMultiplayer) and server.listener is not None:
            raise ValueError("a SceneMultiplayer is on this server: give the link that instead")
        self.server, self.encoder = server, encoder
        self.channel, self.tag = channel, tag
        self.client_id: ClientIdOf = client_id or _same
        self.on_join = on_join
        self.stats = LinkStats()
        self._head = bytes((Command.RAW, tag))
        self._clients: dict[int, Hashable] = {}  # peer -> client id
        self._peers: dict[Hashable, int] = {}  # client id -> peer
        self._game_raw: RawCallback | None = server.on_raw
        server.on_raw = self._raw
        if isinstance(on, SceneMultiplayer):
            on.peer_connected.connect(self.peer_connected)
            on.peer_disconnected.connect(self.peer_disconnected)
        else:
            server.on_peer_connected = _chain(self.peer_connected, server.on_peer_connected)
            server.on_peer_disconnected = _chain(
                self.peer_disconnected, server.on_peer_disconnected
            )
        for peer in sorted(server.peers):
            self.peer_connected(peer)

    @property
    def peers(self) -> dict[int, Hashable]:
        """Each peer that gets snapshots, with its client id."""
        return dict(self._clients)

    def peer_of(self, client_id: Hashable) -> int | None:
        """The peer carrying ``client_id``'s snapshots (None: none does)."""
        return self._peers.get(client_id)

    def peer_connected(self, peer: int) -> None:
        """Start sending snapshots to ``peer`` (the link calls it on ``peer_connected``)."""
        if peer in self._clients:
            return
        client_id = self.client_id(peer)
        previous = self._peers.get(client_id)
        if previous is not None:
            self.server.logger.info(
                "client %s moves from peer %d to peer %d", clip(client_id), previous, peer
            )
            del self._clients[previous]
        client = self.encoder.add_client(client_id)
        self._clients[peer], self._peers[client_id] = client_id, peer
        if self.on_join is not None:
            self.on_join(peer, client)

    def peer_disconnected(self, peer: int) -> None:
        """Stop sending to ``peer`` (the link calls it on ``peer_disconnected``)."""
        client_id = self._clients.pop(peer, None)
        if client_id is None:
            return
        del self._peers[client_id]
        if client_id in self.encoder.clients:
            self.encoder.remove_client(client_id)

    def send(self) -> None:
        """Send every peer its packet of the encoder's current tick, unreliable on
        :attr:`channel`: call it after ``encoder.snapshot()``."""
        encoder, peers = self.encoder, self.server.peers
        ours = {c: p for c, p in self._peers.items() if p in peers and c in encoder.clients}
        if ours.keys() == encoder.clients.keys():
            packets = encoder.packets()  # every base's shared section built in one pass
        else:
            packets = {client_id: encoder.packet_for(client_id) for client_id in ours}
        head, mode, channel = self._head, TransferMode.UNRELIABLE, self.channel
        out = [(ours[c], head + packet, mode, channel) for c, packet in packets.items()]
        self.server.send_encoded_many(out)
        self.stats.packets += len(out)
        self.stats.bytes += sum(len(data) for _, data, _, _ in out)

    def _raw(self, peer: int, payload: bytes) -> None:
        """A RAW payload from ``peer``: an ack if it starts with the tag, else the game's."""
        if not payload or payload[0] != self.tag:
            self.stats.passed += 1
            if self._game_raw is not None:
                self._game_raw(peer, payload)
            else:
                self.server.queue_raw(peer, payload)
            return
        why = self._take_ack(peer, payload)
        if why is None:
            self.stats.acks += 1
            return
        self.stats.refused += 1
        self.server.peer_log.warning(peer, "refused a snapshot ack from peer %d: %s", peer, why)

    def _take_ack(self, peer: int, payload: bytes) -> str | None:
        """Hand one ack to the encoder; why it was refused (None: taken)."""
        if len(payload) != ACK.size:
            return f"{len(payload)} bytes, not {ACK.size} ({clip(payload)})"
        client_id = self._clients.get(peer)
        if client_id is None:
            return "this peer gets no snapshots"
        _, tick = ACK.unpack(payload)
        now = self.encoder.world.tick
        if tick > now:
            return f"tick {tick} is ahead of the world's tick {now}"
        try:
            self.encoder.ack(client_id, tick)
        except AckError as error:
            return clip(error.reason)
        return None


def receiver_script(*, tag: int = TAG, channel: int = CHANNEL) -> str:
    """The GDScript of the client's half of a :class:`SnapshotLink`: a ``Node`` that takes the
    server's snapshot RAW packets from ``multiplayer.peer_packet``, applies them with its
    ``decoder`` (a generated ``gdscript.generate`` decoder), and sends back an ack of the newest
    tick it holds, unreliable on ``channel``. Its signals: ``applied(tick)``,
    ``rejected(message)`` and ``game_packet(id, packet)`` (every other RAW packet)."""
    _check(tag, channel)
    source = importlib.resources.files(__package__).joinpath("snapshot_receiver.gd")
    return Template(source.read_text(encoding="utf-8")).substitute(tag=tag, channel=channel)


def _check(tag: int, channel: int) -> None:
    """Refuse a tag that is not one byte and a channel ENet has not (253 past its two own)."""
    if not 0 <= tag <= 255:
        raise ValueError(f"tag must be one byte (0..255), not {tag}")
    if not 0 <= channel <= 253:
        raise ValueError(f"channel must be in 0..253 (ENet's transfer channels), not {channel}")


def _same(peer: int) -> Hashable:
    return peer


def _chain(
    first: Callable[[int], None], then: Callable[[int], None] | None
) -> Callable[[int], Any]:
    """``first(peer)``, then the game's own callback if it had one."""
    if then is None:
        return first

    def both(peer: int) -> None:
        first(peer)
        then(peer)

    return both
