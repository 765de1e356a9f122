"""Value -> bytes: the pure-Python encoder.

A table maps each Python type to a writer (found once per type through the MRO, then cached).
Writers append to one ``bytearray``; containers return an iterator of their children, which
the loop walks with an explicit stack, so Godot's depth limit (1024) holds without recursion
and an error names the path to the bad value. Width choices follow Godot's encoder: ints take
64 bits only outside int32, floats only when float32 would not round-trip exactly. Where
releases differ (Godot 3.0's all-64-bit ints, Godot 2's bare Object header, double builds...)
the writers are chosen from the :class:`Profile` once, when the encoder is built.
"""

from __future__ import annotations

import codecs
import math
from array import array
from collections.abc import Iterator, Mapping
from struct import Struct
from struct import error as struct_error
from typing import Any

from .._engines.profiles import Profile
from .._engines.reals import recast
from .._errors import EncodeError, key_repr
from .._limits import UNLIMITED
from .._values.base import (
    RID,
    Callable,
    GodotObject,
    NodePath,
    ObjectID,
    Signal,
    StringName,
    VariantType,
)
from .._values.collections import (
    ContainerKind,
    Dictionary,
    ElementType,
    PackedTypedArray,
    TypedArray,
)
from .._values.godot2 import EVENT_PAYLOADS, Image, InputEvent, InputEventType
from .._values.layouts import FLAG_64, LAYOUTS, MATH_CLASSES, NODE_PATH_NEW, PACKED_ARRAYS, SHARED
from .._values.packed import PackedStringArray, PackedView, _PackedNumbers

__all__ = ["Encoder", "encode_value", "encoder_for"]

T = VariantType
_U32 = Struct("<I")
_U32U32 = Struct("<II")
_U32I32 = Struct("<Ii")
_U32I64 = Struct("<Iq")
_U32F32 = Struct("<If")
_U32F64 = Struct("<Id")
_U32U64 = Struct("<IQ")
_F32 = Struct("<f")
_U64 = Struct("<Q")
_U32X3 = Struct("<III")
_IMAGE_HEAD = Struct("<IIIIIi")
_EVENT_HEAD = Struct("<IIiI")  # header, type (u32 both ways), device, length
_PAD = (b"", b"\0\0\0", b"\0\0", b"\0")  # indexed by len % 4
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_ENCODED_AS_ID = "EncodedObjectAsID"

# Single- and double-precision classes of each packed real vector type.
_PACKED_WIDTHS = {vtype: pair for vtype, pair in PACKED_ARRAYS.items() if pair[0] is not pair[1]}

Writer = Any  # Callable[[Encoder, bytearray, Any, bool], Iterator[Any] | None]


