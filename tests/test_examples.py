"""The examples in ``examples/``: the relay server with Python clients, and its one-command
demo with real headless Godot 4.6 clients."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from engines import Engine

import gdvariant as gd
from gdvariant.asyncio import connect

RELAY = Path(__file__).resolve().parent.parent / "examples" / "relay"
sys.path.insert(0, str(RELAY))
import server as relay_server  # noqa: E402


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


@pytest.mark.engine
def test_the_relay_demo_runs_with_headless_godot_clients(godot4: Engine) -> None:
    assert godot4.chroot is not None
    cmd = [sys.executable, str(RELAY / "demo.py"), "--chroot", str(godot4.chroot)]
    proc = subprocess.run(
        [*cmd, "--players", "4", "--moves", "100"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("saw 3 chats and [100, 100, 100] moves") == 4, proc.stdout
    assert "all clients saw everything" in proc.stdout
