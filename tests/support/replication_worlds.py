"""The NetClass worlds the replication tests, benchmarks and fuzzers share, declared once.

- :data:`EVERY_CODEC`: :class:`Mob` (every codec, an owner-only table) and :class:`Crate`;
- :data:`ASSEMBLER_CLASSES` (:data:`ASSEMBLER_SCHEMA`): those and the extremes of the packet
  layout, :class:`Big` (more than 64 properties, wide vectors, team and custom audiences) and
  :class:`Forty` (more than 32), for the packet assemblers
  (``tests.support.replication_driver.Driver``);
- :data:`GDSCRIPT_CLASSES` (:func:`gdscript_schema`): :class:`Pawn` (with all of
  :class:`Mover`), :class:`Cargo` and :class:`Grid`, every codec again with the edges the
  generated GDScript decoder must read, for its tests and its live runs in Godot.

Values for them: :func:`random_value` (well inside each codec's domain) and
:func:`edge_value` (at its edges); :func:`within`, :func:`nudge` and :func:`set_path`.
A test keeps a class of its own only where the test is about that class's shape.
"""

from __future__ import annotations

import enum
import math
import random
from typing import Any

from gdvariant import Vector2, Vector3
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
    Schema,
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
    trail = Array(Vec2(Quant(0.0, 10.0, 8)), max_len=4)
    slots = Array(UInt(4), size=3, per_element=True)
    big = UInt(40)
    wide = Int(40)
    mine = Embed(Secret, audience="owner")


class Crate(NetClass, table="DT_Crate"):
    weight = UInt(5)
    tag = Str(3)


#: The classes of every codec.
EVERY_CODEC: list[type[NetClass]] = [Mob, Crate]


# ---------------------------------------------------------------- the assemblers' extremes


class Orders(NetClass, abstract=True):
    plan = Vec2(Quant(-10.0, 10.0, 9))
    orders = Str(12)


class Spy(NetClass, abstract=True):
    cover = UInt(6)


class Big(NetClass, table="DT_Big"):
    """More than 64 properties: masks wider than a machine word; wide vectors and Coords."""

    pos = Vec3(Coord(20, 3))  # up to 3 x 26 bits
    far = Vec3(Coord(14, 5))  # up to 66 bits
    exact = Vec4(Quant(0.0, 1.0, 32))  # 128 bits, delta-coded per component
    c = Coord(12, 4)
    zig = Int(12, zigzag=True)
    plain = Int(16)
    turn = Angle(16)
    score = VarInt()
    cells = Array(UInt(5), size=60, per_element=True)
    text = Str(30)
    raw = Bytes(6)
    any = Variant(40)
    list = ArrayOf(UInt(7), max_len=6)
    team = Embed(Orders, audience="team")
    spy = Embed(Spy, audience="spies")


class Forty(NetClass, table="DT_Forty"):
    """More than 32 properties (a gap list or mask over a second 32-bit word)."""

    v = Array(Quant(0.0, 4.0, 7), size=38, per_element=True)
    on = Bool()
    w = UInt(33)


#: Every path of the packet assemblers: a class id in enters, restricted audiences (owner,
#: team, a custom one), more than 32 and more than 64 properties, vectors wider than 64 bits.
ASSEMBLER_CLASSES: list[type[NetClass]] = [Mob, Crate, Big, Forty]
ASSEMBLER_SCHEMA = Schema.build(ASSEMBLER_CLASSES)


# ---------------------------------------------------------------- the GDScript decoder's world


class Team(enum.Enum):
    """Member values that are not positions, so the decoder must map them."""

    RED = 3
    BLUE = 7
    GREEN = 11


class Mover(NetClass):
    origin = Prop(Vec3(Coord(10, 5, clamp=True)), hot=True)  # values past it are clamped
    heading = Angle(12)
    yaw = Angle(9, degrees=True)
    aim = Normal(10)
    spin = Quat(9)
    speed = Quant(-50.0, 50.0, 10, clamp=True)
    alive = Bool()
    hp = UInt(7)


class Purse(NetClass, abstract=True):
    gold = VarUInt()
    debt = VarInt()
    note = Str(6)


class Pawn(Mover):
    name = Str(12)
    score = Int(20, zigzag=True)
    delta = Int(12)
    team = Enum(Team)
    target = EntityRef(10)
    ammo = Array(UInt(5), size=3, per_element=True)
    trail = Array(Vec2(Half()), max_len=4)
    purse = Embed(Purse, audience="owner")


class Cargo(NetClass):
    """Every codec the other classes leave out, at the edges of their ranges."""

    blob = Bytes(8)
    extra = Variant(64)
    mass = Float32()
    exact = Float64()
    serial = UInt(64)
    wide = Int(40)
    signed64 = Int(64)
    zz64 = Int(64, zigzag=True)
    tint = Vec4(Quant(-1.0, 1.0, 8))
    tags = Array(Str(4), max_len=3)
    tiny = Quant(5e-324, 2.2250738585072014e-308, 12)
    huge = Quant(-1e307, 8.98846567431158e307, 20)


