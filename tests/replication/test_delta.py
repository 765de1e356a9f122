"""Value deltas (``_delta``): codes checked by hand against the wire doc §5.1, which codecs
take part, and that every delta decodes to the new value's quantized form."""

from __future__ import annotations

import enum
import random
from typing import Any

import pytest

from gdvariant.replication import (
    Angle,
    Bool,
    Codec,
    Coord,
    EntityRef,
    Enum,
    Float32,
    Half,
    Int,
    Normal,
    Quant,
    Quat,
    Schema,
    Str,
    UInt,
    VarInt,
    VarUInt,
    Vec2,
    Vec3,
)
from gdvariant.replication._bits import BitReader, Malformed
from gdvariant.replication._delta import DeltaCoder, ScalarDelta, delta_coder
from tests.support.replication_worlds import Mob, random_value

pytestmark = pytest.mark.usefixtures("assembler")  # every test on each packet assembler


def scalar(codec: Codec) -> ScalarDelta:
    part = coder(codec).parts[0]
    assert isinstance(part, ScalarDelta)
    return part


class Letter(enum.Enum):
    A = 1
    B = 2


def coder(codec: Codec) -> DeltaCoder:
    found = delta_coder(codec)
    assert found is not None, codec
    return found


def code(codec: Codec, new: Any, base: Any) -> tuple[int, int]:
    bits, width = codec.encode(new)
    return coder(codec).fragment(bits, width, codec.encode(base)[0])


def test_codes_by_hand() -> None:
    # UInt(9): W = 9, tiers ceil(9k/5) = 2, 4, 6, so offsets 2, 8, 32. 5 -> 4 is d = -1,
    # z = -1 + 2 = 1: a 0 bit, then 1 in 2 bits (LSB first).
    assert code(UInt(9), 4, 5) == (1 << 1, 3)
    # 0 -> 40 is d = 40, past the third tier's -32..31: 1, 1, 1, then the whole value.
    assert code(UInt(9), 40, 0) == (0b111 | 40 << 3, 12)
    # 0 -> 20 is d = 20, in -32..31: 1, 1, 0, then 20 + 32 = 52 in 6 bits.
    assert code(UInt(9), 20, 0) == (0b011 | 52 << 3, 9)
    # 0 -> 3 is d = 3, in -8..7: 1, 0, then 3 + 8 = 11 in 4 bits.
    assert code(UInt(9), 3, 0) == (0b01 | 11 << 2, 6)
    # Modulo 2**W: 511 -> 0 is a step of +1 (z = 3), not -511.
    assert code(UInt(9), 0, 511) == (3 << 1, 3)
    # Angle(8) across ±π: raw 127 -> raw 128 (-128) is +1.
    step = Angle(8).step
    assert code(Angle(8), -128 * step, 127 * step) == (3 << 1, 3)
    # Coord(14, 5): ordinal = value * 32, W = bit_length(max_q) + 1 = 21, tiers 5, 9, 13.
    # 1.0 -> 1.5 is +16, just past the first tier's -16..15: the second, 16 + 256.
    assert scalar(Coord(14, 5)).width == 21
    assert code(Coord(14, 5), 1.5, 1.0) == (0b01 | 272 << 2, 11)
    # Int(8) two's complement (tiers 2, 4, 5): -1 -> 1 is +2, past -2..1: 2 + 8.
    assert code(Int(8), 1, -1) == (0b01 | 10 << 2, 6)
    # Quant(0, 1, 8): levels are ordinals. 0 -> 10 levels up is in the third tier, 10 + 16.
    q = Quant(0.0, 1.0, 8)
    assert code(q, 10 * q.step, 0.0) == (0b011 | 26 << 3, 8)


def test_var_int_codes_by_hand() -> None:
    # 1000 -> 1003: a 0 bit, then VarInt(3) = zigzag 6 in one LEB128 group.
    assert code(VarInt(), 1003, 1000) == (6 << 1, 9)
    # -2**63 -> 2**63 - 1 is a difference past 64 bits: a 1 bit, then the whole value.
    top = (1 << 63) - 1
    bits, width = VarInt().encode(top)
    assert code(VarInt(), top, -(1 << 63)) == (1 | bits << 1, width + 1)


