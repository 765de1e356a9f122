"""Every command-line example a user is shown runs as written: the ``gdvariant`` commands in
README.md (``sh`` blocks and inline code) and in each ``--help`` text.

An example ending in ``# -> TEXT`` states its output: TEXT is what it prints on stdout, leaving
out the ``# offset N`` style heading lines, joined by spaces. One whose comment says ``(exit N)``
shows a failure: it must end with that status (and its message on stderr). The files the
examples name are in ``examples/``, written by the real engines (``tools/make_example.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main
from tests.support.doc_commands import gdvariant_commands, run_example
from tests.support.paths import ROOT

README = (ROOT / "README.md").read_text()
COMMANDS = (
    "decode",
    "encode",
    "inspect",
    "detect",
    "convert",
    "edit",
    "frames",
    "versions",
    "netsim",
)


def _readme_examples() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    inline = re.findall(r"`(gdvariant [^`]*)`", README)
    return [c for block in blocks for c in gdvariant_commands(block)] + inline


def _help_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    return capsys.readouterr().out


def _help_examples(help_text: str) -> list[str]:
    """The commands under the ``examples:`` heading of one help text."""
    section = help_text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0]
    return gdvariant_commands(section)


def test_the_readme_shows_command_line_examples() -> None:
    examples = _readme_examples()
    assert len(examples) >= 10
    assert any("# -> " in e for e in examples)


@pytest.mark.parametrize("example", _readme_examples())
def test_readme_example_runs(
    example: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    example_tmp: Path,
) -> None:
    run_example(example, capsys, monkeypatch, example_tmp)


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_examples_run(
    command: str | None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    example_tmp: Path,
) -> None:
    help_text = _help_text([command, "--help"] if command else ["--help"], capsys)
    examples = _help_examples(help_text)
    assert examples, help_text
    for example in examples:
        run_example(example, capsys, monkeypatch, example_tmp)


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_lists_the_exit_statuses(
    command: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    help_text = _help_text([command, "--help"] if command else ["--help"], capsys)
    assert "exit status:" in help_text
    for status in ("  0  ", "  1  ", "  2  "):
        assert status in help_text


def test_the_example_files_hold_what_their_scripts_wrote() -> None:
    """The values written in examples/make_*.gd, read back with the library."""
    examples = ROOT / "examples"
    assert gd.read_save(examples / "user_save.dat", password="secret") == [
        {"slot": 1, "player": "Ayla", "level": 12},
        gd.Vector3(10.5, 0.0, -3.25),
        gd.PackedStringArray(["sword", "shield"]),
    ]
    assert gd.read_save(examples / "godot3_save.sav", version="3") == [
        {"slot": 1, "player": "Ayla", "level": 12},
        gd.Vector2(128, 64),
        gd.PackedStringArray(["sword", "shield"]),
    ]
    decoder = gd.StreamDecoder()
    decoder.feed((examples / "capture.bin").read_bytes())
    decoder.feed_eof()
    assert list(decoder) == [
        {"type": "join", "name": "Ayla"},
        {"type": "move", "pos": gd.Vector2(12.5, -3.0)},
        {"type": "chat", "text": "hi 👋"},
    ]
