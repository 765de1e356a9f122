"""Run the relay server and a few headless Godot 4 clients against it, in one command.

    python -m examples.relay.demo                      # `godot` (4.x) on PATH
    python -m examples.relay.demo --players 5 --moves 200
    python -m examples.relay.demo --chroot ~/.cache/gdvariant/sid-chroot   # the test engines

Run from the repository root. Prints what the clients print, and exits 0 when every client
saw every other client's moves and chat line.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
from pathlib import Path

from examples import headless
from examples.relay import server

CLIENT = Path(__file__).resolve().parent / "client.gd"
NAMES = ["Ayla", "Bruno", "Chloé", "Dmitri", "Eun-ji", "Femi", "Gül", "Hiro"]


async def run_client(
    godot: list[str], script: str, port: int, name: str, args: argparse.Namespace
) -> int:
    cmd = [*godot, "--headless", "--script", script, "--", "127.0.0.1", str(port), name]
    cmd += [str(args.players), str(args.moves)]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await proc.communicate()
    for line in out.decode(errors="replace").splitlines():
        if "says:" in line or " saw " in line or "ERROR" in line or "gave up" in line:
            print(f"[{name}] {line}")
    return proc.returncode or 0


async def main_async(args: argparse.Namespace, script: str, godot: list[str]) -> int:
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    relay = asyncio.create_task(server.run("127.0.0.1", 0, ready))
    port = await ready
    names = (NAMES * 4)[: args.players]
    codes = await asyncio.gather(*(run_client(godot, script, port, n, args) for n in names))
    relay.cancel()
    failed = [n for n, code in zip(names, codes, strict=True) if code != 0]
    print("all clients saw everything" if not failed else f"clients that failed: {failed}")
    return 1 if failed else 0


def main() -> int:
    parser = headless.parser(__doc__)
    parser.add_argument("--players", type=int, default=3, choices=range(2, 33), metavar="2..32")
    parser.add_argument("--moves", type=int, default=50)
    args = headless.parse(parser)
    with headless.scratch(args) as (here, inside, godot):
        shutil.copy(CLIENT, here)
        return asyncio.run(main_async(args, f"{inside}/{CLIENT.name}", godot))


if __name__ == "__main__":
    sys.exit(main())
