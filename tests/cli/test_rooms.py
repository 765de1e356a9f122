"""``gdvariant rooms`` (``gdvariant._cli.rooms``): its kinds, its help, and the errors said in
words before anything serves (a bad room class, an unreachable Redis). Serving is tested in
tests/rooms/ (test_serve.py, test_cluster.py, test_faults.py), where Redis is at hand."""

from __future__ import annotations

import asyncio
import signal

import pytest

from gdvariant._cli import main
from gdvariant._cli.rooms import _until_stopped

pytest.importorskip("gdvariant.rooms.redis", reason="the rooms extra is missing")
TABLE = "tests.support.room_process:Table"


def test_rooms_help_lists_its_kinds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["rooms", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for kind in ("host", "matchmaker", "dev"):
        assert kind in text
    assert "gdvariant rooms dev --processes 2" in text and "exit status:" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["rooms"],
        ["rooms", "host", "--room-class", TABLE],  # no --redis
        ["rooms", "matchmaker"],
        ["rooms", "dev"],  # no --room-class
    ],
)
def test_missing_options_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rooms", "dev", "--room-class", "nope"], "a room class is [NAME=]module:Class"),
        (["rooms", "dev", "--room-class", TABLE, "--no-redis", "--processes", "2"], "--no-redis"),
        (["rooms", "host", "--redis", "redis://127.0.0.1:1/0", "--room-class", "x:Y"], "import"),
    ],
)
def test_bad_setups_are_said_in_words(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gdvariant: ") and message in err


def test_an_unreachable_redis_is_said_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rooms", "host", "--redis", "redis://127.0.0.1:1/0", "--room-class", TABLE]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("gdvariant: the directory's Redis is unavailable"), err


def test_signals_no_longer_wake_the_loop_once_the_work_is_done() -> None:
    """After the work returns, the loop's wakeup socket is unhooked from signals before
    asyncio.run closes the loop (closing it first left a window where a late signal, like
    ``dev``'s SIGTERM after a terminal's SIGINT, printed a traceback): a task still running
    then, cancelled by asyncio.run, finds no wakeup fd set."""
    found: list[int] = []

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

    tasks: list[asyncio.Task[None]] = []
    assert _until_stopped(work) == 0
    assert found == [-1]
