"""The generated decoder's interpolation: per class, its properties blended between two ticks.

The fixed part (the ring of the newest ticks applied, the render-time rules and one helper per
blend kind) is the template's ``interpolation`` block; this module fills in ``_i<id>(a, b, w)``
(the ``blend_class`` block) per class with a property that is not stepwise, and the dispatch
to them. The kinds, and the
expressions each helper computes, are those of the Python decoder (``_interpolation``), so
that both give the same values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._float_codecs import Angle, Vec2, Vec3, Vec4
from .._interpolation import ANGLE, ANGLE_VECTOR, LINEAR, NORMAL, QUAT, STEP, VECTOR, kind

if TYPE_CHECKING:
    from .._codecs import Codec
    from .._schema import ClassLayout, Schema
    from ._lines import Writer

__all__ = ["interpolation"]

_HELPERS = {LINEAR: "_lf", VECTOR: "_lv", NORMAL: "_ln", QUAT: "_lq"}


def _period(angle: Angle) -> str:
    """The GDScript constant of the angle's period (TAU is math.tau's double)."""
    return "360.0" if angle.degrees else "TAU"


def _blend_call(codec: Codec, i: int) -> str:
    """The expression of property ``i`` (of ``codec``) blended from ``a`` towards ``b``."""
    k = kind(codec)
    args = f"a[{i}], b[{i}], w"
    if k == ANGLE:
        assert isinstance(codec, Angle)
        return f"_la({args}, {_period(codec)})"
    if k == ANGLE_VECTOR:
        assert isinstance(codec, Vec2 | Vec3 | Vec4) and isinstance(codec.component, Angle)
        return f"_lva({args}, {_period(codec.component)}, {codec.count})"
    return f"{_HELPERS[k]}({args})"


def _blended(lay: ClassLayout) -> list[int]:
    return [p.index for p in lay.props if kind(p.codec) != STEP]


def interpolation(w: Writer, schema: Schema) -> None:
    """``_i<id>`` for each class that blends, and the template's ``interpolation`` block
    with ``_blend_values`` dispatching to them (a class that does not blend keeps ``a``)."""
    blending = [lay for lay in schema.classes if _blended(lay)]
    for lay in blending:
        blends = [f"o[{i}] = {_blend_call(lay.props[i].codec, i)}" for i in _blended(lay)]
        w.fill(0, "blend_class", c=lay.class_id, blends=blends)
    blends = w.cases("c", blending, lambda lay: f"return _i{lay.class_id}(va, vb, w)")
    w.fill(0, "interpolation", blends=blends or ["pass"])
