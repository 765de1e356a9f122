"""``gdvariant rooms``: run a room process, a matchmaker, or a whole local cluster.

``rooms host`` and ``rooms matchmaker`` are the processes of a deployment (one each per
service of a process manager, or per Agones GameServer); ``rooms dev`` starts Redis and
several of them for development. Each runs until SIGTERM or Ctrl-C and then stops cleanly
(docs/rooms.md, "Running it").
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from ._common import command_parser
from ._signals import until_signalled

EXAMPLES = """\
  gdvariant rooms dev --processes 2 --matchmakers 1 --room-class mygame.rooms:Arena
  gdvariant rooms dev --no-redis --room-class arena=mygame.rooms:Arena --port 8080
  gdvariant rooms host --redis redis://10.0.0.5:6379/0 --room-class mygame.rooms:Arena
  gdvariant rooms matchmaker --redis redis://10.0.0.5:6379/0 --bind 0.0.0.0 --port 2567
"""
_ROOM_CLASS = "[NAME=]module:Class, a gdvariant.rooms.Room subclass (NAME: its name, lower case)"


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "rooms",
        help="run room processes, a matchmaker, or a local cluster (gdvariant.rooms)",
        description=(
            "Serve gdvariant.rooms: a room process (host), the matchmaker's HTTP API "
            "(matchmaker), or Redis, matchmakers and room processes together for "
            "development (dev). Each runs until SIGTERM or Ctrl-C, then stops cleanly."
        ),
        examples=EXAMPLES,
    )
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    _add_host(kinds)
    _add_matchmaker(kinds)
    _add_dev(kinds)


def _shared(parser: argparse.ArgumentParser, *, redis_required: bool) -> None:
    parser.add_argument(
        "--redis",
        metavar="URL",
        required=redis_required,
        help="the directory's Redis, redis://host:port/db",
    )
    parser.add_argument("--namespace", default="gdv", help="the directory's key prefix")
    parser.add_argument(
        "--ttl", type=float, default=10.0, help="a room process's lease, seconds (default 10)"
    )
    parser.add_argument("--bind", default="127.0.0.1", help="the interface to listen on")


def _add_host(kinds: Any) -> None:
    parser = kinds.add_parser("host", help="a room process", description="Run a room process.")
    _shared(parser, redis_required=True)
    parser.add_argument("--room-class", action="append", required=True, help=_ROOM_CLASS)
    parser.add_argument("--public-host", help="the name clients reach the rooms by")
    parser.add_argument("--transport", choices=("websocket", "enet"), default="websocket")
    parser.add_argument("--capacity", type=int, default=100, help="the most rooms at once")
    parser.add_argument(
        "--agones",
        nargs="?",
        const="",
        metavar="URL",
        help="call the Agones SDK sidecar (Ready, Health, Allocate, Shutdown); "
        "URL default http://localhost:$AGONES_SDK_HTTP_PORT",
    )
    parser.set_defaults(func=run_host)


def _add_matchmaker(kinds: Any) -> None:
    parser = kinds.add_parser(
        "matchmaker", help="the matchmaker's HTTP API", description="Run a matchmaker."
    )
    _shared(parser, redis_required=True)
    parser.add_argument("--port", type=int, default=2567, help="0: a free port")
    parser.add_argument(
        "--reservation-ttl", type=float, default=15.0, help="seconds a seat waits for its client"
    )
    parser.add_argument(
        "--create-timeout", type=float, default=5.0, help="seconds a process has to make a room"
    )
    parser.set_defaults(func=run_matchmaker)


def _add_dev(kinds: Any) -> None:
    parser = kinds.add_parser(
        "dev",
        help="a local cluster: Redis, matchmakers and room processes",
        description="Start a local cluster for development and print where it serves.",
    )
    _shared(parser, redis_required=False)
    parser.add_argument("--room-class", action="append", required=True, help=_ROOM_CLASS)
    parser.add_argument("--processes", type=int, default=2, help="room processes (default 2)")
    parser.add_argument("--matchmakers", type=int, default=1, help="matchmakers (default 1)")
    parser.add_argument(
        "--port", type=int, default=2567, help="the first matchmaker's port (0: free ports)"
    )
    parser.add_argument(
        "--no-redis",
        action="store_true",
        help="one process on the embedded directory (no redis-server)",
    )
    parser.set_defaults(func=run_dev)


def _until_stopped(work: Callable[[asyncio.Event], Awaitable[int | None]]) -> int:
    """Run ``work(stop)`` until SIGTERM or SIGINT sets ``stop``; a room error is one line."""
    from ..rooms import RoomError
    from ..rooms.cluster import ClusterError

    try:
        return asyncio.run(until_signalled(work))
    except (RoomError, ClusterError) as exc:
        print(f"gdvariant: {exc}", file=sys.stderr)
        return 1


def _announce(line: str) -> None:
    print(line, flush=True)


def run_host(args: argparse.Namespace) -> int:
    from ..rooms.redis import RedisDirectory
    from ..rooms.serve import load_room_types, serve_host

    room_types = load_room_types(args.room_class)
    agones = None
    if args.agones is not None:
        from ..rooms.agones import AgonesHooks

        agones = AgonesHooks(args.agones or None)

    async def work(stop: asyncio.Event) -> None:
        directory = RedisDirectory.from_url(args.redis, namespace=args.namespace, ttl=args.ttl)
        try:
            await serve_host(
                directory,
                room_types,
                stop,
                announce=_announce,
                agones=agones,
                bind=args.bind,
                public_host=args.public_host,
                transport=args.transport,
                capacity=args.capacity,
            )
        finally:
            await directory.close()

    return _until_stopped(work)


def run_matchmaker(args: argparse.Namespace) -> int:
    from ..rooms.redis import RedisDirectory
    from ..rooms.serve import serve_matchmaker

    async def work(stop: asyncio.Event) -> None:
        directory = RedisDirectory.from_url(args.redis, namespace=args.namespace, ttl=args.ttl)
        try:
            await serve_matchmaker(
                directory,
                stop,
                bind=args.bind,
                port=args.port,
                announce=_announce,
                reservation_ttl=args.reservation_ttl,
                create_timeout=args.create_timeout,
            )
        finally:
            await directory.close()

    return _until_stopped(work)


def run_dev(args: argparse.Namespace) -> int:
    from ..rooms.cluster import ClusterPlan, run_cluster

    plan = ClusterPlan(
        room_classes=tuple(args.room_class),
        processes=args.processes,
        matchmakers=args.matchmakers,
        port=args.port,
        bind=args.bind,
        redis=args.redis,
        namespace=args.namespace,
        no_redis=args.no_redis,
        ttl=args.ttl,
    )
    plan.check()
    return _until_stopped(lambda stop: run_cluster(plan, stop, _announce))
