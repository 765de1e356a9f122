"""The camera matrices Godot's ``Projection.create_*`` builders make, as four columns of four
reals. Formulas and their order: Godot 4.6's ``core/math/projection.cpp`` and
``projection.h`` (``set_perspective``, ``set_orthogonal``, ``set_frustum``,
``scale_translate_to_fit``, ``get_fovy``), each step rounded as in :mod:`.reals`; where the
engine's source computes in doubles (a ``2.0`` or ``0.5`` literal), so does this."""

from __future__ import annotations

import math

from .matrix4 import Columns4
from .reals import Reals, cos, div, sin

__all__ = [
    "IDENTITY",
    "fit_aabb",
    "fovy",
    "frustum",
    "frustum_aspect",
    "orthogonal",
    "orthogonal_aspect",
    "perspective",
]

IDENTITY: Columns4 = (
    (1.0, 0.0, 0.0, 0.0),
    (0.0, 1.0, 0.0, 0.0),
    (0.0, 0.0, 1.0, 0.0),
    (0.0, 0.0, 0.0, 1.0),
)
_DEG_TO_RAD = math.pi / 180.0
_RAD_TO_DEG = 180.0 / math.pi


def _tan(x: float) -> float:
    return math.tan(x) if math.isfinite(x) else math.nan


def fovy(r: Reals, fovx: float, aspect: float) -> float:
    """``Projection.get_fovy``: the vertical field of view (degrees) of a horizontal one at
    ``aspect``; past ``deg_to_rad`` (in ``real_t``) the engine computes in doubles."""
    half = r.one(fovx * r.one(_DEG_TO_RAD)) * 0.5
    return r.one(math.atan(aspect * _tan(half)) * 2.0 * _RAD_TO_DEG)


def perspective(
    r: Reals, fovy_degrees: float, aspect: float, near: float, far: float, flip_fov: bool
) -> Columns4:
    """``set_perspective``: the identity when the depth range, the sine of half the field of
    view or the aspect is zero (the engine returns before writing)."""
    one = r.one
    if flip_fov:
        fovy_degrees = fovy(r, fovy_degrees, one(div(1.0, aspect)))
    radians = one(fovy_degrees / 2.0 * _DEG_TO_RAD)
    depth = one(far - near)
    sine = one(sin(radians))
    if depth == 0 or sine == 0 or aspect == 0:
        return IDENTITY
    cotangent = one(div(one(cos(radians)), sine))
    c22 = one(div(-one(far + near), depth))
    c32 = one(div(one(one(-2.0 * near) * far), depth))
    return (
        (one(div(cotangent, aspect)), 0.0, 0.0, 0.0),
        (0.0, cotangent, 0.0, 0.0),
        (0.0, 0.0, c22, -1.0),
        (0.0, 0.0, c32, 0.0),
    )


def _scale_offset(r: Reals, scale: float, low: float, high: float) -> tuple[float, float]:
    """``(scale / (high - low), -((high + low) / (high - low)))``; ``scale`` is a double."""
    one = r.one
    span = one(high - low)
    return one(div(scale, span)), -one(div(one(high + low), span))


def orthogonal(
    r: Reals, left: float, right: float, bottom: float, top: float, near: float, far: float
) -> Columns4:
    """``set_orthogonal(left, right, bottom, top, z_near, z_far)``."""
    sx, ox = _scale_offset(r, 2.0, left, right)
    sy, oy = _scale_offset(r, 2.0, bottom, top)
    sz, oz = _scale_offset(r, -2.0, near, far)
    return ((sx, 0.0, 0.0, 0.0), (0.0, sy, 0.0, 0.0), (0.0, 0.0, sz, 0.0), (ox, oy, oz, 1.0))


def _aspect_box(
    r: Reals, size: float, aspect: float, flip_fov: bool
) -> tuple[float, float, float, float]:
    """``(-size / 2, size / 2, -size / aspect / 2, size / aspect / 2)`` after ``size *=
    aspect`` unless ``flip_fov``: the sides the ``*_aspect`` builders pass on."""
    one = r.one
    if not flip_fov:
        size = one(size * aspect)
    tall = one(div(size, aspect))
    return (
        one(-size / 2),
        one(size / 2),
        one(one(div(-size, aspect)) / 2),
        one(tall / 2),
    )


def orthogonal_aspect(
    r: Reals, size: float, aspect: float, near: float, far: float, flip_fov: bool
) -> Columns4:
    """``set_orthogonal(size, aspect, z_near, z_far, flip_fov)``."""
    left, right, bottom, top = _aspect_box(r, size, aspect, flip_fov)
    return orthogonal(r, left, right, bottom, top, near, far)


def frustum(
    r: Reals, left: float, right: float, bottom: float, top: float, near: float, far: float
) -> Columns4:
    """``set_frustum``: the identity unless ``right > left``, ``top > bottom`` and ``far >
    near`` (the engine prints an error and leaves the matrix)."""
    if right <= left or top <= bottom or far <= near:
        return IDENTITY
    one = r.one
    width, height, depth = one(right - left), one(top - bottom), one(far - near)
    twice_near = one(2.0 * near)
    return (
        (one(div(twice_near, width)), 0.0, 0.0, 0.0),
        (0.0, one(div(twice_near, height)), 0.0, 0.0),
        (
            one(div(one(right + left), width)),
            one(div(one(top + bottom), height)),
            one(div(-one(far + near), depth)),
            -1.0,
        ),
        (0.0, 0.0, one(div(one(one(-2.0 * far) * near), depth)), 0.0),
    )


def frustum_aspect(
    r: Reals,
    size: float,
    aspect: float,
    offset: tuple[float, float],
    near: float,
    far: float,
    flip_fov: bool,
) -> Columns4:
    """``set_frustum(size, aspect, offset, z_near, z_far, flip_fov)``."""
    one = r.one
    left, right, bottom, top = _aspect_box(r, size, aspect, flip_fov)
    ox, oy = offset
    return frustum(r, one(left + ox), one(right + ox), one(bottom + oy), one(top + oy), near, far)


def fit_aabb(r: Reals, position: tuple[float, ...], size: tuple[float, ...]) -> Columns4:
    """``scale_translate_to_fit``: the box mapped onto the cube from -1 to 1."""
    one = r.one
    low = position
    high = tuple(one(p + s) for p, s in zip(position, size, strict=True))
    scale, offset = [], []
    for lo, hi in zip(low, high, strict=True):
        span = one(hi - lo)
        scale.append(one(div(2.0, span)))
        offset.append(one(div(-one(hi + lo), span)))
    return (
        (scale[0], 0.0, 0.0, 0.0),
        (0.0, scale[1], 0.0, 0.0),
        (0.0, 0.0, scale[2], 0.0),
        (offset[0], offset[1], offset[2], 1.0),
    )
