"""One incoming RPC and its answer on our server, no sockets: CPU per RPC, warm.

The RPC of ``bench_multiplayer``: a client calls ``ping(seq)`` on ``Bench/Rpc`` and the
handler answers ``pong(seq)`` to it. The server is a ``ServerEndpoint`` whose ``_put`` only
counts, fed the client's packet bytes as a transport feeds them (``_received``): what is
timed is the whole way in and out (the protocol's checks, decoding, the handler,
``SceneMultiplayer.rpc``, encoding and the send), in thread CPU time, median over the
repeats. Two cases: ``confirmed``, the server's path to ``Bench/Rpc`` confirmed by every
client (a live session after its first answer: the answer names the node by its cache id),
and ``unconfirmed`` (each answer carries the path). The live cost is higher: between two
ticks a ping comes alone, its code and data out of the caches, and the transport adds its own
(see docs/multiplayer.md, "Load benchmark"). ``--profile`` prints the confirmed case's
cProfile listing. Run from the repository's root:

    .venv/bin/python -m benchmarks.bench_multiplayer_rpc
    .venv/bin/python -m benchmarks.bench_multiplayer_rpc --profile
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import time
from typing import Any

from benchmarks.bench_multiplayer import PROJECT, RPC, RPC_CACHE_ID
from benchmarks.bench_multiplayer_sync import CountingServer
from gdvariant.multiplayer import SceneMultiplayer, TransferMode, read_script_rpcs
from gdvariant.multiplayer.wire import ConfirmPath, RemoteCall, SimplifyPath

FIRST_PEER = 1000


def build(peers: int, confirmed: bool) -> tuple[CountingServer, list[tuple[int, bytes]]]:
    """A server answering pings from ``peers`` clients (their paths simplified, the server's
    answered once and, with ``confirmed``, confirmed), and one ping packet per client."""
    server = CountingServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    mp.node(RPC, script="res://bench_rpc.gd")
    mp.on_rpc(RPC, "ping", lambda peer, seq: mp.rpc(peer, RPC, "pong", seq))
    rpcs = read_script_rpcs(PROJECT, "res://bench_rpc.gd")
    simplify = SimplifyPath(RPC_CACHE_ID, RPC, rpcs.checksum).encode()
    ids = range(FIRST_PEER, FIRST_PEER + peers)
    for peer in ids:
        server._joined(peer)
        server._received(peer, simplify, TransferMode.RELIABLE, 0)
        mp.rpc(peer, RPC, "pong", 0)  # the server's SIMPLIFY_PATH goes out with it
        if confirmed:
            confirm = ConfirmPath(True, mp.send_cache.cache_id(RPC)).encode()
            server._received(peer, confirm, TransferMode.RELIABLE, 0)
    ping = rpcs.ids["ping"]
    packets = [
        (peer, RemoteCall(ping, (k,), node_id=RPC_CACHE_ID).encode()) for k, peer in enumerate(ids)
    ]
    return server, packets


def run(server: CountingServer, packets: list[tuple[int, bytes]], calls: int) -> float:
    """Feed ``calls`` pings round the clients; thread CPU per ping, in microseconds."""
    received, mode, count = server._received, TransferMode.RELIABLE, len(packets)
    started = time.thread_time_ns()
    for k in range(calls):
        peer, data = packets[k % count]
        received(peer, data, mode, 0)
    return (time.thread_time_ns() - started) / calls / 1000


def measure(peers: int, calls: int, repeat: int, confirmed: bool) -> dict[str, Any]:
    """Median CPU per RPC (us) and the messages and bytes sent per RPC."""
    server, packets = build(peers, confirmed)
    run(server, packets, min(calls, 1000))  # warm up
    server.messages = server.bytes = 0
    times = [run(server, packets, calls) for _ in range(repeat)]
    total = calls * repeat
    return {
        "us": statistics.median(times),
        "messages": server.messages / total,
        "bytes": server.bytes / total,
    }


def profile(peers: int, calls: int) -> None:
    server, packets = build(peers, confirmed=True)
    run(server, packets, min(calls, 1000))
    profiler = cProfile.Profile()
    profiler.runcall(run, server, packets, calls)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, default=100, help="clients the pings come from")
    parser.add_argument("--calls", type=int, default=20000, help="pings timed per repeat")
    parser.add_argument("--repeat", type=int, default=5, help="repeats (the median is shown)")
    parser.add_argument("--profile", action="store_true", help="a cProfile listing too")
    parser.add_argument("--quick", action="store_true", help="5 peers, 200 calls (for tests)")
    args = parser.parse_args()
    peers, calls, repeat = (5, 200, 3) if args.quick else (args.peers, args.calls, args.repeat)
    print(f"# bench_multiplayer_rpc, {peers} peers, {calls} pings x {repeat}, median CPU per RPC")
    print(f"# {load()}")
    for name, confirmed in (("confirmed", True), ("unconfirmed", False)):
        f = measure(peers, calls, repeat, confirmed)
        print(
            f"{name:<12} {f['us']:8.2f} us per RPC  {f['messages']:5.2f} messages "
            f"{f['bytes']:6.1f} bytes per RPC",
            flush=True,
        )
    print(f"# {load()}")
    if args.profile:
        profile(peers, calls)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
