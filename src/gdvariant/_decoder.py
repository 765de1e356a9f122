"""Bytes -> value: the pure-Python decoder.

One loop reads values from a ``memoryview`` with precompiled ``struct.Struct``s. Arrays,
Dictionaries and Objects push a frame on an explicit stack instead of recursing, so Godot's
depth limit (1024) needs no change to Python's recursion limit and an error can name the path
to the failing value. Every length and count is checked against the bytes left before anything
is allocated. Which numbers mean which type comes from the :class:`~gdvariant.Profile`.
"""

from __future__ import annotations

from struct import Struct
from typing import Any

from ._collections import ContainerKind, ElementType, PackedTypedArray, TypedArray, godot_dictionary
from ._element_rules import DROP, ElementRules, Unconvertible, admit, rules_for
from ._errors import DecodeError, GodotError, key_repr
from ._layouts import COUNT_MASK, FLAG_64, LAYOUTS, NODE_PATH_NEW, PACKED_ARRAYS
from ._legacy import EVENT_PAYLOADS, Image, InputEvent, InputEventType
from ._limits import DEFAULT_LIMITS, UNLIMITED, Limits, over_limit
from ._packed import PackedStringArray, PackedView
from ._parts import (
    decode_utf8,
    godot_text,
    read_container_type,
    read_pandemonium_element_type,
    read_string,
)
from ._profiles import KIND_BARE_OBJECT, KIND_BARE_RID, Profile
from ._reals import reads, recast
from ._types import RID, Callable, GodotObject, NodePath, ObjectID, Signal, StringName, VariantType

__all__ = ["decode_value"]

_U32 = Struct("<I")
_I32 = Struct("<i")
_U64 = Struct("<Q")
_I64 = Struct("<q")
_F32 = Struct("<f")
_F64 = Struct("<d")
_U32I32 = Struct("<Ii")
_NODEPATH_HEAD = Struct("<III")
_IMAGE_HEAD = Struct("<IIIIi")
_EVENT_HEAD = Struct("<Ii")

_INVALID = GodotError.ERR_INVALID_DATA
_EOF = GodotError.ERR_FILE_EOF

T = VariantType
_NEW = tuple.__new__
_CALLABLE = Callable()

# Kind codes as plain ints (comparing ints is much cheaper than looking up enum members).
_K_NIL = int(T.NIL)
_K_BOOL = int(T.BOOL)
_K_INT = int(T.INT)
_K_FLOAT = int(T.FLOAT)
_K_STRING = int(T.STRING)
_K_STRING_NAME = int(T.STRING_NAME)
_K_NODE_PATH = int(T.NODE_PATH)
_K_RID = int(T.RID)
_K_OBJECT = int(T.OBJECT)
_K_CALLABLE = int(T.CALLABLE)
_K_SIGNAL = int(T.SIGNAL)
_K_DICTIONARY = int(T.DICTIONARY)
_K_ARRAY = int(T.ARRAY)
_K_PACKED_BYTE_ARRAY = int(T.PACKED_BYTE_ARRAY)
_K_PACKED_STRING_ARRAY = int(T.PACKED_STRING_ARRAY)
_K_IMAGE = int(T.IMAGE)
_K_INPUT_EVENT = int(T.INPUT_EVENT)
_K_TYPED_ARRAY = int(T.TYPED_ARRAY)
_K_PACKED_TYPED_ARRAY = int(T.PACKED_TYPED_ARRAY)
_ARRAY_KINDS = frozenset({_K_ARRAY, _K_TYPED_ARRAY, _K_PACKED_TYPED_ARRAY})

# The math types and packed arrays, by type number (how each profile reads them: ``_reals``).
_FIXED = frozenset(int(vtype) for vtype in LAYOUTS)
_PACKED = frozenset(int(vtype) for vtype in PACKED_ARRAYS)


# Frame kinds on the container stack. A typed container's frame (only when the profile has
# element rules) also holds, per slot (array element; dictionary key, value), the type number
# that needs no check, the element type, whether an element was dropped and its own kind:
#   [_TYPED_ARRAY, items, count, element_type, element_type, dropped, want, want, own kind]
#   [_TYPED_DICT, items, 2 * count, key_type, value_type, dropped, key_want, value_want]
_ARRAY = 0
_DICT = 1
_OBJECT = 2
_TYPED_ARRAY = 3
_TYPED_DICT = 4
_CHECK_ALL = -1  # no element skips the check (full objects in a class-typed container)


