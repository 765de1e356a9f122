"""multiplayer.run: a server's coroutine on the event loop chosen by name; every: a tick
from a timer of the loop."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import warnings
from typing import Any

import pytest

from gdvariant.multiplayer import every as run_every
from gdvariant.multiplayer import run


@pytest.fixture
def uvloop() -> Any:
    """The uvloop module, for the tests of the loop's choice (they skip without the extra;
    ``every``'s tests run on any loop)."""
    return pytest.importorskip("uvloop", reason="the uvloop extra is not installed")


async def loop_class() -> type:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop())


def without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def refuse(name: str, *args: Any) -> Any:
        if name == "uvloop":
            raise ImportError("no uvloop here")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", refuse)


def test_each_loop_runs_the_coroutine_to_its_result(uvloop: Any) -> None:
    assert run(loop_class(), loop="uvloop") is uvloop.Loop
    assert run(loop_class(), loop="auto") is uvloop.Loop
    plain = run(loop_class(), loop="asyncio")
    assert issubclass(plain, asyncio.AbstractEventLoop) and plain is not uvloop.Loop


def test_auto_falls_back_to_asyncio_without_uvloop(
    monkeypatch: pytest.MonkeyPatch, uvloop: Any
) -> None:
    without_uvloop(monkeypatch)
    assert run(loop_class()) is not uvloop.Loop


def test_asking_for_uvloop_without_it_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_uvloop(monkeypatch)
    main = loop_class()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the coroutine is closed, not left unawaited
        with pytest.raises(RuntimeError, match=r"gdvariant\[uvloop\]"):
            run(main, loop="uvloop")
    assert inspect.getcoroutinestate(main) == inspect.CORO_CLOSED


def test_an_unknown_loop_is_refused() -> None:
    main = loop_class()
    with pytest.raises(ValueError, match="auto, uvloop, asyncio"):
        run(main, loop="trio")  # type: ignore[arg-type]
    assert inspect.getcoroutinestate(main) == inspect.CORO_CLOSED


class Stop(Exception):
    """What the test's tick raises to end ``every``."""


def test_every_ticks_from_a_timer_of_its_own_and_gives_lost_ticks_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each tick runs in its timer's callback (no task woken), deadlines a period apart
    from the first; a tick that finds the loop more than ``catch_up`` periods behind makes
    the next deadline now; the tick's exception ends ``every`` and no tick follows."""
    period = 0.05
    deadlines: list[float] = []
    calls: list[tuple[float, asyncio.Task[Any] | None]] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        offset = [0.0]
        real_time, real_call_at = loop.time, loop.call_at
        monkeypatch.setattr(loop, "time", lambda: real_time() + offset[0])

        def call_at(when: float, callback: Any, *args: Any, **kw: Any) -> asyncio.TimerHandle:
            deadlines.append(when)
            return real_call_at(when, callback, *args, **kw)

        monkeypatch.setattr(loop, "call_at", call_at)

        def tick() -> None:
            calls.append((loop.time(), asyncio.current_task()))
            if len(calls) == 3:
                offset[0] += 5.0  # the loop stalled 100 periods: those ticks are given up
            if len(calls) == 6:
                raise Stop

        start = loop.time()
        with pytest.raises(Stop):
            await run_every(period, tick, catch_up=8)
        assert len(deadlines) == 6
        await asyncio.sleep(3 * period)
        assert len(calls) == 6
        assert deadlines[0] == pytest.approx(start + period, abs=0.02)
        assert deadlines[1] - deadlines[0] == pytest.approx(period)
        assert deadlines[2] - deadlines[1] == pytest.approx(period)
        assert deadlines[3] >= deadlines[2] + 5.0  # now, not 100 ticks back to make up
        assert deadlines[4] - deadlines[3] == pytest.approx(period)
        assert all(task is None for _, task in calls)
        assert all(at >= when - 1e-3 for (at, _), when in zip(calls, deadlines[:6], strict=True))

    run(main(), loop="asyncio")


def test_every_stops_when_cancelled_and_refuses_a_period_of_zero() -> None:
    ticks: list[int] = []

    async def main() -> None:
        with pytest.raises(ValueError, match="period must be above 0"):
            await run_every(0, lambda: None)
        task = asyncio.create_task(run_every(0.01, lambda: ticks.append(1)))
        while len(ticks) < 2:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        seen = len(ticks)
        await asyncio.sleep(0.05)
        assert len(ticks) == seen

    run(main(), loop="asyncio")
