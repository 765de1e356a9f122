"""order="source" against an independent implementation's published output.

The fixture holds real Team Fortress 2 send tables (an SDK-2013-era engine) and the flat
order that demostf/parser, a clean-room TF2 demo parser, committed as a snapshot for the
same classes; its ``source`` field cites both files and commits. The tables were recorded
by a newer TF2 build than the snapshot's demo: over all 476 tables, ours equal the published
orders except for DT_TFPlayer and DT_GrapplingHook, which each gained one prop at the end in
the newer build. The five classes here match exactly and between them exercise excludes,
non-collapsible sub-tables, array element tables, INSIDEARRAY templates and the
CHANGES_OFTEN swap.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gdvariant.replication import SourceProp, SourceTable, source_flat_order
from tests.support.paths import VECTORS

FIXTURE = json.loads((VECTORS / "source_order_tf2.json").read_text(encoding="utf-8"))


def model(tables: dict[str, list[dict[str, Any]]]) -> dict[str, SourceTable]:
    return {
        name: SourceTable(
            name,
            tuple(
                SourceProp(
                    p["name"],
                    p.get("table"),
                    exclude=p.get("exclude", False),
                    inside_array=p.get("inside_array", False),
                    collapsible=p.get("collapsible", False),
                    changes_often=p.get("changes_often", False),
                )
                for p in props
            ),
        )
        for name, props in tables.items()
    }


def test_the_fixture_cites_its_source() -> None:
    assert "demostf/parser" in FIXTURE["source"]
    assert len(FIXTURE["classes"]) >= 3


@pytest.mark.parametrize("name", sorted(FIXTURE["classes"]))
def test_source_order_matches_the_published_one(name: str) -> None:
    entry = FIXTURE["classes"][name]
    ours = [f"{table}.{prop}" for table, prop in source_flat_order(name, model(entry["tables"]))]
    assert ours == entry["published_order"]


def test_the_fixture_exercises_every_rule() -> None:
    props = [
        p
        for entry in FIXTURE["classes"].values()
        for table in entry["tables"].values()
        for p in table
    ]
    for flag in ("exclude", "inside_array", "collapsible", "changes_often"):
        assert any(p.get(flag) for p in props), flag
    assert any("table" in p and not p.get("exclude") and not p.get("collapsible") for p in props)
