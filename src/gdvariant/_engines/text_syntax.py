"""What differs between engine releases in Godot's text syntax, as data.

One :class:`TextSyntax` per release line; the writer and the parser read these fields and
never test a version number. Facts: ``docs/text-format.md`` ("What differs between releases").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

from .._values.base import VariantType
from .profiles import Profile, get_profile

__all__ = ["GODOT4_NAMES", "SCALAR_NAMES", "TextSyntax", "text_syntax"]

T = VariantType

#: ``Variant::get_type_name`` of the types that have no constructor syntax (typed containers
#: name their element types with these and with the constructor names below).
SCALAR_NAMES: dict[VariantType, str] = {
    T.NIL: "Nil",
    T.BOOL: "bool",
    T.INT: "int",
    T.FLOAT: "float",
    T.STRING: "String",
    T.STRING_NAME: "StringName",
    T.NODE_PATH: "NodePath",
    T.RID: "RID",
    T.OBJECT: "Object",
    T.CALLABLE: "Callable",
    T.SIGNAL: "Signal",
    T.DICTIONARY: "Dictionary",
    T.ARRAY: "Array",
}

#: Godot 4 spellings of the constructor-like types.
GODOT4_NAMES: dict[VariantType, str] = {
    T.VECTOR2: "Vector2",
    T.VECTOR2I: "Vector2i",
    T.RECT2: "Rect2",
    T.RECT2I: "Rect2i",
    T.VECTOR3: "Vector3",
    T.VECTOR3I: "Vector3i",
    T.TRANSFORM2D: "Transform2D",
    T.VECTOR4: "Vector4",
    T.VECTOR4I: "Vector4i",
    T.PLANE: "Plane",
    T.QUATERNION: "Quaternion",
    T.AABB: "AABB",
    T.BASIS: "Basis",
    T.TRANSFORM3D: "Transform3D",
    T.PROJECTION: "Projection",
    T.COLOR: "Color",
    T.PACKED_BYTE_ARRAY: "PackedByteArray",
    T.PACKED_INT32_ARRAY: "PackedInt32Array",
    T.PACKED_INT64_ARRAY: "PackedInt64Array",
    T.PACKED_FLOAT32_ARRAY: "PackedFloat32Array",
    T.PACKED_FLOAT64_ARRAY: "PackedFloat64Array",
    T.PACKED_STRING_ARRAY: "PackedStringArray",
    T.PACKED_VECTOR2_ARRAY: "PackedVector2Array",
    T.PACKED_VECTOR3_ARRAY: "PackedVector3Array",
    T.PACKED_COLOR_ARRAY: "PackedColorArray",
    T.PACKED_VECTOR4_ARRAY: "PackedVector4Array",
}

#: Godot 3 spellings where they differ from Godot 4's.
_NAMES_3: dict[VariantType, str] = {
    **{t: GODOT4_NAMES[t] for t in (T.VECTOR2, T.RECT2, T.VECTOR3, T.TRANSFORM2D)},
    T.PLANE: "Plane",
    T.QUATERNION: "Quat",
    T.AABB: "AABB",
    T.BASIS: "Basis",
    T.TRANSFORM3D: "Transform",
    T.COLOR: "Color",
    T.PACKED_BYTE_ARRAY: "PoolByteArray",
    T.PACKED_INT32_ARRAY: "PoolIntArray",
    T.PACKED_FLOAT32_ARRAY: "PoolRealArray",
    T.PACKED_STRING_ARRAY: "PoolStringArray",
    T.PACKED_VECTOR2_ARRAY: "PoolVector2Array",
    T.PACKED_VECTOR3_ARRAY: "PoolVector3Array",
    T.PACKED_COLOR_ARRAY: "PoolColorArray",
}

#: Names the Godot 4 parser reads (the writer's, plus aliases and legacy names).
_READ_4: dict[str, VariantType] = {
    **{n: t for t, n in GODOT4_NAMES.items()},
    "Matrix32": T.TRANSFORM2D,
    "Quat": T.QUATERNION,
    "Rect3": T.AABB,
    "Matrix3": T.BASIS,
    "Transform": T.TRANSFORM3D,
    "PoolByteArray": T.PACKED_BYTE_ARRAY,
    "ByteArray": T.PACKED_BYTE_ARRAY,
    "PackedIntArray": T.PACKED_INT32_ARRAY,
    "PoolIntArray": T.PACKED_INT32_ARRAY,
    "IntArray": T.PACKED_INT32_ARRAY,
    "PackedRealArray": T.PACKED_FLOAT32_ARRAY,
    "PoolRealArray": T.PACKED_FLOAT32_ARRAY,
    "FloatArray": T.PACKED_FLOAT32_ARRAY,
    "PoolStringArray": T.PACKED_STRING_ARRAY,
    "StringArray": T.PACKED_STRING_ARRAY,
    "PoolVector2Array": T.PACKED_VECTOR2_ARRAY,
    "Vector2Array": T.PACKED_VECTOR2_ARRAY,
    "PoolVector3Array": T.PACKED_VECTOR3_ARRAY,
    "Vector3Array": T.PACKED_VECTOR3_ARRAY,
    "PoolVector4Array": T.PACKED_VECTOR4_ARRAY,
    "Vector4Array": T.PACKED_VECTOR4_ARRAY,
    "PoolColorArray": T.PACKED_COLOR_ARRAY,
    "ColorArray": T.PACKED_COLOR_ARRAY,
}

#: Names the Godot 3 parser reads, with the forward-compatible Packed* aliases (an Int64 or
#: Float64 array reads as the 32-bit pool).
_READ_3: dict[str, VariantType] = {
    **{n: t for t, n in _NAMES_3.items()},
    "Matrix32": T.TRANSFORM2D,
    "Rect3": T.AABB,
    "Matrix3": T.BASIS,
    "PackedByteArray": T.PACKED_BYTE_ARRAY,
    "ByteArray": T.PACKED_BYTE_ARRAY,
    "PackedInt32Array": T.PACKED_INT32_ARRAY,
    "PackedInt64Array": T.PACKED_INT32_ARRAY,
    "IntArray": T.PACKED_INT32_ARRAY,
    "PackedFloat32Array": T.PACKED_FLOAT32_ARRAY,
    "PackedFloat64Array": T.PACKED_FLOAT32_ARRAY,
    "FloatArray": T.PACKED_FLOAT32_ARRAY,
    "PackedStringArray": T.PACKED_STRING_ARRAY,
    "StringArray": T.PACKED_STRING_ARRAY,
    "PackedVector2Array": T.PACKED_VECTOR2_ARRAY,
    "Vector2Array": T.PACKED_VECTOR2_ARRAY,
    "PackedVector3Array": T.PACKED_VECTOR3_ARRAY,
    "Vector3Array": T.PACKED_VECTOR3_ARRAY,
    "PackedColorArray": T.PACKED_COLOR_ARRAY,
    "ColorArray": T.PACKED_COLOR_ARRAY,
}


@dataclass(frozen=True)
class TextSyntax:
    """The text rules of one engine release line."""

    engine: str
    #: The binary profile of the same release (type ids order Dictionary keys).
    profile: Profile
    #: Type names the writer prints.
    names: Mapping[VariantType, str]
    #: Names (and aliases) the parser reads.
    read_names: Mapping[str, VariantType]
    #: Godot 3 puts spaces inside constructor parentheses and array brackets.
    spaced: bool = False
    #: Floats: "grisu2" (4.5+, with the float32 rule) or "%g" (4.0-4.4, Godot 3).
    float_style: str = "grisu2"
    #: Godot 3 narrows a FLOAT to float32 (real_t) before printing it.
    narrow_floats: bool = False
    #: RID, Callable and Signal print as ``RID(n)`` / ``Callable()`` (4.1+); else as nothing.
    writes_rid: bool = True
    #: Godot 3's ``c_escape`` also turns ``?`` into ``\\?``.
    escape_question: bool = False
    #: 4.4+ sorts String and StringName keys together (``StringLikeVariantOrder``).
    string_like_order: bool = True
    #: The parser knows ``&"..."``, ``Array[T]``, typed Dictionaries, RID(), Callable()...
    godot4_values: bool = True
    typed_dictionaries: bool = True
    #: The parser reads an uppercase ``E`` exponent (4.4+), ``-inf`` and ``-name`` (4.5+).
    upper_exponent: bool = True
    minus_identifiers: bool = True
    #: The parser reads ``PackedByteArray("base64")`` (4.3+).
    base64_bytes: bool = True
    #: ``\\UXXXXXX`` escapes (Godot 4); Godot 3 reads ``\\uXXXX`` only.
    long_escapes: bool = True
    #: ``\\u`` surrogate pairs are joined (4.x: a lone one is an error; 3.6: kept).
    join_surrogates: bool = True
    lone_surrogate_error: bool = True
    #: Containers deeper than this print as ``[]`` / ``{}`` (``MAX_RECURSION``); None: no cap.
    max_depth: int | None = 100
    #: Up to 3.2, -inf and NaN print as C's ``%g`` does (``-inf.0``, ``-nan.0``); later
    #: releases print the words ``inf_neg`` and ``nan``.
    printf_specials: bool = False
    #: The empty Dictionary: ``{}`` (Godot 4), ``{\n}`` (3.6), ``{\n\n}`` (3.2).
    empty_dict: str = "{}"
    #: The reader knows ``inf_neg`` and takes inf/inf_neg/nan inside constructors (not 3.2).
    real_words: bool = True
    #: How Array keys compare: "godot4" (lexicographic, then by size) or "godot3" (its
    #: ``OP_LESS``: a is less when b is no shorter and some element of a is not less).
    array_less: str = "godot4"


def _godot4(name: str) -> TextSyntax:
    return TextSyntax(
        engine=f"Godot {name}",
        profile=get_profile(name),
        names=MappingProxyType(GODOT4_NAMES),
        read_names=MappingProxyType(_READ_4),
    )


_46 = _godot4("4.6")
_44 = replace(_46, float_style="%g", minus_identifiers=False)
_43 = replace(_44, string_like_order=False, typed_dictionaries=False, upper_exponent=False)
_41 = replace(_43, base64_bytes=False)
_40 = replace(_41, writes_rid=False)
_36 = TextSyntax(
    engine="Godot 3.6",
    profile=get_profile("3.6"),
    names=MappingProxyType(_NAMES_3),
    read_names=MappingProxyType(_READ_3),
    spaced=True,
    float_style="%g",
    narrow_floats=True,
    writes_rid=False,
    escape_question=True,
    string_like_order=False,
    godot4_values=False,
    typed_dictionaries=False,
    upper_exponent=False,
    minus_identifiers=False,
    base64_bytes=False,
    long_escapes=False,
    lone_surrogate_error=False,
    empty_dict="{\n}",
    array_less="godot3",
)
_32 = replace(
    _36,
    max_depth=None,
    printf_specials=True,
    empty_dict="{\n\n}",
    real_words=False,
    join_surrogates=False,
    read_names=MappingProxyType({k: v for k, v in _READ_3.items() if not k.startswith("Packed")}),
)

_SYNTAX: dict[str, TextSyntax] = {
    "4.6": _46,
    "4.5": replace(_46, engine="Godot 4.5", profile=get_profile("4.5")),
    "4.4": replace(_44, engine="Godot 4.4", profile=get_profile("4.4")),
    "4.3": replace(_43, engine="Godot 4.3", profile=get_profile("4.3")),
    "4.2": replace(_41, engine="Godot 4.2", profile=get_profile("4.2")),
    "4.1": replace(_41, engine="Godot 4.1", profile=get_profile("4.1")),
    "4.0": replace(_40, engine="Godot 4.0", profile=get_profile("4.0")),
    **{
        v: replace(_36, engine=f"Godot {v}", profile=get_profile(v))
        for v in ("3.6", "3.5", "3.4", "3.3")
    },
    **{v: replace(_32, engine=f"Godot {v}", profile=get_profile(v)) for v in ("3.2", "3.1", "3.0")},
}
_SYNTAX["4"] = _SYNTAX["4.6"]
_SYNTAX["3"] = _SYNTAX["3.6"]


def text_syntax(version: str) -> TextSyntax:
    """The syntax of ``version`` ("4", "4.0"-"4.6", "3", "3.0"-"3.6"); ``ValueError`` else."""
    try:
        return _SYNTAX[version]
    except (KeyError, TypeError):
        valid = ", ".join(repr(v) for v in _SYNTAX)
        raise ValueError(
            f"no text syntax for version {version!r}; valid versions: {valid}"
        ) from None
