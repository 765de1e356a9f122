"""Property codecs: exact inverses, stated error bounds, hand-checked bit layouts."""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gdvariant import EncodeError, Quaternion, Vector2, Vector3
from gdvariant.replication import (
    Angle,
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    Coord,
    EntityRef,
    Enum,
    Float32,
    Float64,
    Half,
    Int,
    Normal,
    Quant,
    Quat,
    Str,
    UInt,
    Variant,
    VarInt,
    VarUInt,
    Vec2,
    Vec3,
    Vec4,
    codec_from_description,
)
from gdvariant.replication._bits import BitReader, Malformed, Truncated
from tests.support.hostile_values import hostile_value, outcome


class Color(enum.Enum):
    RED = "r"
    GREEN = "g"
    BLUE = "b"


def at_offset(codec: Codec, value: Any, skew: int) -> Any:
    """Encode ``value`` after ``skew`` junk bits and decode it from there (LSB-first)."""
    bits, width = codec.encode(value)
    acc = (1 << skew) - 1 | bits << skew  # the junk bits are ones
    data = acc.to_bytes((skew + width + 7) // 8, "little")
    reader = BitReader(data)
    reader.read(skew)
    out = codec.decode(reader)
    assert reader.pos == skew + width
    return out


def same(a: Any, b: Any) -> bool:
    """Equality that treats NaN as equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


finite = st.floats(allow_nan=False, allow_infinity=False)
# Any text a Godot String holds: no NUL (a Str keeps a leading BOM, which the generated decoder
# restores: wire doc §5).
any_text = st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]))
# Text Godot's bytes_to_var gives back as written: it drops a leading BOM (spec godot4.md).
godot_text = any_text.filter(lambda t: not t.startswith("\ufeff"))
unit_vectors = st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1)).filter(
    lambda v: sum(c * c for c in v) > 1e-6
)

CASES: list[tuple[Codec, st.SearchStrategy[Any]]] = [
    (Bool(), st.booleans()),
    (UInt(1), st.integers(0, 1)),
    (UInt(11), st.integers(0, 2047)),
    (UInt(64), st.integers(0, 2**64 - 1)),
    (Int(8), st.integers(-128, 127)),
    (Int(64, zigzag=True), st.integers(-(2**63), 2**63 - 1)),
    (Int(13, zigzag=True), st.integers(-4096, 4095)),
    (VarUInt(), st.integers(0, 2**64 - 1)),
    (VarInt(), st.integers(-(2**63), 2**63 - 1)),
    (Quant(-100.0, 100.0, 16), st.floats(-100, 100)),
    (Quant(0.0, 1.0, 1), st.floats(0, 1)),
    (Quant(-3.0, 7.5, 32), st.floats(-3, 7.5)),
    (Quant(0.0, 180.0, 8, clamp=True), finite),  # clamps outside the range
    (Coord(), st.floats(-16384.96875, 16384.96875)),
    (Coord(6, 2, clamp=True), finite),
    (Coord(11, 3), st.floats(-2048.875, 2048.875)),
    (Coord(4, 0), st.floats(-16, 16)),
    (Angle(13), st.floats(-1e4, 1e4)),
    (Angle(8, degrees=True), st.floats(-1e4, 1e4)),
    (Normal(11), unit_vectors),
    (Normal(5), unit_vectors),
    (Quat(10), st.tuples(*[st.floats(-1, 1)] * 4).filter(lambda q: sum(c * c for c in q) > 1e-6)),
    (Half(), st.floats(-65504, 65504)),
    (Float32(), st.floats(width=64, min_value=-3.4e38, max_value=3.4e38)),
    (Float64(), st.floats()),
    (Vec3(Quant(-2048.0, 2048.0, 16)), st.tuples(*[st.floats(-2048, 2048)] * 3)),
    (Vec3(Coord()), st.tuples(*[st.floats(-16000, 16000)] * 3)),
    (Vec2(Half()), st.tuples(*[st.floats(-60000, 60000)] * 2)),
    (Vec3(Float64()), st.tuples(*[st.floats(-1e30, 1e30)] * 3)),
    (Str(32), any_text.filter(lambda t: len(t.encode()) <= 32)),
    (Bytes(40), st.binary(max_size=40)),
    (Enum(Color), st.sampled_from(list(Color))),
    (EntityRef(12), st.none() | st.integers(0, 4094)),
    (
        Variant(256),
        st.none() | st.integers(-(2**63), 2**63 - 1) | godot_text.filter(lambda t: len(t) <= 20),
    ),
    (ArrayOf(UInt(9), 16), st.lists(st.integers(0, 511), max_size=16).map(tuple)),
    (ArrayOf(Quant(-1.0, 1.0, 10), 4), st.lists(st.floats(-1, 1), max_size=4).map(tuple)),
]


@pytest.mark.slow
@pytest.mark.parametrize(("codec", "values"), CASES, ids=[repr(c) for c, _ in CASES])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_decode_of_encode_is_quantize_within_the_bound(
    codec: Codec, values: st.SearchStrategy[Any], data: st.DataObject
) -> None:
    value = data.draw(values)
    skew = data.draw(st.integers(0, 15))
    seen = codec.quantize(value)
    assert same(at_offset(codec, value, skew), seen)
    assert codec.distance(value, seen) <= codec.error_bound(value)
    bits, width = codec.encode(value)
    assert bits < 1 << width
    if codec.max_bits is not None:
        assert width <= codec.max_bits
    if codec.width is not None:
        assert width == codec.width


@pytest.mark.parametrize(("codec", "values"), CASES, ids=[repr(c) for c, _ in CASES])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_quantize_is_stable(
    codec: Codec, values: st.SearchStrategy[Any], data: st.DataObject
) -> None:
    """What the client sees encodes to the same bits again (a server simulating with
    quantized values sends nothing new), except octahedral/quaternion rounding, which
    may step to a neighbour code but stays within the bound."""
    seen = codec.quantize(data.draw(values))
    again = codec.quantize(seen)
    if isinstance(codec, Normal | Quat):
        assert codec.distance(seen, again) <= codec.error_bound(seen)
    else:
        assert same(again, seen)


@pytest.mark.parametrize(("codec", "_values"), CASES, ids=[repr(c) for c, _ in CASES])
def test_description_round_trip(codec: Codec, _values: Any) -> None:
    rebuilt = codec_from_description(codec.describe())
    if isinstance(codec, Enum):
        assert rebuilt.describe() == codec.describe()
    else:
        assert rebuilt == codec


def test_quant_grid_by_hand() -> None:
    q = Quant(-1.0, 1.0, 2, clamp=True)  # 4 points: -1, -1/3, 1/3, 1; step 2/3
    assert [q.encode(v)[0] for v in (-1.0, -0.67, -0.66, 0.0, 0.34, 1.0, 5.0, -5.0)] == [
        0,
        0,
        1,
        2,  # 0.0 is exactly half-way: floor(1.5 + 0.5) = 2
        2,
        3,
        3,
        0,
    ]
    assert q.quantize(0.2) == -1.0 + 2 * (2.0 / 3.0)
    assert q.error_bound(0.0) == pytest.approx(1 / 3)
    with pytest.raises(EncodeError):
        Quant(-1.0, 1.0, 4).encode(1.5)
    with pytest.raises(EncodeError):
        q.encode(math.nan)


def test_coord_bits_by_hand() -> None:
    c = Coord(14, 5)
    assert c.encode(0.0) == (0b00, 2)
    # 1.5: has-int, has-frac, sign 0, int-1 = 0 in 14 bits, frac 16 in 5 bits
    assert c.encode(1.5) == (0b011 | 0 << 3 | 16 << 17, 22)
    # -0.25: frac only, sign 1, frac 8
    assert c.encode(-0.25) == (0b110 | 8 << 3, 8)
    # 3.0: int only: int-1 = 2
    assert c.encode(3.0) == (0b001 | 2 << 3, 17)
    assert c.quantize(0.01) == 0.0
    assert c.quantize(-(16384 + 31 / 32)) == -(16384 + 31 / 32)
    assert Coord(14, 5, clamp=True).quantize(1e9) == 16384 + 31 / 32


def test_angle_wraps_into_the_signed_range() -> None:
    a = Angle(8, degrees=True)  # step 360/256
    assert a.quantize(360.0) == 0.0
    assert a.quantize(180.0) == -180.0
    assert a.quantize(-90.0) == -90.0
    assert a.distance(179.9, -180.0) == pytest.approx(0.1)


def test_normal_axes_are_exact() -> None:
    n = Normal(8)
    for axis in [(1, 0, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]:
        assert n.quantize(axis) == Vector3(*axis)
    with pytest.raises(EncodeError):
        n.encode((0.0, 0.0, 0.0))


def test_normal_bound_holds_on_a_dense_sphere() -> None:
    n = Normal(6)
    worst = 0.0
    steps = 60
    for i in range(steps + 1):
        theta = math.pi * i / steps
        for j in range(2 * steps):
            phi = math.pi * j / steps
            v = (math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta))
            worst = max(worst, n.distance(v, n.quantize(v)))
    assert worst <= n.error_bound((0, 0, 1))


def test_quat_picks_the_largest_and_keeps_rotation() -> None:
    q = Quat(10)
    assert q.quantize((0.0, 0.0, 0.0, 1.0)) == Quaternion(0.0, 0.0, 0.0, 1.0)
    assert q.quantize((0.0, 0.0, 0.0, -1.0)) == Quaternion(0.0, 0.0, 0.0, 1.0)
    bits, width = q.encode((0.0, 1.0, 0.0, 0.0))
    assert width == 32 and bits & 3 == 1


def test_vector_components_are_float32() -> None:
    v = Vec3(Quant(0.0, 1.0, 16)).quantize((0.1, 0.2, 0.3))
    for c in v:
        assert Float32().quantize(c) == c
    assert Vec2(Float64()).quantize((0.1, math.inf)) == Vector2(0.10000000149011612, math.inf)
    largest = float.fromhex("0x1.fffffep127")  # float32's largest finite value
    assert Vec2(Float64()).quantize((0.1, 3.4028235e38)) == Vector2(0.10000000149011612, largest)


def test_ieee_infinities_and_nan_are_values() -> None:
    assert Half().quantize(math.inf) == math.inf
    assert Float32().quantize(-math.inf) == -math.inf
    assert math.isnan(Half().quantize(math.nan))
    assert Half().quantize(65519.0) == 65504.0  # rounds to the largest half, not to infinity


# Past the range, every codec raises (wire doc §6); only clamp=True clamps.
OUT_OF_RANGE: list[tuple[Codec, Any]] = [
    (UInt(8), 256),
    (Int(8), -129),
    (VarUInt(), 2**64),
    (EntityRef(4), 15),
    (Quant(0.0, 1.0, 8), 1.0000001),
    (Quant(0.0, 1.0, 8), -0.5),
    (Coord(), 1e9),
    (Coord(), -16385.0),
    (Coord(4, 0), 16.5),
    (Half(), 65520.0),
    (Half(), -1e6),
    (Float32(), 3.5e38),
    (Float64(), 10**400),
    (Vec3(Coord()), (0.0, 1e9, 0.0)),
    (Vec2(Half()), (1e6, 0.0)),
    (Vec2(Float64()), (0.1, 1e300)),
    (Vec3(Quant(-1e307, 1e307, 20)), (0.0, 0.0, 1e300)),
    (Str(4), "héllo"),
    (ArrayOf(UInt(2), 2), (1, 2, 3)),
]


@pytest.mark.parametrize(("codec", "value"), OUT_OF_RANGE, ids=[repr(c) for c, _ in OUT_OF_RANGE])
def test_values_past_the_range_are_encode_errors(codec: Codec, value: Any) -> None:
    with pytest.raises(EncodeError, match=r"range|fit"):
        codec.encode(value)
    with pytest.raises(EncodeError):
        codec.quantize(value)


def test_clamping_is_asked_for() -> None:
    assert Quant(0.0, 1.0, 8).clamp is False and Coord().clamp is False
    assert Quant(0.0, 1.0, 8, clamp=True).quantize(7.0) == 1.0
    assert Quant(0.0, 1.0, 8, clamp=True).quantize(-7.0) == 0.0
    assert Coord(4, 0, clamp=True).quantize(-1e300) == -16.0
    assert Vec3(Coord(clamp=True)).quantize((1e9, 0.0, 0.0))[0] == 16384 + 31 / 32
    assert Coord(clamp=True).describe() == ["Coord", 14, 5, True]
    assert codec_from_description(["Coord", 14, 5]) == Coord()  # a description from before


@pytest.mark.parametrize(
    ("codec", "value"),
    [
        (UInt(8), 256),
        (UInt(8), -1),
        (UInt(8), 1.5),
        (Int(8), 128),
        (Int(8, zigzag=True), -129),
        (VarUInt(), -1),
        (VarInt(), 2**63),
        (Bool(), "yes"),
        (Str(4), "héllo"),
        (Str(4), "a\x00b"),
        (Str(4), b"x"),
        (Bytes(2), b"abc"),
        (Enum(Color), "purple"),
        (EntityRef(4), 15),
        (ArrayOf(UInt(2), 2), (1, 2, 3)),
        (ArrayOf(UInt(2), 2), "ab"),
        (Vec3(Coord()), (1.0, 2.0)),
        (Variant(8), "a string that is too long"),
        (Quat(), (0, 0, 0, 0)),
    ],
)
def test_values_outside_the_domain_are_encode_errors(codec: Codec, value: Any) -> None:
    with pytest.raises(EncodeError):
        codec.encode(value)


def test_varuint_groups_by_hand() -> None:
    assert VarUInt().encode(0) == (0, 8)
    assert VarUInt().encode(300) == (0xAC | 0x02 << 8, 16)  # protobuf's own example
    assert VarInt().encode(-1) == (1, 8)


def test_entity_ref_takes_entities() -> None:
    class Ent:
        net_id = 41

    assert EntityRef().encode(Ent()) == (42, 16)
    assert EntityRef().quantize(None) is None


@pytest.mark.parametrize(
    ("codec", "data"),
    [
        (Str(4), bytes([0b111])),  # length 7 > 4
        (Str(300), (2 | 0xFF << 9 | 0xFF << 17).to_bytes(4, "little")),  # invalid UTF-8
        (Enum(Color), bytes([3])),  # 2-bit position 3 of 3 members
        (VarUInt(), b"\xff" * 11),
        (VarUInt(), b"\xff" * 9 + b"\x7f"),  # above 2**64
        (ArrayOf(UInt(1), 2), bytes([3])),
        (Variant(16), bytes([4 << 0, 0x63, 0, 0, 0])),  # 4 bytes, type 99
    ],
)
def test_impossible_wire_values_are_malformed(codec: Codec, data: bytes) -> None:
    with pytest.raises(Malformed):
        codec.decode(BitReader(data))


@pytest.mark.parametrize("codec", [UInt(9), Str(8), Float64(), Coord(), VarUInt()])
def test_short_input_is_truncated(codec: Codec) -> None:
    bits, width = codec.encode(codec.default() if not isinstance(codec, Str) else "abc")
    full = bits.to_bytes((width + 7) // 8, "little")
    reader = BitReader(full[:-1])
    with pytest.raises(Truncated):
        codec.decode(reader)


def test_bad_codec_parameters() -> None:
    for make in (
        lambda: UInt(0),
        lambda: Int(65),
        lambda: Quant(1.0, 1.0, 8),
        lambda: Quant(0.0, 1.0, 33),
        lambda: Quant(0.0, 5e-324, 32),  # the step underflows to 0: every encode would divide by it
        lambda: Quant(-1e308, 1e308, 8),  # the range overflows: an infinite step
        lambda: Coord(25, 5),
        lambda: Angle(1),
        lambda: Normal(2),
        lambda: Quat(17),
        lambda: Str(0),
        lambda: EntityRef(1),
        lambda: Variant(2),
        lambda: ArrayOf(Bool(), 0),
        lambda: Vec3(UInt(3)),
    ):
        with pytest.raises(ValueError):
            make()


def test_description_errors() -> None:
    for desc in ([], ["Nope"], [3], ["UInt"]):
        with pytest.raises((ValueError, TypeError)):
            codec_from_description(desc)


# The fast paths of the codecs a property write takes most (a float vector, a float, an int)
# against each codec's checked path, the reference: identical bits and identical errors.
FAST_PATHS: list[Codec] = [
    *(vec(comp) for vec in (Vec2, Vec3, Vec4) for comp in (Half(), Float32(), Float64())),
    Half(),
    Float32(),
    Float64(),
    *(Int(bits, zigzag) for bits in (2, 7, 32, 63, 64) for zigzag in (False, True)),
    *(UInt(bits) for bits in (1, 8, 32, 63, 64)),
]


@pytest.mark.parametrize("codec", FAST_PATHS, ids=repr)
def test_the_fast_path_gives_the_checked_paths_bits_and_errors(codec: Any) -> None:
    rng = random.Random(repr(codec))
    values = [hostile_value(codec, rng) for _ in range(2500)]
    for value in values:
        assert outcome(codec.encode, value) == outcome(codec.encode_checked, value), value


def test_a_plain_vector_is_packed_without_its_component_codec(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Vector2 of floats (what nearly every write of a position is) is packed at once;
    a value the fast path cannot take still goes through the component codec."""
    codec = Vec2(Float32())
    calls: list[Any] = []

    def spy(value: Any) -> tuple[int, int]:
        calls.append(value)
        return 0, 32

    monkeypatch.setattr(codec.component, "encode", spy)
    assert codec.encode(Vector2(1.5, -2.0)) == (0xC0000000_3FC00000, 64)
    assert calls == []
    codec.encode((1.5, -2.0))
    assert calls == [1.5, -2.0]


def test_a_tuple_or_list_vector_does_not_ask_the_sequence_abc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A position written as a tuple or a list (the benchmark's writes) is taken as a
    sequence without ``isinstance(value, Sequence)``: CPython never caches that answer for
    ``tuple`` (registered with the ABC), so each write ran two Python methods of the ABC.
    Any other value still asks it, and gets the same bits and errors as before."""
    from gdvariant.replication import _float_codecs

    asked: list[type] = []

    class Spy(type):
        def __instancecheck__(cls, value: Any) -> bool:
            asked.append(type(value))
            return isinstance(value, Sequence)

    monkeypatch.setattr(_float_codecs, "Sequence", Spy("Sequence", (), {}))
    codec = Vec2(Coord(10, 4))
    (x, nx), (y, ny) = Coord(10, 4).encode(1.5), Coord(10, 4).encode(-2.0)
    expected = (x | y << nx, nx + ny)  # the components' bits, the first lowest
    assert codec.encode((1.5, -2.0)) == codec.encode([1.5, -2.0]) == expected
    assert asked == []
    assert codec.encode(Vector2(1.5, -2.0)) == expected
    assert asked == [Vector2]
    for bad in ((1.5,), [1.5, 2.0, 3.0], "ab", b"ab", 1.5):
        with pytest.raises(EncodeError, match="needs 2 components"):
            codec.encode(bad)
