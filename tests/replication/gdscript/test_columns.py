"""How the generated decoder holds a tick's state in columns (``gdscript._columns``). The
engine runs these columns in ``tests/live/replication/test_gdscript.py``."""

from __future__ import annotations

from gdvariant.replication import (
    Angle,
    ArrayOf,
    Bool,
    Bytes,
    Coord,
    EntityRef,
    Half,
    NetClass,
    Normal,
    Quant,
    Quat,
    Schema,
    Str,
    UInt,
    Variant,
    VarInt,
    Vec2,
    Vec3,
    Vec4,
    gdscript,
)
from gdvariant.replication.gdscript._columns import column_type, held, prop_columns, stored
from tests.support.replication_worlds import gdscript_schema


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
    schema = gdscript_schema()
    text = gdscript.generate(schema)
    for lay in schema.classes:
        assert f"static func _cols{lay.class_id}(" in text
        for name in ("_put", "_take"):
            assert f"\nfunc {name}{lay.class_id}(" in text
        for _, cols in prop_columns(lay):  # one typed local per column in the section loop
            for at, name, kind in cols:
                assert f"var {name}: {kind} = s{lay.class_id}[{at}]" in text


class Mover(NetClass):
    origin = Vec3(Coord(14, 5))
    speed = Quant(0.0, 1.0, 8)
    flag = Bool()


def test_float_codecs_with_value_deltas_are_held_as_ordinals() -> None:
    # one int column per component: a value delta adds to it with no conversion (§5.1)
    lay = Schema.build([Mover]).layout("Mover")
    kinds = {p.path: [(at, kind) for at, _, kind in cols] for p, cols in prop_columns(lay)}
    assert kinds == {
        "origin": [(0, "PackedInt64Array"), (1, "PackedInt64Array"), (2, "PackedInt64Array")],
        "speed": [(3, "PackedInt64Array")],
        "flag": [(4, "PackedByteArray")],
    }
