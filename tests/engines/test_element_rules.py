"""Typed containers holding elements of another type: both cores against Godot 4.6.3's answers.

``tests/vectors/godot4.6/typed_containers.json`` (``tools/make_typed_vectors.py``) holds, for
typed Arrays and Dictionaries built with one element of every Variant type (edge values included)
per element type, what the engine's ``decode_var_size`` counted and what ``var_to_bytes`` wrote
for the value ``decode_var`` made: elements converted, elements dropped, keys dropped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import VariantType as T
from gdvariant._engines.element_rules import DROP, RULES, admit
from tests.support.godot_describe import canon, expected, objects_as_seen
from tests.support.paths import VECTORS

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

GOLDEN = json.loads((VECTORS / "godot4.6/typed_containers.json").read_text())
CASES = GOLDEN["cases"]


def _theirs(case: dict[str, Any]) -> Any:
    if "value" in case:
        return objects_as_seen(expected(case["value"], objects=case["allow_objects"]))
    return gd.loads(bytes.fromhex(case["out"]), allow_objects=case["allow_objects"])


def test_the_vectors_name_the_engine() -> None:
    assert GOLDEN["godot"].startswith("4.6.")
    assert len(CASES) > 10_000


@pytest.mark.parametrize("chunk", range(8))
def test_decoding_matches_the_engine(chunk: int) -> None:
    """Every case: the same verdict, the same size, the same value (floats by their bits)."""
    failures = []
    for case in CASES[chunk::8]:
        data = bytes.fromhex(case["in"])
        allow = case["allow_objects"]
        try:
            ours, size = gd.decode(data, allow_objects=allow)
        except gd.DecodeError as exc:
            if case["size"]:
                failures.append(f"{case['name']} allow={allow}: we reject ({exc})")
            continue
        if not case["size"]:
            failures.append(f"{case['name']} allow={allow}: the engine rejects, we read {ours!r}")
            continue
        if size != case["size"]:
            failures.append(f"{case['name']}: size {size}, the engine's {case['size']}")
            continue
        if gd.dumps(ours, full_objects=allow) == bytes.fromhex(case["out"]):
            continue
        if canon(objects_as_seen(ours)) != canon(_theirs(case)):
            failures.append(f"{case['name']} allow={allow}: {ours!r} != {_theirs(case)!r}")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} cases)"


def test_well_typed_arrays_come_back_byte_for_byte() -> None:
    """The fast path: a typed Array whose elements all have its type is untouched."""
    samples: list[tuple[T, list[Any]]] = [
        (T.INT, [1, -5, 2**40]),
        (T.FLOAT, [1.5, -0.0]),
        (T.STRING, ["a", ""]),
    ]
    for vtype, items in samples:
        data = gd.dumps(gd.TypedArray(gd.ElementType.builtin(vtype), items))
        assert gd.dumps(gd.loads(data)) == data


def test_the_brief_examples() -> None:
    """The cases measured on Godot 4.6.3 by hand (``decode_var``), independently of the file."""
    int_array = gd.ElementType.builtin(T.INT)
    header = bytes.fromhex("1c000100") + (2).to_bytes(4, "little")
    data = header + (2).to_bytes(4, "little") + bytes.fromhex("0100000003000000") + bytes(4)
    value, size = gd.decode(data)
    assert value == gd.TypedArray(int_array, [1])
    assert size == 24


def test_pandemonium_converts_nothing() -> None:
    """Pandemonium's TypedArray::can_take_variant: the exact type, or null for Objects."""
    rules = RULES["pandemonium"]
    ints = gd.ElementType.builtin(T.INT)
    objects = gd.ElementType.builtin(T.OBJECT)
    assert admit(rules, 1.5, int(T.FLOAT), ints) is DROP
    assert admit(rules, None, int(T.NIL), objects) is None
    assert admit(rules, 7, int(T.INT), ints) == 7


def test_a_lone_minus_into_a_packed_float_is_not_guessed() -> None:
    """Godot 4.6.3 turned the text "-.\\t..." inside an Array bound for a typed
    Array[PackedFloat64Array] into -0.0 (a live run, seed 488645727); without digits we
    cannot tell which signs it counts, so such text is refused, and digit-free text without a
    sign stays 0.0 as the golden vectors have it."""
    floats = gd.ElementType.builtin(T.PACKED_FLOAT64_ARRAY)
    with pytest.raises(gd.DecodeError) as caught:
        gd.loads(gd.dumps(gd.TypedArray(floats, []))[:-4] + _one_array_of("-.x"))
    assert caught.value.code == gd.GodotError.ERR_UNAVAILABLE
    value = gd.loads(gd.dumps(gd.TypedArray(floats, []))[:-4] + _one_array_of("x.y"))
    assert value == gd.TypedArray(floats, [gd.PackedFloat64Array([0.0])])


def _one_array_of(text: str) -> bytes:
    """A count of 1, then an untyped Array holding ``text``."""
    return (1).to_bytes(4, "little") + gd.dumps([text])


def test_a_quaternion_into_a_packed_vector4_is_a_zero_vector() -> None:
    """Godot 4.6.3 (a live run, seed 78205072): an Array holding a Quaternion, bound for a
    typed Array[PackedVector4Array], became a zero Vector4, although our Quaternion class
    derives from Vector4."""
    vectors = gd.ElementType.builtin(T.PACKED_VECTOR4_ARRAY)
    data = gd.dumps(gd.TypedArray(vectors, []))[:-4] + (1).to_bytes(4, "little")
    value = gd.loads(data + gd.dumps([gd.Quaternion(0.0, 1.0, 0.0, -0.5)]))
    assert value == gd.TypedArray(vectors, [gd.PackedVector4Array([gd.Vector4(0, 0, 0, 0)])])
