"""Load benchmark: one SceneMultiplayer server, many clients, synced entities at 30 Hz.

Run on demand (not a test):

    .venv/bin/python -m benchmarks.bench_multiplayer                  # 10 clients, a smoke run
    .venv/bin/python -m benchmarks.bench_multiplayer --clients 100 --seconds 20 --repeat 3
    .venv/bin/python -m benchmarks.bench_multiplayer --transport both --godot-build both \
        --scale 50,100,200,400 --repeat 3 --seconds 15 --json curve.json   # the scale curve
    .venv/bin/python -m benchmarks.bench_multiplayer --quick          # seconds; what the test runs

The scene (``benchmarks/multiplayer/``, stock nodes and GDScript) is served in the same run,
one server after the other, against the same clients: by ``gdvariant.multiplayer``
(``SceneMultiplayer`` on ``MultiplayerServer``, in its own process) and by a headless Godot
4.6 (the same project run as server: ``SceneMultiplayer``, ``MultiplayerSpawner``,
``MultiplayerSynchronizer`` and ``WebSocketMultiplayerPeer`` or ``ENetMultiplayerPeer``,
``Engine.max_fps = 30``). ``--loop`` picks the event loop ours runs on: asyncio's own
(server ``gdvariant``), uvloop's (``gdvariant-uvloop``, ``multiplayer.run(loop="uvloop")``),
or both, each its own server in every cell. ``--transport`` picks WebSocket, ENet or both (our
``multiplayer.websocket`` or ``multiplayer.enet`` server; both ENet servers take the run's
clients plus :data:`ENET_SPARE_PEERS`, not ENet's default 32). ``--godot-build`` picks which
Godot serves: Debian's editor binary (``godot --headless``, a debug build) or the release export
template a shipped game's dedicated server runs (``godot-template-release``, the project
packed into a ``.pck`` beside it, as ``bench_replication_gdscript`` runs it), or both; the
default is the release template when it is installed and packs the project (the fair
baseline), else the editor binary, and the output says which.

Each server spawns ``--entities`` entities for every client that joins, visible to that client
only (Godot: ``public_visibility`` off and ``set_visibility_for``; ours: ``visible_to``), so
100 clients x 20 make 2,000 entities and each client gets its own 20. Why this and not
client-owned entities: clients of a SceneMultiplayer game cannot spawn, and a client's
synchronizer is relayed to every peer that sees it, so the server's outgoing sync is the load a
real game puts on it. Every tick (30 a second) the server sets each entity's ``position`` to
``(tick, index)`` (an ALWAYS property: a full SYNC every tick) and once a second bumps its
``hp`` (ON_CHANGE: a delta). ``server_relay`` is off on both, as on a dedicated server.

The clients: ``--clients`` Python clients of the transport (``bench_links``: the
SceneMultiplayer protocol over ``websockets`` or pyenet, packets as bytes), spread over
``--client-processes`` processes of their own (default one per :data:`CLIENTS_PER_PROCESS`;
so they do not take the server's measured CPU, and 400 of them keep up with what the servers
send) that answer the server's SIMPLIFY_PATH, check every value of every SYNC (the entity's
index, its tick never going back; over ENet a SYNC older than one already seen is skipped and
counted as Godot's client skips it), and ping: ``ping(seq)`` on ``Bench/Rpc``, which the
server answers with ``pong(seq)`` to that client. A SYNC of the scene's float32 Vector2s is
read from its bytes in one ``struct`` call and checked a packet at a time, any other packet
decoded by the library's ``decode_scene_packet`` (the library's client decodes every value
into objects: about 100 us a SYNC of 20, more than a core for 400 clients). The client
processes measure the same wall-clock window (the harness sends it to each) and the harness
adds up their counts and pools their round trips. ``--profile-clients DIR`` writes each
client process's cProfile statistics. Plus ``--godot-clients`` headless Godot 4.6 clients of
the same project doing the same (in the default build, whichever server they join).

Reported per server: CPU per tick (process CPU time from ``/proc`` over the window / ticks),
wall time per tick (window / ticks: 33.3 ms when the server keeps up), the share of a core,
messages per second the Python clients received and sent (every server message is one
WebSocket message or ENet packet), sync values per second received against what the ticks
promise, the RPC round trip p50/p99, the client processes' CPU (all of them, and the
busiest one's: near 100% it is the clients that fall behind), and the Godot clients' own
counts. A run fails (exit 1) when a client saw a wrong value or clearly fewer syncs than the
server's ticks promise (80% over WebSocket; 70% over ENet, whose unreliable SYNCs a busy
loopback may drop), or more than they promise (counted twice), so a broken server (or
harness) cannot look fast.

Past 400 clients on two cores: ``--light-clients`` keeps the protocol whole (joins, paths
confirmed, pings timed, every packet and sync value counted) but checks one SYNC in
:data:`LIGHT_SAMPLE` of each client and counts the others' values from their length; its
client processes run on uvloop and read WebSocket frames themselves
(``bench_links.LightWebSocketLink``). ``--pin`` runs each server, ours and Godot's alike, on
CPU :data:`SERVER_CPU` only and every client on the other CPUs, so "on one core" is literal.
The report's second line and ``--json`` say which client mode ran and where.

``--scale`` runs every (client count x transport x server) cell ``--repeat`` times, the
servers of a cell one after the other in each repetition, so each A/B is of the same minutes;
per cell it prints the median (and min-max) of the main figures with the machine's load
(``uptime``) before and after, and then, from the curve, the largest client count each server
holds at 30 Hz on one core (median ticks/s >= 29.5 and median share of a core under 100%).
``--json`` writes every run, every cell and that verdict. The figures mean little on a busy
machine: the load is there to say how busy it was.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import functools
import gc
import itertools
import json
import operator
import os
import random
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from websockets.exceptions import InvalidMessage

from benchmarks.bench_links import Link, open_link
from benchmarks.bench_replication_gdscript import _PACKER, RELEASE_TEMPLATE
from gdvariant import DecodeError, Vector2
from gdvariant.multiplayer import (
    RpcTable,
    SceneMultiplayer,
    SpawnableScene,
    SpawnedNode,
    read_script_rpcs,
    run,
    scene_tscn,
    synced_class,
)
from gdvariant.multiplayer import enet as mp_enet
from gdvariant.multiplayer import websocket as mp_websocket
from gdvariant.multiplayer.wire import (
    Command,
    ConfirmPath,
    DeltaSync,
    Packet,
    RemoteCall,
    SimplifyPath,
    Spawn,
    Sync,
    decode_scene_packet,
    encode_scene_packet,
)
from gdvariant.replication import Float32, Int, NetClass, Prop, Vec2
from tests.support.engines import Engine, find_engine
from tests.support.multiplayer_recorder import free_port

PROJECT = Path(__file__).resolve().parent / "multiplayer"
TICK_HZ = 30
#: a late tick is made up for at once, as Godot's physics loop does (its
#: ``max_physics_steps_per_frame``, 8 by default); further behind, the lost ticks are given up
CATCH_UP_TICKS = 8
#: seconds from all joined to measuring
WARMUP = 2.0
#: ... over ENet: past the first 5-second interval over which ENet's packet throttle measures
#: a new peer's round trips, in which it throttles some peers' unreliable packets below full
#: on any server (docs/multiplayer-performance.md, "The thirteenth round"): the steady state
#: is measured
ENET_WARMUP = 6.0
TICKS_EVERY = 3  # our server prints its tick count every 3 ticks (bench.gd: every 15)
#: ticks a window's count may be short of the SYNCs its clients got: the count is read from
#: the TICKS lines (Godot's every 15 ticks) and a tick's SYNC may arrive a tick later
TICK_SLACK = 15 + 2
PROFILE_EVERY = 30  # with --profile, our server prints its mp.stats() CPU split every second
PROFILE_WINDOW = 90  # ... averaged over the last 3 s
RPC = "Bench/Rpc"
SPAWNER = "Bench/Spawner"
SPAWN_PATH = "Bench/Entities"
RPC_CACHE_ID = 1  # the id our clients give Bench/Rpc in their SIMPLIFY_PATH
#: a run fails when the clients got fewer sync values than this share of what the ticks
#: promise: WebSocket is reliable (the share is short only by the window's edges); ENet's
#: SYNCs are unreliable UDP, and a busy loopback (or ENet's throttle) drops a few percent
MIN_SYNC_SHARE = {"websocket": 0.8, "enet": 0.7}
TRANSPORTS = ("websocket", "enet")
#: ENet's most peers per host (Godot's create_server refuses more)
ENET_MAX_PEERS = 4095
#: peers each ENet server takes beyond the clients of a run (a failed join's slot may stay
#: taken until ENet times it out): ENetMultiplayerPeer's default of 32 would turn the 33rd
#: client away, and ENet walks every slot on each flush, so not ENet's most either
ENET_SPARE_PEERS = 32
#: seconds between two services of a Python ENet client's host: 100 clients in one process
#: each woken every 10 ms (the default) would take a core beside the measured server
CLIENT_SERVICE_INTERVAL = 0.05
#: ``--enet-reads scheduled``: our ENet server reads when it sends (a tick's frame), 3 ms
#: after (the clients' acknowledgements of it: ENet's round trips stay short, its throttle
#: full) and every 16 ms without a read (an RPC waits at most that long), not on wake-ups
SCHEDULED_READS: dict[str, Any] = {
    "wake_on_read": False,
    "read_after": 0.003,
    "service_interval": 0.016,
}
#: what a server must do to "hold" a client count at 30 Hz on one core (medians of a cell)
HOLD_HZ = 29.5
HOLD_SHARE = 1.0
JOIN_ATTEMPTS = 5  # a server busy with 100 handshakes may drop one; count and retry
#: seconds for every client to join and get its entities: at least a minute, and more for
#: many clients (400 joining Godot's server on a loaded machine took over a minute)
JOIN_SECONDS, JOIN_SECONDS_PER_CLIENT = 60.0, 0.3
JOIN_GATE = 16  # handshakes under way at once, in all the client processes of a run
#: clients per client process when ``--client-processes`` is not given: one event loop
#: with 400 clients saturated its core and fell behind what the servers sent
CLIENTS_PER_PROCESS = 100
#: ``--light-clients``: each client checks one SYNC in this many in full (a random phase per
#: client, so every tick has some checked) and counts the others' values from their length
LIGHT_SAMPLE = 8
#: ``--pin``: the CPU each server runs on (the clients get every other CPU the harness may use)
SERVER_CPU = 0


class BenchEntity(NetClass):
    """An entity's synchronizer: position every tick (hot: ALWAYS), hp on change."""

    position = Prop(Vec2(Float32()), hot=True)
    hp = Int(32)


