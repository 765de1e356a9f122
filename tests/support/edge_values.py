"""Random values at the edges of what a text or JSON writer must spell: floats of every
exponent (subnormals, float32 limits, NaN, infinities, -0.0), strings with every escape,
quotes, NUL, non-ASCII and lone surrogates, math values with such components, packed arrays of
random bits, and containers with str, int and mixed keys, nested; for the differential tests
of the compiled text and JSON writers against the pure ones."""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from typing import Any

import gdvariant as gd
from tests.support.random_values import LEAVES, random_value

__all__ = ["edge_float", "edge_text", "edge_value"]

_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")


def _bits64(rng: random.Random) -> float:
    """Any double: every exponent (subnormals, huge, inf, NaN) as likely as any other."""
    return float(_F64.unpack(struct.pack("<Q", rng.getrandbits(64)))[0])


def _bits32(rng: random.Random) -> float:
    return float(_F32.unpack(struct.pack("<I", rng.getrandbits(32)))[0])


def edge_float(rng: random.Random) -> float:
    makers: list[Callable[[], float]] = [
        lambda: _bits64(rng),
        lambda: _bits32(rng),
        lambda: rng.choice([0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308]),
        lambda: rng.choice([3.4028234663852886e38, 3.4028235677973366e38, 1e-45, 1e15, 1e-5]),
        lambda: round(rng.uniform(-1e4, 1e4), rng.randrange(6)),
        lambda: rng.randrange(-(10**17), 10**17) * 10.0 ** rng.randrange(-30, 30),
    ]
    return rng.choice(makers)()


def edge_text(rng: random.Random) -> str:
    alphabet = ['"', "\\", "'", "\a", "\b", "\f", "\n", "\r", "\t", "\v", "\0", "?", "\x7f"]
    alphabet += ["é", "漢", "🎮", "\u2028", "\x85", "\ud800", "\udfff", "a", " ", "&"]
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(10)))


def _math(rng: random.Random, cls: type, floats: bool, count: int) -> Any:
    values = [edge_float(rng) if floats else rng.randrange(-(2**31), 2**31) for _ in range(count)]
    return tuple.__new__(cls, values)


def _leaf(rng: random.Random) -> Any:
    roll = rng.randrange(12)
    if roll == 0:
        return edge_float(rng)
    if roll == 1:
        return edge_text(rng)
    if roll == 2:
        return gd.StringName(edge_text(rng))
    if roll == 3:
        return rng.choice([rng.getrandbits(64) - 2**63, 2**70, -(2**80), True, False, None])
    if roll == 4:
        cls = rng.choice([gd.Vector2, gd.Vector3, gd.Vector4, gd.Quaternion, gd.Color])
        return _math(rng, cls, True, len(cls()))
    if roll == 5:
        cls = rng.choice([gd.Vector2i, gd.Vector3i, gd.Vector4i])
        return _math(rng, cls, False, len(cls()))
    if roll == 6:
        cls = rng.choice([gd.PackedFloat32Array, gd.PackedFloat64Array, gd.PackedVector2Array])
        count = rng.randrange(5) * cls._width
        return cls.frombuffer(bytes(rng.getrandbits(8) for _ in range(count * 8)))
    if roll == 7:
        return gd.PackedStringArray(edge_text(rng) for _ in range(rng.randrange(4)))
    if roll == 8:
        return bytes(rng.getrandbits(8) for _ in range(rng.randrange(6)))
    return LEAVES[rng.choice(list(LEAVES))](rng)


def edge_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.5:
        return _leaf(rng)
    size = rng.randrange(6)
    if roll < 0.65:
        return [edge_value(rng, depth + 1) for _ in range(size)]
    if roll < 0.7:
        return tuple(edge_value(rng, depth + 1) for _ in range(size))
    if roll < 0.8:
        return {edge_text(rng): edge_value(rng, depth + 1) for _ in range(size)}
    if roll < 0.85:
        return {rng.randrange(-(2**70), 2**70): edge_value(rng, depth + 1) for _ in range(size)}
    if roll < 0.9:  # keys the compiled writer hands back: mixed types, bools, floats
        keys = [edge_text(rng), rng.randrange(9), True, 2.5, gd.StringName("k"), gd.Vector2i()]
        return {rng.choice(keys): edge_value(rng, depth + 1) for _ in range(size)}
    return random_value(rng, depth)
