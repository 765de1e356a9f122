"""Golden vectors written by the real engines (tools/make_golden_vectors.py).

Each record holds the engine's ``var_to_bytes`` / ``var2bytes`` of one value, with and without
full objects, and an exact typed description of it. We must decode both to the described value
and encode that value back to the engine's exact bytes.

Two engine habits are allowed for: Godot drops a leading BOM when it decodes a String, so no
decoder can give those bytes back; and Godot 3 leaves NodePath padding bytes uninitialised,
where we write zeros.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from godot_describe import check_engine_record

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

VECTORS = Path(__file__).parent / "vectors"
# engine folder -> (our version name, how many type ids that engine has)
ENGINES = {"godot4.6": ("4.6", 39), "godot3.6": ("3.6", 27), "godot3.2": ("3.2", 27)}


def _load(folder: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = (VECTORS / folder / "golden.jsonl").read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(line, strict=False) for line in lines[1:]]


LOADED = {folder: _load(folder) for folder in ENGINES}
CASES = [(folder, r) for folder, (_, records) in LOADED.items() for r in records]


def _mentions(record: dict[str, Any], text: str) -> bool:
    return text in json.dumps(record["value"])


@pytest.mark.parametrize("folder", ENGINES)
def test_golden_file_is_the_engines_and_complete(folder: str) -> None:
    header, records = LOADED[folder]
    version, type_count = ENGINES[folder]
    assert header["engine"].startswith(version)
    assert len(records) >= 1000
    type_ids = {bytes.fromhex(r["bytes"])[0] for r in records}
    assert type_ids == set(range(type_count)), "every type must appear at top level"
    assert all(r["bytes"] and r["bytes_objects"] for r in records)
    # var_to_str / var2str text is there for people; Godot 3 prints an RID as "".
    assert all(r["text"] or _mentions(r, '["RID"') for r in records)


@pytest.mark.parametrize(
    ("folder", "record"), CASES, ids=lambda x: x if isinstance(x, str) else f"{x['i']}-{x['name']}"
)
def test_golden(folder: str, record: dict[str, Any]) -> None:
    check_engine_record(record, ENGINES[folder][0])
