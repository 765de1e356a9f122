"""Live: replication snapshots over SceneMultiplayer RAW packets to a stock Godot 4.6 client
(tests/live/multiplayer/snapshots): our ENet server behind a netsim proxy that loses 5% of
the datagrams each way and delays them 30 ms, and our WebSocket server. The client takes the
snapshots from ``multiplayer.peer_packet`` (receiver.gd, :func:`receiver_script`), applies them
with the generated decoder and acks them, unreliable on channel 1; it reports every state it
reaches in a RAW packet of its own. At every tick it applied, the state it holds must be the
world's at its newest tick, and our ``SnapshotDecoder`` fed the same packets in the same order
must hold the same. On the same connection, at the same time: a game RAW packet each way, an
RPC round trip and a spawn. Skipped without engines; required in ``.ci/run``.

The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gdvariant
from gdvariant.multiplayer import (
    SceneMultiplayer,
    SpawnableScene,
    enet,
    scene_tscn,
    synced_class,
    websocket,
)
from gdvariant.multiplayer.snapshots import SnapshotLink, receiver_script
from gdvariant.netsim import Conditions, UdpProxy
from gdvariant.replication import (
    Coord,
    EntityState,
    NetClass,
    Prop,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    Str,
    UInt,
    Vec2,
    World,
    gdscript,
    godot_state,
)
from tests.support.engines import SEED, Engine
from tests.support.multiplayer_recorder import run_godot

pytestmark = [pytest.mark.engine, pytest.mark.slow]

PROJECT = Path(__file__).parent / "snapshots"
TICKS = 300
TICK = 1 / 30
HISTORY = 16
LOSS = Conditions(loss=0.05, latency=0.03)
#: Our ENet server's throttle: none (ENet's default drops unreliable packets when round
#: trips vary, tests/live/multiplayer/test_api.py).
NO_THROTTLE = (5000, 2, 0)
RPC = "Main/Rpc"


class Mover(NetClass):
    pos = Prop(Vec2(Coord(8, 4, clamp=True)), hot=True)
    hp = UInt(7)


class Flag(NetClass):
    holder = UInt(4)
    name = Str()


class ThingState(NetClass):
    label = Str()


THING = SpawnableScene("res://thing.tscn", synced_class(ThingState), script="res://thing.gd")
SCHEMA = Schema.build([Mover, Flag])


def world_state(world: World) -> bytes:
    """What a client holding the world's current tick holds, as the decoders report it."""
    state = {
        net_id: EntityState(ent._net_layout.name, world.quantized(ent))
        for net_id, ent in sorted(world.entities.items())
    }
    return gdvariant.dumps(godot_state(SCHEMA, state))


class Game:
    """Our server: the world and its link, the RPCs and spawner, and what the client said."""

    def __init__(self, transport: str) -> None:
        self.server: enet.MultiplayerServer | websocket.MultiplayerServer
        if transport == "enet":
            self.server = enet.MultiplayerServer(on_raw=self.got_raw, throttle=NO_THROTTLE)
        else:
            self.server = websocket.MultiplayerServer(on_raw=self.got_raw, ids=random.Random(SEED))
        self.mp = SceneMultiplayer(self.server, project=PROJECT)
        self.mp.node(RPC, script="res://rpc.gd")
        self.spawner = self.mp.add_spawner("Main/Spawner", "Main/Things", [THING])
        self.world = World(SCHEMA)
        self.encoder = SnapshotEncoder(self.world, history=HISTORY)
        self.link = SnapshotLink(self.mp, self.encoder)
        self.ours = SnapshotDecoder(SCHEMA, history=HISTORY)
        self.joined: asyncio.Queue[int] = asyncio.Queue()
        self.mp.peer_connected.connect(self.joined.put_nowait)
        self.replies: list[tuple[str, tuple[Any, ...]]] = []
        for method in ("pong", "spawned"):
            self.mp.on_rpc(RPC, method, self.reply(method))
        self.expected: dict[int, bytes] = {}  # tick -> the world's state then
        self.packets: dict[int, bytes] = {}  # tick -> the client's packet
        self.applied: list[int] = []
        self.deltas = 0
        self.newest = 0
        self.echoes: list[bytes] = []
        self.problems: list[str] = []

    def reply(self, method: str) -> Callable[..., None]:
        return lambda peer, *args: self.replies.append((method, args))

    def got_raw(self, peer: int, data: bytes) -> None:
        """The client's own RAW packets (the link passes them on): reports and echoes."""
        kind = data[:1]
        if kind == b"G":
            self.echoes.append(data[1:])
        elif kind == b"E":
            self.problems.append(f"the client refused a packet: {data[1:].decode()}")
        elif kind == b"R":
            tick, newest = struct.unpack_from("<II", data, 1)
            self.check(tick, newest, data[9:])
        else:
            self.problems.append(f"unexpected RAW packet {data[:20]!r}")

    def check(self, tick: int, newest: int, state: bytes) -> None:
        """One applied packet: the client's state is the world's at its newest tick, and our
        decoder, given the packets the client applied in its order, holds the same."""
        self.applied.append(tick)
        self.deltas += struct.unpack_from("<I", self.packets[tick], 6)[0] != 0
        self.newest = max(self.newest, newest)
        if self.ours.apply(self.packets[tick]) != tick:
            self.problems.append(f"our decoder refused tick {tick}")
        if state != self.expected[newest]:
            self.problems.append(f"after tick {tick}: the client's state is not tick {newest}'s")
        if gdvariant.dumps(godot_state(SCHEMA, self.ours.state)) != state:
            self.problems.append(f"after tick {tick}: our decoder and the client's differ")

    def tick(self, peer: int, rng: random.Random, movers: list[Any], flag: Any) -> int:
        """Move the world one tick and send it; the tick's number."""
        for ent in movers:
            if rng.random() < 0.7:
                x, y = ent.pos
                ent.pos = (x + rng.uniform(-1, 1), y + rng.uniform(-1, 1))
            if rng.random() < 0.05:
                ent.hp = rng.randrange(128)
        if movers and rng.random() < 0.1:  # churn: one dies, one is born
            self.world.despawn(movers.pop(rng.randrange(len(movers))))
            movers.append(self.world.spawn(Mover, pos=(rng.uniform(-50, 50), 0.0)))
        if rng.random() < 0.05:
            flag.holder, flag.name = rng.randrange(16), rng.choice(["red", "blue", "ünïcode"])
        tick = self.encoder.snapshot()
        self.expected[tick] = world_state(self.world)
        self.link.send()
        self.packets[tick] = self.encoder.packet_for(peer)  # the bytes just sent, again
        return tick


