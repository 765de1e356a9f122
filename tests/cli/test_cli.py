"""The ``gdvariant`` command as a whole (``gdvariant._cli.main`` and what every command
shares): its help and version, the engine version option, missing optional packages,
interrupted prompts, closed pipes, and any bytes ending in a status, never a traceback. Each
command has its own module here (test_decode.py, test_encode.py...)."""

from __future__ import annotations

import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdvariant as gd
from gdvariant import (
    PackedVector4Array,
    TypedArray,
    VariantType,
)
from gdvariant._cli import main
from tests.support import processes
from tests.support.cli_values import (
    printed_value,
)
from tests.support.paths import EXAMPLES


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in ("decode", "encode", "frames", "schema", "versions"):
        assert command in out


@pytest.mark.parametrize("command", ["decode", "encode", "frames", "schema", "versions"])
def test_subcommand_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    assert command in capsys.readouterr().out


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert gd.__version__ in capsys.readouterr().out


def test_no_command_is_a_usage_error_that_shows_the_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: gdvariant")
    for command in ("decode", "encode", "inspect", "detect", "convert", "edit", "examples:"):
        assert command in captured.err


def test_python_dash_m() -> None:
    proc = processes.run(
        [sys.executable, "-m", "gdvariant", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "decode" in proc.stdout and "encode" in proc.stdout


def test_engine_version_is_honoured_by_encode(capsys: pytest.CaptureFixture[str]) -> None:
    v4 = "PackedVector4Array(1, 2, 3, 4)"
    assert main(["encode", "-V", "4.2", "--hex", v4]) == 1
    assert "4.2" in capsys.readouterr().err
    assert main(["encode", "--engine-version", "4.3", "--hex", v4]) == 0
    expected = gd.dumps(PackedVector4Array([(1, 2, 3, 4)]), version="4.3")
    assert capsys.readouterr().out.strip() == expected.hex()

    typed = "Array[int]([1])"
    assert main(["encode", "-V", "3.6", "--hex", typed]) == 1  # Godot 3 has no typed Arrays
    capsys.readouterr()
    assert main(["encode", "-V", "4.3", "--hex", typed]) == 0
    value = TypedArray(VariantType.INT, [1])
    assert capsys.readouterr().out.strip() == gd.dumps(value, version="4.3").hex()


def test_engine_version_is_honoured_by_decode(capsys: pytest.CaptureFixture[str]) -> None:
    data = struct.pack("<II", 38, 0).hex()  # PackedVector4Array, empty (type 38: 4.3+)
    assert main(["decode", "-V", "4.2", "--hex", data]) == 1
    assert "offset 0" in capsys.readouterr().err
    assert main(["decode", "--hex", data]) == 0
    assert printed_value(capsys.readouterr().out) == PackedVector4Array()


@pytest.mark.parametrize(
    "option",
    [
        ["-V", "4.2.2"],
        ["-V", "4.2.2.stable"],
        ["--engine-version=v4.2.2-stable"],
        ["--version", "4.2"],
        ["--version=4.2.1.stable.official.abc123"],
    ],
)
def test_engine_version_as_godot_prints_it(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = struct.pack("<II", 38, 0).hex()  # PackedVector4Array, empty (type 38: 4.3+)
    assert main(["decode", *option, "--hex", data]) == 1
    assert "not Godot 4.2 data" in capsys.readouterr().err


def test_convert_to_version_as_godot_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    source = EXAMPLES / "savegame.bin"
    assert main(["convert", str(source), "--to-version", "3.6.2.stable"]) == 1
    assert capsys.readouterr().err.startswith("gdvariant: cannot convert to Godot 3.6: ")


def test_unknown_engine_version_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["decode", "-V", "nope", "--hex", "00000000"])
    assert info.value.code == 2
    assert "nope" in capsys.readouterr().err


def test_a_missing_optional_package_is_one_line_naming_the_extra(
    save_without_its_package: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, package, extra = save_without_its_package
    assert main(["decode", str(path), "--password", "secret"]) == 2
    captured = capsys.readouterr()
    expected = (
        f"gdvariant: this file needs the '{package}' package: pip install 'gdvariant[{extra}]'\n"
    )
    assert (captured.out, captured.err) == ("", expected)


def test_a_missing_brotli_is_one_line_naming_the_extra(
    hide_package: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    # GCPF mode 4 (Brotli) with one block; the block is never reached without the package.
    data = struct.pack("<4sIIII", b"GCPF", 4, 4096, 8, 4) + bytes(4) + b"GCPF"
    hide_package("brotli")
    assert main(["decode", "--hex", data.hex()]) == 2
    expected = "gdvariant: this file needs the 'brotli' package: pip install 'gdvariant[brotli]'\n"
    assert capsys.readouterr().err == expected


def test_ctrl_c_at_the_password_prompt_is_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "locked.sav"
    gd.write_save(path, [1], password="secret")

    def interrupted(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", interrupted)
    assert main(["decode", str(path)]) == 130
    assert capsys.readouterr().err == "\n"


def test_ctrl_d_at_the_password_prompt_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "locked.sav"
    gd.write_save(path, [1], password="secret")

    def end_of_input(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", end_of_input)
    for command in (["decode"], ["convert", "--to", "text"], ["edit", "--editor", "true"]):
        assert main([*command, str(path)]) == 2
        err = capsys.readouterr().err
        assert err == "\ngdvariant: no password given (end of input): give --password or --key\n"


def test_a_closed_output_pipe_ends_quietly(tmp_path: Path) -> None:
    path = tmp_path / "big.sav"
    gd.write_save(path, [{"i": i, "pad": "x" * 100} for i in range(5000)])  # ~700 KB printed
    proc = processes.watch(
        subprocess.Popen(
            [sys.executable, "-m", "gdvariant", "decode", str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b'{"i": 0, "pad": "' + b"x" * 100 + b'"}\n'
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert err == b""


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.one_of(
        st.binary(max_size=48),
        st.builds(lambda b: gd.frame([1, "x"]) + b, st.binary(max_size=12)),
        st.builds(lambda b: b"GCPF" + b, st.binary(max_size=32)),
    ),
    command=st.sampled_from(["decode", "inspect", "detect"]),
)
def test_any_bytes_end_in_a_status_not_a_traceback(
    data: bytes, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main([command, "--hex", data.hex() or "00"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if status == 2:  # bytes that start like an encrypted save: a usage error, not bad data
        assert data.startswith(b"GDEC") and "--password or --key" in err
    else:
        assert status in (0, 1)
