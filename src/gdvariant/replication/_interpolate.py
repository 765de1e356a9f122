"""The value between two ticks: one rule for the server's rewind and the client's smoothing.

``World.at`` (lag compensation) and a client interpolating its snapshots must agree to the
bit, or a hit test on the server misses what the player saw. The rule is chosen by the
property's codec (``docs/replication-lag-compensation.md``):

* linear, ``a + (b - a) * weight``, for quantized, coordinate and IEEE floats (``Quant``,
  ``Coord``, ``Half``, ``Float32``, ``Float64``) and for vectors of them (``Vec2/3/4``,
  ``Normal``), component by component;
* the shortest way round the circle for ``Angle`` (and vectors of ``Angle`` components):
  ``d = fmod(b - a, period)``, ``arc = fmod(2 d, period) - d``, ``a + arc * weight`` (the
  result is not wrapped back into ``[-period/2, period/2)``);
* spherical, along the shorter arc, for ``Quat`` (``b`` negated when ``a · b < 0``; plain
  linear when ``1 - a · b <= 1e-5``, where the sines vanish);
* stepwise for everything else: the earlier value until the later tick (``weight == 1``).

Scalars are computed in float64 (GDScript's ``float``); a vector's or quaternion's components
are computed in float64 and each rounded to float32 once (Godot's ``real_t``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gdvariant import Quaternion

from ._codecs import Codec
from ._float_codecs import (
    Angle,
    Coord,
    Float32,
    Float64,
    Half,
    Normal,
    Quant,
    Quat,
    Vec2,
    Vec3,
    Vec4,
    to_f32,
)

__all__ = ["interpolate", "interpolator", "lerp", "lerp_angle", "slerp"]

Interpolator = Callable[[Any, Any, float], Any]

#: Below this ``1 - cos`` of the angle between two quaternions, slerp's sines vanish and the
#: linear blend is used (the threshold of Godot's own ``Quaternion.slerp``).
SLERP_LINEAR = 1e-5

_LINEAR = (Quant, Coord, Half, Float32, Float64)


def lerp(a: float, b: float, weight: float) -> float:
    """The straight line from ``a`` to ``b``."""
    return a + (b - a) * weight


def lerp_angle(a: float, b: float, weight: float, period: float = math.tau) -> float:
    """From ``a`` to ``b`` the shorter way round a circle of ``period``."""
    d = math.fmod(b - a, period)
    return a + (math.fmod(2.0 * d, period) - d) * weight


def slerp(a: Quaternion, b: Quaternion, weight: float) -> Quaternion:
    """From rotation ``a`` to ``b`` along the shorter arc, components rounded to float32."""
    qa, qb = tuple(a), tuple(b)
    dot = sum(x * y for x, y in zip(qa, qb, strict=True))
    if dot < 0.0:
        qb, dot = tuple(-y for y in qb), -dot
    if 1.0 - dot > SLERP_LINEAR:
        omega = math.acos(min(dot, 1.0))
        sine = math.sin(omega)
        ka, kb = math.sin((1.0 - weight) * omega) / sine, math.sin(weight * omega) / sine
    else:
        ka, kb = 1.0 - weight, weight
    return Quaternion(*(to_f32(ka * x + kb * y) for x, y in zip(qa, qb, strict=True)))


def _step(a: Any, b: Any, weight: float) -> Any:
    return b if weight >= 1.0 else a


def _angle(period: float) -> Interpolator:
    def between(a: Any, b: Any, weight: float) -> float:
        return lerp_angle(a, b, weight, period)

    return between


def _vector(make: Any, component: Interpolator) -> Interpolator:
    def between(a: Any, b: Any, weight: float) -> Any:
        return make(*(to_f32(component(x, y, weight)) for x, y in zip(a, b, strict=True)))

    return between


def interpolator(codec: Codec) -> Interpolator:
    """The function ``(a, b, weight) -> value`` for values decoded by ``codec``."""
    if isinstance(codec, _LINEAR):
        return lerp
    if isinstance(codec, Angle):
        return _angle(codec.period)
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return _vector(codec.make, interpolator(codec.component))
    if isinstance(codec, Normal):
        return _vector(type(codec.default()), lerp)
    if isinstance(codec, Quat):
        return slerp
    return _step


def interpolate(codec: Codec, a: Any, b: Any, weight: float) -> Any:
    """The value ``weight`` of the way (0 to 1) from ``a`` to ``b``, both decoded by
    ``codec``: the rule above for its kind."""
    return interpolator(codec)(a, b, weight)
