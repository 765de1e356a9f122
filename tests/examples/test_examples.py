"""The examples in ``examples/``: the relay and arena servers with Python clients, and their
one-command demos (run as modules from the repository root, as the README shows) with real
headless Godot 4.6 clients."""

from __future__ import annotations

import asyncio
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import gdvariant as gd
from examples.arena import arena_server
from examples.multiplayer import game_server
from examples.relay import server as relay_server
from gdvariant.asyncio import connect
from gdvariant.multiplayer import scene_tscn
from gdvariant.replication import SnapshotDecoder, gdscript, godot_state
from tests.support import processes
from tests.support.engines import Engine
from tests.support.paths import EXAMPLES, ROOT

ARENA = EXAMPLES / "arena"
MULTIPLAYER = EXAMPLES / "multiplayer"
DEMOS = [
    "examples.relay.demo",
    "examples.arena.arena_demo",
    "examples.multiplayer.multiplayer_demo",
]


def demo(
    module: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a demo as the README does: ``python -m MODULE`` from the repository root."""
    return processes.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )


def test_the_relay_passes_moves_and_chat_to_everyone_else() -> None:
    async def main() -> None:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(relay_server.run("127.0.0.1", 0, ready))
        port = await ready
        ayla = await connect("127.0.0.1", port)
        await ayla.put_var({"type": "join", "name": "Ayla"})
        assert await ayla.get_var() == {"type": "roster", "names": ["Ayla"]}
        bruno = await connect("127.0.0.1", port)
        await bruno.put_var({"type": "join", "name": "Bruno"})
        assert await ayla.get_var() == {"type": "roster", "names": ["Ayla", "Bruno"]}
        assert await bruno.get_var() == {"type": "roster", "names": ["Ayla", "Bruno"]}
        await bruno.put_var({"type": "move", "pos": gd.Vector2(1, 2)})
        await bruno.put_var({"type": "chat", "text": "hi 👋"})
        assert await ayla.get_var() == {"type": "moved", "name": "Bruno", "pos": gd.Vector2(1, 2)}
        assert await ayla.get_var() == {"type": "said", "name": "Bruno", "text": "hi 👋"}
        await bruno.put_var({"type": "teleport"})  # not part of the protocol: dropped
        with pytest.raises(gd.ConnectionClosed):
            await bruno.get_var()
        assert await ayla.get_var() == {"type": "roster", "names": ["Ayla"]}
        await ayla.close()
        task.cancel()

    asyncio.run(asyncio.wait_for(main(), 30))


@pytest.mark.slow
@pytest.mark.engine
def test_the_relay_demo_runs_with_headless_godot_clients(godot4: Engine) -> None:
    assert godot4.chroot is not None
    proc = demo(
        "examples.relay.demo", "--chroot", str(godot4.chroot), "--players", "4", "--moves", "100"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("saw 3 chats and [100, 100, 100] moves") == 4, proc.stdout
    assert "all clients saw everything" in proc.stdout


def test_the_arena_decoder_in_the_client_project_is_current() -> None:
    """The Godot project works when opened as it is: its decoder is the schema's own."""
    committed = (ARENA / "client" / "arena_decoder.gd").read_text()
    assert committed == gdscript.generate(arena_server.SCHEMA)


async def _python_arena_client(port: int, name: str) -> None:
    """An arena client in Python: a SnapshotDecoder instead of the generated GDScript one."""
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[bytes] = asyncio.Queue()

    class Inbox(asyncio.DatagramProtocol):
        def datagram_received(self, data: bytes, addr: object) -> None:
            inbox.put_nowait(data)

    transport, _ = await loop.create_datagram_endpoint(Inbox, remote_addr=("127.0.0.1", port))
    decoder = SnapshotDecoder(arena_server.SCHEMA)
    transport.sendto(bytes([arena_server.JOIN]) + name.encode())
    steps = 0
    while (message := await asyncio.wait_for(inbox.get(), 30))[0] != arena_server.DONE:
        if message[0] == arena_server.PACKET:
            decoder.apply(message[1:])
            steps += 1
            dx, dy = [(127, 0), (0, 127), (-127, 0), (0, -127)][steps // 20 % 4]
            transport.sendto(struct.pack("<BIbbB", arena_server.INPUT, decoder.ack, dx, dy, 1))
    state = gd.dumps(godot_state(arena_server.SCHEMA, decoder.state))
    transport.sendto(struct.pack("<BI", arena_server.REPORT, decoder.ack) + state)
    transport.close()


@pytest.mark.slow
def test_the_arena_server_plays_with_python_clients() -> None:
    async def main() -> dict[str, bool]:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        game = asyncio.create_task(arena_server.run("127.0.0.1", 0, ready, players=2, ticks=60))
        port = await ready
        await asyncio.gather(_python_arena_client(port, "Ayla"), _python_arena_client(port, "Bo"))
        return await game

    assert asyncio.run(asyncio.wait_for(main(), 60)) == {"Ayla": True, "Bo": True}


@pytest.mark.slow
@pytest.mark.engine
def test_the_arena_demo_runs_with_headless_godot_clients(godot4: Engine) -> None:
    assert godot4.chroot is not None
    proc = demo(
        "examples.arena.arena_demo",
        "--chroot",
        str(godot4.chroot),
        "--players",
        "3",
        "--ticks",
        "120",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # A client that fell behind gets the last delta again, so it may apply a few more.
    assert proc.stdout.count("packets up to tick 120; saw ") == 3, proc.stdout
    assert "all 3 clients ended with the server's state" in proc.stdout


def test_the_multiplayer_player_scene_is_current() -> None:
    """The client's synchronizer config is the one the server's Player class gives."""
    committed = (MULTIPLAYER / "project" / "player.tscn").read_text()
    assert committed == scene_tscn(game_server.PLAYER, "Player")


@pytest.mark.slow
@pytest.mark.engine
@pytest.mark.parametrize("server", ["ours", "godot"])
def test_the_multiplayer_demo_runs_against_our_server_or_godots(
    godot4: Engine, server: str
) -> None:
    """The same client project, unchanged, plays against SceneMultiplayer in Python and
    against its own Godot 4.6 server."""
    assert godot4.chroot is not None
    options = ["--chroot", str(godot4.chroot), "--moves", "30"]
    options += ["--godot-server"] if server == "godot" else []
    proc = demo("examples.multiplayer.multiplayer_demo", *options)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    chats = '["Ayla", "Bruno", "Chloé"]'
    assert proc.stdout.count(f"saw the last moves of 3 players and chats from {chats}") == 3
    assert "all clients saw everything" in proc.stdout


@pytest.mark.slow
def test_the_multiplayer_server_logs_its_stats_with_a_player_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``--stats SECONDS``: a log line of ``mp.stats()``, with each peer and synced class."""
    from gdvariant.multiplayer.websocket import MultiplayerClient

    async def main() -> int:
        game = game_server.Game(stats_every=0.05)
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(game.run("127.0.0.1", 0, ready))
        port = await ready
        client = MultiplayerClient(auth_callback=lambda data: client.complete_auth())
        peer = await client.connect(f"ws://127.0.0.1:{port}")
        client.send_auth(b"Ayla")
        while not any("class Player: sync " in r.getMessage() for r in caplog.records):
            await asyncio.sleep(0.01)
        await client.close()
        task.cancel()
        return peer

    with caplog.at_level("INFO", logger="relay"):
        peer = asyncio.run(asyncio.wait_for(main(), 30))
    line = next(r.getMessage() for r in caplog.records if "class Player: sync " in r.getMessage())
    head, *rest = line.splitlines()
    assert head.startswith("tick ") and " + transport " in head
    assert any(row.startswith(f"  peer {peer}: sent ") for row in rest)


@pytest.mark.parametrize("module", DEMOS)
def test_a_demo_without_godot_says_what_is_missing_in_one_line(module: str, tmp_path: Path) -> None:
    """No `godot` on PATH: one line naming what is missing and how to give it, no
    traceback (it used to start the server, then die in create_subprocess_exec)."""
    env = {k: v for k, v in os.environ.items() if k != "GODOT"}
    env["PATH"] = str(tmp_path)  # an empty folder: no godot on it
    proc = demo(module, env=env)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1, proc.stderr
    name = module.rsplit(".", 1)[1] + ".py"  # the program's name, as argparse gives it
    assert proc.stderr.startswith(f"{name}: no Godot 4 binary 'godot' found")
    assert "--godot PATH" in proc.stderr and "GODOT" in proc.stderr
    gone = tmp_path / "no-chroot"
    proc = demo(module, "--chroot", str(gone), env=env)
    assert proc.returncode != 0 and proc.stderr.count("\n") == 1, proc.stderr
    assert "no such chroot" in proc.stderr
