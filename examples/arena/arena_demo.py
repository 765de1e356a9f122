"""Run the arena server and a few headless Godot 4 clients against it, in one command.

    python examples/arena/arena_demo.py                    # `godot` (4.x) on PATH
    python examples/arena/arena_demo.py --players 4 --ticks 300
    python examples/arena/arena_demo.py --chroot ~/.cache/gdvariant/sid-chroot   # test engines

The client project (client/) gets a decoder freshly generated from arena_schema.py. Prints
what the clients print, and exits 0 when every client ended with exactly the server's state.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from gdvariant.replication import gdscript

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import arena_server  # noqa: E402

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


def godot_missing(godot: str, chroot: Path | None) -> str | None:
    """What is missing to start the clients, and the flag that gives it, or None."""
    if chroot is not None:
        if not (chroot / "tmp").is_dir():
            return f"--chroot {chroot}: no such chroot (it needs a tmp folder)"
        return None
    if shutil.which(godot) is None:
        return (
            f"no Godot 4 binary {godot!r} found: install Godot 4 on PATH, or give it with "
            "--godot PATH (or the GODOT environment variable)"
        )
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--godot",
        default=os.environ.get("GODOT", "godot"),
        help="the Godot 4 binary (default: $GODOT, else godot on PATH)",
    )
    parser.add_argument("--chroot", type=Path, help="run Godot inside this chroot (test setup)")
    parser.add_argument("--players", type=int, default=3, choices=range(1, 17), metavar="1..16")
    parser.add_argument("--ticks", type=int, default=150, help="game length (30 per second)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log the server's events")
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(name)s: %(message)s",
    )
    missing = godot_missing(args.godot, args.chroot)
    if missing:
        parser.exit(2, f"{parser.prog}: {missing}\n")
    base = args.chroot / "tmp" if args.chroot else None
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        project = Path(tmp) / "client"
        shutil.copytree(HERE / "client", project)
        (project / "arena_decoder.gd").write_text(gdscript.generate(arena_server.SCHEMA))
        if args.chroot:
            inside = f"/tmp/{Path(tmp).name}/client"
            godot = ["chroot", str(args.chroot), "env", "HOME=/tmp", args.godot]
        else:
            inside, godot = str(project), [args.godot]
        return asyncio.run(main_async(args, inside, godot))


if __name__ == "__main__":
    sys.exit(main())
