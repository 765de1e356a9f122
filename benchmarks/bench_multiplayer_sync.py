"""``SceneMultiplayer.sync()`` alone: CPU per tick of bench_multiplayer's scene, no sockets.

The scene of ``bench_multiplayer`` (each client sees its own 20 entities; every tick each
entity's ``position`` is set, once a second its ``hp``) on a transport whose ``_put`` only
counts: what is timed is the game's writes and ``sync()``, in thread CPU time, median over
the ticks. Each network frame that imports (``python``, ``c``) is timed on a fresh world,
the compiled one last. On a tree without the frame seam (before issue 24) the one live
implementation is timed, as ``live``.

``--evict MB`` writes over that many megabytes between ticks, so each tick starts with the
server's objects out of the caches, as they are live: between two ticks 33 ms apart the
event loop, the sockets and the clients on the other core evict them. Measured in one run on
the 2-core benchmark machine (32 MB of L3), 100 clients: the game's writes and ``sync()`` take
0.56 + 0.49 ms warm and 1.99 + 1.55 ms with 64 MB evicted, and the live profile of the same
scene shows about 2.3 + 2.1 ms: the live cost is mostly the first touch of each object. Run
from the repository's root:

    .venv/bin/python -m benchmarks.bench_multiplayer_sync --clients 100,400
    .venv/bin/python -m benchmarks.bench_multiplayer_sync --clients 100 --evict 64

``--seen-by K`` shows each entity to its own client and the K - 1 next ones (more holders a
node), ``--churn N`` hides N entities from a peer (or shows them again) each tick, ``--frame``
times one frame only, and every row ends with the SHA-256 of every packet sent (peer, mode,
bytes, in order), warm-up included: the proof that a change to the frame sends the same bytes.
For instruction counts and cache misses of the frame alone, run it under callgrind, e.g.
``valgrind --tool=callgrind --cache-sim=yes --collect-atstart=no --toggle-collect=py_frame``
with ``--frame c``, twice with different ``--ticks``: the difference is that many ticks' cost.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import logging
import os
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.bench_multiplayer import ENTITY, PROJECT, SPAWN_PATH, SPAWNER, entity_name
from gdvariant import Vector2
from gdvariant.multiplayer import SceneMultiplayer, TransferMode
from gdvariant.multiplayer._endpoint import ServerEndpoint

WARMUP = 5


class CountingServer(ServerEndpoint):
    """A server endpoint whose packets are counted, not written."""

    default_size = 1 << 16
    default_logger = logging.getLogger("bench_multiplayer_sync")

    def __init__(self) -> None:
        super().__init__(clock=time.monotonic, relay=False)
        self.messages = 0
        self.bytes = 0
        self.digest = hashlib.sha256()

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        self.messages += 1
        self.bytes += len(data)
        self.digest.update(b"%d %d %d:" % (peer, mode.value, len(data)) + data)

    def _has_peer(self, peer: int) -> bool:
        return True


def build(
    clients: int, entities: int, seen_by: int = 1
) -> tuple[CountingServer, SceneMultiplayer, list[Any]]:
    """The bench's world: ``clients`` peers, each seeing its own ``entities`` nodes (and
    those of the ``seen_by - 1`` peers before it)."""
    server = CountingServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    spawner = mp.add_spawner(SPAWNER, SPAWN_PATH, [ENTITY])
    nodes: list[Any] = []
    first = 1000

    def joined(peer: int) -> None:
        seers = [first + (peer - first + k) % clients for k in range(seen_by)]
        for i in range(entities):
            values = {"position": Vector2(0, i), "hp": 0}
            nodes.append(spawner.spawn(0, entity_name(peer, i), values, visible_to=seers))

    mp.peer_connected.connect(joined)
    for peer in range(first, first + clients):
        server._joined(peer)
    return server, mp, nodes


def game(nodes: list[Any], entities: int) -> Callable[[int], None]:
    """One tick of the bench's game: every position set, every hp once in 30 ticks."""

    def tick(number: int) -> None:
        bump = number % 30 == 0
        for k, node in enumerate(nodes):
            node.state.position = Vector2(number, k % entities)
            if bump:
                node.state.hp += 1

    return tick


