"""Long-running commands (``netsim``, ``rooms host``/``matchmaker``/``dev``) stopped by
SIGINT or SIGTERM: one place that hooks the signals and unhooks them safely."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable


async def until_signalled(work: Callable[[asyncio.Event], Awaitable[int | None]]) -> int:
    """Run ``work(stop)`` on the running loop; SIGTERM and SIGINT set ``stop`` and ``work``
    winds down. Returns its exit status (None counts as 0)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        return int(await work(stop) or 0)
    finally:
        # Wound down: a later signal is dropped from here on. Closing the loop closes the
        # socket signals wake it through before it unhooks them, and a signal in between
        # (`rooms dev`'s SIGTERM after a terminal's SIGINT to the whole group) made Python
        # print a traceback on failing to write to it.
        signal.set_wakeup_fd(-1)