async def until(condition: Callable[[], bool], seconds: float = 20) -> None:
    async with asyncio.timeout(seconds):
        while not condition():
            await asyncio.sleep(0.01)


async def play(engine: Engine, inside: str, transport: str) -> Game:
    rng = random.Random(SEED)
    game = Game(transport)
    port = await game.server.listen("127.0.0.1", 0)
    proxy = None
    if transport == "enet":
        proxy = UdpProxy(("127.0.0.1", port), LOSS, seed=SEED)
        host, proxy_port = await proxy.listen("127.0.0.1", 0)
        url = f"enet://{host}:{proxy_port}"
    else:
        url = f"ws://127.0.0.1:{port}"
    client = asyncio.create_task(run_godot(engine, inside, [url, str(HISTORY)]))
    try:
        peer = await asyncio.wait_for(game.joined.get(), 20)
        movers = [
            game.world.spawn(Mover, pos=(rng.uniform(-50, 50), rng.uniform(-50, 50)))
            for _ in range(30)
        ]
        flag = game.world.spawn(Flag, name="start")
        game.server.send_raw(peer, b"the game's own")
        step = 0
        while step < TICKS or game.newest < TICKS:  # then idle ticks until the end arrives
            if step == TICKS // 3:
                game.mp.rpc(peer, RPC, "ping", 41)
            if step == 2 * TICKS // 3:
                game.spawner.spawn("res://thing.tscn", "T1", {"label": "spawned ✓"})
            tick = game.tick(peer, rng, movers if step < TICKS else [], flag)
            if step > TICKS + 600:
                raise AssertionError(f"tick {TICKS} never reached the client (at {tick})")
            step += 1
            await asyncio.sleep(TICK)
        await until(lambda: len(game.replies) == 2 and len(game.echoes) == 1)
        for _ in range(20):
            game.mp.rpc(peer, RPC, "finish")
            done, _ = await asyncio.wait({client}, timeout=1)
            if done:
                break
        print(await client)
    finally:
        if not client.done():
            client.cancel()
        await game.server.close()
        if proxy is not None:
            print("proxy:", proxy.stats())
            await proxy.close()
    return game


@pytest.mark.parametrize("transport", ["enet", "websocket"])
def test_a_godot_client_takes_snapshots_through_peer_packet(godot4: Engine, transport: str) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    with godot4.workdir() as (here, inside):
        for path in PROJECT.iterdir():
            shutil.copy(path, here / path.name)
        (here / "decoder.gd").write_text(gdscript.generate(SCHEMA))
        (here / "receiver.gd").write_text(receiver_script())
        (here / "thing.tscn").write_text(scene_tscn(THING, "Thing"))
        game = asyncio.run(play(godot4, inside, transport))
    stats = game.link.stats
    print(f"applied {len(game.applied)} of {TICKS}+ ticks, {game.deltas} deltas; {stats}")
    assert game.problems == []
    assert sorted(game.replies) == [("pong", (42,)), ("spawned", ("T1", "spawned ✓"))]
    assert game.echoes == [b"the game's own"]
    assert stats.refused == 0 and stats.passed >= len(game.applied)
    if transport == "websocket":  # reliable: every packet arrives, in order
        assert game.applied == sorted(game.packets)
    else:  # 5% lost each way, and ENet's unsequenced packets may pass each other
        assert 0.5 * TICKS < len(game.applied) < len(game.packets)
    # The acks came back: most packets were deltas from a tick the client acknowledged.
    assert stats.acks > 0.5 * len(game.applied)
    assert game.deltas > 0.5 * len(game.applied)
