"""The counts of long work on stderr (``gdvariant._cli._progress``), on a fake clock."""

from __future__ import annotations

import io

import pytest

from gdvariant._cli._progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    """Time that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr("gdvariant._cli._progress.monotonic", fake)
    return fake


def _steps(progress: Progress, clock: _Clock, count: int, seconds: float) -> list[int]:
    taken = []
    for item in progress.over(range(count), "checking", count):
        taken.append(item)
        clock.now += seconds
    return taken


def test_a_terminal_shows_nothing_for_short_work(clock: _Clock) -> None:
    stream = _Terminal()
    assert _steps(Progress(stream=stream), clock, 5, 0.1) == [0, 1, 2, 3, 4]
    assert stream.getvalue() == ""


def test_a_terminal_shows_a_count_once_the_work_is_slow_and_clears_it(clock: _Clock) -> None:
    stream = _Terminal()
    assert _steps(Progress(stream=stream), clock, 5, 0.6) == [0, 1, 2, 3, 4]
    # drawn before items 2, 3 and 4 (1.2 s, 1.8 s, 2.4 s in), each over the last; then cleared
    assert stream.getvalue() == (
        "\r\x1b[K# checking 2 of 5 records"
        "\r\x1b[K# checking 3 of 5 records"
        "\r\x1b[K# checking 4 of 5 records"
        "\r\x1b[K"
    )


def test_forced_into_a_log_it_writes_lines(clock: _Clock) -> None:
    stream = io.StringIO()
    assert _steps(Progress(forced=True, stream=stream), clock, 3, 0.1) == [0, 1, 2]
    assert stream.getvalue() == "# checking 0 of 3 records\n# checking 3 of 3 records: done\n"


def test_nothing_without_a_terminal_or_the_flag(clock: _Clock) -> None:
    stream = io.StringIO()
    assert _steps(Progress(stream=stream), clock, 3, 10.0) == [0, 1, 2]
    assert stream.getvalue() == ""
