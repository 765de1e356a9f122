"""Golden vectors written by the real Godot 4.6 engine (tools/make_golden_vectors.py).

Each record holds the engine's ``var_to_bytes`` and ``var_to_bytes_with_objects`` of one value
and an exact typed description of it. We must decode both to the described value and encode
that value back to the engine's exact bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from godot_describe import canon, expected

import gdvariant as gd

GOLDEN = Path(__file__).parent / "vectors" / "godot4.6" / "golden.jsonl"
_lines = GOLDEN.read_text(encoding="utf-8").splitlines()
HEADER = json.loads(_lines[0])
RECORDS: list[dict[str, Any]] = [json.loads(line) for line in _lines[1:]]


def _has_leading_bom(record: dict[str, Any]) -> bool:
    # Godot writes a leading U+FEFF but its decoder drops it: no decoder can give those bytes back.
    return '"efbbbf' in json.dumps(record["value"])


def test_golden_file_is_the_engines_and_complete() -> None:
    assert HEADER["engine"].startswith("4.6")
    assert len(RECORDS) >= 1000
    type_ids = {bytes.fromhex(r["bytes"])[0] for r in RECORDS}
    assert type_ids == set(range(39)), "every Godot 4 type must appear at top level"
    assert all(r["text"] and r["bytes"] and r["bytes_objects"] for r in RECORDS)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: f"{r['i']}-{r['name']}")
def test_golden(record: dict[str, Any]) -> None:
    for key, objects in (("bytes", False), ("bytes_objects", True)):
        data = bytes.fromhex(record[key])
        value, used = gd.decode(data, allow_objects=objects)
        assert used == len(data)
        assert canon(value) == canon(expected(record["value"], objects)), key
        if not _has_leading_bom(record):
            assert gd.dumps(value, full_objects=objects) == data, key
