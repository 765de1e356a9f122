"""The value checks of a client's synchronizer (gdvariant.multiplayer._owned): a value of the
property's Variant type is kept, one Godot 4.6 converts when a sync sets a typed property is
converted as the engine converted it (tests/live/multiplayer/test_owned_types.py asks the
engine the same questions), everything else and anything outside the codec is refused. What
a refused packet does to a server is in tests/multiplayer/test_replicator.py."""

from __future__ import annotations

import enum
import math
from typing import Any

import pytest

from gdvariant import (
    NodePath,
    Quaternion,
    StringName,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)
from gdvariant.multiplayer import SpawnableScene, synced_class
from gdvariant.multiplayer._owned import value_check
from gdvariant.multiplayer.wire import ProtocolError
from gdvariant.replication import (
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    EntityRef,
    Enum,
    Float32,
    Float64,
    Half,
    Int,
    NetClass,
    Normal,
    Prop,
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
)


class Mood(enum.Enum):
    CALM = 3
    ANGRY = 7


#: (codec, value sent, value kept): the type's own values, and Godot's conversions as the
#: engine made them (int(2.9) is 2, int(-2.9) -2, float(true) 1.0, bool(2) true...)
KEPT: list[tuple[Codec, Any, Any]] = [
    (Bool(), True, True),
    (Bool(), 0, False),
    (Bool(), 2, True),
    (Bool(), 0.5, True),
    (Int(32), 7, 7),
    (Int(32), 2.9, 2),
    (Int(32), -2.9, -2),
    (Int(32), True, 1),
    (VarInt(), -(1 << 63), -(1 << 63)),
    (UInt(8), 255, 255),
    (UInt(64), -1, -1),  # 2**64 - 1, as a GDScript int holds it
    (VarUInt(), -1, -1),
    (Enum(Mood), 7, 7),
    (EntityRef(8), None, None),
    (EntityRef(8), 3, 3),
    (Float32(), 2.5, 2.5),
    (Float32(), 3, 3.0),
    (Float64(), True, 1.0),
    (Float64(), math.inf, math.inf),
    (Quant(0.0, 10.0, 8), 10, 10.0),
    (Vec2(Float32()), Vector2(1, 2), Vector2(1, 2)),
    (Vec2(Float32()), Vector2i(3, 4), Vector2(3, 4)),
    (Vec3(Float32()), Vector3i(-1, 0, 1), Vector3(-1, 0, 1)),
    (Vec4(Float32()), Vector4i(1, 2, 3, 4), Vector4(1, 2, 3, 4)),
    (Normal(), Vector3(0, 1, 0), Vector3(0, 1, 0)),
    (Quat(), Quaternion(0, 0, 0, 1), Quaternion(0, 0, 0, 1)),
    (Str(8), "s", "s"),
    (Str(8), StringName("name"), "name"),
    (Str(8), NodePath("a/b"), "a/b"),
    (Bytes(4), b"\x01\x02", b"\x01\x02"),
    (ArrayOf(Int(8), 3), [1, 2.9, True], [1, 2, 1]),
    (Variant(64), {"any": [1, "thing"]}, {"any": [1, "thing"]}),
]


@pytest.mark.parametrize(("codec", "sent", "kept"), KEPT, ids=repr)
def test_values_of_the_type_or_that_godot_converts_are_kept(
    codec: Codec, sent: Any, kept: Any
) -> None:
    out = value_check(codec)(sent)
    assert out == kept and type(out) is type(kept)


#: (codec, value): another type, which Godot's typed set leaves the property as it was, or
#: which no Variant constructor makes the property's type from, or a value past the codec
REFUSED: list[tuple[Codec, Any]] = [
    (Vec2(Float32()), 5),
    (Vec2(Float32()), 1.5),
    (Vec2(Float32()), "1,2"),
    (Vec2(Float32()), [1.0, 2.0]),
    (Vec2(Float32()), Vector3(1, 2, 3)),
    (Vec2(Float32()), None),
    (Vec2(Float32()), Vector2(1e39, 0)),  # no float32 holds it (a precision=double client)
    (Int(32), Vector2(1, 1)),
    (Int(32), None),
    (Int(32), [1]),
    (Int(32), 1e30),  # Godot's int() makes it -2**63
    (Int(32), math.nan),
    (Int(16), 40000),
    (UInt(8), -1),
    (Enum(Mood), 5),
    (EntityRef(8), 255),
    (Float32(), Vector2(1, 1)),
    (Float32(), None),
    (Quant(0.0, 10.0, 8), 10.5),
    (Half(), 1e6),
    (Bool(), ""),
    (Bool(), None),
    (Str(8), 5),
    (Str(8), 1.5),
    (Str(8), None),
    (Str(8), "123456789"),
    (Str(8), "a\x00"),
    (Quat(), Quaternion(0, 0, 0, 0)),
    (Bytes(4), b"12345"),
    (ArrayOf(Int(8), 3), [1, 2, 3, 4]),
    (ArrayOf(Int(8), 3), [1, "a"]),
    (ArrayOf(Int(8), 3), 5),
    (Variant(8), "a long string, past eight bytes"),
]


@pytest.mark.parametrize(("codec", "sent"), REFUSED, ids=repr)
def test_other_types_and_values_past_the_codec_are_refused(codec: Codec, sent: Any) -> None:
    with pytest.raises(ProtocolError) as caught:
        value_check(codec)(sent)
    assert repr(codec) in caught.value.reason


@pytest.mark.parametrize("sent", ["12", "abc", "4.5"])
def test_text_is_no_number_though_godot_parses_it(sent: str) -> None:
    """Godot's int("1a2") is 12 and int("abc") 0: a stock client never sends text for a
    number property, so what would be a guess is refused (docs/multiplayer.md)."""
    for codec in (Int(32), Float64()):
        with pytest.raises(ProtocolError):
            value_check(codec)(sent)


def test_a_refused_value_is_named_briefly() -> None:
    with pytest.raises(ProtocolError) as caught:
        value_check(Int(32))("x" * 10_000)
    assert len(caught.value.reason) < 120


def test_a_scene_whose_owned_class_has_a_codec_no_check_knows_is_refused_at_once() -> None:
    class Odd(Codec):
        name = "Odd"
        width = max_bits = 1

        def default(self) -> int:
            return 0

        def encode(self, value: Any) -> tuple[int, int]:
            return value, 1

        def decode(self, reader: Any) -> int:
            return int(reader.read(1))

    class Input(NetClass):
        odd = Prop(Odd())

    owned = synced_class(Input)
    with pytest.raises(TypeError, match="no check for Odd"):
        SpawnableScene("res://odd.tscn", owned=owned)


def test_a_value_deeper_than_python_recurses_is_named_without_recursing() -> None:
    deep: list[Any] = []
    for _ in range(1024):  # as deep as Godot's decoder goes
        deep = [deep]
    for codec in (Vec2(Float32()), ArrayOf(Int(8), 3)):
        with pytest.raises(ProtocolError, match="list of 1 is no value of"):
            value_check(codec)(deep)
