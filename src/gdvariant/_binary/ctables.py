"""The tables the compiled core reads: built here, from the same profile data the pure core uses.

The C extension (``_cgdvariant.c``) knows the wire *shapes* (a header word, a count, a block of
components) but no version rule. At first use per profile it asks :func:`table` for a compact
description of that profile: which action each wire type id takes, the header flags that are
allowed, the math layouts with their widths, the packed-array classes, and the header word of
each encodable Python class. Layout facts come from the pure decoder's tables; the encoder's
headers and widths are read off the pure encoder's own output for a probe value, so a rule that
changes in the pure core changes here with it. Anything a table cannot express (full objects,
typed containers, Godot 2's NodePath property, Pandemonium's Vector4i quirk...) is left out, and
the C code hands those calls to the pure core whole.
"""

from __future__ import annotations

from struct import Struct
from typing import Any

from .._engines.element_rules import rules_for
from .._engines.profiles import KIND_BARE_OBJECT, KIND_BARE_RID, Profile
from .._engines.reals import reads
from .._values.base import RID, Callable, NodePath, ObjectID, Signal, StringName, VariantType
from .._values.collections import ContainerKind, Dictionary, ElementType, TypedArray
from .._values.layouts import FLAG_64, LAYOUTS, MATH_CLASSES, PACKED_ARRAYS, PACKED_CLASSES
from .._values.packed import PackedStringArray, PackedView
from . import pure

__all__ = ["classes", "table"]

T = VariantType
_U32 = Struct("<I")

# Decoder actions, in the order of the ``A_*`` enum in _cgdvariant.c (0 = hand the call over).
_ACTIONS = {
    T.NIL: 1,
    T.BOOL: 2,
    T.INT: 3,
    T.FLOAT: 4,
    T.STRING: 5,
    T.STRING_NAME: 6,
    T.DICTIONARY: 8,
    T.ARRAY: 9,
    T.PACKED_BYTE_ARRAY: 10,
    T.PACKED_STRING_ARRAY: 12,
    T.RID: 13,
    T.OBJECT: 14,
    T.NODE_PATH: 15,
    T.CALLABLE: 18,
    T.SIGNAL: 19,
}
_A_MATH = 7
_A_PACKED = 11
_A_BARE_RID = 16
_A_BARE_OBJECT = 17
_BARE = {KIND_BARE_RID: _A_BARE_RID, KIND_BARE_OBJECT: _A_BARE_OBJECT}

# Encoder entries, in the order of the ``E_*`` enum in _cgdvariant.c.
_E_STRING_NAME = 1
_E_MATH = 2
_E_PACKED = 3
_E_STRING_ARRAY = 4
_E_BYTES = 5
_E_RID = 6
_E_OBJECT_ID = 7
_E_NODE_PATH = 8
_E_CALLABLE = 9
_E_SIGNAL = 10


def classes() -> tuple[Any, ...]:
    """The classes and fallbacks the C code needs once: the pure core is the reference."""
    return (
        StringName,
        NodePath,
        RID,
        ObjectID,
        PackedStringArray,
        pure.CALLABLE,
        pure.decode_value,
        pure.encode_value,
        TypedArray,
        Dictionary,
        int(ContainerKind.BUILTIN),
        Signal,
        ElementType,
        int(T.OBJECT),
        pure.decode_whole,
        PackedView,
        PackedView._wrap,
    )


def _flat_class(unflatten: Any, components: int) -> type | None:
    """The value class when a layout is just its components in order (Vector3, Color...)."""
    sample = tuple(float(i + 1) for i in range(components))
    value = unflatten(sample)
    return type(value) if tuple(value) == sample else None


def _decode_table(profile: Profile) -> tuple[Any, ...]:
    actions = bytearray(256)
    math: list[tuple[Any, ...]] = []
    packed: list[tuple[Any, ...]] = []
    fixed, packed_reads = reads(profile)
    for wire, kind in enumerate(profile.kind_codes):
        if kind < 0:
            continue
        if kind in _BARE:
            actions[wire] = _BARE[kind]
        elif kind in fixed:
            narrow, unflatten, wide, wide_unflatten = fixed[kind]
            components = LAYOUTS[T(kind)].components
            actions[wire] = _A_MATH
            flat = _flat_class(unflatten, components)
            # "n": doubles held as float32, where the flagged reading rounds (a single build)
            wide_code = "n" if wide_unflatten is not unflatten else wide.format[-1]
            math.append((wire, components, narrow.format[-1], wide_code, unflatten, flat))
        elif kind in PACKED_ARRAYS:
            actions[wire] = _A_PACKED
            packed.append((wire, *_packed_read(*packed_reads[kind])))
        else:
            actions[wire] = _ACTIONS.get(T(kind), 0)
    if profile.old_node_path:  # a NodePath without bit 31 is text: the pure core reads it
        actions[profile.wire_ids[T.NODE_PATH]] = 0
    # The element type a typed container's builtin type id names: None for NIL (untyped),
    # False for an id the release lacks (an error the pure core reports).
    elements = tuple(
        False if vtype is None else None if vtype == T.NIL else ElementType.builtin(vtype)
        for vtype in profile.types_by_id
    )
    # Typed containers: the type number of each wire id (255: none), which elements a typed
    # container checks, and whether a typed Dictionary checks its values. An element of another
    # type than its container's goes to the pure core, which applies the rules.
    rules = rules_for(profile.element_rules)
    kinds = bytes(kind if 0 <= kind < 255 else 255 for kind in profile.kind_codes)
    return (
        bytes(actions),
        0xFFFFFF00 if profile.strict_header else 0,
        profile.typed_arrays,
        profile.typed_dictionaries,
        FLAG_64 if profile.double_flagged else 0,
        tuple(math),
        tuple(packed),
        elements,
        kinds,
        rules is not None,
        rules is not None and rules.checks_values,
        -1 if profile.max_depth is None else profile.max_depth,
    )


