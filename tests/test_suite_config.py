"""The test suite's own settings (``[tool.pytest.ini_options]`` in pyproject.toml): a hung test
ends the run within minutes, with the stacks, instead of holding CI until its own limit.

pytest-timeout's timer thread dumps every thread's stack and ends the process; faulthandler's
watchdog, a C thread, does the same a little later when the hang holds the GIL (a loop in C)
and the timer thread cannot run. Each is shown doing it in a pytest of its own, run with this
repository's settings on a test that hangs.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support import inner_pytest, processes

#: The slowest tests measured on two shared cores (2026-12-01, Python 3.11 and 3.12, compiled
#: and pure cores): the multiplayer benchmark's run with a Godot client and the live math
#: tests, about 20 s each. The limit is to be several times that.
SLOWEST_TEST = 20.0

#: A test that hangs in an event loop, as one did on Python 3.12 (a server's ``wait_closed()``
#: waiting for a connection the test never closed); the test after it must not run.
HANG_IN_A_LOOP = """
import asyncio

def test_waits_for_ever_in_an_event_loop():
    async def wait():
        await asyncio.Event().wait()

    asyncio.run(wait())

def test_after_the_hang():
    pass
"""

#: A test that hangs while holding the GIL: a regular expression that backtracks for ever
#: (``re`` matches in C without letting another thread run Python).
HANG_HOLDING_THE_GIL = """
import re

def test_backtracks_for_ever_holding_the_gil():
    assert re.match(r"(a+)+$", "a" * 64 + "!") is None
"""


def _limit(config: pytest.Config, name: str) -> float:
    return float(str(config.getini(name)))


def test_every_test_has_a_time_limit_several_times_the_slowest(pytestconfig: pytest.Config) -> None:
    assert pytestconfig.pluginmanager.hasplugin("timeout"), "pytest-timeout (the test extra)"
    assert _limit(pytestconfig, "timeout") >= 5 * SLOWEST_TEST
    # the process ends: a hang cannot hang again in its clean-up, nor leave a thread running
    assert pytestconfig.getini("timeout_method") == "thread"


def test_the_watchdog_comes_after_the_time_limit_and_ends_the_run(
    pytestconfig: pytest.Config,
) -> None:
    assert _limit(pytestconfig, "faulthandler_timeout") > _limit(pytestconfig, "timeout")
    assert pytestconfig.getini("faulthandler_exit_on_timeout") is True


def _run_hanging(tmp_path: Path, source: str, *options: str) -> tuple[int, str, float]:
    """Run the test file ``source`` in a pytest of its own with this repository's settings
    and ``options``: (exit status, stdout and stderr, seconds taken)."""
    (tmp_path / "test_hang.py").write_text(source, encoding="utf-8")
    command = inner_pytest.command(tmp_path, *options, "test_hang.py")
    start = time.monotonic()
    done = processes.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=90)
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start


@pytest.mark.slow
def test_a_test_hung_in_an_event_loop_ends_the_run_with_its_stack(tmp_path: Path) -> None:
    status, output, seconds = _run_hanging(tmp_path, HANG_IN_A_LOOP, "--timeout=1")
    assert status == 1, output
    assert "Timeout" in output
    assert "Stack of MainThread" in output
    assert "in test_waits_for_ever_in_an_event_loop" in output
    assert "passed" not in output  # ended there: the next test did not run
    assert seconds < 60


@pytest.mark.slow
def test_a_test_hung_holding_the_gil_is_ended_by_the_watchdog(tmp_path: Path) -> None:
    options = ("--timeout=1", "-o", "faulthandler_timeout=3")
    status, output, seconds = _run_hanging(tmp_path, HANG_HOLDING_THE_GIL, *options)
    assert status == 1, output
    assert "Timeout (0:00:03)!" in output  # faulthandler's, not pytest-timeout's
    assert "Stack of MainThread" not in output
    assert "in test_backtracks_for_ever_holding_the_gil" in output
    assert seconds < 60
