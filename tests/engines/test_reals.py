"""Reals are read at the build's width (``gdvariant._engines.reals``), on both cores.

A single-precision Godot 4 build holds a math type's components and a packed vector's elements
as float32, whatever width the bytes carry: a flagged double is rounded as a C cast rounds it
(1e300 becomes inf; engine-checked with Godot 4.6 in ``tests/live/codec/test_godot4.py``). A
double build holds doubles, also when the bytes carry floats. Decoding to what the engine holds
is what lets every value the decoder accepts be written back by the same release.
"""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import VariantType as T

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

FLAG_64 = 1 << 16
SINGLE = [f"4.{minor}" for minor in range(7)]
#: (double, the float32 a C cast makes of it)
ROUNDED = [
    (1e300, math.inf),
    (-1e300, -math.inf),
    (0.1, 0.10000000149011612),
    (3.4028235677973366e38, math.inf),  # half-way past float32's largest: rounds up
    (3.4028235e38, 3.4028234663852886e38),  # just below it: rounds to the largest
    (1e-50, 0.0),
    (-1e-50, -0.0),
    (2.5, 2.5),
]
#: Every real math type of Godot 4 and its number of components.
REAL_MATH = {
    T.VECTOR2: 2,
    T.RECT2: 4,
    T.VECTOR3: 3,
    T.TRANSFORM2D: 6,
    T.VECTOR4: 4,
    T.PLANE: 4,
    T.QUATERNION: 4,
    T.AABB: 6,
    T.BASIS: 9,
    T.TRANSFORM3D: 12,
    T.PROJECTION: 16,
}


def _components(n: int, shift: int = 0) -> list[tuple[float, float]]:
    return [ROUNDED[(i + shift) % len(ROUNDED)] for i in range(n)]


def _f32_bits(x: float) -> bytes:
    """float32 bytes of a value that is one already (infinities included)."""
    return struct.pack("<f", x)


@pytest.mark.parametrize("version", SINGLE)
@pytest.mark.parametrize("vtype", list(REAL_MATH), ids=lambda t: t.name)
def test_a_single_build_holds_flagged_doubles_as_float32(version: str, vtype: T) -> None:
    pairs = _components(REAL_MATH[vtype], shift=int(vtype))
    wide = struct.pack("<I", vtype | FLAG_64) + struct.pack(
        f"<{len(pairs)}d", *(d for d, _ in pairs)
    )
    narrow = struct.pack("<I", vtype) + b"".join(_f32_bits(f) for _, f in pairs)
    value = gd.loads(wide, version=version)
    assert value == gd.loads(narrow, version=version)  # what the engine holds
    assert gd.dumps(value, version=version) == narrow  # and writes back (it used to refuse)


@pytest.mark.parametrize("version", SINGLE)
@pytest.mark.parametrize("vtype", list(REAL_MATH), ids=lambda t: t.name)
def test_a_double_build_keeps_them(version: str, vtype: T) -> None:
    doubles = [d for d, _ in _components(REAL_MATH[vtype], shift=int(vtype))]
    wide = struct.pack("<I", vtype | FLAG_64) + struct.pack(f"<{len(doubles)}d", *doubles)
    if version in ("4.0", "4.1") and vtype in (T.VECTOR4, T.PROJECTION):
        wide = struct.pack("<I", vtype) + wide[4:]  # 4.0/4.1 write these two unflagged
    value = gd.loads(wide, version=version, double=True)
    assert gd.dumps(value, version=version, double=True) == wide


def test_the_known_case_a_vector3_of_1e300() -> None:
    data = struct.pack("<I3d", T.VECTOR3 | FLAG_64, 1e300, 0.1, -1e300)
    value = gd.loads(data)
    assert value == gd.Vector3(math.inf, 0.10000000149011612, -math.inf)
    assert gd.dumps(value) == bytes.fromhex("090000000000807fcdcccc3d000080ff")  # Godot 4.6's
    assert gd.loads(data, double=True) == gd.Vector3(1e300, 0.1, -1e300)


def test_a_nan_keeps_what_a_cast_keeps() -> None:
    payload = struct.pack("<Q", 0x7FF8000000000123)  # a quiet NaN whose payload float32 lacks
    data = struct.pack("<I", T.VECTOR2 | FLAG_64) + payload + struct.pack("<d", 1)
    value = gd.loads(data)
    assert math.isnan(value.x) and value.y == 1
    assert gd.dumps(value) == bytes.fromhex("050000000000c07f0000803f")  # as Godot 4.6 writes it


