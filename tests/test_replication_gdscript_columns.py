"""How the generated decoder holds a tick's state in columns (``_gdscript_columns``). The
engine runs these columns in ``test_replication_gdscript.py``."""

from __future__ import annotations

from replication_arena import build_schema

from gdvariant.replication import (
    Angle,
    ArrayOf,
    Bool,
    Bytes,
    Coord,
    EntityRef,
    Half,
    Normal,
    Quant,
    Quat,
    Str,
    UInt,
    Variant,
    VarInt,
    Vec2,
    Vec3,
    Vec4,
)
from gdvariant.replication._gdscript_columns import column_type, held, stored


def test_each_codec_has_a_column_that_holds_its_values_exactly() -> None:
    assert column_type(Bool()) == "PackedByteArray"
    assert column_type(UInt(9)) == column_type(VarInt()) == "PackedInt64Array"
    assert column_type(EntityRef(12)) == "PackedInt64Array"  # the raw field, 0 = null
    for scalar in (Quant(0.0, 1.0, 8), Coord(14, 5), Angle(13), Half()):
        assert column_type(scalar) == "PackedFloat64Array"  # GDScript floats are doubles
    assert column_type(Vec2(Half())) == "PackedVector2Array"
    assert column_type(Vec3(Coord(14, 5))) == column_type(Normal(11)) == "PackedVector3Array"
    assert column_type(Vec4(Half())) == "PackedVector4Array"
    assert column_type(Str(8)) == "PackedStringArray"
    for boxed in (Bytes(8), Variant(64), ArrayOf(UInt(3), 4), Quat(10)):
        assert column_type(boxed) == "Array"


def test_bools_and_entity_refs_are_stored_as_their_wire_fields() -> None:
    assert stored(Bool(), "v") == "int(v)"
    assert held(Bool(), "c") == "c == 1"
    assert stored(EntityRef(12), "v") == "(0 if v == null else v + 1)"
    assert held(EntityRef(12), "c") == "(null if c == 0 else c - 1)"
    assert held(UInt(3), "c") == stored(UInt(3), "c") == "c"


def test_every_class_has_its_column_functions() -> None:
    text = build_schema().to_gdscript()
    for lay in build_schema().classes:
        for name in ("_cols", "_put", "_take", "_dc"):
            assert f"static func {name}{lay.class_id}(" in text
        for p in lay.props:  # one typed local per column in the section loop
            assert f"var k{lay.class_id}_{p.index}: {column_type(p.codec)} = " in text
