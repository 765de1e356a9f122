"""gdvariant: read and write Godot's Variant binary serialization (``var_to_bytes``).

>>> import gdvariant
>>> data = gdvariant.dumps([7, "move", gdvariant.Vector3(1, 2, 3), {"seq": 42}])
>>> gdvariant.loads(data)
[7, 'move', Vector3(1.0, 2.0, 3.0), {'seq': 42}]
"""

from __future__ import annotations

from ._api import decode, dumps, loads
from ._errors import DecodeError, EncodeError, GodotError, VariantError
from ._framing import DEFAULT_MAX_FRAME_SIZE, StreamDecoder, frame
from ._legacy import Image, InputEvent, InputEventType
from ._packed import (
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector2Array64,
    PackedVector2iArray,
    PackedVector3Array,
    PackedVector3Array64,
    PackedVector3iArray,
    PackedVector4Array,
    PackedVector4Array64,
    PackedVector4iArray,
)
from ._profiles import PROFILES, Profile, get_profile
from ._types import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    ContainerKind,
    Dictionary,
    ElementType,
    GodotObject,
    NodePath,
    ObjectID,
    PackedTypedArray,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)

__version__ = "0.1.0"

#: Which codec implementation is in use ("python": the pure-Python core).
IMPLEMENTATION = "python"

__all__ = [
    "AABB",
    "DEFAULT_MAX_FRAME_SIZE",
    "IMPLEMENTATION",
    "PROFILES",
    "RID",
    "Basis",
    "Callable",
    "Color",
    "ContainerKind",
    "DecodeError",
    "Dictionary",
    "ElementType",
    "EncodeError",
    "GodotError",
    "GodotObject",
    "Image",
    "InputEvent",
    "InputEventType",
    "NodePath",
    "ObjectID",
    "PackedColorArray",
    "PackedFloat32Array",
    "PackedFloat64Array",
    "PackedInt32Array",
    "PackedInt64Array",
    "PackedStringArray",
    "PackedTypedArray",
    "PackedVector2Array",
    "PackedVector2Array64",
    "PackedVector2iArray",
    "PackedVector3Array",
    "PackedVector3Array64",
    "PackedVector3iArray",
    "PackedVector4Array",
    "PackedVector4Array64",
    "PackedVector4iArray",
    "Plane",
    "Profile",
    "Projection",
    "Quaternion",
    "Rect2",
    "Rect2i",
    "Signal",
    "StreamDecoder",
    "StringName",
    "Transform2D",
    "Transform3D",
    "TypedArray",
    "VariantError",
    "VariantType",
    "Vector2",
    "Vector2i",
    "Vector3",
    "Vector3i",
    "Vector4",
    "Vector4i",
    "__version__",
    "decode",
    "dumps",
    "frame",
    "get_profile",
    "loads",
]
