"""How ``decode`` prints values (``gdvariant._cli._show``): the stored key order and exact
floats, Godot's own text, long containers shortened, colour on a terminal only."""

from __future__ import annotations

import sys

import pytest

import gdvariant as gd
from gdvariant._cli import main


def test_decode_keeps_the_stored_key_order_and_exact_floats(
    capsys: pytest.CaptureFixture[str],
) -> None:
    value = {"z": 0.1, "a": gd.Color(0.9, 0.2, 0.3, 1), 3: -0.0}
    assert main(["decode", "--hex", gd.dumps(value).hex()]) == 0
    out = capsys.readouterr().out
    # Not var_to_str's sorted layout: the bytes' order, one line, floats that read back.
    assert out == '{"z": 0.1, "a": Color(0.9, 0.2, 0.3, 1), 3: -0.0}\n'
    assert gd.dumps(gd.from_text(out)) == gd.dumps(value)


def test_decode_format_godot_is_var_to_str(capsys: pytest.CaptureFixture[str]) -> None:
    value = {"z": 1, "a": 2}
    assert main(["decode", "--hex", gd.dumps(value).hex(), "--format", "godot"]) == 0
    assert capsys.readouterr().out == gd.to_text(value) + "\n"


def test_long_containers_are_shortened_unless_full(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.dumps([list(range(3000)), bytes(50)])
    assert main(["decode", "--hex", data.hex()]) == 0
    captured = capsys.readouterr()
    first, second = captured.out[1:-2].split("], ")
    assert first == "[" + ", ".join(map(str, range(20))) + ", ... 2980 more"
    assert second == "PackedByteArray(" + "0, " * 20 + "... 30 more)"
    assert "--full prints them whole" in captured.err
    assert main(["decode", "--hex", data.hex(), "--full"]) == 0
    captured = capsys.readouterr()
    assert gd.dumps(gd.from_text(captured.out)) == data
    assert captured.err == ""


def test_a_string_that_looks_like_a_mark_is_not_a_shortening(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["decode", "--hex", gd.dumps("... 3 more").hex()]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("env", "flag", "coloured"),
    [({}, "always", True), ({}, "never", False), ({"NO_COLOR": "1"}, "auto", False)],
)
def test_colour(
    env: dict[str, str],
    flag: str,
    coloured: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["decode", "--hex", gd.dumps(["a", 1]).hex(), "--color", flag]) == 0
    out = capsys.readouterr().out
    assert ("\x1b[32m" in out) == coloured  # green strings
    if coloured:
        assert out == '[\x1b[32m"a"\x1b[0m, \x1b[36m1\x1b[0m]\n'


def test_no_colour_in_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", gd.dumps("a").hex()]) == 0
    assert capsys.readouterr().out == '"a"\n'


def test_godot2_has_no_text_syntax_here(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.dumps(5, version="2")
    assert main(["decode", "-V", "2", "--hex", data.hex()]) == 2
    assert "use --format json or python" in capsys.readouterr().err
    assert main(["decode", "-V", "2", "--hex", data.hex(), "--format", "python"]) == 0
    assert capsys.readouterr().out == "5\n"
