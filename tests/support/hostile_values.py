"""Values that try the codecs' fast paths: every float class IEEE has, integers at and past
each range's edges, vectors built around their constructors, and values of the wrong type.

:func:`hostile_float`, :func:`hostile_int` and :func:`hostile_value` (for any codec, mostly
near or outside its domain); :func:`outcome` is what one encode gives, comparable with ``==``
(bits and width, or the error's type and message). Shared by the codec tests
(``encode`` against ``encode_checked``) and the write path's (compiled against pure).
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Callable
from typing import Any

from gdvariant import Vector2, Vector2i, Vector3, Vector4
from gdvariant.replication import Codec, Vec2, Vec3, Vec4

F32_MAX = float.fromhex("0x1.fffffep127")
#: Finite floats at the edges of float32's and binary16's ranges and of float64's.
EDGES = [
    0.0,
    -0.0,
    F32_MAX,
    -F32_MAX,
    math.nextafter(F32_MAX, math.inf),
    float.fromhex("0x1.ffffffp127"),  # half-way to float32's next step: rounds to infinity
    float.fromhex("0x1.fffffefffffffp127"),  # just below half-way: rounds to the largest
    65504.0,
    65519.99,
    65520.0,
    -65520.0,
    float.fromhex("0x1p-149"),  # float32's smallest subnormal
    float.fromhex("0x1p-150"),
    float.fromhex("0x1p-126"),
    float.fromhex("0x1p-24"),  # binary16's smallest subnormal
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    1e300,
    1e39,
]


def _from_bits(bits: int) -> float:
    return float(struct.unpack("<d", bits.to_bytes(8, "little"))[0])


def hostile_float(rng: random.Random) -> float:
    """A float of any IEEE class: zeros, infinities, NaNs with payloads, subnormals, the
    edges of each range, or any bit pattern."""
    kind = rng.randrange(9)
    if kind == 0:
        return rng.choice(EDGES)
    if kind == 1:
        return rng.choice([math.inf, -math.inf, math.nan, -math.nan])
    if kind == 2:  # a NaN with a payload (quiet or signalling), either sign
        return _from_bits(rng.getrandbits(1) << 63 | 0x7FF << 52 | rng.randrange(1, 1 << 52))
    if kind == 3:  # a float64 subnormal
        return _from_bits(rng.getrandbits(1) << 63 | rng.randrange(1, 1 << 52))
    if kind == 4:  # any bit pattern
        return _from_bits(rng.getrandbits(64))
    if kind == 5:  # around float32's and binary16's subnormals and tops
        return rng.choice([-1, 1]) * math.ldexp(rng.random(), rng.randrange(-160, 130))
    if kind == 6:
        return rng.uniform(-1e6, 1e6)
    if kind == 7:
        return rng.choice(EDGES) * rng.choice([1.0, 1.0 + 2**-40, 1.0 - 2**-40, -1.0])
    return float(rng.randrange(-1000, 1000))


def hostile_int(rng: random.Random, bits: int = 64) -> int:
    """An int at, inside or just past the edges of ``bits``-bit ranges, or huge."""
    edge = rng.choice([1 << (bits - 1), 1 << bits, 1 << 63, 1 << 64, 1 << rng.randrange(1, 80)])
    kind = rng.randrange(4)
    if kind == 0:
        return edge + rng.choice([-2, -1, 0, 1]) * rng.choice([1, -1])
    if kind == 1:
        return -edge + rng.choice([-1, 0, 1])
    if kind == 2:
        return rng.choice([10**400, -(10**400), 0, 1, -1])
    return rng.randrange(-edge, edge)


class _Floaty:
    """Not a number, but struct would pack it: ``__float__`` and ``__index__``."""

    def __float__(self) -> float:
        return 1.5

    def __index__(self) -> int:
        return 1

    def __repr__(self) -> str:
        return "_Floaty()"


def _odd(rng: random.Random) -> Any:
    """A value of a type no float or int codec takes (or only some do)."""
    return rng.choice([None, "1.0", b"\x00", True, False, [], _Floaty(), 1j, object()])


def _component(rng: random.Random) -> Any:
    kind = rng.randrange(10)
    if kind < 7:
        return hostile_float(rng)
    if kind < 9:
        return hostile_int(rng)
    return _odd(rng)


def hostile_vector(rng: random.Random, count: int) -> Any:
    """Mostly a vector of ``count`` floats, made by its constructor or around it (so its
    components may be ints, bools or anything); sometimes the wrong shape or type."""
    make: Any = {2: Vector2, 3: Vector3, 4: Vector4}[count]
    kind = rng.randrange(12)
    if kind < 6:
        return make(*(hostile_float(rng) for _ in range(count)))
    if kind < 8:  # as unpickling makes it: no constructor, any components
        return tuple.__new__(make, [_component(rng) for _ in range(count)])
    if kind == 8:
        shape: Callable[..., Any] = rng.choice([tuple, list])
        return shape(_component(rng) for _ in range(count))
    if kind == 9:  # the wrong length
        other = rng.choice([c for c in (2, 3, 4) if c != count])
        return {2: Vector2, 3: Vector3, 4: Vector4}[other](*([1.0] * other))
    if kind == 10:
        return rng.choice([Vector2i(1, 2), (1.0,) * (count + 1), "ab"[:count]])
    return _odd(rng)


def hostile_value(codec: Codec, rng: random.Random) -> Any:
    """A value for ``codec``, mostly near or outside its domain."""
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return hostile_vector(rng, codec.count)
    kind = rng.randrange(10)
    if kind < 4:
        return hostile_float(rng)
    if kind < 8:
        return hostile_int(rng, getattr(codec, "bits", 64))
    return _odd(rng)


def outcome(encode: Callable[[Any], Any], value: Any) -> tuple[Any, ...]:
    """What ``encode(value)`` gives: ``("bits", bits, width)`` or ``("error", type, message)``."""
    try:
        bits, width = encode(value)
    except Exception as exc:
        return ("error", type(exc), str(exc))
    return ("bits", bits, width)
