"""``gdvariant._cli._signals``: how ``netsim`` and ``rooms`` commands stop on SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from gdvariant._cli._signals import until_signalled


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_sets_stop_and_the_work_winds_down(signum: int) -> None:
    """The signal (sent to this process) sets the event the work waits on; the work's own
    status is returned, and no KeyboardInterrupt escapes for SIGINT."""

    async def work(stop: asyncio.Event) -> int:
        asyncio.get_running_loop().call_soon(os.kill, os.getpid(), signum)
        await asyncio.wait_for(stop.wait(), 10)
        return 3

    assert asyncio.run(until_signalled(work)) == 3


def test_work_returning_none_is_status_0() -> None:
    async def work(stop: asyncio.Event) -> None:
        assert not stop.is_set()

    assert asyncio.run(until_signalled(work)) == 0


def test_signals_no_longer_wake_the_loop_once_the_work_is_done() -> None:
    """After the work returns, the loop's wakeup socket is unhooked from signals before
    asyncio.run closes the loop (closing it first left a window where a late signal, like
    ``rooms dev``'s SIGTERM after a terminal's SIGINT, printed a traceback): a task still
    running then, cancelled by asyncio.run, finds no wakeup fd set."""
    found: list[int] = []
    tasks: list[asyncio.Task[None]] = []

    async def work(stop: asyncio.Event) -> int:
        async def leftover() -> None:
            try:
                await asyncio.Event().wait()
            finally:
                old = signal.set_wakeup_fd(-1)
                found.append(old)
                if old != -1:
                    signal.set_wakeup_fd(old)

        tasks.append(asyncio.get_running_loop().create_task(leftover()))
        await asyncio.sleep(0)
        return 0

    assert asyncio.run(until_signalled(work)) == 0
    assert found == [-1]
