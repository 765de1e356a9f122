"""Run the relay server and a few headless Godot 4 clients against it, in one command.

    python examples/relay/demo.py                      # `godot` (4.x) on PATH
    python examples/relay/demo.py --players 5 --moves 200
    python examples/relay/demo.py --chroot ~/.cache/gdvariant/sid-chroot   # the test engines

Prints what the clients print, and exits 0 when every client saw every other client's moves
and chat line.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import server

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
    parser.add_argument("--players", type=int, default=3, choices=range(2, 33), metavar="2..32")
    parser.add_argument("--moves", type=int, default=50)
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
        shutil.copy(CLIENT, tmp)
        if args.chroot:
            script = f"/tmp/{Path(tmp).name}/{CLIENT.name}"
            godot = ["chroot", str(args.chroot), "env", "HOME=/tmp", args.godot]
        else:
            script, godot = str(Path(tmp) / CLIENT.name), [args.godot]
        return asyncio.run(main_async(args, script, godot))


if __name__ == "__main__":
    sys.exit(main())
