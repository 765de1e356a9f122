"""multiplayer.run: a server's coroutine on the event loop chosen by name."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import warnings
from typing import Any

import pytest

from gdvariant.multiplayer import run

uvloop = pytest.importorskip("uvloop", reason="the uvloop extra is not installed")


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


def test_each_loop_runs_the_coroutine_to_its_result() -> None:
    assert run(loop_class(), loop="uvloop") is uvloop.Loop
    assert run(loop_class(), loop="auto") is uvloop.Loop
    plain = run(loop_class(), loop="asyncio")
    assert issubclass(plain, asyncio.AbstractEventLoop) and plain is not uvloop.Loop


def test_auto_falls_back_to_asyncio_without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
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
