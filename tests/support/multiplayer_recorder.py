"""Record the SceneMultiplayer packets of real Godot 4.6 peers (tests/live/multiplayer/game).

One headless server and two headless clients run the project over WebSocketMultiplayerPeer;
the clients connect to a WebSocket proxy here, which forwards every message unchanged and
records it. After the 4-byte peer id, a WebSocket message is exactly one SceneMultiplayer
packet, so the recording is the engine's own bytes both ways. Client A stays until the server
ends; client B joins later and leaves early (auth, ADD_PEER/DEL_PEER and relay included).
The WebSocket handshakes are kept too: the HTTP request of each Godot client, and the
response of the Godot server to the proxy.
Used by tools/record_multiplayer_vectors.py and tests/live/multiplayer/test_session.py.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from tests.support import processes
from tests.support.engines import Engine
from tests.support.paths import LIVE

PROJECT = LIVE / "multiplayer" / "game"
SERVER_SECONDS = 6.0
CLIENT_A_SECONDS = 9.0
CLIENT_B_DELAY = 1.5
CLIENT_B_SECONDS = 2.5


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Recorder:
    """The proxy: one upstream connection per client, every message logged in order."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.packets: list[dict[str, Any]] = []
        self.handshakes: dict[str, dict[str, Any]] = {}
        self.clients = 0

    async def handle(self, downstream: ServerConnection) -> None:
        name = "AB"[self.clients] if self.clients < 2 else str(self.clients)
        self.clients += 1
        async with connect(self.upstream, compression=None, max_size=None) as up:
            assert downstream.request is not None and up.response is not None
            self.handshakes[name] = {
                "godot_client_request": [
                    downstream.request.path,
                    *downstream.request.headers.raw_items(),
                ],
                "godot_server_response": [
                    f"{up.response.status_code} {up.response.reason_phrase}",
                    *up.response.headers.raw_items(),
                ],
            }
            await asyncio.gather(
                self._pump(up, downstream, name, "s2c"), self._pump(downstream, up, name, "c2s")
            )

    async def _pump(self, source: Any, sink: Any, client: str, direction: str) -> None:
        try:
            async for message in source:
                data = message.encode() if isinstance(message, str) else bytes(message)
                record: dict[str, Any] = {"client": client, "dir": direction, "hex": data.hex()}
                if isinstance(message, str):
                    record["text"] = True
                self.packets.append(record)
                await sink.send(message)
        except ConnectionClosed:
            pass
        finally:
            await sink.close()


async def run_godot(engine: Engine, inside: str, args: list[str], scene: str | None = None) -> str:
    """Run the project (its main scene, or ``scene``) with ``args``; return its stdout (the
    scene prints what it received)."""
    assert engine.chroot is not None
    cmd = ["chroot", str(engine.chroot), "env", "HOME=/tmp", "godot", "--headless"]
    proc = processes.watch(
        await asyncio.create_subprocess_exec(
            *cmd,
            "--path",
            inside,
            *([scene] if scene is not None else []),
            "--",
            *args,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    if proc.returncode != 0:
        raise RuntimeError(f"Godot {args[0]} failed ({proc.returncode}):\n{out!r}\n{err!r}")
    return out.decode(errors="replace")


async def wait_listening(port: int) -> None:
    for _ in range(200):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise RuntimeError(f"the Godot server never listened on {port}")


async def record(engine: Engine, inside: str) -> dict[str, Any]:
    server_port, proxy_port = free_port(), free_port()
    recorder = Recorder(f"ws://127.0.0.1:{server_port}")
    url = f"ws://127.0.0.1:{proxy_port}"
    server = asyncio.create_task(
        run_godot(engine, inside, ["server", str(server_port), str(SERVER_SECONDS)])
    )
    await wait_listening(server_port)
    async with serve(recorder.handle, "127.0.0.1", proxy_port, compression=None, max_size=None):
        client_a = asyncio.create_task(
            run_godot(engine, inside, ["client", url, str(CLIENT_A_SECONDS)])
        )
        await asyncio.sleep(CLIENT_B_DELAY)
        client_b = asyncio.create_task(
            run_godot(engine, inside, ["client", url, str(CLIENT_B_SECONDS)])
        )
        logs = await asyncio.gather(server, client_a, client_b)
    return {
        "godot": engine.version(),
        "about": "SceneMultiplayer packets of tests/live/multiplayer/game over WebSocket, in the "
        "order the proxy saw them; the first s2c message of each client is its 4-byte peer id",
        "handshakes": recorder.handshakes,
        "packets": recorder.packets,
        "logs": {
            name: log.splitlines() for name, log in zip(("server", "A", "B"), logs, strict=True)
        },
    }


API_SCENE = "res://api.tscn"


async def record_api(engine: Engine, inside: str, server_port: int) -> dict[str, Any]:
    """A Godot client of the API scene (``tests/live/multiplayer/client/api.tscn``) joins
    the server on ``server_port`` through the proxy; the recording and the client's log."""
    proxy_port = free_port()
    recorder = Recorder(f"ws://127.0.0.1:{server_port}")
    async with serve(recorder.handle, "127.0.0.1", proxy_port, compression=None, max_size=None):
        url = f"ws://127.0.0.1:{proxy_port}"
        log = await run_godot(engine, inside, [url, "20"], scene=API_SCENE)
    return {"packets": recorder.packets, "log": log.splitlines()}


async def record_api_godot_server(
    engine: Engine, inside: str, script: str = "calls"
) -> dict[str, Any]:
    """The API scene as a Godot 4.6 server playing a golden script (``api.gd``: ``_play``,
    or ``_play_visibility`` for ``script="visibility"``) for one Godot client, recorded
    between them."""
    port = free_port()
    args = ["server", str(port), *([script] if script != "calls" else [])]
    server = asyncio.create_task(run_godot(engine, inside, args, API_SCENE))
    await wait_listening(port)
    recording = await record_api(engine, inside, port)
    recording["server_log"] = (await server).splitlines()
    recording["godot"] = engine.version()
    recording["about"] = (
        "SceneMultiplayer packets of tests/live/multiplayer/client/api.tscn: a Godot server "
        f"playing api.gd's golden script ({script}) for one Godot client, as the proxy saw "
        "them"
    )
    return recording


def record_session(engine: Engine) -> dict[str, Any]:
    """Run the project on ``engine`` (server + two clients) and return the recording."""
    with engine.workdir() as (here, inside):
        for path in PROJECT.iterdir():
            if path.is_file():
                shutil.copy(path, here / path.name)
        return asyncio.run(record(engine, inside))
