"""gdvariant: read and write Godot's Variant binary serialization (``var_to_bytes``).

>>> import gdvariant
>>> data = gdvariant.dumps([7, "move", gdvariant.Vector3(1, 2, 3), {"seq": 42}])
>>> gdvariant.loads(data)
[7, 'move', Vector3(1.0, 2.0, 3.0), {'seq': 42}]
"""

from __future__ import annotations

from . import _old_paths
from ._binary import core as _core
from ._binary.api import decode, dumps, loads
from ._engines.profiles import PROFILES, Profile, get_profile
from ._errors import (
    ConnectionClosed,
    DecodeError,
    EncodeError,
    GodotError,
    JSONError,
    TextError,
    VariantError,
)
from ._files.containers import (
    Compression,
    decrypt,
    encrypt,
    iter_save,
    open_save,
    password_key,
    read_save,
    sniff,
    write_save,
)
from ._files.detect import Candidate, Detection, detect
from ._files.store_var import dump, dump_all, load, load_all, records
from ._json.api import from_json, to_json
from ._limits import DEFAULT_LIMITS, Limits
from ._net.framing import (
    DEFAULT_MAX_FRAME_SIZE,
    PACKET_PEER_STREAM_MAX_RECEIVE,
    PACKET_PEER_STREAM_MAX_SEND,
    Framing,
    StreamDecoder,
    WireFormat,
    WireOptions,
    decode_packet,
    frame,
)
from ._text.parser import from_text
from ._text.writer import to_text
from ._values.base import (
    RID,
    Callable,
    GodotObject,
    NodePath,
    ObjectID,
    Signal,
    StringName,
    VariantType,
)
from ._values.collections import (
    ContainerKind,
    Dictionary,
    ElementType,
    PackedTypedArray,
    TypedArray,
)
from ._values.godot2 import Image, InputEvent, InputEventType
from ._values.math import (
    AABB,
    Basis,
    Color,
    EulerOrder,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Transform2D,
    Transform3D,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
    math_precision,
)
from ._values.packed import (
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
    PackedView,
)

__version__ = "0.1.0"

# Pickles made before the private modules moved into folders name the old paths.
_old_paths.install()

#: Which codec core is live: "c" (compiled) or "python" (``GDVARIANT_PURE_PYTHON=1`` forces it).
IMPLEMENTATION = _core.IMPLEMENTATION

__all__ = [
    "AABB",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_FRAME_SIZE",
    "IMPLEMENTATION",
    "PACKET_PEER_STREAM_MAX_RECEIVE",
    "PACKET_PEER_STREAM_MAX_SEND",
    "PROFILES",
    "RID",
    "Basis",
    "Callable",
    "Candidate",
    "Color",
    "Compression",
    "ConnectionClosed",
    "ContainerKind",
    "DecodeError",
    "Detection",
    "Dictionary",
    "ElementType",
    "EncodeError",
    "EulerOrder",
    "Framing",
    "GodotError",
    "GodotObject",
    "Image",
    "InputEvent",
    "InputEventType",
    "JSONError",
    "Limits",
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
    "PackedView",
    "Plane",
    "Profile",
    "Projection",
    "Quaternion",
    "Rect2",
    "Rect2i",
    "Signal",
    "StreamDecoder",
    "StringName",
    "TextError",
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
    "WireFormat",
    "WireOptions",
    "__version__",
    "decode",
    "decode_packet",
    "decrypt",
    "detect",
    "dump",
    "dump_all",
    "dumps",
    "encrypt",
    "frame",
    "from_json",
    "from_text",
    "get_profile",
    "iter_save",
    "load",
    "load_all",
    "loads",
    "math_precision",
    "open_save",
    "password_key",
    "read_save",
    "records",
    "sniff",
    "to_json",
    "to_text",
    "write_save",
]