ENTITY = SpawnableScene(
    "res://bench_entity.tscn",
    synced_class(BenchEntity),
    script="res://bench_entity.gd",
    root_type="Node2D",
)


def entity_tscn() -> str:
    """``benchmarks/multiplayer/bench_entity.tscn``, written from :class:`BenchEntity`."""
    return scene_tscn(ENTITY, "Entity")


def entity_name(peer: int, index: int) -> str:
    return f"E{peer}_{index}"


# ---------------------------------------------------------------- our server process


def enet_peers(args: argparse.Namespace) -> int:
    """The peer limit both ENet servers of a run get."""
    peers: int = args.clients + args.godot_clients + ENET_SPARE_PEERS
    return min(ENET_MAX_PEERS, peers)


async def serve(
    port_file: Path,
    per_peer: int,
    transport: str,
    max_peers: int,
    profile: bool = False,
    gc_threshold: int = 0,
    enet_reads: str = "wake",
) -> None:
    """gdvariant's server of the scene: what ``bench.gd`` does as a Godot server. With
    ``profile``, it prints its own ``mp.stats()`` (detail) every ``PROFILE_EVERY`` ticks;
    with ``enet_reads`` "scheduled", an ENet server reads as :data:`SCHEDULED_READS` says;
    with ``gc_threshold``, the cyclic collector's first threshold is set to it (a server's
    tuning, docs/multiplayer.md: "The cyclic garbage collector")."""
    if gc_threshold:
        gc.set_threshold(gc_threshold)
    server: mp_websocket.MultiplayerServer | mp_enet.MultiplayerServer
    if transport == "enet":
        reads = SCHEDULED_READS if enet_reads == "scheduled" else {}
        server = mp_enet.MultiplayerServer(relay=False, max_clients=max_peers, **reads)
    else:
        server = mp_websocket.MultiplayerServer(relay=False)
    mp = SceneMultiplayer(server, project=PROJECT, stats="detail" if profile else "basic")
    mp.node(RPC, script="res://bench_rpc.gd")
    mp.on_rpc(RPC, "ping", lambda peer, seq: mp.rpc(peer, RPC, "pong", seq))
    spawner = mp.add_spawner(SPAWNER, SPAWN_PATH, [ENTITY])
    owned: dict[int, list[SpawnedNode]] = {}
    tick = 0

    def joined(peer: int) -> None:
        owned[peer] = [
            spawner.spawn(
                0,
                entity_name(peer, i),
                {"position": Vector2(tick, i), "hp": 0},
                visible_to=(peer,),
            )
            for i in range(per_peer)
        ]

    def left(peer: int) -> None:
        for node in owned.pop(peer, []):
            spawner.despawn(node)

    mp.peer_connected.connect(joined)
    mp.peer_disconnected.connect(left)
    port = await server.listen("127.0.0.1", 0)
    port_file.write_text(str(port))

    def one_tick() -> None:
        nonlocal tick
        tick += 1
        bump = tick % TICK_HZ == 0
        for nodes in owned.values():
            for index, node in enumerate(nodes):
                node.state.position = Vector2(tick, index)
                if bump:
                    node.state.hp += 1
        mp.sync()
        if tick % TICKS_EVERY == 0:
            print(f"TICKS {tick}", flush=True)
        if profile and tick % PROFILE_EVERY == 0:
            print(f"PROFILE {mp.stats(window=PROFILE_WINDOW).cpu}", flush=True)

    await tick_forever(one_tick)


async def tick_forever(one_tick: Callable[[], None]) -> None:
    """Call ``one_tick`` at TICK_HZ from a timer of the loop (``gdvariant.multiplayer.every``,
    one turn a tick). A tree before ``every`` (a ``--compare`` interpreter's) ticks from a
    task sleeping to each deadline and never makes a late tick up: a server that keeps up
    ticks at the same rate, and the catch-up rules stay ``every``'s alone."""
    try:
        from gdvariant.multiplayer import every
    except ImportError:
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        while True:
            deadline = max(deadline + 1 / TICK_HZ, loop.time())
            await asyncio.sleep(deadline - loop.time())
            one_tick()
    await every(1 / TICK_HZ, one_tick, catch_up=CATCH_UP_TICKS)


# ---------------------------------------------------------------- the Python clients


@dataclass
class Counts:
    """What one client saw while measuring."""

    received: int = 0
    sent: int = 0
    sync_values: int = 0
    delta_values: int = 0
    bad: int = 0
    stale: int = 0  # SYNCs older than one already seen (reordered datagrams), skipped
    unchecked: int = 0  # sync values counted from a SYNC's length, not read (light clients)
    rtts: list[float] = field(default_factory=list)