def _joined_surrogates(exc: UnicodeError) -> tuple[bytes, int]:
    """What Godot 3.6's ``String::utf8`` writes for a run of surrogates: each high-low pair as
    the character it stands for, any other surrogate as a space (engine-checked)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    run = exc.object[exc.start : exc.end]
    out = []
    i = 0
    while i < len(run):
        high = ord(run[i])
        low = ord(run[i + 1]) if i + 1 < len(run) else 0
        if 0xD800 <= high < 0xDC00 and 0xDC00 <= low < 0xE000:
            out.append(chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)))
            i += 2
        else:
            out.append(" ")
            i += 1
    return "".join(out).encode(), exc.end  # bytes: UTF-8 takes only ASCII text back


#: The error handler for Godot 3.6's way of writing surrogates (see ``Profile.surrogate_writing``).
_JOINED = "gdvariant.joined_surrogates"
codecs.register_error(_JOINED, _joined_surrogates)
#: The ``str.encode`` error handler for each ``Profile.surrogate_writing``.
_SURROGATE_ERRORS = {"": "strict", "utf8": "surrogatepass", "joined": _JOINED}


def _utf8(text: str, errors: str = "strict") -> bytes:
    """UTF-8 bytes of a Godot String, which cannot hold NUL.

    Godot 4 Strings cannot hold surrogates either; Godot 2/3 hold them, and ``errors`` says
    how the release writes them (``_SURROGATE_ERRORS``).
    """
    if "\0" in text:
        raise EncodeError("a Godot String cannot contain NUL (U+0000)")
    try:
        return text.encode("utf-8", errors)
    except UnicodeEncodeError as exc:
        raise EncodeError(f"string is not valid Unicode: {exc.reason}") from None


def _put_string(out: bytearray, text: str, errors: str = "strict") -> None:
    """A headerless String: u32 length, UTF-8, zero padding to 4."""
    raw = _utf8(text, errors)
    out += _U32.pack(len(raw))
    out += raw
    out += _PAD[len(raw) & 3]


def _f32_exact(value: float) -> bool:
    """Whether ``value`` survives a round trip through float32 (Godot's width test)."""
    try:
        return bool(_F32.unpack(_F32.pack(value))[0] == value)
    except OverflowError:
        return False


def _f32(value: float) -> float:
    """``value`` narrowed as a C cast to float does: too large becomes an infinity."""
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


class Encoder:
    """Encodes values for one :class:`Profile`. Build one with :func:`encoder_for`."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        ids = profile.wire_ids
        self._ids = ids
        self._errors = _SURROGATE_ERRORS[profile.surrogate_writing]
        self._writers: dict[type, Writer] = {}
        self._register(type(None), T.NIL, Encoder._nil)
        self._register(bool, T.BOOL, Encoder._bool)
        self._register(int, T.INT, Encoder._int)
        self._register(float, T.FLOAT, Encoder._float)
        self._register(str, T.STRING, Encoder._string)
        self._register(StringName, T.STRING_NAME, Encoder._string)
        self._register(NodePath, T.NODE_PATH, Encoder._node_path)
        self._register(RID, T.RID, Encoder._rid)
        self._register(ObjectID, T.OBJECT, Encoder._object_id)
        self._register(GodotObject, T.OBJECT, Encoder._object)
        self._register(Callable, T.CALLABLE, Encoder._callable)
        self._register(Signal, T.SIGNAL, Encoder._signal)
        self._register(dict, T.DICTIONARY, Encoder._dict)
        self._register(Dictionary, T.DICTIONARY, Encoder._dictionary)
        self._register(list, T.ARRAY, Encoder._array)
        self._register(tuple, T.ARRAY, Encoder._array)
        if T.TYPED_ARRAY in ids:
            self._register(TypedArray, T.TYPED_ARRAY, Encoder._pandemonium_typed_array)
        else:
            self._register(TypedArray, T.ARRAY, Encoder._typed_array)
        self._register(PackedTypedArray, T.PACKED_TYPED_ARRAY, Encoder._pandemonium_typed_array)
        for raw in (bytes, bytearray, memoryview):
            self._register(raw, T.PACKED_BYTE_ARRAY, Encoder._bytes)
        self._register(PackedStringArray, T.PACKED_STRING_ARRAY, Encoder._string_array)
        self._writers[PackedView] = Encoder._packed_view
        for vtype, classes in PACKED_ARRAYS.items():
            for packed in dict.fromkeys(classes):
                self._register(packed, vtype, self._packed_writer(packed, vtype))
        for math_class, vtype in MATH_CLASSES.items():
            self._register(math_class, vtype, self._math_writer(vtype))
        self._register(Image, T.IMAGE, Encoder._image)
        self._register(InputEvent, T.INPUT_EVENT, Encoder._input_event)
        self._int_header = ids[T.INT]
        self._float_header = ids[T.FLOAT]
        self._string_header = ids[T.STRING]
        self._count_flag = SHARED if profile.shared_bit else 0

    # ---- the writer table --------------------------------------------------------------

    def _register(self, cls: type, vtype: VariantType, writer: Writer) -> None:
        if vtype in self._ids:
            self._writers[cls] = writer
        else:
            self._writers[cls] = self._unsupported(vtype)

    def _unsupported(self, vtype: VariantType) -> Writer:
        engine = self.profile.engine

        def writer(enc: Encoder, out: bytearray, value: Any, full: bool) -> None:
            raise EncodeError(f"{engine} has no {vtype.name} type ({type(value).__name__})")

        return writer

    def _writer_for(self, cls: type) -> Writer:
        """Find the writer for a subclass (an IntEnum, a str subclass...) and cache it."""
        for base in cls.__mro__[1:]:
            writer = self._writers.get(base)
            if writer is not None:
                self._writers[cls] = writer
                return writer
        raise EncodeError(f"cannot encode a {cls.__module__}.{cls.__qualname__} as a Godot value")

    def _real_width(self, vtype: VariantType) -> tuple[bool, int]:
        """(64-bit components?, header flag) of a real-based type under this profile."""
        profile = self.profile
        if profile.double and vtype in profile.double_flagged:
            return True, FLAG_64
        if profile.double and vtype in profile.double_unflagged:
            return True, 0
        return False, 0

    def _math_writer(self, vtype: VariantType) -> Writer:
        layout = LAYOUTS[vtype]
        wide, flag = self._real_width(vtype)
        code = "i" if layout.kind == "i32" else ("d" if wide else "f")
        packer = Struct(f"<I{layout.components}{code}")
        header = self._ids.get(vtype, 0) | flag
        flatten = layout.flatten
        name = vtype.name

        def writer(enc: Encoder, out: bytearray, value: Any, full: bool) -> None:
            try:
                out += packer.pack(header, *flatten(value))
            except (struct_error, TypeError, ValueError, OverflowError) as exc:
                raise EncodeError(f"{name} component out of range: {exc}") from None

        return writer

    def _packed_writer(self, cls: type[_PackedNumbers], vtype: VariantType) -> Writer:
        """Packed numeric arrays: header, element count, then their wire bytes in one block.

        A real vector array is written at the width the profile's build uses: a 64-bit one
        (decoded from a double build) keeps its width on Godot 4, where every reader accepts
        the flag, and is narrowed for older engines, whose pools are 32-bit only.
        """
        header = self._ids.get(vtype, 0)
        widths = _PACKED_WIDTHS.get(vtype)
        if widths is not None:
            wide, flag = self._real_width(vtype)
            if cls is widths[1] and self.profile.double_flagged:
                wide, flag = True, FLAG_64
            if (cls is widths[1]) != wide:
                return _converting_packed_writer(header | flag, widths[1] if wide else widths[0])
            header |= flag
        elif vtype == T.PACKED_VECTOR4I_ARRAY and self.profile.vector4i_array_w_from_z:
            return _vector4i_w_from_z_writer(header)

        def writer(enc: Encoder, out: bytearray, value: Any, full: bool) -> None:
            out += _U32U32.pack(header, len(value))
            out += value

        return writer

    # ---- leaf writers ------------------------------------------------------------------

    def _nil(self, out: bytearray, value: None, full: bool) -> None:
        out += _U32.pack(self._ids[T.NIL])

    def _bool(self, out: bytearray, value: bool, full: bool) -> None:
        out += _U32U32.pack(self._ids[T.BOOL], 1 if value else 0)

    def _int(self, out: bytearray, value: int, full: bool) -> None:
        profile = self.profile
        if _INT32_MIN <= value <= _INT32_MAX and not profile.int_always_64:
            out += _U32I32.pack(self._int_header, value)
        elif not profile.int64:
            raise EncodeError(f"int {value} does not fit in {profile.engine}'s 32-bit int")
        else:
            try:
                out += _U32I64.pack(self._int_header | FLAG_64, value)
            except struct_error:
                raise EncodeError(f"int {value} does not fit in Godot's 64-bit int") from None

    def _float(self, out: bytearray, value: float, full: bool) -> None:
        if not self.profile.float64:  # Godot 2 narrows every float
            out += _U32F32.pack(self._float_header, _f32(value))
        elif _f32_exact(value):
            out += _U32F32.pack(self._float_header, value)
        else:
            out += _U32F64.pack(self._float_header | FLAG_64, value)

    def _string(self, out: bytearray, value: str, full: bool) -> None:
        header = self._ids[T.STRING_NAME if isinstance(value, StringName) else T.STRING]
        out += _U32.pack(header)
        _put_string(out, value, self._errors)

    def _node_path(self, out: bytearray, value: NodePath, full: bool) -> None:
        names, subnames, absolute = value
        flags = 1 if absolute else 0
        if subnames and self.profile.node_path_property:
            flags |= 2  # Godot 2: the last subname travels as the "property"
            count = len(subnames) - 1
        else:
            count = len(subnames)
        out += _U32.pack(self._ids[T.NODE_PATH])
        out += _U32X3.pack(len(names) | NODE_PATH_NEW, count, flags)
        for part in (*names, *subnames):
            _put_string(out, part, self._errors)

    def _rid(self, out: bytearray, value: RID, full: bool) -> None:
        if self.profile.rid_payload:
            self._u64_payload(out, T.RID, value[0], "RID id")
        elif value[0]:
            raise EncodeError(
                f"{self.profile.engine} writes no RID id, so RID({value[0]}) would be lost; "
                "only RID() can be written"
            )
        else:
            out += _U32.pack(self._ids[T.RID])

    def _no_objects(self) -> None:
        if not self.profile.objects:
            raise EncodeError(
                f"{self.profile.engine} writes every Object as a bare header that reads back "
                "as null; write None instead"
            )

    def _object_id(self, out: bytearray, value: ObjectID, full: bool) -> None:
        self._no_objects()
        self._u64_payload(out, T.OBJECT, value[0], "object id", FLAG_64)

    def _u64_payload(self, out: bytearray, vtype: T, number: int, what: str, flag: int = 0) -> None:
        try:
            out += _U32U64.pack(self._ids[vtype] | flag, number)
        except struct_error:
            raise EncodeError(f"{what} {number} does not fit in 64 bits") from None

    def _callable(self, out: bytearray, value: Callable, full: bool) -> None:
        out += _U32.pack(self._ids[T.CALLABLE])

    def _signal(self, out: bytearray, value: Signal, full: bool) -> None:
        out += _U32.pack(self._ids[T.SIGNAL])
        _put_string(out, value[0], self._errors)
        try:
            out += _U64.pack(value[1])
        except struct_error:
            raise EncodeError(f"signal object id {value[1]} does not fit in 64 bits") from None

    def _bytes(self, out: bytearray, value: bytes | bytearray | memoryview, full: bool) -> None:
        raw = value if not isinstance(value, memoryview) else value.cast("B")
        n = len(raw)
        out += _U32U32.pack(self._ids[T.PACKED_BYTE_ARRAY], n)
        out += raw
        out += _PAD[n & 3]

    def _packed_view(self, out: bytearray, value: PackedView, full: bool) -> None:
        """A packed view is written exactly as the array of its kind."""
        kind = value.kind
        writer = self._writers.get(kind) or self._writer_for(kind)
        writer(self, out, value.data if kind is bytes else value.topacked(), full)

    def _string_array(self, out: bytearray, value: PackedStringArray, full: bool) -> None:
        out += _U32U32.pack(self._ids[T.PACKED_STRING_ARRAY], len(value))
        for text in value:
            raw = _utf8(text, self._errors)
            n = len(raw) + 1  # the length counts a trailing NUL, which is written too
            out += _U32.pack(n)
            out += raw
            out += b"\0"
            out += _PAD[n & 3]

    def _image(self, out: bytearray, value: Image, full: bool) -> None:
        fmt, mipmaps, width, height, data = value
        if not 0 <= fmt < Image.FORMAT_MAX:
            raise EncodeError(f"Image format {fmt} is not a Godot 2 format (0..22)")
        try:
            out += _IMAGE_HEAD.pack(self._ids[T.IMAGE], fmt, mipmaps, width, height, len(data))
        except struct_error as exc:
            raise EncodeError(f"Image field out of range: {exc}") from None
        out += data
        out += _PAD[len(data) & 3]

    def _input_event(self, out: bytearray, value: InputEvent, full: bool) -> None:
        etype, device, modifiers, code, axis_value = value
        payload = EVENT_PAYLOADS.get(etype)
        fields: tuple[Any, ...] = ()
        if etype == InputEventType.KEY:
            if modifiers & ~InputEvent.MODIFIER_MASK:
                raise EncodeError("InputEvent modifiers hold bits other than the MASK_* ones")
            fields = (modifiers, code)
        elif etype == InputEventType.JOYSTICK_MOTION:
            fields = (code, _f32(axis_value))
        elif payload is not None:
            fields = (code,)
        try:
            extra = payload.pack(*fields) if payload is not None else b""
            out += _EVENT_HEAD.pack(self._ids[T.INPUT_EVENT], etype, device, 12 + len(extra))
        except struct_error as exc:
            raise EncodeError(f"InputEvent field out of range: {exc}") from None
        out += extra

    # ---- container writers: write the head, return the children ------------------------

    def _array(self, out: bytearray, value: list[Any], full: bool) -> Iterator[Any]:
        out += _U32U32.pack(self._ids[T.ARRAY], len(value) | self._count_flag)
        return iter(value)

    def _typed_array(self, out: bytearray, value: TypedArray, full: bool) -> Iterator[Any]:
        if not self.profile.typed_arrays:
            if self.profile.typed_arrays_as_untyped:
                return self._array(out, value, full)
            raise EncodeError(f"{self.profile.engine} has no typed Arrays")
        kind, info = self._type_info(value.element_type, full)
        out += _U32.pack(self._ids[T.ARRAY] | kind << 16)
        out += info
        out += _U32.pack(len(value))
        return iter(value)

    def _pandemonium_typed_array(
        self, out: bytearray, value: TypedArray, full: bool
    ) -> Iterator[Any]:
        """Pandemonium's TYPED_ARRAY / PACKED_TYPED_ARRAY: element type before the count."""
        vtype = T.PACKED_TYPED_ARRAY if isinstance(value, PackedTypedArray) else T.TYPED_ARRAY
        spec = value.element_type
        if spec.kind == ContainerKind.SCRIPT:
            raise EncodeError(f"{self.profile.engine} typed arrays cannot name a script class")
        if spec.type not in self._ids:
            raise EncodeError(f"{self.profile.engine} has no {spec.type.name} type")
        header = self._ids[vtype]
        is_object = spec.type == T.OBJECT
        if is_object and not full:
            header |= FLAG_64  # object elements sent as ids: no class name
        out += _U32U32.pack(header, self._ids[spec.type])
        if is_object and full:
            out += _U32.pack(self._ids[T.STRING_NAME])
            _put_string(out, spec.name, self._errors)
        out += _U32.pack(len(value))
        return iter(value)

    def _dict(self, out: bytearray, value: Mapping[Any, Any], full: bool) -> Iterator[Any]:
        out += _U32U32.pack(self._ids[T.DICTIONARY], len(value) | self._count_flag)
        return _flatten_items(value.items())

    def _dictionary(self, out: bytearray, value: Dictionary, full: bool) -> Iterator[Any]:
        header = self._ids[T.DICTIONARY]
        info = b""
        if value.key_type is not None or value.value_type is not None:
            if not self.profile.typed_dictionaries:
                raise EncodeError(f"{self.profile.engine} has no typed Dictionaries")
            key_kind, key_info = self._type_info(value.key_type, full)
            value_kind, value_info = self._type_info(value.value_type, full)
            header |= key_kind << 16 | value_kind << 18
            info = key_info + value_info
        out += _U32.pack(header)
        out += info
        out += _U32.pack(len(value.items_list) | self._count_flag)
        return _flatten_items(value.items_list)

    def _type_info(self, spec: ElementType | None, full: bool) -> tuple[int, bytes]:
        """The container-kind bits and type info (``_encode_container_type_header``)."""
        if spec is None or spec.kind == ContainerKind.NONE:
            return ContainerKind.NONE, b""
        if spec.kind == ContainerKind.BUILTIN:
            if spec.type not in self._ids:
                raise EncodeError(f"{self.profile.engine} has no {spec.type.name} type")
            return ContainerKind.BUILTIN, _U32.pack(self._ids[spec.type])
        info = bytearray()
        if not full:  # without full objects Godot names every object type EncodedObjectAsID
            _put_string(info, _ENCODED_AS_ID)
            return ContainerKind.CLASS_NAME, bytes(info)
        _put_string(info, spec.name, self._errors)
        return spec.kind, bytes(info)

    def _object(self, out: bytearray, value: GodotObject, full: bool) -> Iterator[Any] | None:
        self._no_objects()
        if not full:
            raise EncodeError(
                "a full Object needs full_objects=True (var_to_bytes_with_objects); "
                "send an ObjectID to pass only its instance id"
            )
        out += _U32.pack(self._ids[T.OBJECT])
        _put_string(out, value[0], self._errors)
        out += _U32.pack(len(value[1]))
        return _object_children(out, value[1], self._errors)

    # ---- the loop ----------------------------------------------------------------------

    def encode(self, value: Any, full_objects: bool = False) -> bytes:
        """Encode ``value`` as ``var_to_bytes`` (or ``var_to_bytes_with_objects``) would."""
        return encode_value(value, self.profile, full_objects)


def encode_value(value: Any, profile: Profile, full_objects: bool = False) -> bytes:
    """``value`` as ``profile``'s ``var_to_bytes`` writes it (``var_to_bytes_with_objects``
    with ``full_objects``): the codec contract's encoder, one loop over an explicit stack."""
    enc = _ENCODERS.get(profile)
    if enc is None:
        enc = encoder_for(profile)
    out = bytearray()
    writers = enc._writers
    int_header = enc._int_header
    float_header = enc._float_header
    string_header = enc._string_header
    fast_ints = not profile.int_always_64
    fast_floats = profile.float64
    surrogates = enc._errors
    limit = profile.max_encode_depth
    max_depth = UNLIMITED if limit is None else limit
    open_ids: set[int] | None = set() if limit is None else None
    pack_i32 = _U32I32.pack
    pack_f32 = _U32F32.pack
    pack_f64 = _U32F64.pack
    pack_u32u32 = _U32U32.pack
    f32_exact = _f32_exact
    stack: list[list[Any]] = []  # [children iterator, items taken, container]
    try:
        while True:
            cls = type(value)
            if cls is int and fast_ints and _INT32_MIN <= value <= _INT32_MAX:
                out += pack_i32(int_header, value)
            elif cls is str:
                if "\0" in value:
                    raise EncodeError("a Godot String cannot contain NUL (U+0000)")
                raw = value.encode("utf-8") if value.isascii() else _utf8(value, surrogates)
                out += pack_u32u32(string_header, len(raw))
                out += raw
                out += _PAD[len(raw) & 3]
            elif cls is float and fast_floats:
                if f32_exact(value):
                    out += pack_f32(float_header, value)
                else:
                    out += pack_f64(float_header | FLAG_64, value)
            else:
                writer = writers.get(cls) or enc._writer_for(cls)
                children = writer(enc, out, value, full_objects)
                if children is not None:
                    if open_ids is not None:  # no depth limit: refuse cycles instead
                        if id(value) in open_ids:
                            raise EncodeError("the value contains itself")
                        open_ids.add(id(value))
                    stack.append([children, 0, value])
            # ---- next value: the next child of the innermost open container ----------
            while stack:
                top = stack[-1]
                for value in top[0]:  # noqa: B007 - takes one child
                    top[1] += 1
                    break
                else:
                    stack.pop()
                    if open_ids is not None:
                        open_ids.discard(id(top[2]))
                    continue
                if len(stack) > max_depth:  # the child sits at depth len(stack)
                    raise EncodeError(f"nesting deeper than Godot's limit of {max_depth} levels")
                break
            else:
                return bytes(out)
    except EncodeError as exc:
        raise exc._with_path(_path(stack)) from None


def _converting_packed_writer(header: int, target: type[_PackedNumbers]) -> Writer:
    """Write a packed real vector array at the other component width."""

    def writer(enc: Encoder, out: bytearray, value: Any, full: bool) -> None:
        out += _U32U32.pack(header, len(value))
        out += recast(value, target)

    return writer


def _vector4i_w_from_z_writer(header: int) -> Writer:
    """Pandemonium's PoolVector4iArray encoder: it writes each z again where w belongs."""

    def writer(enc: Encoder, out: bytearray, value: Any, full: bool) -> None:
        numbers = array("i", bytes(value))
        numbers[3::4] = numbers[2::4]
        out += _U32U32.pack(header, len(value))
        out += numbers.tobytes()

    return writer


def _flatten_items(items: Any) -> Iterator[Any]:
    for key, val in items:
        yield key
        yield val


def _object_children(
    out: bytearray, properties: tuple[tuple[str, Any], ...], errors: str
) -> Iterator[Any]:
    """Yield property values, writing each property's name just before its value."""
    for name, val in properties:
        _put_string(out, name, errors)
        yield val


def _path(stack: list[list[Any]]) -> str:
    """The location of the value being written, from the stack of open containers."""
    parts = []
    for _, taken, container in stack:
        index = taken - 1
        if isinstance(container, GodotObject):
            parts.append(f".{container[1][index][0]}")
        elif isinstance(container, Mapping | Dictionary):
            pairs = list(container.items())
            key = pairs[index // 2][0]
            parts.append(f"[{key_repr(key)}]" if index % 2 else f"{{key #{index // 2}}}")
        else:
            parts.append(f"[{index}]")
    return "".join(parts)


_ENCODERS: dict[Profile, Encoder] = {}


def encoder_for(profile: Profile) -> Encoder:
    """The (cached) encoder for a profile."""
    enc = _ENCODERS.get(profile)
    if enc is None:
        enc = _ENCODERS[profile] = Encoder(profile)
    return enc
