"""The ``gdvariant`` commands the documentation shows (README.md, docs/recipes.md, each
``--help``): found in shell text, and run as written from the repository's root with
``/tmp/`` standing for a scratch folder, their status and any stated output checked. A
command that serves until stopped (``# (until Ctrl-C)``) runs in a process of its own and is
stopped with SIGINT once it says it is ready."""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gdvariant._cli import main
from tests.support import processes
from tests.support.paths import ROOT


def gdvariant_commands(text: str) -> list[str]:
    """The ``gdvariant ...`` commands in lines of shell text (also after ``&&``)."""
    found = []
    for line in text.splitlines():
        for part in line.split("&&"):
            part = part.strip()
            first = part.split(" ", 1)[0]
            if first == "gdvariant" or first.endswith("/gdvariant"):
                found.append(part)
    return found


def in_scratch(argument: str, scratch: Path) -> str:
    """An example's argument, with ``/tmp/`` standing for ``scratch``: a test writes only under
    the test run's temporary folder. Any other absolute path (a system file) fails the test."""
    if argument.startswith("/tmp/"):
        return str(scratch / argument.removeprefix("/tmp/"))
    assert not argument.startswith("/"), f"an example names a path outside /tmp/: {argument}"
    return argument


def run_example(
    example: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    scratch: Path,
) -> None:
    """Run one example from the repository's root, its ``/tmp/`` in ``scratch``; check its
    status and any stated output."""
    command, _, stated = example.partition("# -> ")
    argv = [in_scratch(a, scratch) for a in shlex.split(command, comments=True)[1:]]
    if "(until Ctrl-C)" in example:
        run_until_interrupted(argv)
        return
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


#: What a serving command prints on stderr once it is ready (``gdvariant netsim``).
READY = "Ctrl-C stops"


def run_until_interrupted(argv: list[str]) -> None:
    """Run a serving command in a process of its own from the repository's root, wait until
    it says it is ready, interrupt it: it must stop with status 0 and no traceback."""
    command = [sys.executable, "-m", "gdvariant", *argv]
    with processes.watch(
        subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    ) as process:
        assert process.stderr is not None
        said = []
        for line in process.stderr:
            said.append(line)
            if READY in line:
                break
        process.send_signal(signal.SIGINT)
        rest = process.communicate(timeout=60)[1]
    said.append(rest or "")
    assert READY in "".join(said), said
    assert process.returncode == 0 and "Traceback" not in "".join(said), said