def newer(time: int, last: int) -> bool:
    """Whether u16 SYNC time ``time`` follows ``last`` (wrapping, as Godot compares them)."""
    return 0 < (time - last) % 65536 < 32768


#: a SYNC's header (command byte, u16 time) and one synchronizer's entry in it when its one
#: value is a float32 Vector2: u32 net id, u32 size (12), then the Variant (u32 type, 2 f32)
SYNC_HEAD, SYNC_ENTRY, VECTOR2_SIZE, VECTOR2 = 3, 20, 12, 5
SYNC_COMMAND = bytes([Command.SYNC])  # a full SYNC's byte 0 (a delta's is 0x16)


@functools.lru_cache(maxsize=128)
def sync_struct(entries: int) -> struct.Struct:
    """The layout of a whole SYNC of ``entries`` Vector2 entries: one unpack per packet."""
    return struct.Struct("<xH" + "IIIff" * entries)


def sync_fields(
    data: bytes,
) -> tuple[int, tuple[int, ...], tuple[float, ...], tuple[float, ...]] | None:
    """A SYNC whose every entry holds one float32 Vector2 (what both servers send for the
    scene) read in one ``struct`` call: its time and the entries' net ids, x and y. None for
    any other SYNC: every entry must say 12 bytes and Variant type VECTOR2 (so the layout is
    exactly that, entry after entry), else the library's decoder reads it."""
    entries, rest = divmod(len(data) - SYNC_HEAD, SYNC_ENTRY)
    if rest or entries < 1:
        return None
    fields = sync_struct(entries).unpack_from(data)
    if fields[2::5].count(VECTOR2_SIZE) != entries or fields[3::5].count(VECTOR2) != entries:
        return None
    return fields[0], fields[1::5], fields[4::5], fields[5::5]


class BenchClient:
    """A client of the scene speaking the protocol: confirms paths, checks syncs, pings.

    Every value of every SYNC is checked: the entity's index, its tick never going back.
    A SYNC in the scene's layout is read from its bytes in one ``struct`` call and checked
    a packet at a time (:meth:`check_sync`); any other packet is decoded by the library
    (:func:`decode_scene_packet`) and checked state by state, with the same verdicts.
    With ``sample`` above 1 (``--light-clients``), one SYNC in ``sample`` is checked so and
    the others' values are counted from their length (:meth:`count_sync`)."""

    def __init__(self, rpcs: RpcTable, per_peer: int, address: str, sample: int = 1) -> None:
        self.rpcs = rpcs
        self.pong_id = rpcs.ids["pong"]
        self.per_peer = per_peer
        self.address = address
        self.link: Link | None = None
        #: answers to what came while joining, before ``open_link`` returned the link
        self.early: list[bytes] = []
        self.counts = Counts()
        self.measuring = False
        self.index: dict[int, int] = {}  # sync net id -> entity index
        self.last_x: dict[int, float] = {}
        self.last_time: dict[int, int] = {}
        self.confirmed = asyncio.Event()
        self.spawned = asyncio.Event()
        self.sent_at: dict[int, float] = {}
        self.seq = 0
        self.sample = sample
        self.syncs_seen = random.randrange(sample)  # this client's phase among the samples

    @property
    def unique_id(self) -> int:
        return self.link.unique_id if self.link is not None else 0

    async def start(self) -> None:
        self.link = await open_link(
            self.address, self.bytes_in, CLIENT_SERVICE_INTERVAL, light=self.sample > 1
        )
        self.send(SimplifyPath(RPC_CACHE_ID, RPC, self.rpcs.checksum))
        early, self.early = self.early, []
        for data in early:
            self.link.send(data)

    def retry(self) -> None:
        """A fresh connection after a failed join (``start`` opens it)."""
        self.link = None
        self.early.clear()

    def send(self, packet: Packet) -> None:
        """Send ``packet``; while joining (an ENet server's first packets can come in the
        same service as the connection, before ``open_link`` returns) it waits for ``start``."""
        if self.link is None:
            self.early.append(encode_scene_packet(packet))
        else:
            self.link.send(encode_scene_packet(packet))
        if self.measuring:
            self.counts.sent += 1

    def bytes_in(self, data: bytes) -> None:
        """One packet from the server."""
        if self.measuring:
            self.counts.received += 1
        if data[:1] == SYNC_COMMAND:
            self.syncs_seen += 1
            if self.syncs_seen % self.sample and self.count_sync(data):
                return
            fields = sync_fields(data)
            if fields is not None:
                self.check_sync(*fields)
                return
        try:
            packet = decode_scene_packet(data)
        except DecodeError:
            self.counts.bad += 1
            return
        self.packet(packet)

    def count_sync(self, data: bytes) -> bool:
        """A SYNC left unchecked: its values counted from its length, when that is a whole
        number of the scene's entries (False, and nothing counted, when it is not)."""
        entries, rest = divmod(len(data) - SYNC_HEAD, SYNC_ENTRY)
        if rest or entries < 1:
            return False
        if self.measuring:
            self.counts.sync_values += entries
            self.counts.unchecked += entries
        return True

    def check_sync(
        self, time: int, ids: tuple[int, ...], xs: tuple[float, ...], ys: tuple[float, ...]
    ) -> None:
        """A SYNC's entries, checked together when each is newer than the last SYNC of its
        synchronizer, its y the entity's index and its x not below the last one (the
        common case: a packet's worth of C calls); else one by one (:meth:`check_state`)."""
        last_time, last_x = self.last_time, self.last_x
        lasts = list(map(last_time.get, ids))
        times = dict.fromkeys(ids, time)
        if (
            None in lasts
            or len(times) != len(ids)  # a synchronizer twice: the second is stale
            or not all(newer(time, last) for last in lasts if last is not None)
            or tuple(map(self.index.get, ids)) != ys
            or not all(map(operator.le, map(last_x.get, ids, itertools.repeat(-1.0)), xs))
        ):
            for net_id, x, y in zip(ids, xs, ys, strict=True):
                self.check_state(time, net_id, x, y)
            return
        last_time.update(times)
        last_x.update(zip(ids, xs, strict=True))
        if self.measuring:
            self.counts.sync_values += len(ids)

    def check_state(self, time: int, net_id: int, x: float | None, y: float | None) -> int:
        """One synchronizer's entry (x and y None: its values were not one Vector2);
        returns 1 if it counts (0: stale, skipped as Godot's client skips it)."""
        counts = self.counts
        last = self.last_time.get(net_id)
        if last is not None and not newer(time, last):
            counts.stale += 1
            return 0
        self.last_time[net_id] = time
        index = self.index.get(net_id)
        if x is None or y is None or y != index or x < self.last_x.get(net_id, -1.0):
            counts.bad += 1  # not a Vector2, not our entity's index, or its tick went back
        if x is not None:
            self.last_x[net_id] = x
        if self.measuring:
            counts.sync_values += 1
        return 1

    def packet(self, packet: Packet) -> None:
        """A packet the library decoded."""
        counts = self.counts
        if isinstance(packet, Sync):
            for state in packet.states:
                value = state.values[0] if len(state.values) == 1 else None
                x, y = (value.x, value.y) if isinstance(value, Vector2) else (None, None)
                self.check_state(packet.time, state.net_id, x, y)
        elif isinstance(packet, DeltaSync):
            if self.measuring:
                counts.delta_values += sum(len(state.values) for state in packet.states)
        elif isinstance(packet, RemoteCall) and packet.method_id == self.pong_id:
            sent = self.sent_at.pop(packet.args[0], None)
            if sent is not None:
                counts.rtts.append(time.perf_counter() - sent)
        elif isinstance(packet, SimplifyPath):
            self.send(ConfirmPath(True, packet.cache_id))
        elif isinstance(packet, ConfirmPath):
            if packet.cache_id == RPC_CACHE_ID and packet.valid:
                self.confirmed.set()
        elif isinstance(packet, Spawn):
            prefix = f"E{self.unique_id}_"
            if not packet.name.startswith(prefix) or len(packet.sync_ids) != 1:
                counts.bad += 1  # another client's entity, or not our scene
            suffix = packet.name.rpartition("_")[2]
            for sync_id in packet.sync_ids:
                self.index[sync_id] = int(suffix) if suffix.isdigit() else -1
            if len(self.index) == self.per_peer:
                self.spawned.set()

    async def ping(self, hz: float) -> None:
        """Call ``ping`` on the server ``hz`` times a second (at a random phase)."""
        await self.confirmed.wait()
        await asyncio.sleep(random.random() / hz)
        while True:
            self.seq += 1
            if self.measuring:  # only round trips that start in the window count
                self.sent_at[self.seq] = time.perf_counter()
            self.send(RemoteCall(self.rpcs.ids["ping"], (self.seq,), node_id=RPC_CACHE_ID))
            await asyncio.sleep(1 / hz)