def _want(element_type: ElementType | None, rules: ElementRules, allow_objects: bool) -> int | None:
    """The type number an element must have to skip :func:`admit`; None: no check at all."""
    if element_type is None:
        return None
    if allow_objects and rules.checks_classes and element_type.kind == ContainerKind.CLASS_NAME:
        return _CHECK_ALL
    return int(element_type.type)


def _fail(reason: str, offset: int, code: GodotError = _INVALID) -> DecodeError:
    return DecodeError(reason, offset, "", code)


def _too_deep(depth: int, offset: int) -> DecodeError:
    return over_limit("a nesting of levels", depth, "max_depth", depth - 1, offset)


def _path(stack: list[list[Any]]) -> str:
    """The location of the value being read, from the container stack."""
    parts = []
    for frame in stack:
        kind, items = frame[0], frame[1]
        if kind in (_ARRAY, _TYPED_ARRAY):
            parts.append(f"[{len(items)}]")
        elif kind in (_DICT, _TYPED_DICT):
            pair = len(items) // 2
            parts.append(f"[{key_repr(items[-1])}]" if len(items) % 2 else f"{{key #{pair}}}")
        else:
            parts.append(f".{frame[4]}")
    return "".join(parts)


def _checked(
    rules: ElementRules, value: Any, kind: int, frame: list[Any], slot: int, pos: int
) -> Any:
    """A mistyped element (or key / value, by ``slot``) of a typed container's frame as the
    container keeps it (:func:`admit`); a refused one marks the frame."""
    try:
        value = admit(rules, value, kind, frame[3 + slot])
    except Unconvertible as exc:
        reason = f"{exc} (the element ending here)"
        raise _fail(reason, pos, GodotError.ERR_UNAVAILABLE) from None
    if value is DROP:
        frame[5] = True
    return value


def _finish_dict(frame: list[Any]) -> Any:
    """The Dictionary of a finished container frame (see :func:`godot_dictionary`); the pairs
    whose key or value its type refused are left out."""
    flat = frame[1]
    keys, values = flat[0::2], flat[1::2]
    if frame[0] == _TYPED_DICT and frame[5]:
        kept = [
            (k, v) for k, v in zip(keys, values, strict=True) if k is not DROP and v is not DROP
        ]
        keys, values = [k for k, _ in kept], [v for _, v in kept]
    return godot_dictionary(keys, values, frame[3], frame[4])


