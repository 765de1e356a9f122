"""Load benchmark of ``gdvariant.rooms``: room processes behind two matchmakers on Redis,
many Python clients joining and playing, against one room process alone.

Run on demand (not a test):

    .venv/bin/python -m benchmarks.bench_rooms                       # 4 processes, 400 clients
    .venv/bin/python -m benchmarks.bench_rooms --processes 4 --clients 800 --seconds 20
    .venv/bin/python -m benchmarks.bench_rooms --quick                # seconds; what the test runs

The run starts its own ``redis-server`` (its files in a temporary folder, removed after),
``--matchmakers`` matchmakers and ``--processes`` room processes (``gdvariant rooms matchmaker``
and ``gdvariant rooms host``, the commands a deployment runs), then ``--clients`` Python
SceneMultiplayer clients in this process. Each client asks a matchmaker (in turn) to
join-or-create an ``arena`` of ``--seats`` seats, connects to the room it is given with its
seat token, and plays: its room spawns an entity for it whose position (ALWAYS) is synced to
everyone in the room 30 times a second, and the client confirms paths and counts the syncs.
Then the same against one room process (and the same two matchmakers).

Reported: joins per second (every client seated, from the first request to the last
admission), the matchmakers' reservation latency p50/p99 (the HTTP request, as a client
sees it), and for each room process its rooms, its clients and its CPU per tick (process
CPU from ``/proc`` over ``--seconds`` of play, divided by the 30 ticks a second its rooms
make), with the syncs the clients got against what the ticks promise. The machine's load
(``uptime``) is printed before and after: on a shared machine the figures move with it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gdvariant import Vector2
from gdvariant.multiplayer import SpawnableScene, SpawnedNode, synced_class
from gdvariant.multiplayer import websocket as mp_websocket
from gdvariant.multiplayer.wire import ConfirmPath, Packet, SimplifyPath, Sync
from gdvariant.replication import Float32, NetClass, Prop, Vec2
from gdvariant.rooms import Client, Room
from tests.support.paths import ROOT
from tests.support.redis_server import RedisProcess, find_redis

TICK_HZ = 30
ROOM_CLASS = "arena=benchmarks.bench_rooms:Arena"
#: requests and handshakes at once, from this one client process
CONCURRENCY = 32
#: a run fails when the clients got fewer syncs than this share of what the ticks promise
MIN_SYNC_SHARE = 0.5


class Avatar(NetClass):
    position = Prop(Vec2(Float32()), hot=True)


AVATAR = SpawnableScene("res://avatar.tscn", synced_class(Avatar), root_type="Node2D")


class Arena(Room):
    """A match: one avatar per client, every position synced to the room 30 times a second."""

    seats = 8
    grace = 5.0

    def on_create(self, options: Mapping[str, Any]) -> None:
        self.seats = int(options.get("seats", self.seats))
        self.spawner = self.multiplayer.add_spawner("Arena/Spawner", "Arena/Avatars", [AVATAR])
        self.avatars: dict[int, SpawnedNode] = {}
        self.ticker = asyncio.get_running_loop().create_task(self.tick())

    def on_join(self, client: Client) -> None:
        self.avatars[client.peer] = self.spawner.spawn(
            0, f"A{client.peer}", {"position": Vector2(0, len(self.avatars))}
        )

    def on_leave(self, client: Client) -> None:
        avatar = self.avatars.pop(client.peer, None)
        if avatar is not None:
            self.spawner.despawn(avatar)

    def on_dispose(self) -> None:
        self.ticker.cancel()

    async def tick(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time()
        tick = 0
        while True:
            deadline += 1 / TICK_HZ
            delay = deadline - loop.time()
            if delay < 0:  # behind: tick now, no burst to catch up
                deadline = loop.time()
            await asyncio.sleep(max(delay, 0))
            tick += 1
            for index, avatar in enumerate(self.avatars.values()):
                avatar.state.position = Vector2(tick, index)
            self.multiplayer.sync()


# ---------------------------------------------------------------- the processes


@dataclass
class Cluster:
    """The room processes and matchmakers of one measurement."""

    hosts: list[subprocess.Popen[bytes]] = field(default_factory=list)
    host_ids: list[str] = field(default_factory=list)
    matchmakers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)

    def stop(self) -> None:
        for proc in [*self.hosts, *self.matchmakers]:
            proc.terminate()
        for proc in [*self.hosts, *self.matchmakers]:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def start(args: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gdvariant", "rooms", *args],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().decode().strip()
    if not line:
        raise RuntimeError(f"`gdvariant rooms {args[0]}` did not start")
    return proc, line


def start_cluster(url: str, processes: int, matchmakers: int) -> Cluster:
    namespace = "b" + secrets.token_hex(4)
    common = ["--redis", url, "--namespace", namespace]
    cluster = Cluster()
    try:
        for _ in range(processes):
            proc, line = start(["host", *common, "--room-class", ROOM_CLASS, "--capacity", "1000"])
            cluster.hosts.append(proc)
            cluster.host_ids.append(line.split()[2])
        for _ in range(matchmakers):
            proc, line = start(["matchmaker", *common, "--port", "0"])
            cluster.matchmakers.append(proc)
            cluster.ports.append(int(line.rsplit(":", 1)[1]))
    except BaseException:
        cluster.stop()
        raise
    return cluster


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` so far (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------- the clients


class Player:
    """A client: asks a matchmaker for a seat, joins with the token, counts syncs."""

    def __init__(self) -> None:
        self.admitted = asyncio.Event()
        self.endpoint = mp_websocket.MultiplayerClient(
            auth_callback=lambda data: None,
            on_packet=self.packet,
            on_peer_connected=lambda peer: self.admitted.set(),
        )
        self.syncs = 0
        self.process = ""
        self.room = ""

    def packet(self, sender: int, packet: Packet) -> None:
        if isinstance(packet, Sync):
            self.syncs += 1
        elif isinstance(packet, SimplifyPath):
            self.endpoint.send(ConfirmPath(True, packet.cache_id))

    async def join(self, port: int, user: str, seats: int) -> float:
        """Reserve and take a seat; the reservation's latency in seconds."""
        body = json.dumps({"name": "arena", "user": user, "options": {"seats": seats}})
        started = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = "POST /rooms/join-or-create HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n"
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode() + body.encode())
        answer = await reader.read()
        writer.close()
        latency = time.perf_counter() - started
        status, _, content = answer.partition(b"\r\n\r\n")
        if b" 200 " not in status.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"the matchmaker refused a join: {answer[:300]!r}")
        seat = json.loads(content)
        self.process, self.room = seat["room"]["process"], seat["room"]["id"]
        await self.endpoint.connect(seat["address"])
        self.endpoint.send_auth(seat["token"].encode())
        self.endpoint.complete_auth()
        await asyncio.wait_for(self.admitted.wait(), 60)
        return latency


