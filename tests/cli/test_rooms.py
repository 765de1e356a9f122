"""``gdvariant rooms`` (``gdvariant._cli.rooms``): its kinds, its help, and the errors said in
words before anything serves (a bad room class, an unreachable Redis). Serving is tested in
tests/rooms/ (test_serve.py, test_cluster.py, test_faults.py), where Redis is at hand."""

from __future__ import annotations

import pytest

from gdvariant._cli import main

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
