"""Values as Godot holds them (``gdscript._godot_values.godot_value``): enum members as their
values, arrays as lists, a 64-bit unsigned as the signed int Godot keeps, floats as they are."""

from __future__ import annotations

from gdvariant.replication import Quant, UInt, godot_value
from tests.support.replication_worlds import Team, gdscript_schema


def test_godot_value_mapping() -> None:
    schema = gdscript_schema()
    lay = schema.layout("Pawn")
    team = next(p.codec for p in lay.props if p.path == "team")
    assert godot_value(team, Team.GREEN) == 11
    trail = next(p.codec for p in lay.props if p.path == "trail")
    assert godot_value(trail, ((1.0, 2.0),)) == [(1.0, 2.0)]
    assert godot_value(UInt(64), (1 << 64) - 1) == -1
    assert godot_value(Quant(0.0, 1.0, 4), 0.5) == 0.5
