"""The generated decoder's fixed runtime, state view and node application
(``_gdscript_runtime``)."""

from __future__ import annotations

from replication_arena import build_schema

from gdvariant.replication import Half, UInt, Vec3
from gdvariant.replication._gdscript_runtime import RUNTIME, holds_ieee, node_property


def test_node_property_names() -> None:
    assert node_property("purse.gold") == "purse_gold"
    assert node_property("ammo[2]") == "ammo_2"


def test_holds_ieee() -> None:
    assert holds_ieee(Half()) and holds_ieee(Vec3(Half()))
    assert not holds_ieee(UInt(3))


def test_runtime_keeps_states_as_columns_and_sparse_entities() -> None:
    # [class + 1 by id, column sets by class, {large id: values}]; the copy flags and the
    # base are left out of what is kept
    assert "_states[tick] = st.slice(0, 3)" in RUNTIME
    assert "func _entity(held: Array, id: int)" in RUNTIME


def test_publish_reads_wide_masks_as_several_words() -> None:
    schema = build_schema()
    text = schema.to_gdscript()
    grid = schema.layout("Grid")  # 71 properties: 3 words of 32
    assert grid.count > 62
    assert f"if rc == {grid.class_id}:\n\t\t\ti += 3" in text
    assert "pending.slice(at, at + 3)" in text
