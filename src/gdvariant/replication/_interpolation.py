"""Snapshot interpolation: the state at a fractional render tick, between two kept ticks.

A client renders a little in the past, between the two newest states it holds, so that
motion looks smooth although packets come at the tick rate
(``docs/replication-interpolation.md`` gives the rules). Each codec has a blend ``kind``:
``LINEAR`` (Quant, Coord, Half, Float32, Float64: ``a + (b - a) * w`` in float64,
GDScript's ``float``), ``VECTOR`` (a Vec2/3/4 of those: the same in float32, Godot's
``real_t``, each step rounded as Godot's ``Vector2 * float`` rounds it), ``ANGLE`` and
``ANGLE_VECTOR`` (the shorter way round the circle, per component, in float64, the result
wrapped into the codec's range), ``NORMAL`` (component-wise lerp in float64, normalised),
``QUAT`` (nlerp: the shorter of ``b`` and ``-b``, lerped component-wise in float64 and
normalised) and ``STEP`` (every other codec: the older tick's value until the render time
reaches the newer tick). Every blend returns ``a`` itself when ``a == b``, and a float or
vector blend when either end is not finite. The generated GDScript decoder computes the
same expressions in the same order (``gdscript/_interpolate.py``), so that both give the
same values.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from ._schema import ClassLayout, Schema

__all__ = [
    "ANGLE",
    "ANGLE_VECTOR",
    "LINEAR",
    "NORMAL",
    "QUAT",
    "STEP",
    "VECTOR",
    "Blender",
    "blend",
    "kind",
    "render_pair",
]

STEP, LINEAR, VECTOR, ANGLE, ANGLE_VECTOR, NORMAL, QUAT = range(7)

_SCALARS = (Quant, Coord, Half, Float32, Float64)


def kind(codec: Codec) -> int:
    """How values of ``codec`` blend between two ticks (one of the constants above)."""
    if isinstance(codec, Angle):
        return ANGLE
    if isinstance(codec, _SCALARS):
        return LINEAR
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return ANGLE_VECTOR if isinstance(codec.component, Angle) else VECTOR
    if isinstance(codec, Normal):
        return NORMAL
    if isinstance(codec, Quat):
        return QUAT
    return STEP


def _finite(v: Sequence[float]) -> bool:
    return all(math.isfinite(c) for c in v)


def _linear(a: float, b: float, w: float) -> float:
    if a == b or not (math.isfinite(a) and math.isfinite(b)):
        return a
    return a + (b - a) * w


def _vector(a: Any, b: Any, w: float) -> Any:
    """Godot's ``a + (b - a) * w`` on float32 vectors: ``w`` is rounded to float32 first,
    each operation's result too (exact emulation: float64 holds every float32 product and
    sum exactly before the one rounding)."""
    if a == b or not (_finite(a) and _finite(b)):
        return a
    w32 = to_f32(w)
    return type(a)(*(to_f32(x + to_f32(to_f32(y - x) * w32)) for x, y in zip(a, b, strict=True)))


def _arc(a: float, b: float, w: float, period: float) -> float:
    """``a`` turned towards ``b`` the shorter way by ``w``, wrapped into [-period/2, period/2);
    at exactly half a turn apart the turn is negative."""
    half = period / 2
    d = b - a
    if d >= half:
        d -= period
    elif d < -half:
        d += period
    r = a + d * w
    if r >= half:
        r -= period
    elif r < -half:
        r += period
    return r


def _angle(period: float) -> Callable[[Any, Any, float], Any]:
    def blend_angle(a: float, b: float, w: float) -> float:
        if a == b:
            return a
        return _arc(a, b, w, period)

    return blend_angle


def _angle_vector(period: float) -> Callable[[Any, Any, float], Any]:
    def blend_angles(a: Any, b: Any, w: float) -> Any:
        if a == b:
            return a
        return type(a)(*(to_f32(_arc(x, y, w, period)) for x, y in zip(a, b, strict=True)))

    return blend_angles


def _normal(a: Any, b: Any, w: float) -> Any:
    """Component-wise lerp in float64, normalised; ``a`` where the lerp is the zero vector
    (opposite directions, half-way)."""
    if a == b:
        return a
    x = a[0] + (b[0] - a[0]) * w
    y = a[1] + (b[1] - a[1]) * w
    z = a[2] + (b[2] - a[2]) * w
    n = math.sqrt(x * x + y * y + z * z)
    if n == 0.0:
        return a
    return type(a)(to_f32(x / n), to_f32(y / n), to_f32(z / n))


def _quat(a: Any, b: Any, w: float) -> Any:
    """nlerp: ``b`` or ``-b``, whichever is nearer ``a`` (a non-negative dot product), lerped
    component-wise in float64 and normalised. Unit inputs with a non-negative dot product
    keep the lerp at least 1/√2 long, so it never divides by zero."""
    if a == b:
        return a
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    s = -1.0 if ax * bx + ay * by + az * bz + aw * bw < 0.0 else 1.0
    x = ax + (s * bx - ax) * w
    y = ay + (s * by - ay) * w
    z = az + (s * bz - az) * w
    q = aw + (s * bw - aw) * w
    n = math.sqrt(x * x + y * y + z * z + q * q)
    return type(a)(to_f32(x / n), to_f32(y / n), to_f32(z / n), to_f32(q / n))


def blend(codec: Codec) -> Callable[[Any, Any, float], Any] | None:
    """The function ``(a, b, w) -> value`` that blends ``codec``'s values, or None for a
    stepwise codec (the older value is kept)."""
    k = kind(codec)
    if k == LINEAR:
        return _linear
    if k == VECTOR:
        return _vector
    if k == ANGLE:
        assert isinstance(codec, Angle)
        return _angle(codec.period)
    if k == ANGLE_VECTOR:
        assert isinstance(codec, Vec2 | Vec3 | Vec4) and isinstance(codec.component, Angle)
        return _angle_vector(codec.component.period)
    if k == NORMAL:
        return _normal
    if k == QUAT:
        return _quat
    return None


def _blends(lay: ClassLayout) -> list[tuple[str, Callable[[Any, Any, float], Any]]]:
    out = []
    for p in lay.props:
        fn = blend(p.codec)
        if fn is not None:
            out.append((p.path, fn))
    return out


def render_pair(ticks: Sequence[int], render_tick: float) -> tuple[int, int, float]:
    """The indices into ``ticks`` (ascending, not empty) of the kept ticks around
    ``render_tick`` and the weight of the newer one: ``(i, i, 0.0)`` at or before the
    oldest, at or after the newest (held, no extrapolation) and exactly at a kept tick."""
    last = len(ticks) - 1
    if not render_tick > ticks[0]:
        return 0, 0, 0.0
    if render_tick >= ticks[last]:
        return last, last, 0.0
    k = bisect.bisect_right(ticks, render_tick)
    a = ticks[k - 1]
    if render_tick == a:
        return k - 1, k - 1, 0.0
    return k - 1, k, (render_tick - a) / (ticks[k] - a)


class Blender:
    """Blends entities' values of one schema (the per-class blend functions built once)."""

    def __init__(self, schema: Schema) -> None:
        self._blends = {lay.name: _blends(lay) for lay in schema.classes}

    def blends(self, class_name: str) -> bool:
        """Whether class ``class_name`` has any property that is not stepwise."""
        return bool(self._blends[class_name])

    def values(
        self, class_name: str, a: Mapping[str, Any], b: Mapping[str, Any], w: float
    ) -> dict[str, Any]:
        """An entity of class ``class_name`` at ``a`` (values by path) blended towards
        ``b`` by ``w``: stepwise properties as in ``a``."""
        values = dict(a)
        for path, fn in self._blends[class_name]:
            values[path] = fn(values[path], b[path], w)
        return values
