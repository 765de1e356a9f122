"""The event loop a server runs on: asyncio's own, or uvloop's.

A server's transports are asyncio protocols and readers, so they run on any asyncio event
loop. uvloop's (``pip install gdvariant[uvloop]``) does the loop's own work, its sockets and
its timers in compiled code: docs/multiplayer.md ("The event loop: uvloop") has what it
saves a tick.
:func:`run` is ``asyncio.run`` with the choice made by name. :func:`every` runs a game's
tick at a fixed rate from a timer of the loop: one turn of the loop a tick, where a task
awaiting ``asyncio.sleep`` takes two (the timer's turn sets a future, the next wakes the
task) and makes a future and a coroutine step each time.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

__all__ = ["every", "run"]

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


async def every(period: float, tick: Callable[[], object], *, catch_up: int = 8) -> None:
    """Call ``tick()`` every ``period`` seconds on the running loop, each call in the turn
    of its own timer, until cancelled (or until ``tick`` raises: that exception ends it).
    Deadlines are ``period`` apart from the first, at ``period`` from now; a late tick is
    made up for at once, and more than ``catch_up`` periods behind, the lost ticks are given
    up (the next deadline is now), as Godot's physics loop does (docs/multiplayer.md,
    "The event loop: uvloop")."""
    if not period > 0:
        raise ValueError(f"period must be above 0, not {period!r}")
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    behind = catch_up * period
    deadline = loop.time() + period
    handle: asyncio.TimerHandle | None = None

    def run_tick() -> None:
        nonlocal deadline, handle
        try:
            tick()
        except Exception as error:  # ends every(): the awaiting task gets it
            done.set_exception(error)
            return
        deadline += period
        if deadline < loop.time() - behind:  # too far behind: the lost ticks are given up
            deadline = loop.time()
        handle = loop.call_at(deadline, run_tick)

    handle = loop.call_at(deadline, run_tick)
    try:
        await done
    finally:
        handle.cancel()
