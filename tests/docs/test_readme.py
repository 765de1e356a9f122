"""The README's Python examples run as written, and its quick-start file is engine-written."""

from __future__ import annotations

import logging
import re
import tempfile
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main
from tests.support.paths import ROOT

README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(
    code: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the examples' tempfile.mkdtemp()
    with caplog.at_level(logging.WARNING, logger="asyncio"):
        exec(compile(code, "README.md", "exec"), {})
    # Quiet as well as correct: no "Exception in callback ..." from asyncio at shutdown.
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


def test_bundled_example_round_trips() -> None:
    data = (ROOT / "examples" / "savegame.bin").read_bytes()
    save = gd.loads(data)
    assert save["player"]["name"] == "Ayla"
    assert save["player"]["inventory"] == gd.TypedArray(
        gd.VariantType.STRING, ["sword", "shield", "potion of 治癒"]
    )
    assert gd.dumps(save) == data


def test_the_quick_start_shows_what_decode_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """The shortened output under the quick start: each piece between its "..." is printed."""
    shown = re.findall(r"```text\n(.*?)\n```", README, re.S)[0]
    assert main(["decode", str(ROOT / "examples" / "savegame.bin"), "--color", "never"]) == 0
    out = capsys.readouterr().out
    at = 0
    for piece in shown.split("..."):
        assert piece in out[at:], piece
        at = out.index(piece, at) + len(piece)
