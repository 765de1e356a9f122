"""A replication schema with every codec, and random values for it (tests and fuzzing)."""

from __future__ import annotations

import enum
import random
from typing import Any

from gdvariant.replication import (
    Angle,
    Array,
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    Coord,
    Embed,
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
    SAD = 9


class Secret(NetClass, abstract=True):
    gold = UInt(10)
    note = Str(6)


class Mob(NetClass, table="DT_Mob"):
    origin = Prop(Vec3(Coord(11, 3, clamp=True)), hot=True)  # values past it are clamped
    hp = Prop(UInt(7), hot=True)
    flag = Bool()
    small = Int(6)
    zig = Int(9, zigzag=True)
    count = VarUInt()
    delta = VarInt()
    ratio = Quant(-1.0, 1.0, 10, clamp=True)
    turn = Angle(9)
    yaw = Angle(8, degrees=True)
    facing = Normal(8)
    spin = Quat(8)
    speed = Half()
    mass = Float32()
    exact = Float64()
    flat = Vec2(Quant(0.0, 8.0, 6))
    color = Vec4(Quant(0.0, 1.0, 8))
    label = Str(9)
    blob = Bytes(4)
    mood = Enum(Mood)
    target = EntityRef(8)
    extra = Variant(48)
    path = Array(UInt(3), max_len=5)
    slots = Array(UInt(4), size=3, per_element=True)
    big = UInt(40)
    wide = Int(40)
    mine = Embed(Secret, audience="owner")


class Crate(NetClass, table="DT_Crate"):
    weight = UInt(5)
    tag = Str(3)


def within(codec: Codec, x: float) -> float:
    """``x`` brought into the range of a Quant or Coord that does not clamp (any other
    codec's values as they are): an out-of-range value is an EncodeError there."""
    if isinstance(codec, Quant) and not codec.clamp:
        return min(max(x, codec.low), codec.high)
    if isinstance(codec, Coord) and not codec.clamp:
        return min(max(x, -codec.magnitude), codec.magnitude)
    return x


def random_value(codec: Codec, rng: random.Random) -> Any:
    """A value inside ``codec``'s domain (past the range of one that clamps)."""
    simple: dict[type, Any] = {
        Bool: lambda c: rng.random() < 0.5,
        UInt: lambda c: rng.randrange(1 << c.bits),
        Int: lambda c: rng.randrange(-(1 << (c.bits - 1)), 1 << (c.bits - 1)),
        VarUInt: lambda c: rng.choice([0, 1, 300, 2**40]),
        VarInt: lambda c: rng.choice([0, -1, 300, -(2**50)]),
        Quant: lambda c: within(c, rng.uniform(c.low - 1, c.high + 1)),
        Coord: lambda c: within(c, rng.uniform(-3000, 3000)),
        Angle: lambda c: rng.uniform(-10, 10),
        Normal: lambda c: (rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.1, 1)),
        Quat: lambda c: (*(rng.uniform(-1, 1) for _ in range(3)), 0.9),
        Half: lambda c: rng.uniform(-100, 100),
        Float32: lambda c: rng.uniform(-1e6, 1e6),
        Float64: lambda c: rng.uniform(-1e300, 1e300),
        Str: lambda c: rng.choice(
            [t for t in ("", "a", "hé", "xyz") if len(t.encode()) <= c.max_len]
        ),
        Bytes: lambda c: bytes(rng.randrange(256) for _ in range(rng.randrange(c.max_len + 1))),
        Enum: lambda c: rng.choice(c.members),
        EntityRef: lambda c: rng.choice([None, rng.randrange(100)]),
        Variant: lambda c: rng.choice([None, 5, "s", [1, 2.5], {"k": True}]),
    }
    if type(codec) in simple:
        return simple[type(codec)](codec)
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return tuple(random_value(codec.component, rng) for _ in range(codec.count))
    assert isinstance(codec, ArrayOf)
    return tuple(random_value(codec.element, rng) for _ in range(rng.randrange(codec.max_len + 1)))


def set_path(ent: Any, path: str, value: Any) -> None:
    *head, last = path.split(".")
    obj = ent
    for part in head:
        obj = getattr(obj, part)
    if "[" in last:
        name, index = last[:-1].split("[")
        getattr(obj, name)[int(index)] = value
    else:
        setattr(obj, last, value)