@dataclass
class Result:
    processes: int
    clients: int
    joins_per_second: float
    latency_p50_ms: float
    latency_p99_ms: float
    per_process: list[dict[str, float]]
    sync_share: float


async def measure(cluster: Cluster, args: argparse.Namespace) -> Result:
    players = [Player() for _ in range(args.clients)]
    gate = asyncio.Semaphore(CONCURRENCY)

    async def join(index: int, player: Player) -> float:
        async with gate:
            port = cluster.ports[index % len(cluster.ports)]
            return await player.join(port, f"u{index}", args.seats)

    started = time.perf_counter()
    latencies = await asyncio.gather(*(join(i, p) for i, p in enumerate(players)))
    joins_per_second = len(players) / (time.perf_counter() - started)
    await asyncio.sleep(1.0)  # every avatar spawned and its path confirmed
    before = {proc.pid: cpu_seconds(proc.pid) for proc in cluster.hosts}
    syncs_before = sum(p.syncs for p in players)
    window_start = time.perf_counter()
    await asyncio.sleep(args.seconds)
    window = time.perf_counter() - window_start
    ticks = window * TICK_HZ
    syncs = sum(p.syncs for p in players) - syncs_before
    per_process = []
    for proc, process_id in zip(cluster.hosts, cluster.host_ids, strict=True):
        mine = [p for p in players if p.process == process_id]
        rooms = len({p.room for p in mine})
        cpu = cpu_seconds(proc.pid) - before[proc.pid]
        per_process.append(
            {
                "clients": len(mine),
                "rooms": rooms,
                "cpu_share": cpu / window,
                "cpu_ms_per_tick": cpu / ticks * 1000,
            }
        )
    for player in players:
        await player.endpoint.close()
    ordered = sorted(latencies)
    return Result(
        processes=len(cluster.hosts),
        clients=len(players),
        joins_per_second=joins_per_second,
        latency_p50_ms=statistics.median(ordered) * 1000,
        latency_p99_ms=ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        per_process=per_process,
        sync_share=syncs / max(1.0, len(players) * ticks),
    )


def show(result: Result) -> None:
    print(
        f"{result.processes} room process(es), {result.clients} clients: "
        f"{result.joins_per_second:.0f} joins/s, reservation p50 {result.latency_p50_ms:.1f} ms"
        f" p99 {result.latency_p99_ms:.1f} ms, syncs {result.sync_share:.0%} of the ticks' promise"
    )
    for index, row in enumerate(result.per_process):
        print(
            f"  process {index}: {row['clients']:.0f} clients in {row['rooms']:.0f} rooms,"
            f" {row['cpu_ms_per_tick']:.2f} ms CPU per tick, {row['cpu_share']:.0%} of a core"
        )


def uptime() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--matchmakers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=400)
    parser.add_argument("--seats", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--no-single", action="store_true", help="skip the one-process run")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--quick", action="store_true", help="2 processes, 24 clients, 2 s")
    args = parser.parse_args(argv)
    if args.quick:
        args.processes, args.clients, args.seconds = 2, 24, 2.0
    program, why = find_redis()
    if program is None:
        print(f"bench_rooms: {why}", file=sys.stderr)
        return 2
    print(f"# load average before (1, 5, 15 min): {uptime()}; 2 shared cores: figures move")
    folder = Path(tempfile.mkdtemp(prefix="bench-rooms-"))
    redis = RedisProcess(program, folder)
    results = []
    try:
        url = redis.start()
        counts = [args.processes] if args.no_single else [args.processes, 1]
        for processes in counts:
            cluster = start_cluster(url, processes, args.matchmakers)
            try:
                result = asyncio.run(measure(cluster, args))
            finally:
                cluster.stop()
            show(result)
            results.append(result)
    finally:
        redis.stop()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"# load average after: {uptime()}")
    if args.json is not None:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=2))
    short = [r for r in results if r.sync_share < MIN_SYNC_SHARE]
    if short:
        print(
            f"bench_rooms: clients got too few syncs ({short[0].sync_share:.0%})", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
