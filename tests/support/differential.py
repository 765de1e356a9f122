"""The classes of disagreement with the engines (``tests/vectors/differential/classes.json``)
and what each says about our value: a normaliser that turns it into what the engine holds, or
a rule on a verdict. The live differential test (tests/live/codec/test_differential.py)
puts every disagreement in a class; tests/binary/test_differential_classes.py checks our
side of each class's examples without an engine."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import gdvariant as gd
from tests.support.godot_describe import merge_keys, walk
from tests.support.paths import VECTORS

CLASSES: dict[str, Any] = json.loads((VECTORS / "differential" / "classes.json").read_text())


_FLOAT_PACKED: tuple[type[Any], ...] = (gd.PackedFloat32Array, gd.PackedVector2Array)
_FLOAT_PACKED += (gd.PackedVector3Array, gd.PackedVector4Array, gd.PackedColorArray)


def name_objects_as_id(value: Any) -> Any:
    """As Godot 4 reads an object-typed container without objects: named EncodedObjectAsID."""

    def rename(etype: gd.ElementType | None) -> gd.ElementType | None:
        if etype is not None and etype.type == gd.VariantType.OBJECT:
            return gd.ElementType.class_name("EncodedObjectAsID")
        return etype

    if isinstance(value, gd.TypedArray):
        etype = rename(value.element_type)
        assert etype is not None  # a TypedArray always has an element type
        return type(value)(etype, [name_objects_as_id(v) for v in value])
    if isinstance(value, list):
        return [name_objects_as_id(v) for v in value]
    if isinstance(value, gd.Dictionary):
        pairs = [(name_objects_as_id(k), name_objects_as_id(v)) for k, v in value.items()]
        return gd.Dictionary(pairs, rename(value.key_type), rename(value.value_type))
    if isinstance(value, dict):
        return {name_objects_as_id(k): name_objects_as_id(v) for k, v in value.items()}
    return value


def through_doubles(value: Any) -> Any:
    """Packed floats as the engine's description shows them: each one passed through a
    double, which quiets a signalling NaN (the engine holds and re-encodes it unchanged)."""

    def leaf(v: Any) -> Any:
        return type(v)(list(v)) if isinstance(v, _FLOAT_PACKED) else v

    return walk(value, leaf)


def merge_duplicate_keys(value: Any) -> Any:
    """As Godot 4 holds a Dictionary: one pair per key (first position, last value)."""
    return merge_keys(value)


def merge_duplicate_keys_godot3(value: Any) -> Any:
    """As Godot 3 holds a Dictionary: keys holding a Dictionary are compared by identity."""
    return merge_keys(value, godot3=True)


def root_path_as_relative(value: Any) -> Any:
    """As Godot 3 holds NodePath("/"): its constructor drops the absolute flag of an empty path."""
    return walk(value, lambda v: gd.NodePath("") if v == gd.NodePath("/") else v)


#: Value classes, per engine: a normaliser that turns our value into what the engine holds.
NORMALISERS: dict[str, dict[str, Callable[[Any], Any]]] = {
    "4.6": {
        "object_types_named_encoded_as_id": name_objects_as_id,
        "dictionary_keeps_duplicate_keys": merge_duplicate_keys,
    },
    "3.6": {
        "dictionary_keeps_duplicate_keys": merge_duplicate_keys_godot3,
        "godot3_root_path_becomes_relative": root_path_as_relative,
    },
}
#: Value classes that no normaliser can express: a predicate on our value. When it holds, the
#: whole value difference is put down to the class.
VALUE_RULES: dict[str, dict[str, Callable[[Any], bool]]] = {
    "4.6": {},
    "3.6": {},
}
#: Verdict classes: (engine accepts, we accept, our error's reason) -> whether it fits.
VERDICT_RULES: dict[str, dict[str, Callable[[bool, bool, str], bool]]] = {
    "4.6": {
        "unmodelled_element_conversion": lambda theirs, ours, reason: (
            theirs and not ours and "gdvariant does not model that conversion" in reason
        ),
    },
    "3.6": {
        "godot3_accepts_invalid_utf8": lambda theirs, ours, reason: (
            theirs and not ours and reason.startswith("invalid UTF-8")
        ),
    },
}
