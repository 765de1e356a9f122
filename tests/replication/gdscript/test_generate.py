"""The generated decoder's text (``gdscript.generate``, ``gdscript._generate``): its
structure (fingerprint, one function per class, published paths), float ranges loaded exactly
rather than written as literals, and its class name. Godot runs it in
tests/live/replication/test_gdscript.py."""

from __future__ import annotations

import re

import pytest

import gdvariant
from gdvariant.replication import NetClass, Schema, UInt, gdscript
from tests.support.replication_worlds import Cargo, gdscript_schema


def test_generated_text_structure() -> None:
    schema = gdscript_schema()
    text = gdscript.generate(schema, class_name="ArenaDecoder")
    assert text.count(schema.fingerprint.hex()) == 2  # the header comment and FINGERPRINT
    assert f'const FINGERPRINT := "{schema.fingerprint.hex()}"' in text
    assert "class_name ArenaDecoder\nextends RefCounted\n" in text
    found = re.finditer(r"^func _c(\d+)\((.*?)^\treturn \(bp << 3\) - n$", text, re.M | re.S)
    functions = {int(m[1]): m[2] for m in found}
    assert sorted(functions) == [lay.class_id for lay in schema.classes]
    for lay in schema.classes:
        assert lay.fingerprint.hex() in text
        body = functions[lay.class_id]
        for prop in lay.props:  # one inline block per property, by flat index
            # two ways to set it where a value delta is possible (wire doc §5.1)
            ways = 1 if lay.deltas[prop.index] is None else 2
            assert body.count(f"values[{prop.index}] = ") == ways
            assert f'"{prop.path}": values[{prop.index}]' in text  # published by path
    for name in ("apply", "held_ticks", "class_of", "_section", "_recheck", "_utf8_ok"):
        assert re.search(rf"^(static )?func {name}\(", text, re.M), name
    assert "\t" in text and "    " not in text  # GDScript indentation is tabs only


def test_float_ranges_are_loaded_exactly_not_written_as_literals() -> None:
    schema = gdscript_schema()
    text = gdscript.generate(schema)
    low = Cargo.tiny.codec.low  # 5e-324: Godot 4.6.3 parses that literal as 0.0
    assert repr(low) not in text
    assert gdvariant.dumps(low).hex() in text


def test_no_class_name_and_bad_class_name() -> None:
    class Only(NetClass):
        x = UInt(3)

    schema = Schema.build([Only])
    assert "class_name" not in gdscript.generate(schema).split("extends")[0]
    with pytest.raises(ValueError, match="identifier"):
        gdscript.generate(schema, class_name="not a name")
