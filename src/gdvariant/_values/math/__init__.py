"""Godot's math value types, with Godot's operators and methods computed as the engine does.

One module per family: :mod:`.vectors` (Vector2/3/4), :mod:`.integer_vectors`
(Vector2i/3i/4i), :mod:`.color`, :mod:`.rects` (Rect2, Rect2i), :mod:`.transform2d`,
:mod:`.transform3d` (Basis, Transform3D), :mod:`.quaternion`, :mod:`.aabb`, :mod:`.plane`,
:mod:`.projection` (with :mod:`.matrix4` and :mod:`.projections`), :mod:`.euler` (Euler
angles). :mod:`.reals` holds the ``real_t`` arithmetic they share (single precision,
or double inside :func:`math_precision`), :mod:`.componentwise` the operators of the real
vectors and Color, :mod:`.operands` what every operator accepts.
"""

from __future__ import annotations

from .aabb import AABB
from .color import Color
from .euler import EulerOrder
from .integer_vectors import Vector2i, Vector3i, Vector4i
from .plane import Plane
from .projection import Projection
from .quaternion import Quaternion
from .reals import math_precision
from .rects import Rect2, Rect2i
from .transform2d import Transform2D
from .transform3d import Basis, Transform3D
from .vectors import Vector2, Vector3, Vector4

__all__ = [
    "AABB",
    "Basis",
    "Color",
    "EulerOrder",
    "Plane",
    "Projection",
    "Quaternion",
    "Rect2",
    "Rect2i",
    "Transform2D",
    "Transform3D",
    "Vector2",
    "Vector2i",
    "Vector3",
    "Vector3i",
    "Vector4",
    "Vector4i",
    "math_precision",
]

# A pickle names a class by its module: the types keep the one path they have always had here,
# so pickles made before this package split (and after) load in either version.
for _name in __all__:
    _obj = globals()[_name]
    if isinstance(_obj, type):
        _obj.__module__ = __name__