def decode_value(
    data: bytes | bytearray | memoryview,
    profile: Profile,
    allow_objects: bool = False,
    offset: int = 0,
    limits: Limits = DEFAULT_LIMITS,
    packed_views: bool = False,
) -> tuple[Any, int]:
    """Decode one value starting at ``offset``; return it and the offset just past it.

    The value is what the profile's engine holds after reading the bytes, so the encoder can
    always write it back: reals at the build's width (``_reals``), the engine's own depth
    limit whatever ``limits`` says.

    With ``packed_views``, numeric packed arrays and PackedByteArrays come back as
    :class:`PackedView` slices of ``data`` itself (not of the copy made of a mutable buffer),
    except a packed real vector array written at the other width than the build's, which is
    a converted copy.

    The returned end can exceed ``len(data)`` by up to 4 bytes, as Godot's count does: a
    PackedByteArray (or 2.x Image) whose final padding is missing counts it (up to 3), and
    a 2.x InputEvent of an unknown type counts 12 payload bytes when 8 are there.
    """
    size = memoryview(data).nbytes
    if not 0 <= offset <= size:
        raise ValueError(f"offset {offset} is outside the data (0..{size})")
    # The caps, None meaning UNLIMITED (inline: this runs once per message).
    max_size = limits.max_size
    if max_size is None:
        max_size = UNLIMITED
    if size - offset > max_size:  # checked before the bytes are copied
        raise over_limit("an input of bytes", size - offset, "max_size", max_size, offset)
    buf = data if type(data) is bytes else bytes(memoryview(data).cast("B"))
    view = memoryview(buf)
    end = len(buf)
    # What packed views slice: the caller's own buffer, read-only.
    source = memoryview(data).cast("B").toreadonly() if packed_views else None
    wrap = PackedView._wrap
    kinds = profile.kind_codes
    typed_arrays = profile.typed_arrays
    typed_dicts = profile.typed_dictionaries
    rules = rules_for(profile.element_rules)
    max_depth = limits.max_depth
    max_len = limits.max_length
    max_elems = limits.max_elements
    if max_depth is None:
        max_depth = UNLIMITED
    if profile.max_depth is not None and profile.max_depth < max_depth:
        max_depth = profile.max_depth  # the engine's own limit: it refuses deeper data
    if max_len is None:
        max_len = UNLIMITED
    if max_elems is None:
        max_elems = UNLIMITED
    flag_bits = 0xFFFFFF00 if profile.strict_header else 0
    surrogates = profile.surrogates
    fixed, packed = reads(profile)
    packed_flag = FLAG_64 if profile.double_flagged else 0
    u32 = _U32.unpack_from
    u32i32 = _U32I32.unpack_from
    f32 = _F32.unpack_from
    f64 = _F64.unpack_from
    i64 = _I64.unpack_from

    stack: list[list[Any]] = []
    pos = offset
    try:
        while True:
            # ---- read one value at pos ---------------------------------------------------
            if end - pos < 8:
                if end - pos < 4:
                    raise _fail("value header missing: data ends early", pos)
                header = u32(buf, pos)[0]
                word = None
            else:
                header, word = u32i32(buf, pos)
            k = kinds[header & 0xFF]
            if header & flag_bits:
                raise _fail(f"{profile.engine} allows no bits above the type byte", pos)

            if k == _K_INT:
                if header & FLAG_64:
                    if end - pos < 12:
                        raise _fail("int64 payload missing", pos)
                    value = i64(buf, pos + 4)[0]
                    pos += 12
                else:
                    if word is None:
                        raise _fail("int32 payload missing", pos)
                    value = word
                    pos += 8
            elif k == _K_STRING:
                if word is None:
                    raise _fail("string length missing", pos + 4)
                if word < 0 or word + (-word & 3) > end - pos - 8:
                    raise _fail(
                        f"string of {word} bytes runs past the end of the data", pos + 4, _EOF
                    )
                if word > max_len:
                    raise over_limit("a String of bytes", word, "max_length", max_len, pos + 4)
                start = pos + 8
                try:
                    value = buf[start : start + word].decode()
                except UnicodeDecodeError:
                    value = decode_utf8(view[start : start + word], start, surrogates)
                else:
                    if not value.isascii() or "\0" in value:
                        value = godot_text(value)
                pos = start + word + (-word & 3)
            elif k == _K_FLOAT:
                if header & FLAG_64:
                    if end - pos < 12:
                        raise _fail("float64 payload missing", pos)
                    value = f64(buf, pos + 4)[0]
                    pos += 12
                else:
                    if word is None:
                        raise _fail("float32 payload missing", pos)
                    value = f32(buf, pos + 4)[0]
                    pos += 8
            elif k == _K_BOOL:
                if word is None:
                    raise _fail("bool payload missing", pos)
                value = word != 0
                pos += 8
            elif k == _K_DICTIONARY:
                start = pos
                pos += 4
                key_type = value_type = None
                if typed_dicts and header & 0xF0000:
                    key_kind, value_kind = (header >> 16) & 3, (header >> 18) & 3
                    key_type, pos = read_container_type(buf, pos, end, key_kind, profile, max_len)
                    value_type, pos = read_container_type(
                        buf, pos, end, value_kind, profile, max_len
                    )
                if end - pos < 4:
                    raise _fail("Dictionary count missing", pos)
                count = u32(buf, pos)[0] & COUNT_MASK
                pos += 4
                if count * 8 > end - pos:
                    raise _fail(f"Dictionary of {count} entries cannot fit in the data", start)
                if count > max_elems:
                    raise over_limit(
                        "a Dictionary of entries", count, "max_elements", max_elems, start
                    )
                if rules is None or (key_type is None and value_type is None):
                    frame = [_DICT, [], 2 * count, key_type, value_type]
                else:
                    value_want = _want(value_type, rules, allow_objects)
                    frame = [
                        _TYPED_DICT,
                        [],
                        2 * count,
                        key_type,
                        value_type,
                        False,
                        _want(key_type, rules, allow_objects),
                        value_want if rules.checks_values else None,
                    ]
                if count:
                    stack.append(frame)
                    if len(stack) > max_depth:
                        raise _too_deep(len(stack), pos)
                    continue
                value = _finish_dict(frame)
            elif k in _ARRAY_KINDS:
                start = pos
                items: list[Any]
                if k == _K_ARRAY:
                    name = "Array"
                    pos += 4
                    element_type = None
                    if typed_arrays and header & 0x30000:
                        kind = (header >> 16) & 3
                        element_type, pos = read_container_type(
                            buf, pos, end, kind, profile, max_len
                        )
                    items = [] if element_type is None else TypedArray(element_type)
                else:  # Pandemonium: element type, then the count
                    name = "TypedArray"
                    element_type, pos = read_pandemonium_element_type(
                        buf, pos, end, header, profile, max_len
                    )
                    cls = TypedArray if k == _K_TYPED_ARRAY else PackedTypedArray
                    items = cls(element_type)
                if end - pos < 4:
                    raise _fail(f"{name} count missing", pos)
                count = u32(buf, pos)[0] & COUNT_MASK
                pos += 4
                if count * 4 > end - pos:
                    raise _fail(f"{name} of {count} elements cannot fit in the data", start)
                if count > max_elems:
                    raise over_limit(
                        f"an {name} of elements", count, "max_elements", max_elems, start
                    )
                if count:
                    if rules is None or element_type is None:
                        stack.append([_ARRAY, items, count])
                    else:
                        want = _want(element_type, rules, allow_objects)
                        typed = (element_type, element_type, False, want, want, k)
                        stack.append([_TYPED_ARRAY, items, count, *typed])
                    if len(stack) > max_depth:
                        raise _too_deep(len(stack), pos)
                    continue
                value = items
            elif k in _FIXED:
                read = fixed[k]
                if header & FLAG_64:
                    layout, unflatten = read[2], read[3]
                else:
                    layout, unflatten = read[0], read[1]
                if end - pos - 4 < layout.size:
                    raise _fail(f"{VariantType(k).name} payload missing", pos)
                value = unflatten(layout.unpack_from(buf, pos + 4))
                pos += 4 + layout.size
            elif k == _K_NIL:
                value = None
                pos += 4
            elif k == _K_STRING_NAME:
                value, pos = read_string(buf, pos + 4, end, surrogates, max_len)
                value = StringName(value)
            elif k == _K_PACKED_BYTE_ARRAY:
                if word is None:
                    raise _fail("PackedByteArray count missing", pos)
                if word < 0 or word > end - pos - 8:
                    raise _fail(f"PackedByteArray of {word} bytes runs past the end", pos)
                if word > max_len:
                    raise over_limit("a PackedByteArray of bytes", word, "max_length", max_len, pos)
                if source is None:
                    value = buf[pos + 8 : pos + 8 + word]
                else:
                    value = wrap(bytes, source[pos + 8 : pos + 8 + word])
                pos += 8 + word + (-word & 3)
            elif k in _PACKED:
                cls, held = packed[k][1 if header & packed_flag else 0]
                if word is None:
                    raise _fail(f"{cls.__name__} count missing", pos)
                size = cls.itemsize
                if word < 0 or word * size > end - pos - 8:
                    raise _fail(f"{cls.__name__} of {word} elements runs past the end", pos)
                if word > max_elems:
                    raise over_limit(
                        f"a {cls.__name__} of elements", word, "max_elements", max_elems, pos
                    )
                if held is not cls:  # held at the build's width: a copy, never a view
                    value = recast(cls.frombuffer(view[pos + 8 : pos + 8 + word * size]), held)
                elif source is None:
                    value = cls.frombuffer(view[pos + 8 : pos + 8 + word * size])
                else:
                    value = wrap(cls, source[pos + 8 : pos + 8 + word * size])
                pos += 8 + word * size
            elif k == _K_PACKED_STRING_ARRAY:
                if word is None:
                    raise _fail("PackedStringArray count missing", pos)
                pos += 8
                if word < 0:  # Godot reads a negative count as an empty array
                    value = PackedStringArray()
                else:
                    if word * 4 > end - pos:
                        raise _fail(f"PackedStringArray of {word} strings cannot fit", pos - 8)
                    if word > max_elems:
                        raise over_limit(
                            "a PackedStringArray of strings",
                            word,
                            "max_elements",
                            max_elems,
                            pos - 8,
                        )
                    strings = []
                    for _ in range(word):
                        text, pos = read_string(buf, pos, end, surrogates, max_len)
                        strings.append(text)
                    value = _NEW(PackedStringArray, strings)
            elif k == _K_OBJECT:
                if header & FLAG_64:
                    if end - pos < 12:
                        raise _fail("object id missing", pos)
                    oid = _U64.unpack_from(buf, pos + 4)[0]
                    value = None if oid == 0 else _NEW(ObjectID, (oid,))
                    pos += 12
                else:
                    if not allow_objects:
                        raise _fail(
                            "full Object in the data and allow_objects is off",
                            pos,
                            GodotError.ERR_UNAUTHORIZED,
                        )
                    start = pos
                    class_name, pos = read_string(buf, pos + 4, end, surrogates, max_len)
                    if not class_name:
                        value = None
                    else:
                        if end - pos < 4:
                            raise _fail("Object property count missing", pos)
                        count = max(_I32.unpack_from(buf, pos)[0], 0)
                        pos += 4
                        if count * 8 > end - pos:
                            raise _fail(f"Object with {count} properties cannot fit", start)
                        if count > max_elems:
                            raise over_limit(
                                "an Object of properties",
                                count,
                                "max_elements",
                                max_elems,
                                start,
                            )
                        if count:
                            name, pos = read_string(buf, pos, end, surrogates, max_len)
                            stack.append([_OBJECT, [], count, class_name, name])
                            if len(stack) > max_depth:
                                raise _too_deep(len(stack), pos)
                            continue
                        value = _NEW(GodotObject, (class_name, ()))
            elif k == _K_NODE_PATH:
                value, pos = _read_node_path(buf, pos, end, profile, max_len, max_elems)
            elif k == KIND_BARE_RID:
                value = _NEW(RID, (0,))
                pos += 4
            elif k == KIND_BARE_OBJECT:
                value = None
                pos += 4
            elif k == _K_IMAGE:
                value, pos = _read_image(buf, pos, end, max_len)
            elif k == _K_INPUT_EVENT:
                value, pos = _read_input_event(buf, pos, end)
            elif k == _K_RID:
                if end - pos < 12:
                    raise _fail("RID payload missing", pos)
                value = _NEW(RID, (_U64.unpack_from(buf, pos + 4)[0],))
                pos += 12
            elif k == _K_CALLABLE:
                value = _CALLABLE
                pos += 4
            elif k == _K_SIGNAL:
                name, pos = read_string(buf, pos + 4, end, surrogates, max_len)
                if end - pos < 8:
                    raise _fail("Signal object id missing", pos)
                value = _NEW(Signal, (name, _U64.unpack_from(buf, pos)[0]))
                pos += 8
            else:
                raise _fail(f"unknown type id {header & 0xFF} for {profile.engine}", pos)

            # ---- hand the value to its container, closing every container it completes ----
            while stack:
                frame = stack[-1]
                items = frame[1]
                fk = frame[0]
                if fk < _OBJECT:  # untyped: as fast as before typed containers were checked
                    items.append(value)  # Dictionaries collect key, value, key, value...
                    if len(items) < frame[2]:
                        break
                    if fk == _ARRAY:
                        value, k = items, _K_ARRAY
                    else:
                        value, k = _finish_dict(frame), _K_DICTIONARY
                elif fk == _TYPED_ARRAY:
                    if k != frame[6]:  # only a mistyped element pays for the check
                        value = _checked(rules, value, k, frame, 0, pos)  # type: ignore[arg-type]
                    items.append(value)
                    if len(items) < frame[2]:
                        break
                    if frame[5]:  # Godot's push_back refused some: the Array is shorter
                        items[:] = [item for item in items if item is not DROP]
                    value, k = items, frame[8]
                elif fk == _OBJECT:
                    items.append((frame[4], value))
                    if len(items) < frame[2]:
                        frame[4], pos = read_string(buf, pos, end, surrogates, max_len)
                        break
                    value, k = _NEW(GodotObject, (frame[3], tuple(items))), _K_OBJECT
                else:  # a typed Dictionary: its keys (and values, if the rules say so)
                    slot = len(items) & 1
                    want = frame[6 + slot]
                    if k != want and want is not None:
                        value = _checked(rules, value, k, frame, slot, pos)  # type: ignore[arg-type]
                    items.append(value)
                    if len(items) < frame[2]:
                        break
                    value, k = _finish_dict(frame), _K_DICTIONARY
                stack.pop()
            else:
                return value, pos
    except DecodeError as exc:
        raise exc._with_path(_path(stack)) from None


