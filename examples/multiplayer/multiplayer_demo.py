"""Start the game's server and a few headless Godot 4 clients against it, in one command.

    python -m examples.multiplayer.multiplayer_demo               # `godot` (4.x) on PATH
    python -m examples.multiplayer.multiplayer_demo --players 5 --moves 200
    python -m examples.multiplayer.multiplayer_demo --godot-server   # Godot serves, not Python
    python -m examples.multiplayer.multiplayer_demo --chroot ~/.cache/gdvariant/sid-chroot

(from the repository root; ``--chroot``: the test engines.) The server is ``game_server.py``
(gdvariant's SceneMultiplayer) unless ``--godot-server`` runs the same project as its own Godot
server: the clients cannot tell. Prints what the clients print, and exits 0 when every client
saw every player's last move and every chat line.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import sys
from typing import Any

from examples import headless
from examples.multiplayer import game_server

NAMES = ["Ayla", "Bruno", "Chloé", "Dmitri", "Eun-ji", "Femi", "Gül", "Hiro"]


async def run_godot(godot: list[str], project: str, args: list[str], tag: str) -> int:
    cmd = [*godot, "--headless", "--path", project, "--", *args]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await proc.communicate()
    for line in out.decode(errors="replace").splitlines():
        if any(word in line for word in (" says:", " saw ", "joined", "ERROR", ": ")):
            print(f"[{tag}] {line}")
    return proc.returncode or 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_listening(port: int) -> None:
    for _ in range(400):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        return
    raise RuntimeError(f"nothing listens on {port}")


async def main_async(args: argparse.Namespace, project: str, godot: list[str]) -> int:
    serving: asyncio.Task[Any]
    if args.godot_server:
        port = free_port()
        serving = asyncio.create_task(run_godot(godot, project, ["server", str(port)], "server"))
        await wait_listening(port)
    else:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        serving = asyncio.create_task(game_server.Game().run("127.0.0.1", 0, ready))
        port = await ready
    names = (NAMES * 4)[: args.players]
    clients = [
        run_godot(
            godot, project, ["127.0.0.1", str(port), n, str(args.players), str(args.moves)], n
        )
        for n in names
    ]
    codes = await asyncio.gather(*clients)
    if args.godot_server:
        await serving  # it quits when the last player left
    else:
        serving.cancel()
    failed = [n for n, code in zip(names, codes, strict=True) if code != 0]
    print("all clients saw everything" if not failed else f"clients that failed: {failed}")
    return 1 if failed else 0


def main() -> int:
    parser = headless.parser(__doc__)
    parser.add_argument("--godot-server", action="store_true", help="a Godot server instead")
    parser.add_argument("--players", type=int, default=3, choices=range(2, 33), metavar="2..32")
    parser.add_argument("--moves", type=int, default=50)
    args = headless.parse(parser)
    with headless.scratch(args) as (here, inside, godot):
        shutil.copytree(game_server.PROJECT, here, dirs_exist_ok=True)
        return asyncio.run(main_async(args, inside, godot))


if __name__ == "__main__":
    sys.exit(main())
