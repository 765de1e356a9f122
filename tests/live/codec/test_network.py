"""Live interop over real sockets: Godot clients talk to our servers, our clients to Godot's.

Every session exchanges COUNT random values each way (``tests/support/net_session.py`` says how they
are checked) with a new seed each run (GDVARIANT_SEED=<seed> reruns one). Skipped with the
reason when the engines are missing; required in ``.ci/run``.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
import gdvariant.sync
from gdvariant.asyncio import VariantStream, open_datagram, serve
from gdvariant.asyncio import connect as gd_asyncio_connect
from tests.support import hostile
from tests.support.engines import ORACLES, SEED, Engine, run_beside, run_oracle
from tests.support.net_session import Report, drive, drive_blocking, session

pytestmark = [pytest.mark.engine, pytest.mark.slow]

COUNT = 1000
TIMEOUT = 300
FRAMING = {"stream": "StreamPeer", "pps": "PacketPeerStream"}


async def _run_engine(engine: Engine, args: list[str], here: Path, inside: str) -> None:
    """Run the engine's oracle script with ``args``; raise with its output if it fails."""
    shutil.copy(ORACLES / engine.oracle, here)
    await engine.run_async(engine.oracle, args, cwd=(here, inside), timeout=TIMEOUT)


async def _with_engine(engine: Engine, args: list[str], ours: Awaitable[Report]) -> Report:
    """Run our side and the engine (its oracle with ``args``) together."""
    with engine.workdir() as (here, inside):
        shutil.copy(ORACLES / engine.oracle, here)
        return await run_beside(
            engine, engine.oracle, args, ours, cwd=(here, inside), timeout=TIMEOUT
        )


def _client_args(kind: str, port: int, seed: int) -> list[str]:
    return ["client", kind, "127.0.0.1", str(port), str(seed), str(COUNT)]


async def _stream_session(
    engine: Engine,
    kind: str,
    version: str,
    seed: int,
    during: Callable[[int], Awaitable[None]] | None = None,
) -> Report:
    """Our asyncio server, one Godot client using StreamPeerTCP or PacketPeerStream, and
    ``during(port)`` run once the session has begun; it must end before the session does."""
    reports: asyncio.Queue[Report] = asyncio.Queue()
    started = asyncio.Event()

    async def handler(peer: VariantStream) -> None:
        started.set()
        await reports.put(await drive(session(version, seed, COUNT), peer.get_var, peer.put_var))

    async def meanwhile(port: int) -> None:
        assert during is not None
        await started.wait()
        await during(port)
        assert reports.empty(), "the session ended before the other clients were done"

    server = await serve(handler, "127.0.0.1", 0, version=version, framing=FRAMING[kind])
    port = server.sockets[0].getsockname()[1]
    try:
        report = _with_engine(engine, _client_args(kind, port, seed), reports.get())
        if during is None:
            return await report
        result, _ = await asyncio.gather(report, meanwhile(port))
        return result
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("kind", ["stream", "pps"])
def test_godot4_stream_clients(godot4: Engine, kind: str) -> None:
    report = asyncio.run(_stream_session(godot4, kind, "4.6", SEED))
    report.check(COUNT, f"Godot 4.6 {FRAMING[kind]} client, seed {SEED}")


#: Seeds that once failed: 1133226564 has the engine send a Dictionary with two ``{}`` keys,
#: which Godot 3 keeps apart (issue 12).
PINNED_SEEDS = [1133226564]


@pytest.mark.parametrize("seed", [SEED, *PINNED_SEEDS], ids=["fresh", *map(str, PINNED_SEEDS)])
@pytest.mark.parametrize("kind", ["stream", "pps"])
def test_godot3_stream_clients(godot3: Engine, kind: str, seed: int) -> None:
    report = asyncio.run(_stream_session(godot3, kind, godot3.name, seed))
    report.check(COUNT, f"Godot {godot3.name} {FRAMING[kind]} client, seed {seed}")


def test_godot4_udp_client(godot4: Engine) -> None:

    async def main() -> Report:
        peer = await open_datagram(local_addr=("127.0.0.1", 0), version="4.6")
        client: list[Any] = []

        async def recv() -> Any:
            value, addr = await peer.get_var()
            client[:] = [addr]
            return value

        async def send(value: Any) -> None:
            peer.put_var(value, client[0])

        port = peer.local_address[1]
        try:
            ours = drive(session("4.6", SEED, COUNT), recv, send)
            return await _with_engine(godot4, _client_args("udp", port, SEED), ours)
        finally:
            peer.close()

    report = asyncio.run(main())
    report.check(COUNT, f"Godot 4.6 PacketPeerUDP client, seed {SEED}")


def test_godot4_websocket_client(godot4: Engine) -> None:
    websocket = pytest.importorskip("gdvariant.websocket", reason="the websockets extra is missing")

    async def main() -> Report:
        reports: asyncio.Queue[Report] = asyncio.Queue()

        async def handler(peer: Any) -> None:
            await reports.put(await drive(session("4.6", SEED, COUNT), peer.get_var, peer.put_var))

        server = await websocket.serve(handler, "127.0.0.1", 0, version="4.6")
        port = next(iter(server.sockets)).getsockname()[1]
        try:
            return await _with_engine(godot4, _client_args("ws", port, SEED), reports.get())
        finally:
            server.close()
            await server.wait_closed()

    report = asyncio.run(main())
    report.check(COUNT, f"Godot 4.6 WebSocketPeer client, seed {SEED}")


