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
from typing import Any

import pytest

from tests.support.godot_describe import check_engine_record
from tests.support.vectors import GOLDEN_RELEASES, golden, golden_header

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

# engine release -> how many type ids that engine has
TYPE_COUNTS = {"4.6": 39, "3.6": 27, "3.2": 27}
LOADED = {release: (golden_header(release), golden(release)) for release in GOLDEN_RELEASES}
CASES = [(release, r) for release, (_, records) in LOADED.items() for r in records]


def _mentions(record: dict[str, Any], text: str) -> bool:
    return text in json.dumps(record["value"])


@pytest.mark.parametrize("release", GOLDEN_RELEASES)
def test_golden_file_is_the_engines_and_complete(release: str) -> None:
    header, records = LOADED[release]
    assert header["engine"].startswith(release)
    assert len(records) >= 1000
    type_ids = {bytes.fromhex(r["bytes"])[0] for r in records}
    assert type_ids == set(range(TYPE_COUNTS[release])), "every type must appear at top level"
    assert all(r["bytes"] and r["bytes_objects"] for r in records)
    # var_to_str / var2str text is there for people; Godot 3 prints an RID as "".
    assert all(r["text"] or _mentions(r, '["RID"') for r in records)


@pytest.mark.parametrize(
    ("release", "record"), CASES, ids=lambda x: x if isinstance(x, str) else f"{x['i']}-{x['name']}"
)
def test_golden(release: str, record: dict[str, Any]) -> None:
    check_engine_record(record, release)
