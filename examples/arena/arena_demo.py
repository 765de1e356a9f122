"""Run the arena server and a few headless Godot 4 clients against it, in one command.

    python -m examples.arena.arena_demo                    # `godot` (4.x) on PATH
    python -m examples.arena.arena_demo --players 4 --ticks 300
    python -m examples.arena.arena_demo --chroot ~/.cache/gdvariant/sid-chroot   # test engines

Run from the repository root. The client project (client/) gets a decoder freshly generated
from arena_schema.py. Prints what the clients print, and exits 0 when every client ended with
exactly the server's state.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
from pathlib import Path

from examples import headless
from examples.arena import arena_server
from gdvariant.replication import gdscript

HERE = Path(__file__).resolve().parent

NAMES = ["Ayla", "Bruno", "Chloé", "Dmitri", "Eun-ji", "Femi", "Gül", "Hiro"]


async def run_client(godot: list[str], project: str, port: int, name: str) -> int:
    cmd = [*godot, "--headless", "--path", project, "--", "127.0.0.1", str(port), name]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await proc.communicate()
    for line in out.decode(errors="replace").splitlines():
        if " applied " in line or "ERROR" in line or "bad packet" in line:
            print(f"[{name}] {line}")
    return proc.returncode or 0


async def main_async(args: argparse.Namespace, project: str, godot: list[str]) -> int:
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    names = (NAMES * 4)[: args.players]
    server = asyncio.create_task(
        arena_server.run("127.0.0.1", 0, ready, players=args.players, ticks=args.ticks)
    )
    port = await ready
    codes = await asyncio.gather(*(run_client(godot, project, port, n) for n in names))
    same = await server
    failed = [n for n, code in zip(names, codes, strict=True) if code != 0 or not same.get(n)]
    print(
        f"all {len(names)} clients ended with the server's state"
        if not failed
        else f"clients that failed: {failed}"
    )
    return 1 if failed else 0


def main() -> int:
    parser = headless.parser(__doc__)
    parser.add_argument("--players", type=int, default=3, choices=range(1, 17), metavar="1..16")
    parser.add_argument("--ticks", type=int, default=150, help="game length (30 per second)")
    args = headless.parse(parser)
    with headless.scratch(args) as (here, inside, godot):
        shutil.copytree(HERE / "client", here / "client")
        (here / "client" / "arena_decoder.gd").write_text(gdscript.generate(arena_server.SCHEMA))
        return asyncio.run(main_async(args, f"{inside}/client", godot))


if __name__ == "__main__":
    sys.exit(main())
