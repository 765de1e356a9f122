"""Hostile clients against a multiplayer server built as the README builds it: its memory and
its log.

Run on demand (not a test):

    .venv/bin/python -m benchmarks.bench_hostile_servers                      # 40 s each
    .venv/bin/python -m benchmarks.bench_hostile_servers --seconds 10 --scenario unread

The server runs in its own process: the README's ``SceneMultiplayer`` on ``MultiplayerServer``
(a ``Main`` node whose ``say`` RPC answers every peer with ``said``, a player spawner), RAW
packets echoed to their sender, ``mp.sync()`` 30 times a second, and the log going to a file.
One good client plays against it all along (RAW round trips, one at a time), and:

* ``unread``: a client sends WebSocket pings, RAW echo requests and ``say`` calls as fast as
  the server takes them, from a socket with a tiny receive buffer that it never reads;
* ``badlog``: a client sends RPCs on an undeclared 1 KB node path and SIMPLIFY_PATHs naming
  it, as fast as it can (refused, not malformed: a malformed packet closes the client, as
  ``drop_limit`` is 0).

Reported: the server's resident memory before and at the end, and its peak (``VmHWM``);
whether and when the hostile client was cut; the good client's round trips and the slowest;
for ``badlog``, the log's bytes and lines (and what they make per 40 s). The load average
(``uptime``) comes with the figures. Run it from another checkout's ``src`` (``PYTHONPATH``)
to compare with older code.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

import gdvariant
from gdvariant.multiplayer import RpcConfig, RpcMode, SceneMultiplayer, SpawnableScene, synced_class
from gdvariant.multiplayer.websocket import MultiplayerServer
from gdvariant.multiplayer.wire import RemoteCall, SimplifyPath, encode_scene_packet, rpc_method_ids
from gdvariant.replication import Float32, NetClass, Prop, Str, Vec2
from tests.support.hostile import BINARY, PING, client_frame, raw_websocket

LONG_PATH = "Main/" + "n" * 1000


class Player(NetClass):
    position = Prop(Vec2(Float32()), hot=True)
    display_name = Str()


# ---------------------------------------------------------------- the server process


async def serve(log_file: str) -> None:
    """The README's server, RAW echoed; prints its port, runs until killed."""
    logging.basicConfig(filename=log_file, level=logging.WARNING)
    player = SpawnableScene("res://player.tscn", synced_class(Player), root_type="Node2D")

    def echo(peer: int, data: bytes) -> None:
        server.send_raw(peer, data)

    server = MultiplayerServer(on_raw=echo)
    mp = SceneMultiplayer(server)
    mp.node("Main", rpcs=[RpcConfig("say", mode=RpcMode.ANY_PEER), "said"])
    mp.on_rpc("Main", "say", lambda sender, text: mp.rpc(0, "Main", "said", text))
    players = mp.add_spawner("Main/PlayerSpawner", "Main/Players", [player])
    mp.peer_connected.connect(lambda peer: players.spawn(0, str(peer), {"display_name": "?"}))
    port = await server.listen("127.0.0.1", 0)
    print(port, flush=True)
    while True:
        await asyncio.sleep(1 / 30)
        mp.sync()


# ---------------------------------------------------------------- the clients


def memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid``, in bytes."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


async def unread(port: int, seconds: float) -> str:
    """Pings, RAW echo requests and ``say`` calls, never reading; how it ended."""
    loop = asyncio.get_running_loop()
    sock = await raw_websocket(port, first_message=6)  # the peer id, then nothing read
    say = rpc_method_ids(["said", "say"])["say"]
    call = encode_scene_packet(RemoteCall(say, ("hello " * 20,), path="Main"))
    ping, echo = client_frame(PING, b"p" * 125), client_frame(BINARY, b"\x03" + bytes(1000))
    burst = (ping + echo + client_frame(BINARY, call)) * 8
    start = time.monotonic()
    sent = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                await loop.sock_sendall(sock, burst)
                sent += len(burst)
    except TimeoutError:
        how = f"was still connected after {seconds:g} s"
    except OSError as exc:
        how = f"was cut after {time.monotonic() - start:.1f} s ({exc.strerror})"
    sock.close()
    return f"{how}, having sent {sent / 1e6:.1f} MB"


async def badlog(port: int, seconds: float) -> str:
    """Refused packets as fast as the server takes them."""
    client = await join(port)
    packets = [
        encode_scene_packet(RemoteCall(0, (1,), path=LONG_PATH)),
        encode_scene_packet(SimplifyPath(7, LONG_PATH)),
    ]
    reader = asyncio.create_task(drain(client))
    sent = 0
    async with asyncio.timeout(seconds + 5):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for packet in packets:
                await client.send(packet)
            sent += len(packets)
    reader.cancel()
    await client.close()
    return f"sent {sent:,} bad packets"


async def join(port: int) -> ClientConnection:
    client = await connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None)
    await client.recv()  # the peer id
    return client


async def drain(client: ClientConnection) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for _ in client:
            pass


async def good_client(port: int, stop: asyncio.Event) -> tuple[int, float]:
    """RAW round trips, one at a time, until ``stop``: how many, and the slowest."""
    client = await join(port)
    rounds, slowest = 0, 0.0
    while not stop.is_set():
        token = b"\x03round %d" % rounds
        start = time.monotonic()
        await client.send(token)
        while await client.recv() != token:
            pass
        slowest = max(slowest, time.monotonic() - start)
        rounds += 1
    await client.close()
    return rounds, slowest


async def scenario(name: str, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        log_file = str(Path(folder) / "server.log")
        process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.bench_hostile_servers", "--serve", log_file],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            port = int(process.stdout.readline())
            stop = asyncio.Event()
            good = asyncio.create_task(good_client(port, stop))
            await asyncio.sleep(1)
            before = memory(process.pid)
            attack = unread if name == "unread" else badlog
            outcome = await attack(port, seconds)
            after = memory(process.pid)
            stop.set()
            rounds, slowest = await good
            log = Path(log_file).read_bytes()
        finally:
            process.kill()
            process.wait()
    mib = 1 << 20
    print(
        f"{name}, {seconds:g} s: server RSS {before['VmRSS'] / mib:.0f} MiB before, "
        f"{after['VmRSS'] / mib:.0f} MiB after, peak {after['VmHWM'] / mib:.0f} MiB; "
        f"the hostile client {outcome}; the good client made {rounds:,} round trips "
        f"(slowest {slowest * 1000:.0f} ms)"
    )
    lines = log.count(b"\n")
    scale = 40 / seconds
    print(
        f"  log: {len(log):,} bytes in {lines:,} lines "
        f"({len(log) * scale / 1e6:.2f} MB and {lines * scale:,.0f} lines per 40 s)"
    )
    print(f"  load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} (1 and 5 min)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--scenario", choices=["unread", "badlog", "both"], default="both")
    parser.add_argument("--serve", metavar="LOG_FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve))
        return
    print(f"gdvariant from {Path(gdvariant.__file__).parent}")
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    names = ["unread", "badlog"] if args.scenario == "both" else [args.scenario]
    for name in names:
        asyncio.run(scenario(name, args.seconds))


if __name__ == "__main__":
    main()
