"""The generated decoder's interpolation code (``gdscript._interpolate``): one ``_i<id>`` per
class with a property that blends, a call of the right helper per such property (angle
periods and vector sizes included), none for stepwise ones, and the dispatch. Godot runs it
in tests/live/replication/test_interpolation.py."""

from __future__ import annotations

import re

from gdvariant.replication import (
    Angle,
    Bool,
    Coord,
    Float64,
    NetClass,
    Normal,
    Quat,
    Schema,
    Str,
    UInt,
    Vec2,
    Vec3,
    gdscript,
)


class Ship(NetClass):
    hp = UInt(7)
    pos = Vec3(Coord())
    heading = Angle(9)
    yaw = Angle(8, degrees=True)
    guns = Vec2(Angle(6, degrees=True))
    aim = Normal()
    spin = Quat()
    fuel = Float64()
    name = Str(4)


class Sign(NetClass):
    text = Str(8)
    lit = Bool()


def _function(text: str, name: str) -> str:
    found = re.search(rf"^func {name}\(.*?\n(.*?)^\treturn o$", text, re.M | re.S)
    assert found is not None, name
    return found[1]


def test_one_blend_per_property_that_blends() -> None:
    schema = Schema.build([Ship, Sign])
    ship, sign = schema.layout("Ship"), schema.layout("Sign")
    text = gdscript.generate(schema)
    body = _function(text, f"_i{ship.class_id}")
    index = {p.path: p.index for p in ship.props}
    want = {
        "pos": "_lv({0}, w)",
        "heading": "_la({0}, w, TAU)",
        "yaw": "_la({0}, w, 360.0)",
        "guns": "_lva({0}, w, 360.0, 2)",
        "aim": "_ln({0}, w)",
        "spin": "_lq({0}, w)",
        "fuel": "_lf({0}, w)",
    }
    for path, call in want.items():
        i = index[path]
        assert f"\to[{i}] = " + call.format(f"a[{i}], b[{i}]") + "\n" in body, path
    for path in ("hp", "name"):
        assert f"o[{index[path]}]" not in body
    # the same blends from the newer state's columns (a rotation's column holds Quaternions)
    row = _function(text, f"_ib{ship.class_id}")
    assert row.count("\to[") == len(want)
    assert re.search(
        rf"\to\[{index['spin']}\] = _lq\(a\[{index['spin']}\], cols\[\d+\]\[row\], w\)", row
    )
    assert "_lva(" in row and "_ln(" in row
    assert f"func _i{sign.class_id}(" not in text  # nothing of Sign blends: no function
    assert f"func _ib{sign.class_id}(" not in text
    assert f"if c == {ship.class_id}:\n\t\treturn _i{ship.class_id}(va, vb, w)" in text
    for name in ("interpolated", "buffered_ticks", "_pair", "_remember", "_blend", "_dense"):
        assert re.search(rf"^func {name}\(", text, re.M), name
    assert "func apply_to_nodes(nodes: Dictionary, render_tick: float = INF)" in text


def test_a_schema_where_nothing_blends() -> None:
    text = gdscript.generate(Schema.build([Sign]))
    assert not re.search(r"^func _i\d", text, re.M)
    found = re.search(r"^func _blend_values\(.*?\n(.*?)^\treturn va$", text, re.M | re.S)
    assert found is not None and found[1].strip().endswith("pass")
