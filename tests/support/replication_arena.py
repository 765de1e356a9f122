"""A world for the GDScript decoder's tests: three classes that use every codec, and a
seeded script of entities that enter, change and leave (ids reused)."""

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
    World,
)
from tests.support.replication_worlds import within


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


class Crate(NetClass):
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


CLASSES: list[type[NetClass]] = [Pawn, Crate, Grid]  # Pawn has all of Mover


def build_schema() -> Schema:
    return Schema.build(CLASSES)


def random_value(codec: Codec, rng: random.Random) -> Any:
    """A value inside ``codec``'s domain (sometimes past the range of one that clamps)."""
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
        return tuple(random_value(codec.component, rng) for _ in range(codec.count))
    if isinstance(codec, ArrayOf):
        return [random_value(codec.element, rng) for _ in range(rng.randrange(codec.max_len + 1))]
    raise AssertionError(f"no random values for {codec!r}")


class Script:
    """Drives a World: each tick some entities enter (of a random class, owned by client 0
    or 1), some leave, and some properties of the others change."""

    def __init__(self, world: World, rng: random.Random, size: int = 24) -> None:
        self.world, self.rng, self.size = world, rng, size
        self.live: list[Any] = []

    def step(self) -> None:
        rng, world = self.rng, self.world
        for _ in range(rng.randrange(4)):
            if self.live and (len(self.live) >= self.size or rng.random() < 0.45):
                world.despawn(self.live.pop(rng.randrange(len(self.live))))
            else:
                cls = rng.choice(CLASSES)
                self.live.append(world.spawn(cls, net_owner=rng.randrange(2)))
        for ent in self.live:
            for prop in world.schema.flat(type(ent)):
                if rng.random() < 0.08:
                    value = random_value(prop.codec, rng)
                    if rng.random() < 0.5:  # a step from where it is: the value deltas
                        value = nudge(prop.codec, ent._net_vals[prop.index], rng)
                    world_set(ent, prop.path, value)


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


def world_set(ent: Any, path: str, value: Any) -> None:
    """Set the flat property ``path`` (``a.b``, ``a[2]``) of ``ent``."""
    ent._net_write(path, value)