def _packed_read(*reads: tuple[type[Any], type[Any]]) -> tuple[Any, ...]:
    """A packed array's reading without and with the flag, as the C table takes it: per flag,
    the bytes' class and item size, the held class and the conversion ("n" rounds doubles to
    floats, "w" widens floats, "-" none)."""
    out: list[Any] = []
    for cls, held in reads:
        convert = "-" if held is cls else "n" if held.itemsize < cls.itemsize else "w"
        out += (cls, cls.itemsize, held, convert)
    return tuple(out)


def _probe_header(encode: Any, value: Any) -> int | None:
    """The header word the pure encoder writes for ``value``, or ``None`` if it refuses it."""
    try:
        return int(_U32.unpack_from(encode(value))[0])
    except Exception:  # a refusal of any kind leaves the class to the pure core
        return None


def _encode_table(profile: Profile) -> tuple[Any, ...]:
    def encode(value: Any) -> bytes:
        return pure.encode_value(value, profile, False)

    entries: list[tuple[Any, ...]] = []
    for cls, vtype in MATH_CLASSES.items():
        sample = cls()
        header = _probe_header(encode, sample)
        if header is None:
            continue
        layout = LAYOUTS[vtype]
        width = (len(encode(sample)) - 4) // layout.components
        code = "i" if layout.kind == "i32" else ("d" if width == 8 else "f")
        flat = _flat_class(layout.unflatten, layout.components) is cls
        entries.append((cls, _E_MATH, header, layout.components, code, flat, layout.flatten))
    for packed_cls in PACKED_CLASSES:
        probe = packed_cls.frombuffer(bytes(range(1, packed_cls.itemsize + 1)))
        header = _probe_header(encode, probe)
        if header is not None and encode(probe)[8:] == bytes(probe):  # one block, as stored
            entries.append((packed_cls, _E_PACKED, header, packed_cls.itemsize))
    simple = [
        (StringName, _E_STRING_NAME, StringName("a")),
        (PackedStringArray, _E_STRING_ARRAY, PackedStringArray(["a"])),
        (bytes, _E_BYTES, b"a"),
        (bytearray, _E_BYTES, bytearray(b"a")),
        (RID, _E_RID, RID(0)),
        (ObjectID, _E_OBJECT_ID, ObjectID(1)),
        (Callable, _E_CALLABLE, Callable()),
        (Signal, _E_SIGNAL, Signal("a", 1)),
    ]
    if not profile.node_path_property:  # Godot 2 moves the last subname: the pure core does
        simple.append((NodePath, _E_NODE_PATH, NodePath("a")))
    for cls, entry, sample in simple:
        header = _probe_header(encode, sample)
        if header is not None:
            entries.append((cls, entry, header & 0xFF))
    ids = profile.wire_ids
    max_depth = profile.max_encode_depth
    # TypedArray: 1 = with element-type bits (4.3+), 2 = as a plain Array (4.0-4.2), 0 = the
    # pure core (no typed Arrays, or Pandemonium's own TYPED_ARRAY type).
    typed_arrays = 0
    if T.TYPED_ARRAY not in ids:
        typed_arrays = 1 if profile.typed_arrays else 2 if profile.typed_arrays_as_untyped else 0
    return (
        tuple(entries),
        ids[T.NIL],
        ids[T.BOOL],
        ids[T.INT],
        ids[T.FLOAT],
        ids[T.STRING],
        ids[T.DICTIONARY],
        ids[T.ARRAY],
        profile.int64,
        profile.int_always_64,
        profile.float64,
        profile.rid_payload,
        0x80000000 if profile.shared_bit else 0,
        -1 if max_depth is None else max_depth,
        typed_arrays,
        profile.typed_dictionaries,
        {int(vtype): wire for vtype, wire in ids.items()},
    )


def table(profile: Profile) -> tuple[Any, ...]:
    """Everything the C code needs about one profile: its decode and encode tables."""
    return _decode_table(profile), _encode_table(profile)
