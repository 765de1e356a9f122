"""``gdvariant versions`` (``gdvariant._cli.versions``): the engine releases we read and
write."""

from __future__ import annotations

import json

import pytest

import gdvariant as gd
from gdvariant import (
    PROFILES,
    replication,
)
from gdvariant._cli import main
from gdvariant._json import core as json_core
from gdvariant._text import core as text_core
from gdvariant._values import constructors


def test_versions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["versions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    write_path = lines.pop()  # the last six lines say which compiled parts are live, and why
    assembler = lines.pop()
    json_line = lines.pop()
    text_line = lines.pop()
    core = lines.pop()
    values = lines.pop()
    assert text_line.startswith(f"# text writer and reader: {text_core.IMPLEMENTATION} (")
    assert json_line.startswith(f"# JSON writer and reader: {json_core.IMPLEMENTATION} (")
    assert values.startswith(f"# value constructors: {constructors.IMPLEMENTATION} (")
    live = replication.write_path()
    assert write_path.startswith(f"# replication write path: {live} (")
    if live == "python":
        assert "compiled write path not built" in write_path or "PURE_PYTHON" in write_path
    assert assembler.startswith(f"# replication assembler: {replication.assembler()} (")
    if replication.assembler() == "python":
        assert "compiled assembler not built" in assembler or "GDVARIANT_PURE_PYTHON" in assembler
    assert core.startswith(f"# codec core: {gd.IMPLEMENTATION} (")
    if gd.IMPLEMENTATION == "python":
        assert "compiled core not built" in core or "GDVARIANT_PURE_PYTHON" in core
    by_name = {line.split()[0]: line for line in lines}
    assert set(by_name) == set(PROFILES)
    assert "4.6" in by_name["4"]
    assert "38 types" in by_name["4.2"]
    assert "39 types" in by_name["4.3"]
    assert "typed Array" not in by_name["4.2"]
    assert "typed Array" in by_name["4.3"] and "typed Dictionary" not in by_name["4.3"]
    assert "typed Dictionary" in by_name["4.4"]


def test_versions_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["versions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(PROFILES)
    assert data["4"]["name"] == "4.6"
    assert data["4.2"]["typed_arrays"] is False
    assert data["4.3"]["typed_arrays"] is True
    assert data["4.3"]["typed_dictionaries"] is False
    assert data["4.4"]["typed_dictionaries"] is True
    assert "PACKED_VECTOR4_ARRAY" not in data["4.2"]["types"]
    assert "PACKED_VECTOR4_ARRAY" in data["4.3"]["types"]
    assert data["4.6"]["max_depth"] == 1024