async def run_clients(address: str, args: argparse.Namespace) -> None:
    """One client process: join ``args.clients`` clients, wait for every entity, print
    ``READY``; then read ``GO <start> <end>`` (wall-clock times, the same for every client
    process of a run) from stdin, measure between them and print the figures (``RESULT``
    and JSON, with every round trip for the harness to merge)."""
    rpcs = read_script_rpcs(PROJECT, "res://bench_rpc.gd")
    sample = LIGHT_SAMPLE if args.light_clients else 1
    clients = [BenchClient(rpcs, args.entities, address, sample) for _ in range(args.clients)]
    # not 100 handshakes at once: JOIN_GATE in all, shared by the run's client processes
    gate = asyncio.Semaphore(max(1, JOIN_GATE // args.of_processes))

    retries = 0

    async def join(client: BenchClient) -> None:
        nonlocal retries
        async with gate:
            for attempt in range(JOIN_ATTEMPTS):
                try:
                    await client.start()
                    return
                except (OSError, InvalidMessage) as exc:  # ConnectionError is an OSError
                    if attempt == JOIN_ATTEMPTS - 1:
                        raise RuntimeError(f"could not join {address}: {exc}") from exc
                    retries += 1
                    client.retry()
                    await asyncio.sleep(0.2 * (attempt + 1))

    limit = join_seconds(args.of_clients)
    try:
        async with asyncio.timeout(limit):
            await asyncio.gather(*(join(c) for c in clients))
            print(f"joined {len(clients)} ({retries} retries)", file=sys.stderr, flush=True)
            await asyncio.gather(*(c.spawned.wait() for c in clients))
            await asyncio.gather(*(c.confirmed.wait() for c in clients))
    except TimeoutError:
        raise SystemExit(f"the clients were not all joined and spawned in {limit:g} s") from None
    pingers = [asyncio.create_task(c.ping(args.ping_hz)) for c in clients]
    print("READY", flush=True)
    go = (await asyncio.to_thread(sys.stdin.readline)).split()
    if len(go) != 3 or go[0] != "GO":
        raise SystemExit(f"expected GO <start> <end> on stdin, not {go}")
    start_at, end_at = float(go[1]), float(go[2])
    await asyncio.sleep(max(0.0, start_at - time.time()))
    for client in clients:
        client.counts = Counts()
        client.measuring = True
    start = time.perf_counter()
    await asyncio.sleep(max(0.0, end_at - time.time()))
    for client in clients:
        client.measuring = False
    elapsed = time.perf_counter() - start
    for task in pingers:
        task.cancel()
    # the last pongs: wait for them (a fixed wait would count a slow one, on a loaded
    # machine, as lost); one still missing after 10 s counts as unanswered
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(10):
            while any(c.sent_at for c in clients):
                await asyncio.sleep(0.01)
    result = {
        "seconds": elapsed,
        "join_retries": retries,
        **{key: sum(getattr(c.counts, key) for c in clients) for key in SUMMED},
        "pings": sum(len(c.counts.rtts) + len(c.sent_at) for c in clients),
        "rtts": [r for c in clients for r in c.counts.rtts],
    }
    print("RESULT " + json.dumps(result), flush=True)
    # together: each close may wait for the server's answer (websockets' close_timeout)
    await asyncio.gather(*(c.link.close() for c in clients if c.link is not None))


#: the counts a client process sums over its clients, and the harness over the processes
SUMMED = ("received", "sent", "sync_values", "delta_values", "bad", "stale", "unchecked")
#: ... and what the harness also sums over the processes (each process's own totals)
SUMMED_RESULTS = (*SUMMED, "join_retries", "pings")


def merge_results(results: list[dict[str, Any]]) -> dict[str, Any]:
    """One run's figures from its client processes' ``RESULT``s: the counts summed, the
    round trips pooled before their percentiles are taken, the window the processes' mean
    (each measured the same wall-clock window, give or take its event loop's lateness)."""
    rtts = sorted(r for result in results for r in result["rtts"])
    return {
        "seconds": statistics.fmean(result["seconds"] for result in results),
        **{key: sum(result[key] for result in results) for key in SUMMED_RESULTS},
        "pongs": len(rtts),
        "p50_ms": percentile(rtts, 50) * 1000,
        "p99_ms": percentile(rtts, 99) * 1000,
    }


def join_seconds(clients: int) -> float:
    """How long ``clients`` clients (all the run's, in every client process) may take to
    join and get their entities."""
    return max(JOIN_SECONDS, JOIN_SECONDS_PER_CLIENT * clients)


def split_clients(clients: int, processes: int) -> list[int]:
    """How many clients each of ``processes`` client processes runs: as even as can be."""
    base, extra = divmod(clients, processes)
    return [base + (number < extra) for number in range(processes)]


def percentile(values: list[float], p: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100)[p - 1]


# ---------------------------------------------------------------- the harness


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid``, all threads (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def waited_seconds(pid: int) -> float:
    """Time the threads of ``pid`` were runnable but waiting for a core (``schedstat``): on
    a shared machine, what other processes took from this one."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


class Lines:
    """A process's stdout read on a thread: the last ``TICKS`` count, and every line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.ticks = 0
        self.lines: list[str] = []
        self.ended = False
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("TICKS "):
                self.ticks = int(line.split()[1])
            else:
                with self.changed:
                    self.lines.append(line.rstrip("\n"))
                    self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def wait_spawned(self, count: int, timeout: float) -> None:
        """Until the Godot client printed ``count`` SPAWNED lines: it joined and holds its
        entities (its start takes seconds on a loaded machine, longer than a quick run)."""

        def spawned() -> int:
            return sum(line.startswith("SPAWNED ") for line in self.lines)

        with self.changed:
            if not self.changed.wait_for(lambda: self.ended or spawned() >= count, timeout):
                raise RuntimeError(f"a Godot client got {spawned()} of {count} entities")
            if spawned() < count:
                raise RuntimeError(f"a Godot client ended: {' | '.join(self.lines[-5:])}")

    def wait_line(self, prefix: str, timeout: float, who: str = "the server") -> None:
        """Until the process (``who``) printed a line starting with ``prefix``."""

        def seen() -> bool:
            return any(line.startswith(prefix) for line in self.lines)

        with self.changed:
            if not self.changed.wait_for(lambda: self.ended or seen(), timeout) or not seen():
                last = " | ".join(self.lines[-5:])
                raise RuntimeError(f"no {prefix.strip()} from {who}: {last}")


Worker = tuple[subprocess.Popen[str], Lines]  # a client process and its stdout


def wait_listening(port: int, proc: subprocess.Popen[str], out: Lines, transport: str) -> None:
    """Until the server takes clients: a TCP connection for WebSocket; for ENet (UDP, no
    connection to try) Godot's ``LISTENING`` line (ours wrote its port once bound)."""
    if transport == "enet":
        out.wait_line("LISTENING", 60)
        return
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError(f"the server ended ({proc.returncode}) before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"no server listening on {port}")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


BUILDS = {
    "editor": "godot --headless, Debian's editor binary (a debug build)",
    "release": "godot-template-release, the export template a shipped game's server runs",
}
#: the project's files, packed for the release template
PROJECT_FILES = (
    "project.godot",
    "bench.tscn",
    "bench.gd",
    "bench_entity.tscn",
    "bench_entity.gd",
    "bench_rpc.gd",
)


@dataclass
class Godot:
    """Where the project is (seen from here and from the engine) and how each build runs
    it: ``command(build, args)`` is the command line of ``bench.tscn`` with ``args``."""

    engine: Engine
    here: Path
    inside: str
    builds: list[str]

    def command(self, build: str, args: list[str]) -> list[str]:
        if build == "release":  # the template runs the .pck named after it, beside it
            cmd = [f"{self.inside}/runner", "--headless", "--", *args]
        else:
            cmd = ["godot", "--headless", "--path", self.inside, "res://bench.tscn", "--", *args]
        return self.engine.within(cmd, self.inside)

    def pack(self) -> str | None:
        """Pack the project for the release template; why not, when it cannot."""
        template = self.engine.chroot / RELEASE_TEMPLATE if self.engine.chroot else None
        if template is None or not template.exists():
            return f"no release template at {template} (tools/setup-engines.sh installs it)"
        (self.here / "packer.gd").write_text(_PACKER)
        pairs = [x for name in PROJECT_FILES for x in (f"res://{name}", f"{self.inside}/{name}")]
        try:
            self.engine.run("packer.gd", [f"{self.inside}/runner.pck", *pairs], cwd=self.cwd)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            return f"packing the project failed: {exc}"
        shutil.copy(template, self.here / "runner")
        return None

    @property
    def cwd(self) -> tuple[Path, str]:
        return self.here, self.inside


@contextlib.contextmanager
def godot_project(engine: Engine | None, build: str) -> Iterator[Godot | None]:
    """The project where the engine sees it (inside its chroot), packed for the release
    template when ``build`` asks for it (``auto``: release if it packs, else editor)."""
    if engine is None:
        yield None
        return
    with engine.workdir() as (here, inside):
        shutil.copytree(PROJECT, here, dirs_exist_ok=True)
        builds = {"both": ["release", "editor"], "auto": ["release"]}.get(build, [build])
        godot = Godot(engine, here, inside, builds)
        if "release" in builds:
            why = godot.pack()
            if why is not None and build != "auto":
                raise RuntimeError(f"the release template cannot run the project: {why}")
            if why is not None:
                print(f"Godot: the editor binary, not the release template: {why}", flush=True)
                godot.builds = ["editor"]
        for name in godot.builds:
            print(f"Godot server: {name}: {BUILDS[name]}", flush=True)
        print(f"Godot clients: {godot.builds[0]}", flush=True)
        yield godot


def start_server(
    kind: str, transport: str, args: argparse.Namespace, godot: Godot | None
) -> tuple[subprocess.Popen[str], Lines, str]:
    """The server process, its stdout reader and the address clients join."""
    if kind.startswith("gdvariant"):
        port_file = Path(tempfile.mkdtemp(prefix="gdvariant-bench-")) / "port"
        cmd = [
            args.compare.get(kind, sys.executable),  # another tree's interpreter, for an A/B
            *("-m", "benchmarks.bench_multiplayer", "--serve", str(port_file)),
            *("--entities", str(args.entities), "--transport", transport),
            *("--max-peers", str(enet_peers(args))),
            *(["--loop", "uvloop"] if args.loops.get(kind) == "uvloop" else []),
            *(["--profile"] if args.profile and kind in args.loops else []),
            *(["--gc-threshold", str(args.gc_threshold)] if args.gc_threshold else []),
            *(["--enet-reads", args.enet_reads] if args.enet_reads != "wake" else []),
        ]
        proc = spawn(cmd, pin_cpus(args)[0], stdout=subprocess.PIPE)
        while not (port_file.exists() and port_file.read_text()):
            if proc.poll() is not None:
                raise RuntimeError("our server ended before listening")
            time.sleep(0.05)
        port = int(port_file.read_text())
        shutil.rmtree(port_file.parent)
        out = Lines(proc)
    else:
        assert godot is not None
        port = free_udp_port() if transport == "enet" else free_port()
        options = [str(port), str(args.entities), transport, str(enet_peers(args))]
        cmd = godot.command(kind.removeprefix("godot-"), ["server", *options])
        proc = spawn(cmd, pin_cpus(args)[0], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        out = Lines(proc)
        wait_listening(port, proc, out, transport)
    scheme = "enet" if transport == "enet" else "ws"
    return proc, out, f"{scheme}://127.0.0.1:{port}"


def pinned(cpus: set[int] | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` running the child (and all it starts: Godot's chroot launcher execs
    the engine, whose threads inherit it) on ``cpus`` only; None (no pinning) for None."""
    if cpus is None:
        return None
    return functools.partial(os.sched_setaffinity, 0, cpus)


def spawn(cmd: list[str], cpus: set[int] | None, **pipes: Any) -> subprocess.Popen[str]:
    """``cmd`` started in text mode with ``pipes`` (Popen's stdin, stdout, stderr), on ``cpus``
    only (:func:`pinned`; None: wherever the scheduler puts it)."""
    return subprocess.Popen(cmd, text=True, preexec_fn=pinned(cpus), **pipes)


def pin_cpus(args: argparse.Namespace) -> tuple[set[int] | None, set[int] | None]:
    """With ``--pin``, the CPUs of the server ({:data:`SERVER_CPU`}) and of every client
    (the others the harness may use); else (None, None): the scheduler places them."""
    if not args.pin:
        return None, None
    return {SERVER_CPU}, os.sched_getaffinity(0) - {SERVER_CPU}


def stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def client_processes(args: argparse.Namespace) -> int:
    """How many processes the run's Python clients are spread over: ``--client-processes``,
    else one per :data:`CLIENTS_PER_PROCESS` clients (never more than the clients)."""
    clients: int = args.clients
    wanted: int = args.client_processes or -(-clients // CLIENTS_PER_PROCESS)
    return max(1, min(wanted, clients))


def start_clients(address: str, args: argparse.Namespace, workers: list[Worker]) -> None:
    """Start the client processes of a run into ``workers`` (the caller stops them, also
    when this fails), each with its share of the clients; return once each has joined
    and holds its entities (printed ``READY``)."""
    shares = split_clients(args.clients, client_processes(args))
    for share in shares:
        cmd = [
            sys.executable,
            *("-m", "benchmarks.bench_multiplayer", "--clients-of", address),
            *client_options(args, share, len(shares)),
            *(["--profile-clients", str(args.profile_clients)] if args.profile_clients else []),
        ]
        proc = spawn(cmd, pin_cpus(args)[1], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        workers.append((proc, Lines(proc)))
    for _, out in workers:
        out.wait_line("READY", join_seconds(args.clients) + 30, "the client process")


def warmup_seconds(args: argparse.Namespace, transport: str) -> float:
    """Seconds from all joined to measuring: ``--warmup``, or by default
    :data:`WARMUP` (:data:`ENET_WARMUP` over ENet)."""
    if args.warmup is not None:
        return float(args.warmup)
    return ENET_WARMUP if transport == "enet" else WARMUP


def measure(
    workers: list[Worker],
    server: subprocess.Popen[str],
    server_out: Lines,
    args: argparse.Namespace,
    warmup: float,
) -> dict[str, Any]:
    """The measured window, the same wall-clock times for every client process: the
    server's CPU, ticks and waits and the clients' CPU at its start and end, and the
    client processes' results merged."""
    start_at = time.time() + warmup
    end_at = start_at + args.seconds
    for proc, _ in workers:
        assert proc.stdin is not None
        proc.stdin.write(f"GO {start_at!r} {end_at!r}\n")
        proc.stdin.flush()
    figures: dict[str, Any] = {"client_processes": len(workers)}
    for mark, at in (("start", start_at), ("end", end_at)):
        time.sleep(max(0.0, at - time.time()))
        figures[f"{mark}_wall"] = time.perf_counter()
        figures[f"{mark}_cpu"] = cpu_seconds(server.pid)
        figures[f"{mark}_waited"] = waited_seconds(server.pid)
        figures[f"{mark}_client_cpus"] = [cpu_seconds(proc.pid) for proc, _ in workers]
        figures[f"{mark}_ticks"] = server_out.ticks
    profiles = [x for x in server_out.lines if x.startswith("PROFILE ")]
    if profiles:
        figures["profile"] = profiles[-1][len("PROFILE ") :]
    results = []
    for proc, out in workers:
        out.wait_line("RESULT ", 60, "the client process")
        line = next(x for x in out.lines if x.startswith("RESULT "))
        results.append(json.loads(line[len("RESULT ") :]))
        if proc.wait(30) != 0:
            raise RuntimeError(f"a client process failed ({proc.returncode})")
    figures.update(merge_results(results))
    return figures


def mode(args: argparse.Namespace) -> dict[str, Any]:
    """How the run's clients check and where the processes run, for the report and --json."""
    server_cpus, client_cpus = pin_cpus(args)
    return {
        "client_mode": "light" if args.light_clients else "full",
        "checked_sample": LIGHT_SAMPLE if args.light_clients else 1,
        "server_cpus": sorted(server_cpus) if server_cpus is not None else None,
        "client_cpus": sorted(client_cpus) if client_cpus is not None else None,
    }


def describe(args: argparse.Namespace) -> str:
    """One line saying which client mode ran and whether the processes were pinned."""
    m = mode(args)
    if args.light_clients:
        checks = f"light clients: one SYNC in {LIGHT_SAMPLE} checked, the others counted"
    else:
        checks = "full clients: every sync value checked"
    if m["server_cpus"] is None:
        return f"{checks}; processes not pinned"
    return f"{checks}; each server pinned to CPU {m['server_cpus']}, clients to {m['client_cpus']}"


def run_one(
    kind: str, transport: str, args: argparse.Namespace, godot: Godot | None
) -> dict[str, Any]:
    """One server against the Python clients (and the Godot clients); its figures."""
    server, server_out, address = start_server(kind, transport, args, godot)
    godots: list[tuple[subprocess.Popen[str], Lines]] = []
    workers: list[Worker] = []
    stop_file = f"stop-{random.getrandbits(64):016x}"  # the Godot clients report once it exists
    figures: dict[str, Any] = {"server": kind, "transport": transport, "clients": args.clients}
    figures.update(mode(args))
    try:
        for _ in range(args.godot_clients if godot is not None else 0):
            assert godot is not None
            client_args = [address, str(args.ping_hz), f"{godot.inside}/{stop_file}"]
            cmd = godot.command(godot.builds[0], client_args)
            proc = spawn(cmd, pin_cpus(args)[1], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            godots.append((proc, Lines(proc)))
        for _, out in godots:
            out.wait_spawned(args.entities, 120)
        start_clients(address, args, workers)
        figures["load_before"] = load()
        figures.update(measure(workers, server, server_out, args, warmup_seconds(args, transport)))
        figures["load_after"] = load()
    finally:
        for proc, _ in workers:
            stop(proc)
        if godot is not None:
            (godot.here / stop_file).touch()
        for proc, _ in godots:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                stop(proc)
        stop(server)
    figures["godot_clients"] = [godot_stats(out) for _, out in godots]
    return derive(figures, args)


def godot_stats(out: Lines) -> dict[str, Any]:
    out.thread.join(5)
    for line in out.lines:
        if line.startswith("STATS "):
            stats: dict[str, Any] = json.loads(line[len("STATS ") :])
            return stats
    return {"error": "no STATS line: " + " | ".join(out.lines[-5:])}


def derive(f: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """Per-tick and per-second figures from the marks, and whether the run holds."""
    wall = f["end_wall"] - f["start_wall"]
    ticks = f["end_ticks"] - f["start_ticks"]
    cpu = f["end_cpu"] - f["start_cpu"]
    f["ticks"] = ticks
    f["tick_hz"] = ticks / wall
    f["cpu_ms_per_tick"] = cpu / ticks * 1000 if ticks else float("nan")
    f["wall_ms_per_tick"] = wall / ticks * 1000 if ticks else float("nan")
    f["cpu_share"] = cpu / wall
    f["waited_share"] = (f["end_waited"] - f["start_waited"]) / wall
    marks = zip(f["start_client_cpus"], f["end_client_cpus"], strict=True)
    shares = [(end - start) / wall for start, end in marks]
    f["start_client_cpu"] = sum(f["start_client_cpus"])  # the keys of one client process
    f["end_client_cpu"] = sum(f["end_client_cpus"])
    f["client_cpu_share"] = sum(shares)
    f["client_cpu_shares"] = shares
    f["client_cpu_busiest"] = max(shares)
    f["recv_per_s"] = f["received"] / f["seconds"]
    f["sent_per_s"] = f["sent"] / f["seconds"]
    f["sync_values_per_s"] = f["sync_values"] / f["seconds"]
    promised = ticks * args.clients * args.entities  # one position per entity per tick
    f["sync_share"] = f["sync_values"] / promised if promised else 0.0
    f["checked_share"] = 1 - f["unchecked"] / f["sync_values"] if f["sync_values"] else 0.0
    problems = []
    if f["bad"]:
        problems.append(f"{f['bad']} wrong values")
    if f["sync_share"] < MIN_SYNC_SHARE[f["transport"]]:
        problems.append(f"only {f['sync_share']:.0%} of the syncs the ticks promise")
    if f["sync_values"] > (ticks + TICK_SLACK) * args.clients * args.entities:
        problems.append(f"{f['sync_share']:.0%} of the syncs the ticks promise: more than sent")
    if f["pongs"] < f["pings"] * 0.9:
        problems.append(f"{f['pings'] - f['pongs']} of {f['pings']} pings unanswered")
    for number, stats in enumerate(f["godot_clients"]):
        if "error" in stats:
            problems.append(f"Godot client {number}: {stats['error']}")
        elif stats["bad"] or stats["entities"] != args.entities or not stats["syncs"]:
            problems.append(f"Godot client {number}: {stats}")
    f["problems"] = problems
    return f


ROWS = [
    ("server CPU per tick (ms)", "cpu_ms_per_tick", "{:.2f}"),
    ("wall time per tick (ms)", "wall_ms_per_tick", "{:.2f}"),
    ("ticks per second", "tick_hz", "{:.1f}"),
    ("server CPU (share of a core)", "cpu_share", "{:.0%}"),
    ("server waiting for a core", "waited_share", "{:.0%}"),
    ("client processes", "client_processes", "{:,}"),
    ("client processes' CPU (share)", "client_cpu_share", "{:.0%}"),
    ("  the busiest one's", "client_cpu_busiest", "{:.0%}"),
    ("messages/s to Python clients", "recv_per_s", "{:,.0f}"),
    ("messages/s from Python clients", "sent_per_s", "{:,.0f}"),
    ("sync values/s received", "sync_values_per_s", "{:,.0f}"),
    ("  of what the ticks promise", "sync_share", "{:.0%}"),
    ("  of them checked", "checked_share", "{:.0%}"),
    ("  stale SYNCs skipped", "stale", "{:,}"),
    ("RPC round trip p50 (ms)", "p50_ms", "{:.2f}"),
    ("RPC round trip p99 (ms)", "p99_ms", "{:.2f}"),
    ("round trips measured", "pongs", "{:,}"),
    ("joins retried", "join_retries", "{:,}"),
]


def table(runs: list[dict[str, Any]]) -> str:
    names = [f["server"] for f in runs]
    w = max(15, *(len(n) + 2 for n in names))  # a column per server, its name fitting
    lines = [f"{'':32}" + "".join(f"{n:>{w}}" for n in names)]
    for label, key, fmt in ROWS:
        lines.append(f"{label:32}" + "".join(f"{fmt.format(f[key]):>{w}}" for f in runs))
    for f in runs:
        lines.append(f"{f['server']}: {f['load_before']} before, {f['load_after']} after")
        if "profile" in f:
            lines.append(f"  its mp.stats(), up to {PROFILE_WINDOW} ticks: {f['profile']}")
        for number, stats in enumerate(f["godot_clients"]):
            if "error" in stats:
                lines.append(f"  Godot client {number}: {stats['error']}")
                continue
            rate = stats["syncs"] / stats["sync_seconds"] if stats["sync_seconds"] else 0.0
            lines.append(
                f"  Godot client {number}: {stats['entities']} entities, {rate:,.0f} syncs/s,"
                f" {stats['bad']} bad, rtt p50 {stats['p50_ms']:.1f} ms,"
                f" p99 {stats['p99_ms']:.1f} ms ({stats['pongs']} of {stats['pings']})"
            )
        for problem in f["problems"]:
            lines.append(f"  PROBLEM: {problem}")
    return "\n".join(lines)


#: the figures of a cell's summary: (label, key, format)
SUMMARY = [
    ("CPU per tick (ms)", "cpu_ms_per_tick", "{:.2f}"),
    ("ticks per second", "tick_hz", "{:.1f}"),
    ("share of a core", "cpu_share", "{:.0%}"),
    ("RPC p50 (ms)", "p50_ms", "{:.1f}"),
    ("RPC p99 (ms)", "p99_ms", "{:.1f}"),
    ("client CPU (share)", "client_cpu_share", "{:.0%}"),
    ("syncs of promised", "sync_share", "{:.0%}"),
]


def failed_run(server: str, transport: str, why: str) -> dict[str, Any]:
    """A run that gave no figures: every figure NaN, ``why`` its problem."""
    figures: dict[str, Any] = {key: float("nan") for _, key, _ in ROWS}
    figures.update(server=server, transport=transport, problems=[why], godot_clients=[])
    figures["load_before"] = figures["load_after"] = load()
    return figures


def summarize(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Median, min and max of each summary figure over a server's runs in a cell (NaN
    when no run gave it)."""
    out = {}
    for _, key, _ in SUMMARY:
        values = [f[key] for f in runs if f[key] == f[key]] or [float("nan")]
        out[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return out


def cell_table(cell: dict[str, Any]) -> str:
    """One cell's servers side by side: median (min-max) of each figure."""
    servers = list(cell["servers"])
    lines = [
        f"{cell['clients']} clients, {cell['transport']}, {cell['repeat']} runs each"
        f" (median, min-max); {cell['load_before']} before, {cell['load_after']} after"
    ]
    lines.append(f"{'':20}" + "".join(f"{name:>27}" for name in servers))
    for label, key, fmt in SUMMARY:
        row = []
        for name in servers:
            fig = cell["servers"][name]["summary"][key]
            spread = f"{fmt.format(fig['min'])}-{fmt.format(fig['max'])}"
            row.append(f"{fmt.format(fig['median'])} ({spread})")
        lines.append(f"{label:20}" + "".join(f"{text:>27}" for text in row))
    return "\n".join(lines)


def holds(cells: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per transport and server, the largest client count held at 30 Hz on one core, every
    smaller count of the curve held too (0: not even the smallest)."""
    verdict: dict[str, dict[str, int]] = {}
    failed: set[tuple[str, str]] = set()
    for cell in sorted(cells, key=lambda c: c["clients"]):
        for name, server in cell["servers"].items():
            summary = server["summary"]
            held = (
                summary["tick_hz"]["median"] >= HOLD_HZ
                and summary["cpu_share"]["median"] < HOLD_SHARE
                and not any(f["problems"] for f in server["runs"])
            )
            by_server = verdict.setdefault(cell["transport"], {})
            by_server.setdefault(name, 0)
            if not held:
                failed.add((cell["transport"], name))
            elif (cell["transport"], name) not in failed:
                by_server[name] = cell["clients"]
    return verdict


def client_options(args: argparse.Namespace, clients: int, processes: int) -> list[str]:
    """The options of a client process running ``clients`` of the run's clients, one of
    ``processes``."""
    return [
        *("--clients", str(clients), "--entities", str(args.entities)),
        *("--ping-hz", str(args.ping_hz)),
        *("--of-clients", str(args.clients), "--of-processes", str(processes)),
        *(["--light-clients"] if args.light_clients else []),
    ]


def run_cell(
    clients: int, transport: str, servers: list[str], args: argparse.Namespace, godot: Godot | None
) -> dict[str, Any]:
    """Every server of one (client count, transport) ``--repeat`` times, interleaved."""
    args.clients = clients
    cell: dict[str, Any] = {
        "clients": clients,
        "transport": transport,
        "repeat": args.repeat,
        "load_before": load(),
        "servers": {name: {"runs": []} for name in servers},
    }
    print(f"--- {clients} clients over {transport}: {cell['load_before']}", flush=True)
    for number in range(args.repeat):
        batch = []
        for kind in servers:
            try:
                figures = run_one(kind, transport, args, godot)
            except RuntimeError as exc:  # that run failed: a problem of the cell, not the end
                figures = failed_run(kind, transport, str(exc))
            figures["run"] = number + 1
            cell["servers"][kind]["runs"].append(figures)
            batch.append(figures)
            print(f"run {number + 1}, {kind}, {transport}:\n{table([figures])}", flush=True)
        if len(batch) > 1:
            print(f"run {number + 1}, {clients} clients, {transport}:\n{table(batch)}", flush=True)
    cell["load_after"] = load()
    for server in cell["servers"].values():
        server["summary"] = summarize(server["runs"])
    print(cell_table(cell), flush=True)
    return cell


def add_load_options(parser: argparse.ArgumentParser) -> None:
    """The options of who serves a cell, how the clients check and where each process runs
    (part of :func:`parse`, whose list would otherwise be one function too long)."""
    parser.add_argument(
        "--servers",
        type=lambda text: text.split(","),
        default=[],
        metavar="NAMES",
        help="serve only with these servers, comma-separated (e.g. gdvariant; the Godot"
        " clients still join, so the load is the same): a count past where another server"
        " already broke (default: every server of the run)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="our server also reports its own mp.stats(detail): CPU per tick split into game"
        " code, sync() and transport writes (it costs the server about 0.5 ms a tick)",
    )
    parser.add_argument(
        "--profile-clients",
        type=Path,
        metavar="DIR",
        help="each Python client process writes its cProfile statistics to DIR"
        " (clients-PID.prof, for pstats): where the clients' own CPU goes",
    )
    parser.add_argument(
        "--light-clients",
        action="store_true",
        help=f"each Python client checks one SYNC in {LIGHT_SAMPLE} in full and counts the"
        " others' values from their length, and the client processes run on uvloop: about"
        " 1,000 clients beside a server on 2 cores (default: every value checked, asyncio)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help=f"run each server (ours and Godot's alike) on CPU {SERVER_CPU} only and every"
        " client (Python and Godot) on the other CPUs: 'on one core' made literal, and the"
        " clients never take the server's core",
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None,
        epilog="--scale 50,100,200,400 --repeat 3 --transport both --godot-build both is the "
        "scale curve of issue 24: run it on a quiet machine; it takes about an hour.",
    )
    parser.add_argument("--clients", type=int, default=10, help="Python clients (default 10)")
    parser.add_argument(
        "--scale",
        help="client counts to run, comma-separated (e.g. 50,100,200,400): a cell per count "
        "and transport, with medians, and the largest count each server holds at 30 Hz "
        "(default: --clients only)",
    )
    parser.add_argument("--entities", type=int, default=20, help="entities per client")
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds")
    parser.add_argument(
        "--warmup",
        type=float,
        default=None,
        help=f"seconds before measuring (default {WARMUP:g}, over ENet {ENET_WARMUP:g})",
    )
    parser.add_argument("--ping-hz", type=float, default=2.0, help="pings per client per second")
    parser.add_argument("--godot-clients", type=int, default=2, help="headless Godot clients")
    parser.add_argument(
        "--client-processes",
        type=int,
        default=0,
        help="processes the Python clients are spread over, each its own event loop"
        f" (default: one per {CLIENTS_PER_PROCESS} clients)",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of every server per cell (3+ for medians)"
    )
    parser.add_argument(
        "--transport",
        choices=(*TRANSPORTS, "both"),
        default="websocket",
        help="WebSocket (default), ENet, or both: the servers and every client speak it",
    )
    parser.add_argument(
        "--godot-build",
        choices=("editor", "release", "both", "auto"),
        default="auto",
        help="which Godot serves: the editor binary (a debug build), the release export "
        "template (a shipped game's server), or both; default: release if it runs, else editor",
    )
    parser.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="LABEL=PYTHON",
        help="also serve with the Python interpreter PYTHON, whose environment has another "
        "checkout's gdvariant (its .venv/bin/python, made by its tools/test.sh), as server "
        "gdvariant-LABEL: an A/B of two versions in the same run (repeatable)",
    )
    parser.add_argument(
        "--loop",
        choices=("asyncio", "uvloop", "both"),
        default="asyncio",
        help="the event loop our server runs on: asyncio's own (server gdvariant), uvloop's"
        " (gdvariant-uvloop; needs gdvariant[uvloop]) or both, two servers per cell"
        " (default: asyncio)",
    )
    parser.add_argument("--no-godot", action="store_true", help="only our server, no engine")
    add_load_options(parser)
    parser.add_argument("--quick", action="store_true", help="a few seconds, tiny load")
    parser.add_argument("--json", type=Path, help="also write every run and cell here")
    parser.add_argument("--write-scene", action="store_true", help="rewrite bench_entity.tscn")
    parser.add_argument(
        "--gc-threshold",
        type=int,
        default=0,
        help="our servers set the cyclic collector's first threshold to this (gc.set_threshold;"
        " 0: Python's default, 700)",
    )
    parser.add_argument(
        "--enet-reads",
        choices=("wake", "scheduled"),
        default="wake",
        help="how our ENet servers read: on every wake-up (the default), or scheduled"
        " (wake_on_read off: at each send, 3 ms after it and every 16 ms; needs a tree with"
        " MultiplayerServer's read_after, --compare ones too)",
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--clients-of", help=argparse.SUPPRESS)
    parser.add_argument("--of-clients", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--of-processes", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--max-peers", type=int, default=ENET_MAX_PEERS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.clients, args.entities, args.seconds, args.warmup = 4, 5, 1.5, 0.5
        args.godot_clients, args.ping_hz, args.scale = 1, 5.0, None
    compare = {}
    for item in args.compare:
        label, _, python = item.partition("=")
        if not label or not (Path(python).is_file() and os.access(python, os.X_OK)):
            parser.error(f"--compare takes LABEL=PYTHON, an interpreter to run: {item!r}")
        compare[f"gdvariant-{label}"] = python
    args.compare = compare
    if args.serve and args.loop == "both":
        parser.error("a server runs on one event loop: --loop asyncio or uvloop")
    #: our servers in each cell, by name: the event loop each runs on
    args.loops = {
        name: loop
        for name, loop in (("gdvariant", "asyncio"), ("gdvariant-uvloop", "uvloop"))
        if args.loop in (loop, "both")
    }
    try:
        args.counts = [int(n) for n in args.scale.split(",")] if args.scale else [args.clients]
    except ValueError:
        parser.error(f"--scale takes client counts separated by commas, not {args.scale!r}")
    if any(n < 1 for n in args.counts) or args.repeat < 1:
        parser.error("client counts and --repeat must be at least 1")
    if args.client_processes < 0:
        parser.error(f"--client-processes takes a count, not {args.client_processes}")
    if args.pin and not os.sched_getaffinity(0) - {SERVER_CPU}:
        parser.error(f"--pin needs a CPU besides CPU {SERVER_CPU} for the clients")
    if args.gc_threshold < 0:
        parser.error(f"--gc-threshold takes a count of objects, not {args.gc_threshold}")
    return args


def main() -> int:
    args = parse()
    if args.serve:
        run(
            serve(
                args.serve,
                args.entities,
                args.transport,
                args.max_peers,
                args.profile,
                args.gc_threshold,
                args.enet_reads,
            ),
            loop=args.loop,
        )
        return 0
    if args.clients_of:
        loop: Literal["uvloop", "asyncio"] = "uvloop" if args.light_clients else "asyncio"
        if args.profile_clients is None:
            run(run_clients(args.clients_of, args), loop=loop)
            return 0
        profiler = cProfile.Profile()
        try:
            profiler.runcall(lambda: run(run_clients(args.clients_of, args), loop=loop))
        finally:
            profiler.dump_stats(args.profile_clients / f"clients-{os.getpid()}.prof")
        return 0
    if args.write_scene:
        (PROJECT / "bench_entity.tscn").write_text(entity_tscn())
        return 0
    engine: Engine | None = None
    if not args.no_godot:
        engine, why = find_engine("4.6")
        if engine is None:
            print(f"no Godot server or clients: {why}", flush=True)
    transports = list(TRANSPORTS) if args.transport == "both" else [args.transport]
    print(
        f"{','.join(map(str, args.counts))} Python clients"
        f" (+{args.godot_clients if engine else 0} Godot), {args.entities} entities each,"
        f" {TICK_HZ} Hz, {args.seconds:g} s measured, {args.ping_hz:g} pings/s per client,"
        f" over {' and '.join(transports)}; {os.cpu_count()} cores",
        flush=True,
    )
    print(describe(args), flush=True)
    cells = []
    with godot_project(engine, args.godot_build) as godot:
        servers = [*args.loops, *args.compare]
        servers += [f"godot-{b}" for b in (godot.builds if godot else [])]
        if args.servers:
            unknown = set(args.servers) - set(servers)
            if unknown:
                raise SystemExit(f"--servers: no server {', '.join(sorted(unknown))} here")
            servers = [name for name in servers if name in args.servers]
        for clients in args.counts:
            for transport in transports:
                cells.append(run_cell(clients, transport, servers, args, godot))
    verdict = holds(cells)
    print(f"the largest client count each server holds at {TICK_HZ} Hz on one core:")
    for transport, by_server in verdict.items():
        for name, count in by_server.items():
            print(f"  {transport:10} {name:15} {count}")
    if args.json:
        report = {"mode": mode(args), "cells": cells, "holds": verdict}
        args.json.write_text(json.dumps(report, indent=1))
    failed = any(f["problems"] for c in cells for s in c["servers"].values() for f in s["runs"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