def _read_node_path(
    buf: bytes, pos: int, end: int, profile: Profile, max_len: int, max_elems: int
) -> tuple[NodePath, int]:
    """NODE_PATH: name count | bit 31, subname count, flags, then the strings.

    A 2.x property (flags bit 1) is one more string, which becomes the last subname.
    """
    if end - pos < 8:
        raise _fail("NodePath header missing", pos)
    first = _U32.unpack_from(buf, pos + 4)[0]
    if not first & NODE_PATH_NEW:
        if profile.old_node_path:  # u32 length + the path as text, no padding
            if first > end - pos - 8:
                raise _fail(f"NodePath text of {first} bytes runs past the end", pos + 4, _EOF)
            if first > max_len:
                raise over_limit("a NodePath of bytes", first, "max_length", max_len, pos + 4)
            text = decode_utf8(memoryview(buf)[pos + 8 : pos + 8 + first], pos + 8, True)
            return NodePath(text), pos + 8 + first
        raise _fail(f"NodePath in the old format (bit 31 clear): {profile.engine} rejects it", pos)
    if end - pos < 16:
        raise _fail("NodePath header missing", pos)
    name_count, sub_count, flags = _NODEPATH_HEAD.unpack_from(buf, pos + 4)
    name_count &= COUNT_MASK
    if flags & 2:  # the obsolete "property" flag adds one more subname
        sub_count += 1
    # Godot adds the counts as uint32, so the total wraps: 1 name + 0xFFFFFFFF subnames = 0 strings.
    total = (name_count + sub_count) & 0xFFFFFFFF
    pos += 16
    if total * 4 > end - pos:
        raise _fail("NodePath parts cannot fit in the data", pos - 16)
    if total > max_elems:
        raise over_limit("a NodePath of names", total, "max_elements", max_elems, pos - 16)
    parts = []
    for _ in range(total):
        s, pos = read_string(buf, pos, end, profile.surrogates, max_len)
        parts.append(s)
    names, subnames = tuple(parts[:name_count]), tuple(parts[name_count:])
    return _NEW(NodePath, (names, subnames, bool(flags & 1))), pos


