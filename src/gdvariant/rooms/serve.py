"""The processes of a deployment: a room process and a matchmaker, each until told to stop.

``gdvariant rooms host`` and ``gdvariant rooms matchmaker`` run :func:`serve_host` and
:func:`serve_matchmaker`; ``gdvariant rooms dev`` starts Redis and several of them
(:mod:`gdvariant.rooms.cluster`). Each prints one line once it serves (``announce``), the
line a supervisor or a test waits for, and stops cleanly when ``stop`` is set (SIGTERM or
Ctrl-C on the command line): a room process disposes of its rooms and leaves the directory.
docs/rooms.md ("Running it") shows them under a process manager and on Agones.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._directory import Directory
from ._host import RoomHost
from ._matchmaker import Matchmaker
from ._room import Room

__all__ = ["load_room_types", "serve_host", "serve_matchmaker"]

_SPEC = re.compile(r"(?:(?P<name>[A-Za-z0-9_.-]{1,64})=)?(?P<module>[\w.]+):(?P<cls>\w+)")


def load_room_types(specs: Sequence[str]) -> dict[str, type[Room]]:
    """Room classes from ``[NAME=]module:Class`` specs (NAME defaults to the class's name
    in lower case); ValueError, in words, for one that is malformed, missing or not a Room."""
    found: dict[str, type[Room]] = {}
    for spec in specs:
        match = _SPEC.fullmatch(spec)
        if match is None:
            raise ValueError(f"a room class is [NAME=]module:Class, not {spec!r}")
        try:
            module = importlib.import_module(match["module"])
        except ImportError as exc:
            raise ValueError(f"cannot import {match['module']!r} for {spec!r}: {exc}") from None
        cls = getattr(module, match["cls"], None)
        if not (isinstance(cls, type) and issubclass(cls, Room)):
            raise ValueError(f"{spec!r} names no subclass of gdvariant.rooms.Room")
        name = match["name"] or cls.__name__.lower()
        if name in found:
            raise ValueError(f"two room classes are named {name!r}")
        found[name] = cls
    if not found:
        raise ValueError("give at least one room class (--room-class module:Class)")
    return found


async def serve_host(
    directory: Directory,
    room_types: Mapping[str, type[Room]],
    stop: asyncio.Event,
    *,
    announce: Callable[[str], None] = print,
    agones: Any = None,
    **options: Any,
) -> None:
    """Run a :class:`RoomHost` (``options`` are its own) until ``stop`` is set. With
    ``agones`` (a :class:`gdvariant.rooms.agones.AgonesHooks`), tell Agones it is Ready,
    keep its health pings going, Allocate it when it hosts its first room, and Shutdown at
    the end."""
    async with RoomHost(directory, room_types, **options) as host:
        names = ",".join(host.info.room_names)
        announce(f"rooms process {host.info.id} serving {names} on {host.info.host}")
        watcher = None
        if agones is not None:
            await agones.ready()
            watcher = asyncio.create_task(agones.watch(lambda: bool(host.rooms)))
        try:
            await stop.wait()
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
    if agones is not None:
        await agones.shutdown()


async def serve_matchmaker(
    directory: Directory,
    stop: asyncio.Event,
    *,
    bind: str = "127.0.0.1",
    port: int = 0,
    announce: Callable[[str], None] = print,
    **options: Any,
) -> None:
    """Serve the matchmaker's HTTP API on ``bind:port`` (0: a free port) until ``stop`` is
    set; ``options`` are :class:`Matchmaker`'s."""
    from .httpapi import MatchmakerServer

    async with MatchmakerServer(Matchmaker(directory, **options)) as server:
        bound = await server.listen(bind, port)
        announce(f"matchmaker http://{bind}:{bound}")
        await stop.wait()