def churn(nodes: list[Any], flips: int, peers: int) -> Callable[[int], None]:
    """``flips`` visibility changes a tick: an entity hidden from a peer that sees it, or
    shown to one again (SPAWN, DESPAWN, and the frame's holders changed)."""

    def flip(number: int) -> None:
        for j in range(flips):
            node = nodes[(number * 7919 + j * 104729) % len(nodes)]
            peer = 1000 + (number + j) % peers
            node.set_visibility_for(peer, not node.get_visibility_for(peer))

    return flip


def measure(
    clients: int, entities: int, ticks: int, evict: int = 0, seen_by: int = 1, flips: int = 0
) -> dict[str, Any]:
    """Median game and sync CPU per tick (ms), messages and bytes per tick, and the SHA-256
    of every packet; with ``evict``, that many MiB written over before each tick."""
    server, mp, nodes = build(clients, entities, seen_by)
    play, flip = game(nodes, entities), churn(nodes, flips, clients)
    junk, zeros = bytearray(evict << 20), bytes(evict << 20)
    for number in range(WARMUP):
        play(number)
        mp.sync()
    server.messages = server.bytes = 0
    games, syncs = [], []
    for number in range(WARMUP, WARMUP + ticks):
        if evict:
            junk[:] = zeros
        flip(number)
        start = time.thread_time()
        play(number)
        middle = time.thread_time()
        mp.sync()
        end = time.thread_time()
        games.append(middle - start)
        syncs.append(end - middle)
    return {
        "game_ms": statistics.median(games) * 1e3,
        "sync_ms": statistics.median(syncs) * 1e3,
        "messages": server.messages / ticks,
        "bytes": server.bytes / ticks,
        "digest": server.digest.hexdigest(),
    }


def frames() -> dict[str, Callable[[], contextlib.AbstractContextManager[None]]]:
    """Each network frame that imports, by name, as a context that makes it live."""
    try:
        from gdvariant.multiplayer import _frame
    except ImportError:  # a tree from before the frame seam
        return {"live": contextlib.nullcontext}

    def using(name: str) -> Callable[[], contextlib.AbstractContextManager[None]]:
        return lambda: _frame.use(name)

    return {name: using(name) for name in _frame.implementations()}


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def rows(args: argparse.Namespace, clients: list[int], ticks: int) -> Iterator[str]:
    entities = args.entities
    for count in clients:
        for name, use in frames().items():
            if args.frame not in (None, name):
                continue
            with use():
                f = measure(count, entities, ticks, args.evict, args.seen_by, args.churn)
            yield (
                f"{count:>5} clients x {entities}  {name:<6}  game {f['game_ms']:7.2f} ms  "
                f"sync {f['sync_ms']:7.2f} ms  {f['messages']:7.1f} messages "
                f"{f['bytes']:9.0f} bytes per tick  sha256 {f['digest'][:16]}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="100,400", help="client counts, comma-separated")
    parser.add_argument("--entities", type=int, default=20, help="entities per client")
    parser.add_argument("--ticks", type=int, default=150, help="ticks timed per run")
    parser.add_argument(
        "--evict", type=int, default=0, metavar="MB", help="MiB written over before each tick"
    )
    parser.add_argument("--seen-by", type=int, default=1, help="peers that see each entity")
    parser.add_argument("--churn", type=int, default=0, help="visibility changes a tick")
    parser.add_argument("--frame", help="time this frame only (python, c)")
    parser.add_argument("--quick", action="store_true", help="5 clients, 10 ticks (for tests)")
    args = parser.parse_args()
    clients = [5] if args.quick else [int(c) for c in args.clients.split(",")]
    ticks = 10 if args.quick else args.ticks
    evicted = f", {args.evict} MiB evicted before each tick" if args.evict else ""
    print(f"# bench_multiplayer_sync, {ticks} ticks per run, median CPU per tick{evicted}")
    print(f"# {load()}")
    for row in rows(args, clients, ticks):
        print(row, flush=True)
    print(f"# {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