def _read_image(buf: bytes, pos: int, end: int, max_len: int) -> tuple[Image, int]:
    """Godot 2 IMAGE: format, mipmaps, width, height, data length, data, padding."""
    if end - pos < 24:
        raise _fail("Image header missing", pos)
    fmt, mipmaps, width, height, size = _IMAGE_HEAD.unpack_from(buf, pos + 4)
    if fmt >= Image.FORMAT_MAX:
        raise _fail(f"Image format {fmt} is not a Godot 2 format", pos + 4)
    if size < 0 or size > end - pos - 24:
        raise _fail(f"Image data of {size} bytes runs past the end", pos + 20)
    if size > max_len:
        raise over_limit("an Image of bytes", size, "max_length", max_len, pos + 20)
    data = buf[pos + 24 : pos + 24 + size]
    # Like PackedByteArray, the padding counts even when the data ends without it.
    return _NEW(Image, (fmt, mipmaps, width, height, data)), pos + 24 + size + (-size & 3)


def _read_input_event(buf: bytes, pos: int, end: int) -> tuple[InputEvent, int]:
    """Godot 2 INPUT_EVENT: type, device, a length word Godot ignores, then per-type fields.

    The size comes from the event type; a field-less event needs only 8 bytes but counts 12.
    """
    if end - pos < 12:
        raise _fail("InputEvent type and device missing", pos)
    etype, device = _EVENT_HEAD.unpack_from(buf, pos + 4)
    payload = EVENT_PAYLOADS.get(etype)
    if payload is None:
        return _NEW(InputEvent, (etype, device, 0, 0, 0.0)), pos + 16
    size = 16 + payload.size
    if end - pos < size:
        raise _fail(f"InputEvent of type {etype} needs {size - 4} bytes", pos)
    fields = payload.unpack_from(buf, pos + 16)
    modifiers = code = 0
    axis_value = 0.0
    if etype == InputEventType.KEY:
        modifiers, code = fields
        modifiers &= InputEvent.MODIFIER_MASK
    elif etype == InputEventType.JOYSTICK_MOTION:
        code, axis_value = fields
    else:
        (code,) = fields
    return _NEW(InputEvent, (etype, device, modifiers, code, axis_value)), pos + size
