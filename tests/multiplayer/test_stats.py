"""``mp.stats()`` (gdvariant.multiplayer._stats) against what the transport really delivered:
real servers over WebSocket and ENet, our clients counting every packet they receive, and the
server's figures per peer compared with theirs exactly; per-class figures against the
SYNC/delta totals; and the shape of the answer. No durations are asserted (the machine is
noisy): CPU figures are checked for structure only."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import struct
import time
from typing import Any

import pytest

from gdvariant import Vector2
from gdvariant.multiplayer import (
    ClassStats,
    CpuTime,
    NetStats,
    PeerStats,
    RpcConfig,
    RpcMode,
    SceneMultiplayer,
    SpawnableScene,
    Traffic,
    TrafficRate,
    TransferMode,
    _frame,
    synced_class,
)
from gdvariant.multiplayer._endpoint import ServerEndpoint
from gdvariant.multiplayer.wire import Command
from gdvariant.replication import Float32, Int, NetClass, Prop, Str, Vec2
from tests.support.multiplayer_fake import FakeServer
from tests.support.multiplayer_serving import run, until


class Mob(NetClass):
    position = Prop(Vec2(Float32()), hot=True)
    hp = Int(16)


class Flag(NetClass):
    """ON_CHANGE only: after its first delta it sends nothing while it does not change (the
    case Godot's profiler counts every frame, godot#121800)."""

    team = Int(8)
    label = Str()


class Bullet(NetClass):
    position = Prop(Vec2(Float32()), hot=True)
    speed = Prop(Float32(), hot=True)


SCENES = [
    SpawnableScene("res://mob.tscn", synced_class(Mob)),
    SpawnableScene("res://flag.tscn", synced_class(Flag)),
    SpawnableScene("res://bullet.tscn", synced_class(Bullet)),
]
RPCS: list[RpcConfig | str] = [RpcConfig("hello", mode=RpcMode.AUTHORITY, max_args=1)]


def counting(base: type[Any]) -> type[Any]:
    """Our client of ``base``, counting the bytes and packets its transport delivered."""

    class Counting(base):  # type: ignore[misc]
        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            self.got = [0, 0]

        def _received(self, data: bytes) -> None:
            self.got[0] += len(data)
            self.got[1] += 1
            super()._received(data)

    return Counting


def _transport(name: str) -> tuple[Any, Any, dict[str, Any]]:
    """Server class, counting client class, server options (ENet: never throttled, so no
    unreliable SYNC is dropped on purpose)."""
    if name == "websocket":
        ws = pytest.importorskip("gdvariant.multiplayer.websocket", exc_type=ImportError)
        return ws.MultiplayerServer, counting(ws.MultiplayerClient), {}
    en = pytest.importorskip("gdvariant.multiplayer.enet", exc_type=ImportError)
    return en.MultiplayerServer, counting(en.MultiplayerClient), {"throttle": (5000, 2, 0)}


async def _connect(client: Any, name: str, port: int) -> None:
    if name == "websocket":
        await client.connect(f"ws://127.0.0.1:{port}")
    else:
        await client.connect("127.0.0.1", port)


async def _agree(mp: SceneMultiplayer, clients: list[Any]) -> NetStats:
    """Wait (10 s at most) until every client received what the server counted for it."""

    def agreed() -> bool:
        peers = mp.stats().peers
        return all(
            c.unique_id in peers and list(dataclasses.astuple(peers[c.unique_id].sent)) == c.got
            for c in clients
        )

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(until(agreed), 10)
    return mp.stats()


def _play(mp: SceneMultiplayer, ids: list[int]) -> None:
    """A few ticks of a game: spawns (one node seen by one peer only), syncs, a change of
    an ON_CHANGE value, an RPC to all, a despawn."""
    spawner = mp.add_spawner("Main/Spawner", "Main/Things", SCENES)
    mobs = [spawner.spawn("res://mob.tscn", f"M{i}", {"hp": i}) for i in range(3)]
    spawner.spawn("res://flag.tscn", "F", {"team": 2, "label": "red"})
    bullet = spawner.spawn("res://bullet.tscn", "B", visible_to=[ids[0]])
    for tick in range(12):
        for i, mob in enumerate(mobs):
            mob.state.position = Vector2(tick, i)
        bullet.state.speed = tick * 0.5
        if tick == 5:
            mobs[0].state.hp = 99
        mp.sync()
    mp.rpc(0, "Main/Chat", "hello", "all")
    spawner.despawn(bullet)
    mp.sync()


@pytest.mark.parametrize("name", ["websocket", "enet"])
def test_bytes_and_messages_per_peer_are_what_the_transport_delivered(name: str) -> None:
    server_class, client_class, options = _transport(name)

    async def main() -> None:
        async with server_class(**options) as server:
            mp = SceneMultiplayer(server, stats="detail")
            mp.node("Main/Chat", rpcs=RPCS)
            port = await server.listen("127.0.0.1", 0)
            clients = [client_class() for _ in range(3)]
            for client in clients:
                await _connect(client, name, port)
                await until(lambda c=client: c.unique_id in mp.peers)  # type: ignore[misc]
            await until(lambda: all(len(c.peers) == 3 for c in clients))  # ADD_PEERs arrived
            _play(mp, [c.unique_id for c in clients])
            stats = await _agree(mp, clients)
            for client in clients:
                sent = stats.peers[client.unique_id].sent
                assert (sent.bytes, sent.messages) == tuple(client.got), client.unique_id
                assert client.got[1] > 12  # spawns, syncs, deltas, the RPC: something real
            assert stats.sent.bytes == sum(c.got[0] for c in clients)
            assert stats.sent.messages == sum(c.got[1] for c in clients)
            for client in clients:
                peer = client.unique_id
                await until(lambda p=peer: mp.stats().peers[p].queued == Traffic())  # type: ignore[misc]
            for client in clients:
                await client.close()

    run(main())


def test_per_class_figures_sum_to_the_sync_and_delta_totals() -> None:
    server_class, client_class, options = _transport("websocket")

    async def main() -> None:
        async with server_class(**options) as server:
            mp = SceneMultiplayer(server, stats="detail")
            mp.node("Main/Chat", rpcs=RPCS)
            port = await server.listen("127.0.0.1", 0)
            clients = [client_class() for _ in range(2)]
            for client in clients:
                await _connect(client, "websocket", port)
                await until(lambda c=client: c.unique_id in mp.peers)  # type: ignore[misc]
            _play(mp, [c.unique_id for c in clients])
            stats = await _agree(mp, clients)
            for client in clients:
                await client.close()
        assert stats.classes is not None
        assert set(stats.classes) == {"Mob", "Flag", "Bullet"}
        sync, delta = stats.kinds["sync"], stats.kinds["delta"]
        # each packet's own head (3 bytes a SYNC, 1 a delta) is the kind's, not a class's
        assert sum(c.sync.bytes for c in stats.classes.values()) + 3 * sync.messages == sync.bytes
        assert sum(c.delta.bytes for c in stats.classes.values()) + delta.messages == delta.bytes
        mob, flag, bullet = (stats.classes[n] for n in ("Mob", "Flag", "Bullet"))
        # 3 mobs to 2 peers for 13 ticks; the bullet to one peer for the 12 it lived
        assert mob.sync.messages == 3 * 2 * 13
        assert bullet.sync.messages == 12
        # the flag never changes: one delta to each peer (its first), never a SYNC
        assert (flag.sync.messages, flag.delta.messages) == (0, 2)
        # mobs: a first delta each to each peer, then hp of one mob changed once
        assert mob.delta.messages == 3 * 2 + 2
        assert bullet.delta == Traffic()  # only ALWAYS properties

    run(main())


def test_without_detail_there_are_no_classes_and_no_transport_time() -> None:
    server_class, client_class, options = _transport("websocket")

    async def main() -> None:
        async with server_class(**options) as server:
            mp = SceneMultiplayer(server)
            mp.node("Main/Chat", rpcs=RPCS)
            port = await server.listen("127.0.0.1", 0)
            client = client_class()
            await _connect(client, "websocket", port)
            await until(lambda: client.unique_id in mp.peers)
            _play(mp, [client.unique_id])
            stats = await _agree(mp, [client])
            await client.close()
        sent = stats.peers[client.unique_id].sent
        assert (sent.bytes, sent.messages) == tuple(client.got)
        assert stats.classes is None
        assert stats.cpu.transport is None

    run(main())


def test_the_answer_is_frozen_typed_and_reads_as_a_log_line() -> None:
    server_class, client_class, options = _transport("websocket")

    async def main() -> NetStats:
        async with server_class(**options) as server:
            mp = SceneMultiplayer(server, stats="detail")
            empty = mp.stats()
            assert (empty.ticks, empty.window, empty.sent, empty.peers) == (0, 0, Traffic(), {})
            mp.node("Main/Chat", rpcs=RPCS)
            port = await server.listen("127.0.0.1", 0)
            client = client_class()
            await _connect(client, "websocket", port)
            await until(lambda: client.unique_id in mp.peers)
            _play(mp, [client.unique_id])
            stats = await _agree(mp, [client])
            assert mp.stats(window=5).window == 5
            with pytest.raises(ValueError, match="window"):
                mp.stats(window=0)
            await client.close()
            return stats

    stats = asyncio.run(asyncio.wait_for(main(), 30))
    assert (stats.ticks, stats.window) == (13, 12)  # 13 calls: 12 whole ticks between them
    assert isinstance(stats.cpu, CpuTime) and stats.cpu.transport is not None
    assert stats.cpu.total == pytest.approx(stats.cpu.game + stats.cpu.sync + stats.cpu.transport)
    assert min(stats.cpu.game, stats.cpu.sync, stats.cpu.transport) >= 0
    (peer,) = stats.peers.values()
    assert isinstance(peer, PeerStats) and isinstance(peer.per_tick, TrafficRate)
    assert all(isinstance(c, ClassStats) for c in (stats.classes or {}).values())
    assert list(stats.kinds) == ["sync", "delta", "spawn", "despawn", "rpc", "path"]
    assert stats.kinds["spawn"].messages == 5 and stats.kinds["despawn"].messages == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        stats.ticks = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        stats.peers[1] = peer  # type: ignore[index]
    line = str(stats)
    assert "\n" not in line and line.startswith("tick 13 (avg of 12): cpu ")
    assert "game" in line and "sync" in line and "transport" in line
    lines = stats.format().splitlines()
    assert lines[0] == line and len(lines) == 1 + 1 + 3  # the line, a peer, three classes
    assert lines[1].startswith(f"  peer {next(iter(stats.peers))}: sent ")


def test_a_transport_without_counters_reports_none_and_bad_levels_are_refused() -> None:
    mp = SceneMultiplayer(FakeServer())
    mp.sync()
    stats = mp.stats()
    assert (stats.ticks, stats.sent, stats.kinds) == (1, Traffic(), {})
    with pytest.raises(ValueError, match="stats must be"):
        SceneMultiplayer(FakeServer(), stats="everything")  # type: ignore[arg-type]


def test_every_command_byte_has_a_kind() -> None:
    from gdvariant.multiplayer._stats import packet_kind

    kinds = {packet_kind(first) for first in range(256)}
    assert kinds == {"rpc", "path", "raw", "spawn", "despawn", "sync", "delta", "sys"}
    assert packet_kind(Command.SYNC) == "sync" and packet_kind(0x16) == "delta"


def test_entries_of_unknown_nodes_and_cut_packets_go_to_the_unknown_class() -> None:
    from gdvariant.multiplayer._stats import UNKNOWN_CLASS, TrafficCounter

    looked: list[int] = []

    def lookup() -> dict[int, str]:
        looked.append(1)
        return {7: "Mob"}

    traffic = TrafficCounter()
    traffic.detail(lookup)
    entry = struct.pack("<II", 7, 4) + bytes(4)
    traffic.sent(5, b"\x06\x01\x00" + entry + entry + struct.pack("<II", 9, 2) + b"xy")
    traffic.sent(5, b"\x16" + struct.pack("<IQI", 7, 1, 3) + b"abc")
    traffic.sent(5, b"\x06\x02\x00" + entry[:10])  # the last entry cut short
    assert traffic.classes == {"Mob": [2 * 12 + 10, 3, 19, 1], UNKNOWN_CLASS: [10, 1, 0, 0]}
    assert len(looked) == 2  # once for 7, once for 9; never again for either
    assert traffic.kind_bytes[0x06] == 3 + 34 + 3 + 10 and traffic.kind_messages[0x16] == 1


class _SlowWire(ServerEndpoint):
    """A server whose every write takes 2 ms of this thread's CPU, as a socket's send takes
    some: the writes happen inside ``sync()`` when a packet is handed over at once."""

    default_size = 1 << 16
    default_logger = logging.getLogger("test_stats")

    def __init__(self) -> None:
        super().__init__(clock=time.monotonic, relay=False)
        self.writes = 0

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        self.writes += 1
        end = time.thread_time_ns() + 2_000_000
        while time.thread_time_ns() < end:
            pass

    def _has_peer(self, peer: int) -> bool:
        return True

    def queue_depth(self, peer: int) -> tuple[int, int]:
        return (0, 0)


def test_writes_inside_sync_count_as_transport_once_not_as_sync_too() -> None:
    """CPU time spent writing inside ``sync()`` is the transport's figure; it was counted in
    ``sync`` as well and then taken off ``game``, which is another part of the tick."""
    server = _SlowWire()
    mp = SceneMultiplayer(server, stats="detail")
    spawner = mp.add_spawner("Main/Spawner", "Main/Things", SCENES)
    server._joined(5)
    mob = spawner.spawn("res://mob.tscn", "M", {"hp": 1})
    for tick in range(6):
        mob.state.position = Vector2(tick, 0)
        mp.sync()
    stats = mp.stats()
    assert server.writes >= 6 and stats.cpu.transport is not None
    assert stats.cpu.transport >= 2.0  # at least one 2 ms write a tick
    assert stats.cpu.sync < stats.cpu.transport / 2  # sync's own work is far less than that
    assert stats.cpu.total == pytest.approx(stats.cpu.game + stats.cpu.sync + stats.cpu.transport)


@pytest.mark.parametrize("frame", sorted(_frame.implementations()))
def test_the_counter_counts_alike_on_either_frame_with_detail_or_not(frame: str) -> None:
    """``sent`` is the live frame's tally (bound when the counter is made and when detail
    changes): on either frame, with detail off, on and off again, every packet counts once
    for its peer and its first byte, as a plain sum of the packets says."""
    from gdvariant.multiplayer._stats import TrafficCounter

    entry = struct.pack("<II", 7, 4) + bytes(4)
    packets = [
        (5, b"\x06\x01\x00" + entry),
        (6, b"\x16" + struct.pack("<IQI", 7, 1, 3) + b"abc"),
        (5, bytes([Command.REMOTE_CALL, 1, 2])),
        (6, b"\x06\x02\x00" + entry + entry),
    ]
    with _frame.use(frame):
        traffic = TrafficCounter()
        for level in (None, lambda: {7: "Mob"}, None):
            traffic.detail(level)
            for peer, data in packets:
                traffic.sent(peer, data)
    rounds = 3
    for peer in (5, 6):
        mine = [data for who, data in packets if who == peer]
        assert traffic.bytes[peer] == rounds * sum(map(len, mine))
        assert traffic.messages[peer] == rounds * len(mine)
    for first in {data[0] for _, data in packets}:
        mine = [data for _, data in packets if data[0] == first]
        assert traffic.kind_bytes[first] == rounds * sum(map(len, mine))
        assert traffic.kind_messages[first] == rounds * len(mine)
    assert sum(traffic.kind_messages) == rounds * len(packets)


def _drive_counter(seed: int) -> tuple[Any, ...]:
    """A TrafficCounter on the live frame through a random run: packets to peers that come,
    leave and come back, some handed over as the ENet adapter's ``hand_over`` does, detail
    turned on and off. What its readers give, and a plain sum of what each connected peer was
    sent since it last came, and of every packet by first byte."""
    from gdvariant.multiplayer._stats import TrafficCounter

    rng = random.Random(seed)
    traffic = TrafficCounter()
    frame = _frame.live()
    connected: dict[int, list[int]] = {}  # since it came: [bytes, messages]
    by_first = [[0, 0] for _ in range(256)]
    most, seen = 0, set[int]()
    for _ in range(800):
        roll = rng.random()
        if roll < 0.05:
            traffic.detail(rng.choice([None, lambda: {7: "Mob"}]))
        elif roll < 0.2 and connected:
            gone = rng.choice(sorted(connected))
            traffic.forget(gone)
            del connected[gone]
            continue
        if connected and roll < 0.8:
            peer = rng.choice(sorted(connected))
        elif seen and roll < 0.9:  # one that left comes back (or one that is there)
            peer = rng.choice(sorted(seen))
        else:
            peer = rng.randrange(2, 2**31)
        seen.add(peer)
        data = bytes([rng.choice([6, 0x16, 1, rng.randrange(256)])]) + bytes(rng.randrange(50))
        if rng.random() < 0.3:
            packets = [(peer, data, 0, 0), (peer, data[:1], 1, 0)]
            assert frame.hand_over({peer: _Open()}, packets, 0, traffic.counts, 99, _R, _made) == 2
        else:
            packets = [(peer, data, 0, 0)]
            traffic.sent(peer, data)
        for _, sent, _, _ in packets:
            mine = connected.setdefault(peer, [0, 0])
            for row in (mine, by_first[sent[0]]):
                row[0] += len(sent)
                row[1] += 1
        most = max(most, len(connected))
    readers = (
        traffic.bytes,
        traffic.messages,
        traffic.kind_bytes,
        traffic.kind_messages,
        traffic.kinds(),
        {peer: traffic.peer(peer) for peer in (*connected, 77)},
    )
    plain = (
        {peer: row[0] for peer, row in connected.items()},
        {peer: row[1] for peer, row in connected.items()},
        [row[0] for row in by_first],
        [row[1] for row in by_first],
    )
    return readers, plain, len(traffic.cells) - 2 * 256, most, len(seen)


class _Taker:
    """A stand-in for pyenet's peer that takes every packet."""

    def send(self, channel: int, packet: object) -> int:
        return 0


class _Open:
    """A stand-in for the ENet adapter's link, open."""

    closing = False

    def __init__(self) -> None:
        self.peer = _Taker()


_R = ((0, 0), (0, 0))


def _made(data: bytes, flags: int) -> bytes:
    """The packet pyenet would be given: here its data."""
    return data


@pytest.mark.parametrize("seed", range(4))
def test_both_frames_count_random_traffic_as_a_plain_sum_does(seed: int) -> None:
    """The counter's int64 cells read the same on either frame, and as a plain sum of the
    packets (per peer since it last came: a peer that leaves is forgotten, and counts from 0
    when it comes back), with detail on and off, through ``sent`` and ``hand_over``; the
    cells of peers that left are used again: they grow with the most peers at once, not
    with every peer seen."""
    runs = []
    for frame in sorted(_frame.implementations()):
        with _frame.use(frame):
            runs.append(_drive_counter(seed))
    assert all(run == runs[0] for run in runs)
    readers, plain, peer_cells, most, seen = runs[0]
    assert readers[:4] == plain
    kinds = readers[4]
    assert sum(t.bytes for t in kinds.values()) == sum(plain[2])
    assert sum(t.messages for t in kinds.values()) == sum(plain[3])
    assert readers[5][77] == (0, 0)
    assert peer_cells == 2 * most and 2 * most < seen
