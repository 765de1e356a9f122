"""Run the open world: an ENet server, and optionally bots and headless Godot 4 clients.

    python -m examples.world                        # the server alone, on port 7000
    python -m examples.world --bots 16 --seconds 30 # with 16 Python bots, for 30 seconds
    python -m examples.world --godot-clients 1 --chroot ~/.cache/gdvariant/sid-chroot
    python -m examples.world --bots 4 --netsim 0.05 # clients behind 5% loss and 30 ms each way

Run from the repository root. Clients join the server (or the netsim proxy in front of it)
on 127.0.0.1; a Godot client run by hand joins with
``godot --path examples/world/client -- 127.0.0.1 PORT``. Prints what each client reports.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import sys
from collections.abc import Coroutine
from typing import Any

from examples import headless
from examples.world import bots
from examples.world.game import Game
from examples.world.server import CLIENT, Server
from gdvariant.netsim import Conditions, UdpProxy


def _parser() -> argparse.ArgumentParser:
    parser = headless.parser(__doc__)
    parser.add_argument("--port", type=int, default=7000, help="the server's port (0: any)")
    parser.add_argument("--wanderers", type=int, default=2000, help="entities roaming the world")
    parser.add_argument("--bots", type=int, default=0, help="Python bot clients to start")
    parser.add_argument(
        "--godot-clients", type=int, default=0, help="headless Godot 4 clients to start"
    )
    parser.add_argument(
        "--seconds", type=float, default=None, help="stop after this long (default: never)"
    )
    parser.add_argument(
        "--netsim",
        type=float,
        metavar="LOSS",
        help="put a gdvariant.netsim UDP proxy in front: this loss each way, 30 ms latency",
    )
    return parser


async def _godot_client(godot: list[str], project: str, port: int, seconds: float) -> None:
    cmd = [*godot, "--headless", "--path", project, "--", "127.0.0.1", str(port)]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    try:
        assert proc.stdout is not None
        async with asyncio.timeout(seconds):
            async for line in proc.stdout:
                print("[godot]", line.decode(errors="replace").rstrip(), flush=True)
    except TimeoutError:
        proc.terminate()
    await proc.wait()


async def main_async(args: argparse.Namespace, godot: list[str], project: str) -> int:
    server = Server(Game(wanderers=args.wanderers))
    port = await server.listen("127.0.0.1", args.port)
    proxy = None
    if args.netsim is not None:
        proxy = UdpProxy(("127.0.0.1", port), Conditions(loss=args.netsim, latency=0.03))
        _, port = await proxy.listen("127.0.0.1", 0)
    print(f"the world is up: clients join 127.0.0.1:{port}", flush=True)
    game = asyncio.create_task(server.run())
    seconds = args.seconds if args.seconds is not None else float("inf")
    clients: list[Coroutine[Any, Any, bots.BotStats | None]] = [
        bots.run_bot("127.0.0.1", port, seconds, seed) for seed in range(args.bots)
    ]
    clients += [_godot_client(godot, project, port, seconds) for _ in range(args.godot_clients)]
    try:
        if clients:
            for number, result in enumerate(await asyncio.gather(*clients)):
                if result is not None:
                    print(f"bot {number}: {result}")
        else:
            await asyncio.wait_for(game, None if args.seconds is None else args.seconds)
    except TimeoutError:
        pass
    finally:
        game.cancel()
        print(f"stopped at tick {server.game.world.tick}; {server.link.stats}")
        if proxy is not None:
            print("proxy:", proxy.stats())
            await proxy.close()
        await server.close()
    return 0


def main() -> int:
    parser = _parser()
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(name)s: %(message)s"
    )
    if args.bots < 0 or args.godot_clients < 0 or args.wanderers < 0:
        parser.error("--bots, --godot-clients and --wanderers take a count >= 0")
    if args.netsim is not None and not 0 <= args.netsim < 1:
        parser.error("--netsim takes a loss between 0 and 1")
    if args.godot_clients == 0:
        return asyncio.run(main_async(args, [], ""))
    missing = headless.godot_missing(args.godot, args.chroot)
    if missing:
        parser.exit(2, f"{parser.prog}: {missing}\n")
    with headless.scratch(args) as (here, inside, godot):
        shutil.copytree(CLIENT, here / "client", ignore=shutil.ignore_patterns(".godot"))
        return asyncio.run(main_async(args, godot, f"{inside}/client"))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