def test_a_var_int_delta_past_the_range_is_malformed() -> None:
    part = coder(VarInt()).parts[0]
    bits = VarInt().encode(5)[0]
    with pytest.raises(Malformed, match="outside VarInt"):
        part.read(BitReader((bits << 1).to_bytes(11, "little")), (1 << 63) - 2)


def test_vectors_code_each_component() -> None:
    vec = Vec3(Coord(10, 2))
    # W = 14, tiers 3, 6, 9 (offset 4 in the first). Components: 0 -> 0.25 (+1, z 5),
    # unchanged (z 4), 0 -> -0.25 (-1, z 3), each a 0 bit and z in 3 bits.
    frag = code(vec, (0.25, 0.0, -0.25), (0.0, 0.0, 0.0))
    assert frag == ((5 << 1) | (4 << 1) << 4 | (3 << 1) << 8, 12)


@pytest.mark.parametrize(
    "codec",
    [
        Bool(),
        UInt(3),  # narrower than 4 bits: a prefix would not pay
        UInt(40),  # wider than 32 bits
        Enum(Letter),
        EntityRef(10),
        Str(4),
        VarUInt(),
        Half(),
        Float32(),
        Normal(10),
        Quat(9),
        Quant(1e20, 1e20 + 1e6, 30),  # float64 cannot tell its levels apart
        Vec3(Coord(20, 5)),  # float32 components would round the value
        Vec2(Angle(24)),
        Vec2(Half()),
    ],
    ids=repr,
)
def test_codecs_sent_whole(codec: Codec) -> None:
    assert delta_coder(codec) is None


def delta_codecs() -> list[Codec]:
    """The test world's delta-coded codecs, and a scalar Coord (it has only vectors)."""
    schema = Schema.build([Mob])
    found = [p.codec for p in schema.flat(Mob) if delta_coder(p.codec) is not None]
    return [*found, Coord(11, 3)]


def test_the_test_world_has_every_kind() -> None:
    kinds = {type(c).__name__ for c in delta_codecs()}
    assert {"UInt", "Int", "VarInt", "Quant", "Coord", "Angle", "Vec2", "Vec3", "Vec4"} <= kinds


@pytest.mark.parametrize("codec", delta_codecs(), ids=repr)
def test_every_delta_decodes_to_the_quantized_value(codec: Codec) -> None:
    rng = random.Random(13)
    dc = coder(codec)
    for _ in range(300):
        base, new = random_value(codec, rng), random_value(codec, rng)
        if rng.random() < 0.5 and dc.vector is None and not isinstance(codec, Coord):
            new = base  # unchanged: z = 0
        frag, width = dc.fragment(*codec.encode(new), codec.encode(base)[0])
        reader = BitReader(frag.to_bytes((width + 7) // 8 + 1, "little"))
        got = dc.read(reader, codec.quantize(base))
        assert reader.pos == width
        assert got == codec.quantize(new)


def test_ordinals_are_recovered_exactly_from_every_value() -> None:
    for codec in (Quant(-3.0, 7.5, 12), Angle(12), Angle(10, degrees=True)):
        part = scalar(codec)
        for o in range(part.mask + 1):
            assert part.value_ordinal(codec.decode(BitReader(o.to_bytes(8, "little")))) == o
    coord = Coord(6, 5)
    part = scalar(coord)
    for o in range(-coord.max_q, coord.max_q + 1):
        assert part.value_ordinal(coord.quantize(o / coord.scale)) == o


def test_a_coord_delta_past_the_range_is_malformed() -> None:
    part = scalar(Coord(2, 1))  # max_q = 9: values up to 4.5; W = 5, tiers 1, 2, 3
    # 1, 0, then +1 as 1 + 2 = 3 in 2 bits, from 4.5: ordinal 10 > 9.
    reader = BitReader((0b01 | 3 << 2).to_bytes(2, "little"))
    with pytest.raises(Malformed, match="outside Coord"):
        part.read(reader, 4.5)
