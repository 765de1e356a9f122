"""Load benchmark: many concurrent clients exchanging values with a gdvariant asyncio server.

Run on demand (not a test):

    .venv/bin/python -m benchmarks.bench_network      # 200 x 1,000 small, 20 x 50 large
    .venv/bin/python -m benchmarks.bench_network --clients 50 --messages 200

The server runs in its own process (``gdvariant.asyncio.serve`` with an echo handler) and the
clients in this one, each keeping ``--window`` messages in flight. Every echo is checked
against what was sent (a lost, reordered or corrupted message is counted and fails the run).
Reported: messages/s each way, MB/s, round-trip latency p50/p99, and the server's peak
memory. The baseline in the same run is a server that echoes raw bytes without decoding,
so the difference is gdvariant's own cost on the server.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gdvariant as gd
from gdvariant.asyncio import Server, VariantStream, serve


def small_message(client: int, seq: int) -> Any:
    """A typical game-state update: about 150 bytes."""
    return {
        "id": client,
        "seq": seq,
        "pos": gd.Vector3(seq * 0.5, 1.0, -2.0),
        "vel": gd.Vector2(0.25, -1.0),
        "name": "player_é",
        "flags": [True, False, seq % 7],
    }


def large_message(client: int, seq: int) -> Any:
    """A snapshot: about 300 KB (a packed array plus 2,000 small entities)."""
    return {
        "id": client,
        "seq": seq,
        "heights": gd.PackedFloat32Array([float(i % 97) for i in range(40_000)]),
        "entities": [[i, gd.Vector2(i, seq), "e"] for i in range(2_000)],
    }


MESSAGES = {"small": small_message, "large": large_message}


# ---------------------------------------------------------------- the server process


async def _serve(mode: str, port_file: Path) -> None:
    async def echo(peer: VariantStream) -> None:
        async for value in peer:
            await peer.put_var(value)

    async def raw_echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    server: asyncio.Server | Server
    if mode == "gdvariant":
        server = await serve(echo, "127.0.0.1", 0, max_frame_size=64 << 20)
    else:
        server = await asyncio.start_server(raw_echo, "127.0.0.1", 0)
    port_file.write_text(str(server.sockets[0].getsockname()[1]))
    await server.serve_forever()


def start_server(mode: str, workdir: Path) -> tuple[subprocess.Popen[bytes], int]:
    port_file = workdir / f"port-{mode}"
    port_file.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.bench_network",
        "--serve",
        mode,
        "--port-file",
        str(port_file),
    ]
    proc = subprocess.Popen(cmd)
    while not (port_file.exists() and port_file.read_text()):
        time.sleep(0.05)
    return proc, int(port_file.read_text())


def peak_memory_mib(pid: int) -> float:
    """The process's peak resident memory (Linux ``VmHWM``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ---------------------------------------------------------------- the clients


@dataclass
class Result:
    latencies: list[float]
    errors: int
    sent_bytes: int


async def one_client(port: int, client: int, count: int, window: int, kind: str) -> Result:
    """Send pre-framed values and compare each echoed frame with the original bytes.

    The clients do no decoding, so the figures measure the server, not this process.
    """
    make = MESSAGES[kind]
    frames = [gd.frame(make(client, seq)) for seq in range(count)]
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
    sent_at: list[float] = [0.0] * count
    latencies: list[float] = []
    errors = 0
    credit = asyncio.Semaphore(window)

    async def receive() -> None:
        nonlocal errors
        for seq in range(count):
            head = await reader.readexactly(4)
            body = await reader.readexactly(int.from_bytes(head, "little"))
            latencies.append(time.perf_counter() - sent_at[seq])
            if head + body != frames[seq]:
                errors += 1
            credit.release()

    receiver = asyncio.create_task(receive())
    for seq in range(count):
        await credit.acquire()
        sent_at[seq] = time.perf_counter()
        writer.write(frames[seq])
        await writer.drain()
    with contextlib.suppress(asyncio.IncompleteReadError):  # counted as lost
        await receiver
    writer.close()
    return Result(latencies, errors, sum(map(len, frames)))


async def run_clients(
    port: int, clients: int, count: int, window: int, kind: str
) -> dict[str, Any]:
    start = time.perf_counter()
    results = await asyncio.gather(
        *(one_client(port, c, count, window, kind) for c in range(clients))
    )
    elapsed = time.perf_counter() - start
    latencies = sorted(x for r in results for x in r.latencies)
    total = clients * count
    received = len(latencies)
    return {
        "messages": total,
        "lost": total - received,
        "corrupted": sum(r.errors for r in results),
        "seconds": elapsed,
        "msg_per_s": total / elapsed,
        "mb_per_s": sum(r.sent_bytes for r in results) / elapsed / 1e6,
        "p50_ms": statistics.quantiles(latencies, n=100)[49] * 1000,
        "p99_ms": statistics.quantiles(latencies, n=100)[98] * 1000,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, help="concurrent clients (default: both scenarios)")
    parser.add_argument("--messages", type=int, help="messages per client")
    parser.add_argument("--kind", choices=MESSAGES, default="small")
    parser.add_argument("--window", type=int, default=8, help="messages in flight per client")
    parser.add_argument("--serve", choices=["gdvariant", "raw"], help=argparse.SUPPRESS)
    parser.add_argument("--port-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args.serve, args.port_file))
        return 0
    if args.clients:
        scenarios = [(args.clients, args.messages or 1000, args.kind)]
    else:
        scenarios = [(200, 1000, "small"), (20, 50, "large")]
    workdir = Path(os.environ.get("TMPDIR", "/tmp"))
    failed = False
    for clients, count, kind in scenarios:
        for mode in ("gdvariant", "raw"):
            proc, port = start_server(mode, workdir)
            try:
                print(f"{clients} clients x {count} {kind} messages, {mode} server ...", flush=True)
                window = args.window if kind == "small" else min(args.window, 2)
                stats = asyncio.run(run_clients(port, clients, count, window, kind))
                stats["server_peak_mib"] = peak_memory_mib(proc.pid)
            finally:
                proc.terminate()
                proc.wait()
            failed |= bool(stats["lost"] or stats["corrupted"])
            print(
                "  {msg_per_s:,.0f} msg/s round trips, {mb_per_s:.1f} MB/s each way,"
                " p50 {p50_ms:.2f} ms, p99 {p99_ms:.2f} ms, server peak {server_peak_mib:.0f} MiB,"
                " {lost} lost, {corrupted} corrupted ({seconds:.1f} s)".format(**stats),
                flush=True,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
