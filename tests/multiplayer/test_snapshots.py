"""gdvariant.multiplayer.snapshots: replication snapshots as SceneMultiplayer RAW packets.

Most tests run the link on :class:`MemoryServer` (the transports' own endpoint code over lists),
one over real loopback sockets of both transports with our Python clients. The Godot client is
tests/live/multiplayer/test_snapshots.py's.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._net.peerlog import PER_PEER, PeerLog
from gdvariant.multiplayer import SceneMultiplayer, TransferMode, enet, websocket
from gdvariant.multiplayer.snapshots import ACK, CHANNEL, TAG, SnapshotLink, receiver_script
from gdvariant.multiplayer.wire import Command
from gdvariant.replication import (
    Client,
    Coord,
    EntityState,
    Interest,
    NetClass,
    Prop,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    UInt,
    Vec2,
    World,
    godot_state,
)
from tests.support.multiplayer_fake import FakeServer, MemoryServer

HEAD = bytes((Command.RAW, TAG))
UNRELIABLE = TransferMode.UNRELIABLE


class Dot(NetClass):
    x = UInt(12)
    y = UInt(12)


SCHEMA = Schema.build([Dot])


def make(
    server: MemoryServer | None = None, **link_options: Any
) -> tuple[MemoryServer, SnapshotEncoder, SnapshotLink]:
    """A link on ``server`` (default: a new one) for an encoder of a world of dots."""
    server = server or MemoryServer()
    encoder = SnapshotEncoder(World(SCHEMA), history=8)
    return server, encoder, SnapshotLink(server, encoder, **link_options)


def raw(payload: bytes) -> bytes:
    return bytes([Command.RAW]) + payload


def ack(tick: int) -> bytes:
    return raw(ACK.pack(TAG, tick))


def snapshots(out: list[tuple[int, bytes, TransferMode, int]]) -> dict[int, bytes]:
    """The snapshot packets sent, by peer, with the RAW header and tag checked and cut."""
    got = {}
    for peer, data, mode, channel in out:
        if data[0] != Command.RAW:
            continue  # the SYS packets that announce peers to each other
        assert data[:2] == HEAD
        assert (mode, channel) == (TransferMode.UNRELIABLE, CHANNEL)
        got[peer] = data[2:]
    return got


def same_state(decoder: SnapshotDecoder, world: World) -> bool:
    want = {
        net_id: EntityState(ent._net_layout.name, world.quantized(ent))
        for net_id, ent in world.entities.items()
    }
    return godot_state(SCHEMA, decoder.state) == godot_state(SCHEMA, want)


def test_each_peer_gets_its_snapshots_as_unreliable_raw_on_its_channel() -> None:
    server, encoder, link = make()
    world = encoder.world
    server.join(5)
    server.join(9)
    assert link.peers == {5: 5, 9: 9} and set(encoder.clients) == {5, 9}
    dots = [world.spawn(Dot, x=i, y=2 * i) for i in range(3)]
    decoders = {peer: SnapshotDecoder(SCHEMA) for peer in (5, 9)}
    for step in range(6):
        dots[step % 3].x = 100 + step
        tick = encoder.snapshot()
        link.send()
        sent = snapshots(server.take())
        assert set(sent) == {5, 9}
        for peer, packet in sent.items():
            assert decoders[peer].apply(packet) == tick
            assert same_state(decoders[peer], world)
        server.receive(5, ack(decoders[5].ack))  # peer 9 never acks
    # Acked: peer 5's packets are deltas, peer 9's are still full updates.
    tick = encoder.snapshot()
    link.send()
    sent = snapshots(server.take())
    assert struct.unpack_from("<I", sent[5], 6)[0] == tick - 1
    assert struct.unpack_from("<I", sent[9], 6)[0] == 0
    assert link.stats.acks == 6 and link.stats.packets == 14 and link.stats.refused == 0


def test_peers_map_to_client_ids_and_leave_the_encoder_when_they_go() -> None:
    joined: list[tuple[int, Client]] = []
    server = MemoryServer()
    server.join(3)  # admitted before the link: added at once
    server, encoder, link = make(
        server, client_id=lambda peer: f"player-{peer}", on_join=lambda p, c: joined.append((p, c))
    )
    server.join(4)
    assert link.peers == {3: "player-3", 4: "player-4"}
    assert [(peer, client.client_id) for peer, client in joined] == [
        (3, "player-3"),
        (4, "player-4"),
    ]
    assert link.peer_of("player-4") == 4
    server.leave(3)
    assert set(encoder.clients) == {"player-4"} and link.peer_of("player-3") is None
    encoder.snapshot()
    link.send()
    assert list(snapshots(server.take())) == [4]


def test_a_client_id_on_a_new_peer_moves_there() -> None:
    server, encoder, link = make(client_id=lambda peer: "same")
    server.join(3)
    server.join(4)
    assert link.peers == {4: "same"} and link.peer_of("same") == 4
    encoder.snapshot()
    link.send()
    assert list(snapshots(server.take())) == [4]
    server.leave(3)  # the old connection ending does not take the client away
    assert set(encoder.clients) == {"same"}


def test_only_the_links_clients_are_built_when_the_encoder_has_others() -> None:
    server, encoder, link = make()
    world = encoder.world
    encoder.add_client("udp")  # a client on a socket of the game's own
    server.join(7)
    world.spawn(Dot, x=1)
    encoder.snapshot()
    link.send()
    assert set(snapshots(server.take())) == {7}
    assert encoder.clients["udp"].sent == set()


def test_the_games_raw_packets_pass_through_to_its_on_raw() -> None:
    got: list[tuple[int, bytes]] = []
    server = MemoryServer(on_raw=lambda peer, data: got.append((peer, data)))
    server, _, link = make(server)
    server.join(2)
    for payload in (b"hello", b"\x00" * 5, bytes([TAG - 1, 0, 0, 0, 0]), gd.dumps([1, "a"])):
        server.receive(2, raw(payload))
    server.receive(2, ack(0))
    assert [data for _, data in got] == [
        b"hello",
        b"\x00" * 5,
        bytes([TAG - 1, 0, 0, 0, 0]),
        gd.dumps([1, "a"]),
    ]
    assert link.stats.passed == 4 and link.stats.acks == 1


def test_without_an_on_raw_the_games_packets_wait_in_receive_raw() -> None:
    async def main() -> None:
        server, _, link = make()
        server.join(2)
        server.receive(2, raw(b"mine"))
        server.receive(2, ack(0))
        assert await asyncio.wait_for(server.receive_raw(), 1) == (2, b"mine")
        assert server._raw.empty() and link.stats.acks == 1

    asyncio.run(main())


def test_the_tag_and_channel_are_the_games_choice() -> None:
    server, encoder, link = make(tag=0x42, channel=3)
    server.join(2)
    encoder.snapshot()
    link.send()
    [(_, data, mode, channel)] = [p for p in server.take() if p[1][0] == Command.RAW]
    assert data[:2] == bytes((Command.RAW, 0x42)) and (mode, channel) == (
        TransferMode.UNRELIABLE,
        3,
    )
    server.receive(2, raw(struct.pack("<BI", 0x42, 1)))
    assert encoder.clients[2].acked == 1


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"tag": 256}, "tag must be one byte"),
        ({"tag": -1}, "tag must be one byte"),
        ({"channel": 254}, "channel must be in 0..253"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        make(**options)
    with pytest.raises(ValueError, match=error):
        receiver_script(**options)


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (bytes([TAG]), "1 bytes, not 5"),
        (bytes([TAG, 1, 0, 0]), "4 bytes, not 5"),
        (ACK.pack(TAG, 1) + b"x", "6 bytes, not 5"),
        (bytes([TAG]) + b"\xff" * 5000, "5001 bytes, not 5"),
        (ACK.pack(TAG, 99), "tick 99 is ahead of the world's tick 3"),
        (ACK.pack(TAG, 2**32 - 1), "is ahead of the world's tick 3"),
        (ACK.pack(TAG, 2), "acked tick 2, whose packet was never made for it"),
    ],
)
def test_bad_acks_are_refused_and_logged(
    payload: bytes, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    server, encoder, link = make()
    server.join(2)
    for _ in range(3):
        encoder.snapshot()
    link.send()  # tick 3 is the only one made for it
    with caplog.at_level(logging.WARNING):
        server.receive(2, raw(payload))
    assert encoder.clients[2].acked == 0
    assert link.stats.refused == 1
    assert why in caplog.text and "refused a snapshot ack from peer 2" in caplog.text
    assert len(caplog.text) < 400  # the client's bytes clipped
    assert 2 in server.peers  # refused, not a reason to drop the peer


def test_an_ack_from_a_peer_without_snapshots_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    server, _, link = make()
    server.join(2)
    link.peer_disconnected(2)  # the game stopped its snapshots; the peer stays
    with caplog.at_level(logging.WARNING):
        server.receive(2, ack(1))
    assert "this peer gets no snapshots" in caplog.text
    assert link.stats.refused == 1


def test_a_flood_of_bad_acks_is_logged_a_few_times_and_kept_nowhere(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server, encoder, link = make()
    # The log's second never ends, however slow the machine (a sanitizer build took 3 s)
    server.peer_log = PeerLog(server.peer_log.logger, clock=lambda: 0.0)
    server.join(2)
    encoder.snapshot()
    link.send()
    with caplog.at_level(logging.WARNING):
        for tick in range(20_000):
            server.receive(2, ack(tick + 10))  # every one from the future
            server.receive(2, raw(bytes([TAG]) * (1 + tick % 4)))  # too short
    lines = [r for r in caplog.records if "snapshot ack" in r.getMessage()]
    assert len(lines) == PER_PEER  # the server's PeerLog: a few lines a second per peer
    assert link.stats.refused == 40_000
    client = encoder.clients[2]
    assert client.acked == 0 and client.sent == {1}
    assert server._raw.empty()  # nothing queued for the game either
    assert 2 in server.peers


def test_following_a_scene_multiplayer_and_refusing_a_server_it_sits_on() -> None:
    server = MemoryServer()
    mp = SceneMultiplayer(server)
    with pytest.raises(ValueError, match="give the link that instead"):
        SnapshotLink(server, SnapshotEncoder(World(SCHEMA)))
    link = SnapshotLink(mp, SnapshotEncoder(World(SCHEMA)))
    server.join(6)
    assert link.peers == {6: 6}
    server.leave(6)
    assert link.peers == {}


def test_a_link_made_before_scene_multiplayer_keeps_its_peer_events() -> None:
    server = MemoryServer()
    link = SnapshotLink(server, SnapshotEncoder(World(SCHEMA)))
    seen: list[int] = []
    mp = SceneMultiplayer(server)
    mp.peer_connected.connect(seen.append)
    server.join(8)
    assert link.peers == {8: 8} and seen == [8]
    server.leave(8)
    assert link.peers == {}


def test_a_link_needs_a_server_endpoint() -> None:
    with pytest.raises(TypeError, match="needs a MultiplayerServer, not FakeServer"):
        SnapshotLink(FakeServer(), SnapshotEncoder(World(SCHEMA)))  # type: ignore[arg-type]


class Walker(NetClass):
    pos = Prop(Vec2(Coord(8, 4, clamp=True)), hot=True)


def test_on_join_gives_an_interest_client_its_area() -> None:
    schema = Schema.build([Walker])
    world = World(schema)
    interest = Interest(world, cell=8.0, positions={Walker: "pos"})
    encoder = SnapshotEncoder(world, interest=interest)
    server = MemoryServer()

    def joined(peer: int, client: Client) -> None:
        interest.set_area(peer, radius=5.0)
        interest.set_centre(peer, (0.0, 0.0))

    link = SnapshotLink(server, encoder, on_join=joined)
    near = world.spawn(Walker, pos=(1.0, 1.0))
    world.spawn(Walker, pos=(90.0, 90.0))
    server.join(2)
    encoder.snapshot()
    link.send()
    [packet] = snapshots(server.take()).values()
    decoder = SnapshotDecoder(schema)
    decoder.apply(packet)
    assert set(decoder.state) == {near.net_id}


def test_the_receiver_script_carries_the_tag_and_channel() -> None:
    text = receiver_script(tag=7, channel=2)
    assert "const TAG := 7\n" in text and "const CHANNEL := 2\n" in text
    assert "multiplayer.peer_packet.connect(_on_peer_packet)" in text
    assert "$" not in text
    assert f"const TAG := {TAG}\n" in receiver_script()


@pytest.mark.parametrize("transport", ["websocket", "enet"])
def test_over_loopback_sockets_with_our_clients(transport: str) -> None:
    asyncio.run(loopback(transport))


async def loopback(transport: str) -> None:
    """Our server and our Python client over real sockets: snapshots and acks on RAW, and
    the game's own RAW beside them."""
    game_raw: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
    server_class = (
        websocket.MultiplayerServer if transport == "websocket" else enet.MultiplayerServer
    )
    # ENet drops unreliable packets when its throttle falls; (5000, 2, 0): it never falls.
    options: Any = {} if transport == "websocket" else {"throttle": (5000, 2, 0)}
    server = server_class(on_raw=lambda peer, data: game_raw.put_nowait((peer, data)), **options)
    world = World(SCHEMA)
    encoder = SnapshotEncoder(world, history=8)
    link = SnapshotLink(server, encoder)
    dots = [world.spawn(Dot, x=i) for i in range(5)]
    port = await server.listen("127.0.0.1", 0)
    inbox: asyncio.Queue[bytes] = asyncio.Queue()
    client: Any
    if transport == "websocket":
        client = websocket.MultiplayerClient(on_raw=lambda peer, data: inbox.put_nowait(data))
        await client.connect(f"ws://127.0.0.1:{port}")
    else:
        client = enet.MultiplayerClient(on_raw=lambda peer, data: inbox.put_nowait(data))
        await client.connect("127.0.0.1", port)
    decoder = SnapshotDecoder(SCHEMA, history=8)
    try:
        async with asyncio.timeout(20):
            while not link.peers:
                await asyncio.sleep(0.01)
            client.send_raw(b"the game's own")
            assert (await game_raw.get())[1] == b"the game's own"
            deltas = 0
            for step in range(40):
                dots[step % 5].y = step
                tick = encoder.snapshot()
                link.send()
                # WebSocket is reliable, and our ENet server never throttles: on loopback
                # this tick's packet arrives (a lost one would time the test out).
                data = await inbox.get()
                assert data[0] == TAG
                assert decoder.apply(data[1:]) == tick
                deltas += struct.unpack_from("<I", data, 7)[0] != 0
                assert same_state(decoder, world)
                client_state = encoder.clients[next(iter(link.peers))]
                while client_state.acked < tick:  # an unreliable ack may be lost: again
                    client.send_raw(ACK.pack(TAG, decoder.ack), mode=UNRELIABLE, channel=1)
                    await asyncio.sleep(0.02)
            assert deltas == 39
            assert link.stats.refused == 0 and link.stats.passed == 1
    finally:
        await client.close()
        await server.close()
