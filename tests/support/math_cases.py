"""Random inputs for the math types' engine checks: float32 components with the values that
break arithmetic (zeros of both signs, infinities, NaN, the largest and smallest floats,
denormals), moderate and wide-ranged values, and raw random bit patterns; int32 components with
the wrapping edges; and the comparison of a result with the engine's (bit for bit, NaN as NaN,
or within a number of float32 ulps)."""

from __future__ import annotations

import math
import random
import struct
from typing import Any

from gdvariant._floats import f32

FLT_MAX = 3.4028234663852886e38
FLT_MIN = 1.1754943508222875e-38  # the smallest normal float32
DENORMAL = 1.401298464324817e-45  # the smallest float32 of all
REAL_SPECIALS = (
    0.0,
    -0.0,
    math.inf,
    -math.inf,
    math.nan,
    FLT_MAX,
    -FLT_MAX,
    FLT_MIN,
    -FLT_MIN,
    DENORMAL,
    -DENORMAL,
    DENORMAL * 12345,
    1.0,
    -1.0,
    0.5,
    -0.5,
    1.5,
    -2.5,
    f32(0.00001),
    f32(1e20),
    f32(-1e-20),
)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT_SPECIALS = (0, 1, -1, 2, -2, 7, INT32_MIN, INT32_MAX, INT32_MIN + 1, 46341, -46341, 65536)
_F32 = struct.Struct("<f")
_I32 = struct.Struct("<i")


def real(rng: random.Random) -> float:
    """A float32 value (as a float), drawn to reach every kind of input."""
    k = rng.random()
    if k < 0.1:
        return rng.choice(REAL_SPECIALS)
    if k < 0.45:
        return f32(rng.uniform(-100.0, 100.0))
    if k < 0.75:
        return f32(rng.choice((-1.0, 1.0)) * rng.random() * 2.0 ** rng.randint(-30, 30))
    return float(_F32.unpack(rng.getrandbits(32).to_bytes(4, "little"))[0])


def near(rng: random.Random, value: float) -> float:
    """``value`` itself or a float32 within a few ulps or a small relative step of it."""
    k = rng.random()
    if k < 0.3:
        return value
    if not math.isfinite(value):
        return real(rng)
    if k < 0.65:
        return f32(value * (1 + rng.choice((-1, 1)) * rng.random() * 2e-5))
    bits = _I32.unpack(_F32.pack(value))[0] + rng.randint(-3, 3)
    return float(_F32.unpack(_I32.pack(max(INT32_MIN, min(INT32_MAX, bits))))[0])


def scalar(rng: random.Random) -> float:
    """A GDScript float (a double), which the engine turns into ``real_t`` itself."""
    k = rng.random()
    if k < 0.5:
        return real(rng)
    if k < 0.8:
        return rng.uniform(-10.0, 10.0)
    return rng.choice((-1.0, 1.0)) * rng.random() * 2.0 ** rng.randint(-60, 60)


def angle(rng: random.Random) -> float:
    """Radians: mostly within a few turns, sometimes anything a float can be."""
    return rng.uniform(-7.0, 7.0) if rng.random() < 0.8 else scalar(rng)


def weight(rng: random.Random) -> float:
    """An interpolation weight: mostly in [0, 1], sometimes anything."""
    return rng.random() if rng.random() < 0.7 else scalar(rng)


def int32(rng: random.Random) -> int:
    """An int32 component: edges, small values, or any 32 bits."""
    k = rng.random()
    if k < 0.15:
        return rng.choice(INT_SPECIALS)
    if k < 0.6:
        return rng.randint(-1000, 1000)
    return rng.randint(INT32_MIN, INT32_MAX)


def divisor_int32(rng: random.Random) -> int:
    """An int32 divisor (0 among them), never -1: INT32_MIN / -1 traps in C."""
    while True:
        value = int32(rng)
        if value != -1:
            return value


def int64(rng: random.Random) -> int:
    """A GDScript int (64 bits), which the engine cuts to int32 for an integer vector."""
    return int32(rng) if rng.random() < 0.7 else rng.randint(-(2**63), 2**63 - 1)


def _ordered(value: float) -> int:
    bits: int = _I32.unpack(_F32.pack(value))[0]
    return bits if bits >= 0 else -(2**31) - bits


def same_float(ours: float, theirs: float, ulps: int) -> bool:
    """Bit for bit (so 0.0 is not -0.0), NaN as NaN; with ``ulps``, float32s that far apart."""
    if math.isnan(ours) or math.isnan(theirs):
        return math.isnan(ours) and math.isnan(theirs)
    if struct.pack("<d", ours) == struct.pack("<d", theirs):
        return True
    if ulps == 0 or math.isinf(ours) or math.isinf(theirs):
        return False
    return abs(_ordered(ours) - _ordered(theirs)) <= ulps


def same(ours: Any, theirs: Any, ulps: int = 0) -> bool:
    """One result against the engine's: same type, every component :func:`same_float`."""
    if type(ours) is not type(theirs):
        return False
    if isinstance(ours, float):
        return same_float(ours, theirs, ulps)
    if isinstance(ours, tuple):
        return all(same(a, b, ulps) for a, b in zip(ours, theirs, strict=True))
    return bool(ours == theirs)


def neighbours(value: float) -> tuple[float, ...]:
    """The float32s one ulp below and above ``value`` (a float32), and itself."""
    if not math.isfinite(value):
        return (value,)
    bits = _I32.unpack(_F32.pack(value))[0]
    out = [value]
    for step in (-1, 1):
        other = bits + step if value != 0 else (1 if step > 0 else -(2**31) + 1)
        if INT32_MIN <= other <= INT32_MAX:
            out.append(float(_F32.unpack(_I32.pack(other))[0]))
    return tuple(out)