_PACKED = [
    (T.PACKED_VECTOR2_ARRAY, gd.PackedVector2Array, gd.PackedVector2Array64, 2),
    (T.PACKED_VECTOR3_ARRAY, gd.PackedVector3Array, gd.PackedVector3Array64, 3),
    (T.PACKED_VECTOR4_ARRAY, gd.PackedVector4Array, gd.PackedVector4Array64, 4),
]


@pytest.mark.parametrize(("vtype", "narrow", "wide", "width"), _PACKED, ids=lambda x: str(x))
@pytest.mark.parametrize("views", [False, True])
def test_packed_vectors_are_held_at_the_builds_width(
    vtype: T, narrow: type[Any], wide: type[Any], width: int, views: bool
) -> None:
    pairs = _components(2 * width)
    doubles = struct.pack(f"<{2 * width}d", *(d for d, _ in pairs))
    floats = b"".join(_f32_bits(f) for _, f in pairs)
    flagged = struct.pack("<II", vtype | FLAG_64, 2) + doubles
    plain = struct.pack("<II", vtype, 2) + floats
    # A single build: the doubles rounded, and written back as its own 32-bit array.
    value = gd.loads(flagged, packed_views=views)
    assert type(value) is narrow and bytes(value) == floats  # a copy even with views
    assert gd.dumps(value) == plain
    # A double build: the floats widened exactly, and written back flagged.
    value = gd.loads(plain, double=True, packed_views=views)
    assert type(value) is wide
    assert value == wide.frombuffer(struct.pack(f"<{2 * width}d", *(f for _, f in pairs)))
    assert gd.loads(gd.dumps(value, double=True), double=True) == value
    # Either build at its own width: views of the input, no conversion.
    assert gd.dumps(gd.loads(flagged, double=True, packed_views=views), double=True) == flagged
    if views:
        assert type(gd.loads(plain, packed_views=True)) is gd.PackedView


def test_containers_hold_rounded_reals_too() -> None:
    element = struct.pack("<I3d", T.VECTOR3 | FLAG_64, 1e300, 0.1, 1)
    typed = struct.pack("<III", T.ARRAY | 1 << 16, T.VECTOR3, 1) + element
    value = gd.loads(typed)
    assert list(value) == [gd.Vector3(math.inf, 0.10000000149011612, 1)]
    assert gd.loads(gd.dumps(value)) == value
    # Two keys that a single build holds as one: the engine keeps one entry, we keep both pairs
    # (the class dictionary_keeps_duplicate_keys), and write both back.
    keys = [struct.pack("<I2d", T.VECTOR2 | FLAG_64, 0.1, x) for x in (1.0, 1.00000001)]
    data = struct.pack("<II", T.DICTIONARY, 2) + b"".join(
        k + struct.pack("<Ii", 2, 5) for k in keys
    )
    value = gd.loads(data)
    assert len(value) == 2 and gd.loads(gd.dumps(value)) == value


def test_pre_godot4_engines_read_math_types_as_float32_whatever_the_flag() -> None:
    data = struct.pack("<I3f", 7 | FLAG_64, 1, 0.5, 2)  # Godot 3's Vector3 is type 7
    for version in ("3.6", "pandemonium-g1"):
        wire = gd.get_profile(version).wire_ids[T.VECTOR3]
        blob = struct.pack("<I", wire | FLAG_64) + data[4:]
        assert gd.loads(blob, version=version) == gd.Vector3(1, 0.5, 2)


def test_a_double_builds_typed_containers_convert_at_its_width() -> None:
    # Array[PackedVector3Array] holding an Array of Vector3: converted to a 64-bit array on a
    # double build, a 32-bit one on a single build, so it reads back as it was.
    inner = struct.pack("<II", T.ARRAY, 1) + struct.pack("<I3d", T.VECTOR3 | FLAG_64, 0.1, 2, 3)
    data = struct.pack("<III", T.ARRAY | 1 << 16, T.PACKED_VECTOR3_ARRAY, 1) + inner
    double = gd.loads(data, double=True)
    assert list(double) == [gd.PackedVector3Array64([(0.1, 2, 3)])]
    assert gd.loads(gd.dumps(double, double=True), double=True) == double
    single = gd.loads(data)
    assert list(single) == [gd.PackedVector3Array([(0.1, 2, 3)])]
    # Array[Vector3] holding a Vector3i: float32 loses 2**24 + 1, a double keeps it.
    big = struct.pack("<III", T.ARRAY | 1 << 16, T.VECTOR3, 1) + struct.pack(
        "<I3i", T.VECTOR3I, 2**24 + 1, 0, 0
    )
    assert list(gd.loads(big, double=True)) == [gd.Vector3(2**24 + 1, 0, 0)]
    assert list(gd.loads(big)) == [gd.Vector3(2**24, 0, 0)]