class Grid(NetClass):
    """More than 64 properties: the decoder's multi-word masks and gap lists."""

    cells = Array(Bool(), size=70, per_element=True)
    level = UInt(3)


GDSCRIPT_CLASSES: list[type[NetClass]] = [Pawn, Cargo, Grid]  # Pawn has all of Mover


def gdscript_schema() -> Schema:
    """The GDScript decoder's world, built afresh."""
    return Schema.build(GDSCRIPT_CLASSES)


# ---------------------------------------------------------------- values


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


def edge_value(codec: Codec, rng: random.Random) -> Any:
    """A value inside ``codec``'s domain, often at its edges (the ends of an int's width,
    64-bit values, -0.0, subnormals, multi-byte text), sometimes past the range of one that
    clamps: what the generated GDScript decoder must read as ours does."""
    if isinstance(codec, Bool):
        return rng.random() < 0.5
    if isinstance(codec, UInt):
        return rng.randrange(1 << codec.bits) if rng.random() < 0.7 else (1 << codec.bits) - 1
    if isinstance(codec, Int):
        half = 1 << (codec.bits - 1)
        return rng.choice([rng.randrange(-half, half), -half, half - 1, -1, 0])
    if isinstance(codec, VarUInt):
        return rng.choice([rng.randrange(300), rng.randrange(1 << 64), (1 << 64) - 1])
    if isinstance(codec, VarInt):
        return rng.choice(
            [rng.randrange(-300, 300), rng.randrange(-(1 << 63), 1 << 63), -(1 << 63)]
        )
    if isinstance(codec, Quant):
        return within(codec, rng.uniform(codec.low, codec.high) * 1.1)
    if isinstance(codec, Coord):
        return within(codec, rng.choice([0.0, rng.uniform(-2000.0, 2000.0), rng.uniform(-1, 1)]))
    if isinstance(codec, Angle):
        return rng.uniform(-2 * codec.period, 2 * codec.period)
    if isinstance(codec, Normal):
        v = [rng.gauss(0, 1) for _ in range(3)]
        return Vector3(*v) if any(v) else Vector3(0.0, 0.0, 1.0)
    if isinstance(codec, Quat):
        return tuple(rng.gauss(0, 1) for _ in range(4))
    if isinstance(codec, Half):
        return rng.choice([rng.uniform(-65504.0, 65504.0), rng.uniform(-1.0, 1.0), 1e-6])
    if isinstance(codec, Float32 | Float64):
        return rng.choice([rng.uniform(-1e6, 1e6), math.pi, -0.0, 1e-310])
    if isinstance(codec, Bytes):
        return rng.randbytes(rng.randrange(codec.max_len + 1))
    if isinstance(codec, Str):
        text = "".join(rng.choice("aé€😀z") for _ in range(rng.randrange(codec.max_len + 1)))
        while len(text.encode()) > codec.max_len:
            text = text[:-1]
        return text
    if isinstance(codec, Variant):
        return rng.choice(
            [None, rng.randrange(-9, 9), "hi", Vector2(1.5, -2.0), {"k": [1, 2.5]}, [True]]
        )
    if isinstance(codec, Enum):
        return rng.choice(codec.members)
    if isinstance(codec, EntityRef):
        return rng.choice([None, rng.randrange(40)])
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return tuple(edge_value(codec.component, rng) for _ in range(codec.count))
    if isinstance(codec, ArrayOf):
        return [edge_value(codec.element, rng) for _ in range(rng.randrange(codec.max_len + 1))]
    raise AssertionError(f"no random values for {codec!r}")


def nudge(codec: Codec, value: Any, rng: random.Random) -> Any:
    """A value near ``value`` (in steps of 1 to 1,000 quanta), so that the encoder sends
    value deltas of every size; ``value`` itself where the codec has no such steps."""
    quanta = rng.choice([1, 3, 40, 1000])
    if isinstance(codec, UInt):
        return (value + rng.choice([-quanta, quanta])) % (1 << codec.bits)
    if isinstance(codec, Int):
        half = 1 << (codec.bits - 1)
        return min(max(value + rng.choice([-quanta, quanta]), -half), half - 1)
    if isinstance(codec, VarInt):
        return min(max(value + rng.choice([-quanta, quanta]), -(1 << 63)), (1 << 63) - 1)
    if isinstance(codec, Quant):
        return within(codec, value + rng.choice([-quanta, quanta]) * codec.step)
    if isinstance(codec, Coord):
        return within(codec, value + rng.choice([-quanta, quanta]) / codec.scale)
    if isinstance(codec, Angle):
        return value + rng.choice([-quanta, quanta]) * codec.step
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return tuple(nudge(codec.component, c, rng) for c in value)
    return value
