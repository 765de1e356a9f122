"""Every command-line example a user is shown runs as written: the ``gdvariant`` commands in
README.md (``sh`` blocks and inline code) and in each ``--help`` text.

An example ending in ``# -> TEXT`` states its output: TEXT is what it prints on stdout, leaving
out the ``# offset N`` style heading lines, joined by spaces. One whose comment says ``(exit N)``
shows a failure: it must end with that status (and its message on stderr). The files the
examples name are in ``examples/``, written by the real engines (``tools/make_example.py``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
COMMANDS = ("decode", "encode", "inspect", "detect", "convert", "edit", "frames", "versions")


def _gdvariant_commands(text: str) -> list[str]:
    """The ``gdvariant ...`` commands in lines of shell text (also after ``&&``)."""
    found = []
    for line in text.splitlines():
        for part in line.split("&&"):
            part = part.strip()
            first = part.split(" ", 1)[0]
            if first == "gdvariant" or first.endswith("/gdvariant"):
                found.append(part)
    return found


def _readme_examples() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", README, re.S)
    inline = re.findall(r"`(gdvariant [^`]*)`", README)
    return [c for block in blocks for c in _gdvariant_commands(block)] + inline


def _help_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    return capsys.readouterr().out


def _help_examples(help_text: str) -> list[str]:
    """The commands under the ``examples:`` heading of one help text."""
    section = help_text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0]
    return _gdvariant_commands(section)


def _in_scratch(argument: str, scratch: Path) -> str:
    """An example's argument, with ``/tmp/`` standing for ``scratch``: a test writes only under
    the test run's temporary folder. Any other absolute path (a system file) fails the test."""
    if argument.startswith("/tmp/"):
        return str(scratch / argument.removeprefix("/tmp/"))
    assert not argument.startswith("/"), f"an example names a path outside /tmp/: {argument}"
    return argument


def _run(
    example: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    scratch: Path,
) -> None:
    """Run one example from the repository's root, its ``/tmp/`` in ``scratch``; check its
    status and any stated output."""
    command, _, stated = example.partition("# -> ")
    argv = [_in_scratch(a, scratch) for a in shlex.split(command, comments=True)[1:]]
    monkeypatch.chdir(ROOT)
    try:
        status = main(argv)
    except SystemExit as exc:  # --help
        status = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    failure = re.search(r"\(exit (\d+)\)", example)
    expected_status = int(failure.group(1)) if failure else 0
    assert status == expected_status, f"{example}\n{captured.err}"
    if failure:
        assert captured.err.startswith("gdvariant: ") or "# stops at offset" in captured.out
    if stated:
        expected = re.sub(r"\s+\(.*\)$", "", stated.strip())  # a trailing (remark) is prose
        printed = [line for line in captured.out.splitlines() if not line.startswith("# ")]
        assert " ".join(printed) == expected, example


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
    _run(example, capsys, monkeypatch, example_tmp)


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
        _run(example, capsys, monkeypatch, example_tmp)


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