BAD_CLIENTS = [
    (struct.pack("<i", 12) + b"\xff" * 12, "bad frame: unknown type id 255"),
    (struct.pack("<i", 0x7FFFFFFF), "frame length 2147483647 is outside 1..8388608"),
    (gd.frame(gd.GodotObject("Node", {}), full_objects=True), "ERR_UNAUTHORIZED"),
    (gd.frame("cut short")[:-3], "ended inside a frame"),
]


async def _bad_clients(port: int) -> None:
    """Connect the bad clients one after another while a Godot client is mid-session."""
    for data, _ in BAD_CLIENTS:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(data)
        writer.write_eof()
        assert await asyncio.wait_for(reader.read(), 30) == b""  # the server hung up
        writer.close()


def test_bad_clients_are_dropped_while_a_godot_client_carries_on(
    godot4: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="gdvariant.asyncio"):
        report = asyncio.run(_stream_session(godot4, "stream", "4.6", SEED, _bad_clients))
    report.check(COUNT, f"Godot 4.6 StreamPeer client beside bad clients, seed {SEED}")
    # At most 3 lines a second come from one host; the rest are counted.
    warnings = [r.getMessage() for r in caplog.records if r.name == "gdvariant.asyncio"]
    closing = [message for message in warnings if message.startswith("closing")]
    for (_, reason), message in zip(BAD_CLIENTS, closing, strict=False):
        assert message.startswith("closing the connection from ('127.0.0.1',"), message
        assert reason in message
    assert hostile.reported(caplog.records, "gdvariant.asyncio", ["closing"]) == len(BAD_CLIENTS)


def test_our_clients_talk_to_a_godot_tcp_server(godot4: Engine) -> None:
    """A GDScript TCPServer serves two clients in turn: the asyncio one, then the blocking one."""

    async def ours(here: Path) -> list[Report]:
        port_file = here / "port.txt"
        while not port_file.exists() or not port_file.read_text().strip():
            await asyncio.sleep(0.05)
        port = int(port_file.read_text())
        async with await gd_asyncio_connect("127.0.0.1", port, version="4.6") as peer:
            first = await drive(session("4.6", SEED, COUNT), peer.get_var, peer.put_var)

        def blocking() -> Report:
            with gdvariant.sync.connect(("127.0.0.1", port), timeout=60, version="4.6") as peer:
                return drive_blocking(session("4.6", SEED + 1, COUNT), peer.get_var, peer.put_var)

        return [first, await asyncio.to_thread(blocking)]

    async def main() -> list[Report]:
        with godot4.workdir() as (here, inside):
            args = ["server", f"{inside}/port.txt", "2", str(SEED), str(COUNT)]
            engine = asyncio.create_task(_run_engine(godot4, args, here, inside))
            reports = await asyncio.wait_for(ours(here), TIMEOUT)
            await asyncio.wait_for(engine, TIMEOUT)
            return reports

    first, second = asyncio.run(main())
    first.check(COUNT, f"gdvariant.asyncio client of a Godot 4.6 TCPServer, seed {SEED}")
    second.check(COUNT, f"gdvariant.sync client of a Godot 4.6 TCPServer, seed {SEED}")


def _limits(engine: Engine) -> dict[str, int]:
    (facts,) = run_oracle(engine, engine.oracle, ["limits", "{inside}/out.jsonl"])
    return {key: int(value) for key, value in facts.items()}


def _check_limits(facts: dict[str, int], version: str) -> None:
    """Our framing limits are the engine's: what a default PacketPeerStream sends (65,532)
    and delivers (65,531), and PacketPeer's encode_buffer_max_size (8 MiB)."""
    sendable = [n for n in (65528, 65531, 65532, 65533) if facts[f"pps_send_{n}"] == 0]
    delivered = [n for n in (65528, 65531, 65532, 65533) if facts[f"pps_receive_{n}"] == 1]
    assert max(sendable) == gd.PACKET_PEER_STREAM_MAX_SEND
    assert facts["pps_send_65533"] == gd.GodotError.ERR_INVALID_PARAMETER
    assert max(delivered) == gd.PACKET_PEER_STREAM_MAX_RECEIVE  # 65,532 stalls
    assert gd.StreamDecoder(framing="PacketPeerStream").max_frame_size == max(sendable)
    limit = gd.get_profile(version).packet_size_limit
    assert facts["encode_buffer_max_size"] == limit
    for n in (8388608, 8388612):
        refused = facts[f"put_var_{n}"] == gd.GodotError.ERR_OUT_OF_MEMORY
        assert refused == (n > limit), n
        try:
            gd.frame(b"\0" * (n - 8), version=version, framing="PacketPeer")
            ours_refused = False
        except gd.EncodeError:
            ours_refused = True
        assert ours_refused == refused, n


def test_framing_limits_are_godot4_s(godot4: Engine) -> None:
    _check_limits(_limits(godot4), "4.6")


def test_framing_limits_are_godot3_s(godot3: Engine) -> None:
    _check_limits(_limits(godot3), godot3.name)
