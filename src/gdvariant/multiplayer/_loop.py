"""The event loop a server runs on: asyncio's own, or uvloop's.

A server's transports are asyncio protocols and readers, so they run on any asyncio event
loop. uvloop's (``pip install gdvariant[uvloop]``) does the loop's own work, its sockets and
its timers in compiled code: docs/multiplayer.md ("The event loop") has what it saves a tick.
:func:`run` is ``asyncio.run`` with the choice made by name.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

__all__ = ["run"]

T = TypeVar("T")
#: ``"auto"``: uvloop's loop when it is installed, else asyncio's; ``"uvloop"``: uvloop's
#: (an error when it is not installed); ``"asyncio"``: asyncio's own.
Loop = Literal["auto", "uvloop", "asyncio"]
LOOPS: tuple[Loop, ...] = ("auto", "uvloop", "asyncio")


def loop_factory(loop: Loop = "auto") -> Callable[[], asyncio.AbstractEventLoop] | None:
    """What makes the event loop named ``loop``: uvloop's ``new_event_loop``, or None for
    asyncio's default (what ``asyncio.Runner(loop_factory=...)`` takes)."""
    if loop not in LOOPS:
        raise ValueError(f"loop is one of {', '.join(LOOPS)}, not {loop!r}")
    if loop == "asyncio":
        return None
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        if loop == "auto":
            return None
        raise RuntimeError(
            "loop='uvloop' needs uvloop: pip install 'gdvariant[uvloop]' (Linux and macOS)"
        ) from None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], *, loop: Loop = "auto") -> T:
    """Run ``main`` (a server's coroutine) to its end on the event loop named ``loop``, as
    ``asyncio.run`` does, and return its result."""
    try:
        factory = loop_factory(loop)
    except (ValueError, RuntimeError):
        main.close()  # never awaited: close it rather than leave a warning behind
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
