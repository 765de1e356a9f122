"""Bytes -> value: the pure-Python decoder.

One loop reads values from the bytes with precompiled ``struct.Struct``s: the kinds most data is
made of (nil, bool, int, float, String, the math types, Arrays and Dictionaries) are read in the
loop itself, every other layout by its own function in :data:`_READERS`, a table keyed by kind as
cbor2's decoder keys its functions by major type. Arrays, Dictionaries and Objects push a frame on
an explicit stack instead of recursing, so Godot's depth limit (1024) needs no change to Python's
recursion limit and an error can name the path to the failing value. Every length and count is
checked against the bytes left before anything is allocated. Which numbers mean which kind comes
from the :class:`~gdvariant.Profile`, and so does every difference between engines: no reader
asks which engine it reads for.
"""

from __future__ import annotations

from collections.abc import Callable as Function
from struct import Struct
from typing import Any, NamedTuple

from .._engines.element_rules import DROP, ElementRules, Unconvertible, admit, rules_for
from .._engines.profiles import KIND_BARE_OBJECT, KIND_BARE_RID, Profile
from .._engines.reals import reads, recast
from .._errors import DecodeError, GodotError, key_repr
from .._limits import DEFAULT_LIMITS, UNLIMITED, Limits, over_limit
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
    ElementType,
    PackedTypedArray,
    TypedArray,
    godot_dictionary,
)
from .._values.godot2 import EVENT_PAYLOADS, Image, InputEvent, InputEventType
from .._values.layouts import COUNT_MASK, FLAG_64, LAYOUTS, NODE_PATH_NEW, PACKED_ARRAYS
from .._values.packed import PackedStringArray, PackedView
from .parts import (
    decode_utf8,
    godot_text,
    read_container_type,
    read_pandemonium_element_type,
    read_string,
)

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
_wrap = PackedView._wrap
_u32i32 = _U32I32.unpack_from
_f32 = _F32.unpack_from
_f64 = _F64.unpack_from

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

# The math types and packed arrays, by type number (how each profile reads them:
# ``_engines.reals``).
_FIXED = frozenset(int(vtype) for vtype in LAYOUTS)
_PACKED = frozenset(int(vtype) for vtype in PACKED_ARRAYS)


# Frame kinds on the container stack. A typed container's frame (only when the profile has
# element rules) also holds, per slot (array element; dictionary key, value), the type number
# that needs no check, the element type, whether an element was dropped and its own kind:
#   [_TYPED_ARRAY, items, count, element_type, element_type, dropped, want, want, own kind]
#   [_TYPED_DICT, items, 2 * count, key_type, value_type, dropped, key_want, value_want]
# An Object's frame holds its class and the name of the property being read:
#   [_OBJECT, [(name, value), ...], count, class_name, name]
_ARRAY = 0
_DICT = 1
_OBJECT = 2
_TYPED_ARRAY = 3
_TYPED_DICT = 4
_CHECK_ALL = -1  # no element skips the check (full objects in a class-typed container)

#: What a reader returns instead of a value when it pushed a frame: the value is still open.
_OPEN: Any = object()


class _Plan(NamedTuple):
    """What the loop reads of a profile, worked out once per profile (see :func:`_plan`)."""

    kinds: tuple[int, ...]  # wire id -> kind code
    flag_bits: int  # header bits the engine refuses
    typed_arrays: bool
    typed_dicts: bool
    rules: ElementRules | None
    surrogates: bool
    # Each math type's (struct, unflatten) by kind, and by kind | FLAG_64 for its flagged form;
    # each packed numeric array's (class read, class held) the same way.
    fixed: dict[int, tuple[Struct, Function[[Any], Any]]]
    packed: dict[int, tuple[type[Any], type[Any]]]


_PLANS: dict[Profile, _Plan] = {}


def _plan(profile: Profile) -> _Plan:
    """``profile``'s :class:`_Plan`, built on its first decode."""
    plan = _PLANS.get(profile)
    if plan is None:
        math, packed_arrays = reads(profile)
        fixed, packed = {}, {}
        for kind, (narrow, unflatten, wide, wide_unflatten) in math.items():
            fixed[kind] = (narrow, unflatten)
            fixed[kind | FLAG_64] = (wide, wide_unflatten)
        for kind, (plain, flagged) in packed_arrays.items():
            packed[kind] = plain
            packed[kind | FLAG_64] = flagged
        plan = _PLANS[profile] = _Plan(
            profile.kind_codes,
            0xFFFFFF00 if profile.strict_header else 0,
            profile.typed_arrays,
            profile.typed_dictionaries,
            rules_for(profile.element_rules),
            profile.surrogates,
            fixed,
            packed,
        )
    return plan


class _Call(NamedTuple):
    """One decode call: its profile and plan, the caller's options, the container stack."""

    profile: Profile
    plan: _Plan
    allow_objects: bool
    max_len: int
    max_elems: int
    max_depth: int
    source: memoryview | None  # what packed views slice: the caller's own buffer, read-only
    stack: list[list[Any]]


#: A reader of one layout: (bytes, offset of the header, header, call) -> (value, end).
_Reader = Function[[bytes, int, int, _Call], tuple[Any, int]]


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
    always write it back: reals at the build's width (``_engines.reals``), the engine's own depth
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
    max_size = limits.max_size
    if max_size is not None and size - offset > max_size:  # checked before the bytes are copied
        raise over_limit("an input of bytes", size - offset, "max_size", max_size, offset)
    buf = data if type(data) is bytes else bytes(memoryview(data).cast("B"))
    source = memoryview(data).cast("B").toreadonly() if packed_views else None
    # The caps, None meaning UNLIMITED; the depth never above the engine's own limit.
    max_depth = limits.max_depth
    if max_depth is None:
        max_depth = UNLIMITED
    if profile.max_depth is not None and profile.max_depth < max_depth:
        max_depth = profile.max_depth  # the engine refuses deeper data
    max_len = limits.max_length
    max_elems = limits.max_elements
    stack: list[list[Any]] = []
    call = _NEW(
        _Call,
        (
            profile,
            _PLANS.get(profile) or _plan(profile),
            allow_objects,
            UNLIMITED if max_len is None else max_len,
            UNLIMITED if max_elems is None else max_elems,
            max_depth,
            source,
            stack,
        ),
    )
    try:
        return _loop(buf, offset, call)
    except DecodeError as exc:
        raise exc._with_path(_path(stack)) from None


def _loop(buf: bytes, pos: int, call: _Call) -> tuple[Any, int]:
    """Read values from ``pos`` until one is complete outside every container: the hot kinds
    here, any other layout (and a typed container's head) by its reader in :data:`_READERS`."""
    profile, plan, _, max_len, max_elems, max_depth, _, stack = call
    kinds, flag_bits, typed_arrays, typed_dicts, rules, surrogates, fixed, _ = plan
    end = len(buf)
    u32i32, f32, f64 = _u32i32, _f32, _f64
    while True:
        header, word = u32i32(buf, pos) if end - pos >= 8 else _last_header(buf, pos)
        k = kinds[header & 0xFF]
        if header & flag_bits:
            raise _fail(f"{profile.engine} allows no bits above the type byte", pos)
        if k == _K_INT and word is not None and not header & FLAG_64:
            value = word
            pos += 8
        elif k == _K_STRING:
            if word is None or word < 0 or word + (-word & 3) > end - pos - 8 or word > max_len:
                raise _string_error(word, pos, end, max_len)
            start = pos + 8
            try:
                value = buf[start : start + word].decode()
            except UnicodeDecodeError:
                value = decode_utf8(memoryview(buf)[start : start + word], start, surrogates)
            else:
                if not value.isascii() or "\0" in value:
                    value = godot_text(value)
            pos = start + word + (-word & 3)
        elif k == _K_FLOAT and word is not None:
            if not header & FLAG_64:
                value = f32(buf, pos + 4)[0]
                pos += 8
            else:
                if end - pos < 12:
                    raise _fail("float64 payload missing", pos)
                value = f64(buf, pos + 4)[0]
                pos += 12
        elif k == _K_BOOL and word is not None:
            value = word != 0
            pos += 8
        elif k == _K_DICTIONARY and not (typed_dicts and header & 0xF0000):
            if word is None:
                raise _fail("Dictionary count missing", pos + 4)
            count = word & COUNT_MASK
            if count * 8 > end - pos - 8:
                raise _fail(f"Dictionary of {count} entries cannot fit in the data", pos)
            if count > max_elems:
                raise over_limit("a Dictionary of entries", count, "max_elements", max_elems, pos)
            pos += 8
            if count:
                stack.append([_DICT, [], 2 * count, None, None])
                if len(stack) > max_depth:
                    raise _too_deep(len(stack), pos)
                continue
            value = {}
        elif k == _K_ARRAY and not (typed_arrays and header & 0x30000):
            if word is None:
                raise _fail("Array count missing", pos + 4)
            count = word & COUNT_MASK
            if count * 4 > end - pos - 8:
                raise _fail(f"Array of {count} elements cannot fit in the data", pos)
            if count > max_elems:
                raise over_limit("an Array of elements", count, "max_elements", max_elems, pos)
            pos += 8
            if count:
                stack.append([_ARRAY, [], count])
                if len(stack) > max_depth:
                    raise _too_deep(len(stack), pos)
                continue
            value = []
        elif k in _FIXED:
            layout, unflatten = fixed[k | header & FLAG_64]
            if end - pos - 4 < layout.size:
                raise _fail(f"{VariantType(k).name} payload missing", pos)
            value = unflatten(layout.unpack_from(buf, pos + 4))
            pos += 4 + layout.size
        elif k == _K_NIL:
            value = None
            pos += 4
        else:
            value, pos = _READERS[k](buf, pos, header, call)
            if value is _OPEN:
                continue

        while stack:
            frame = stack[-1]
            items = frame[1]
            fk = frame[0]
            if fk < _OBJECT:  # untyped: as fast as before typed containers were checked
                items.append(value)  # Dictionaries collect key, value, key, value...
                if len(items) < frame[2]:
                    break
                value, k = (items, _K_ARRAY) if fk == _ARRAY else _finish_dict(frame)
            elif fk == _TYPED_ARRAY:
                if k != frame[6]:  # only a mistyped element pays for the check
                    value = _checked(rules, value, k, frame, 0, pos)  # type: ignore[arg-type]
                items.append(value)
                if len(items) < frame[2]:
                    break
                value, k = _finish_array(frame)
            elif fk == _TYPED_DICT:  # its keys (and values, if the rules say so)
                slot = len(items) & 1
                want = frame[6 + slot]
                if k != want and want is not None:
                    value = _checked(rules, value, k, frame, slot, pos)  # type: ignore[arg-type]
                items.append(value)
                if len(items) < frame[2]:
                    break
                value, k = _finish_dict(frame)
            else:  # an Object's property
                value, k, pos = _add_property(frame, value, buf, pos, call)
                if value is _OPEN:
                    break
            stack.pop()
        else:
            return value, pos


# ---- frames --------------------------------------------------------------------------------


def _fail(reason: str, offset: int, code: GodotError = _INVALID) -> DecodeError:
    return DecodeError(reason, offset, "", code)


def _too_deep(depth: int, offset: int) -> DecodeError:
    return over_limit("a nesting of levels", depth, "max_depth", depth - 1, offset)


def _last_header(buf: bytes, pos: int) -> tuple[int, None]:
    """The header of a value in the last 4 to 7 bytes, which have room for no payload word."""
    if len(buf) - pos < 4:
        raise _fail("value header missing: data ends early", pos)
    return _U32.unpack_from(buf, pos)[0], None


def _string_error(word: int | None, pos: int, end: int, max_len: int) -> DecodeError:
    """Why the String whose header is at ``pos`` cannot be read (the loop checks all at once)."""
    if word is None:
        return _fail("string length missing", pos + 4)
    if word < 0 or word + (-word & 3) > end - pos - 8:
        return _fail(f"string of {word} bytes runs past the end of the data", pos + 4, _EOF)
    return over_limit("a String of bytes", word, "max_length", max_len, pos + 4)


def _open(frame: list[Any], pos: int, call: _Call) -> tuple[Any, int]:
    """Push a container's frame (its elements come next), within the depth limit."""
    stack = call.stack
    stack.append(frame)
    if len(stack) > call.max_depth:
        raise _too_deep(len(stack), pos)
    return _OPEN, pos


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


def _want(element_type: ElementType | None, rules: ElementRules, allow_objects: bool) -> int | None:
    """The type number an element must have to skip :func:`admit`; None: no check at all."""
    if element_type is None:
        return None
    if allow_objects and rules.checks_classes and element_type.kind == ContainerKind.CLASS_NAME:
        return _CHECK_ALL
    return int(element_type.type)


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


def _finish_dict(frame: list[Any]) -> tuple[Any, int]:
    """The Dictionary of a finished container frame (see :func:`godot_dictionary`) and its kind;
    the pairs whose key or value its type refused are left out."""
    flat = frame[1]
    keys, values = flat[0::2], flat[1::2]
    if frame[0] == _TYPED_DICT and frame[5]:
        kept = [
            (k, v) for k, v in zip(keys, values, strict=True) if k is not DROP and v is not DROP
        ]
        keys, values = [k for k, _ in kept], [v for _, v in kept]
    return godot_dictionary(keys, values, frame[3], frame[4]), _K_DICTIONARY


def _finish_array(frame: list[Any]) -> tuple[Any, int]:
    """The Array of a finished typed frame and its own kind, without what its type refused."""
    items = frame[1]
    if frame[5]:  # Godot's push_back refused some: the Array is shorter
        items[:] = [item for item in items if item is not DROP]
    return items, frame[8]


def _add_property(
    frame: list[Any], value: Any, buf: bytes, pos: int, call: _Call
) -> tuple[Any, int, int]:
    """An Object's property value; the Object once complete, else :data:`_OPEN` after the next
    property's name."""
    items = frame[1]
    items.append((frame[4], value))
    if len(items) < frame[2]:
        frame[4], pos = read_string(buf, pos, len(buf), call.plan.surrogates, call.max_len)
        return _OPEN, _K_OBJECT, pos
    return _NEW(GodotObject, (frame[3], tuple(items))), _K_OBJECT, pos


# ---- the readers of the other layouts, by kind ---------------------------------------------


def _unknown(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """A type number the profile's engine does not have."""
    raise _fail(f"unknown type id {header & 0xFF} for {call.profile.engine}", pos)


def _int(buf: bytes, pos: int, header: int, call: _Call) -> tuple[int, int]:
    """INT: an int32, or with the 64-bit flag an int64 (the loop reads a whole int32 itself)."""
    if header & FLAG_64:
        if len(buf) - pos < 12:
            raise _fail("int64 payload missing", pos)
        return _I64.unpack_from(buf, pos + 4)[0], pos + 12
    if len(buf) - pos < 8:
        raise _fail("int32 payload missing", pos)
    return _I32.unpack_from(buf, pos + 4)[0], pos + 8


def _float(buf: bytes, pos: int, header: int, call: _Call) -> tuple[float, int]:
    """FLOAT: a float32, or with the 64-bit flag a float64 (the loop reads a whole one itself)."""
    if header & FLAG_64:
        if len(buf) - pos < 12:
            raise _fail("float64 payload missing", pos)
        return _F64.unpack_from(buf, pos + 4)[0], pos + 12
    if len(buf) - pos < 8:
        raise _fail("float32 payload missing", pos)
    return _F32.unpack_from(buf, pos + 4)[0], pos + 8


def _bool(buf: bytes, pos: int, header: int, call: _Call) -> tuple[bool, int]:
    """BOOL: a u32, true unless 0 (the loop reads a whole one itself)."""
    if len(buf) - pos < 8:
        raise _fail("bool payload missing", pos)
    return _U32.unpack_from(buf, pos + 4)[0] != 0, pos + 8


def _string_name(buf: bytes, pos: int, header: int, call: _Call) -> tuple[StringName, int]:
    """STRING_NAME: a String's layout (Godot 4)."""
    text, pos = read_string(buf, pos + 4, len(buf), call.plan.surrogates, call.max_len)
    return StringName(text), pos


def _packed_bytes(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """PACKED_BYTE_ARRAY: count, bytes, padding to 4 (counted even when the data ends first)."""
    if len(buf) - pos < 8:
        raise _fail("PackedByteArray count missing", pos)
    count = _I32.unpack_from(buf, pos + 4)[0]
    stop = pos + 8 + count
    if count < 0 or stop > len(buf):
        raise _fail(f"PackedByteArray of {count} bytes runs past the end", pos)
    if count > call.max_len:
        raise over_limit("a PackedByteArray of bytes", count, "max_length", call.max_len, pos)
    source = call.source
    value = buf[pos + 8 : stop] if source is None else _wrap(bytes, source[pos + 8 : stop])
    return value, stop + (-count & 3)


def _packed_numbers(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """A numeric packed array: count, then the elements (64-bit reals when the profile flags
    them), held at the build's width."""
    plan = call.plan
    cls, held = plan.packed[plan.kinds[header & 0xFF] | header & FLAG_64]
    if len(buf) - pos < 8:
        raise _fail(f"{cls.__name__} count missing", pos)
    count = _I32.unpack_from(buf, pos + 4)[0]
    stop = pos + 8 + count * cls.itemsize
    if count < 0 or stop > len(buf):
        raise _fail(f"{cls.__name__} of {count} elements runs past the end", pos)
    if count > call.max_elems:
        what = f"a {cls.__name__} of elements"
        raise over_limit(what, count, "max_elements", call.max_elems, pos)
    if held is not cls:  # held at the build's width: a copy, never a view
        return recast(cls.frombuffer(memoryview(buf)[pos + 8 : stop]), held), stop
    source = call.source
    if source is None:
        return cls.frombuffer(memoryview(buf)[pos + 8 : stop]), stop
    return _wrap(cls, source[pos + 8 : stop]), stop


def _packed_strings(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """PACKED_STRING_ARRAY: count, then each string as a String's payload."""
    end = len(buf)
    if end - pos < 8:
        raise _fail("PackedStringArray count missing", pos)
    count = _I32.unpack_from(buf, pos + 4)[0]
    pos += 8
    if count < 0:  # Godot reads a negative count as an empty array
        return PackedStringArray(), pos
    if count * 4 > end - pos:
        raise _fail(f"PackedStringArray of {count} strings cannot fit", pos - 8)
    if count > call.max_elems:
        what = "a PackedStringArray of strings"
        raise over_limit(what, count, "max_elements", call.max_elems, pos - 8)
    surrogates, max_len = call.plan.surrogates, call.max_len
    strings = []
    for _ in range(count):
        text, pos = read_string(buf, pos, end, surrogates, max_len)
        strings.append(text)
    return _NEW(PackedStringArray, strings), pos


def _object(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """OBJECT: with the 64-bit flag an object id (0: null); else, if allowed, a full object:
    class name (empty: null), property count, then name and value per property."""
    end = len(buf)
    if header & FLAG_64:
        if end - pos < 12:
            raise _fail("object id missing", pos)
        oid = _U64.unpack_from(buf, pos + 4)[0]
        return (None if oid == 0 else _NEW(ObjectID, (oid,))), pos + 12
    if not call.allow_objects:
        reason = "full Object in the data and allow_objects is off"
        raise _fail(reason, pos, GodotError.ERR_UNAUTHORIZED)
    surrogates, max_len, max_elems = call.plan.surrogates, call.max_len, call.max_elems
    class_name, head = read_string(buf, pos + 4, end, surrogates, max_len)
    if not class_name:
        return None, head
    if end - head < 4:
        raise _fail("Object property count missing", head)
    count = max(_I32.unpack_from(buf, head)[0], 0)
    head += 4
    if count * 8 > end - head:
        raise _fail(f"Object with {count} properties cannot fit", pos)
    if count > max_elems:
        raise over_limit("an Object of properties", count, "max_elements", max_elems, pos)
    if not count:
        return _NEW(GodotObject, (class_name, ())), head
    name, head = read_string(buf, head, end, surrogates, max_len)
    return _open([_OBJECT, [], count, class_name, name], head, call)


def _node_path(buf: bytes, pos: int, header: int, call: _Call) -> tuple[NodePath, int]:
    """NODE_PATH: name count | bit 31, subname count, flags, then the strings.

    A 2.x property (flags bit 1) is one more string, which becomes the last subname.
    """
    profile, max_len, max_elems = call.profile, call.max_len, call.max_elems
    end = len(buf)
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


def _rid(buf: bytes, pos: int, header: int, call: _Call) -> tuple[RID, int]:
    """RID (Godot 4): a u64 id."""
    if len(buf) - pos < 12:
        raise _fail("RID payload missing", pos)
    return _NEW(RID, (_U64.unpack_from(buf, pos + 4)[0],)), pos + 12


def _bare_rid(buf: bytes, pos: int, header: int, call: _Call) -> tuple[RID, int]:
    """RID before Godot 4: the header alone, for an empty RID."""
    return _NEW(RID, (0,)), pos + 4


def _bare_object(buf: bytes, pos: int, header: int, call: _Call) -> tuple[None, int]:
    """OBJECT in Godot 2: the header alone, read as null."""
    return None, pos + 4


def _callable(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Callable, int]:
    """CALLABLE: the header alone; Godot writes no Callable's contents."""
    return _CALLABLE, pos + 4


def _signal(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Signal, int]:
    """SIGNAL: its name as a String's payload, then the object id (u64)."""
    name, pos = read_string(buf, pos + 4, len(buf), call.plan.surrogates, call.max_len)
    if len(buf) - pos < 8:
        raise _fail("Signal object id missing", pos)
    return _NEW(Signal, (name, _U64.unpack_from(buf, pos)[0])), pos + 8


def _image(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Image, int]:
    """Godot 2 IMAGE: format, mipmaps, width, height, data length, data, padding."""
    end, max_len = len(buf), call.max_len
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


def _input_event(buf: bytes, pos: int, header: int, call: _Call) -> tuple[InputEvent, int]:
    """Godot 2 INPUT_EVENT: type, device, a length word Godot ignores, then per-type fields.

    The size comes from the event type; a field-less event needs only 8 bytes but counts 12.
    """
    end = len(buf)
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


def _count(
    buf: bytes, pos: int, start: int, thing: str, unit: str, width: int, max_elems: int
) -> tuple[int, int]:
    """The count at ``pos`` of the container whose header is at ``start``, checked: every
    element takes ``width`` bytes or more. ``thing`` names the container with its article."""
    name = thing.partition(" ")[2]
    if len(buf) - pos < 4:
        raise _fail(f"{name} count missing", pos)
    count = _U32.unpack_from(buf, pos)[0] & COUNT_MASK
    pos += 4
    if count * width > len(buf) - pos:
        raise _fail(f"{name} of {count} {unit} cannot fit in the data", start)
    if count > max_elems:
        raise over_limit(f"{thing} of {unit}", count, "max_elements", max_elems, start)
    return count, pos


def _typed_dictionary(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """DICTIONARY whose header types it (Godot 4.4+): how the key and value types are written
    (bits 16-17, 18-19), the types, then the count and the pairs."""
    profile, max_len = call.profile, call.max_len
    end = len(buf)
    key_type, head = read_container_type(buf, pos + 4, end, (header >> 16) & 3, profile, max_len)
    value_type, head = read_container_type(buf, head, end, (header >> 18) & 3, profile, max_len)
    count, head = _count(buf, head, pos, "a Dictionary", "entries", 8, call.max_elems)
    rules = call.plan.rules
    frame: list[Any]
    if rules is None or (key_type is None and value_type is None):
        frame = [_DICT, [], 2 * count, key_type, value_type]
    else:
        key_want = _want(key_type, rules, call.allow_objects)
        value_want = _want(value_type, rules, call.allow_objects) if rules.checks_values else None
        frame = [_TYPED_DICT, [], 2 * count, key_type, value_type, False, key_want, value_want]
    return _open(frame, head, call) if count else (_finish_dict(frame)[0], head)


def _typed_array(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """ARRAY whose header types it (Godot 4): how the element type is written (bits 16-17),
    the type, then the count and the elements."""
    kind = (header >> 16) & 3
    element_type, head = read_container_type(
        buf, pos + 4, len(buf), kind, call.profile, call.max_len
    )
    items = [] if element_type is None else TypedArray(element_type)
    return _array(buf, pos, head, "an Array", items, element_type, _K_ARRAY, call)


def _pandemonium_array(buf: bytes, pos: int, header: int, call: _Call) -> tuple[Any, int]:
    """Pandemonium's TYPED_ARRAY and PACKED_TYPED_ARRAY: the element type, then the count and
    the elements."""
    element_type, head = read_pandemonium_element_type(
        buf, pos, len(buf), header, call.profile, call.max_len
    )
    k = call.plan.kinds[header & 0xFF]
    items = (TypedArray if k == _K_TYPED_ARRAY else PackedTypedArray)(element_type)
    return _array(buf, pos, head, "an TypedArray", items, element_type, k, call)


def _array(
    buf: bytes,
    start: int,
    pos: int,
    thing: str,
    items: list[Any],
    element_type: ElementType | None,
    k: int,
    call: _Call,
) -> tuple[Any, int]:
    """The count and elements of a typed Array of kind ``k`` whose head ends at ``pos``."""
    count, pos = _count(buf, pos, start, thing, "elements", 4, call.max_elems)
    if not count:
        return items, pos
    rules = call.plan.rules
    if rules is None or element_type is None:
        return _open([_ARRAY, items, count], pos, call)
    want = _want(element_type, rules, call.allow_objects)
    return _open(
        [_TYPED_ARRAY, items, count, element_type, element_type, False, want, want, k], pos, call
    )


#: The reader of every layout the loop leaves out, by kind. The loop also sends here what it
#: does not read itself of a hot kind: an INT with the 64-bit flag, a BOOL, INT or FLOAT whose
#: payload is cut short, and the Arrays and Dictionaries whose header types them.
_READERS: dict[int, _Reader] = {
    _K_BOOL: _bool,
    _K_INT: _int,
    _K_FLOAT: _float,
    _K_STRING_NAME: _string_name,
    _K_NODE_PATH: _node_path,
    _K_RID: _rid,
    _K_OBJECT: _object,
    _K_CALLABLE: _callable,
    _K_SIGNAL: _signal,
    _K_DICTIONARY: _typed_dictionary,
    _K_ARRAY: _typed_array,
    _K_PACKED_BYTE_ARRAY: _packed_bytes,
    _K_PACKED_STRING_ARRAY: _packed_strings,
    **dict.fromkeys(_PACKED, _packed_numbers),
    _K_IMAGE: _image,
    _K_INPUT_EVENT: _input_event,
    _K_TYPED_ARRAY: _pandemonium_array,
    _K_PACKED_TYPED_ARRAY: _pandemonium_array,
    KIND_BARE_RID: _bare_rid,
    KIND_BARE_OBJECT: _bare_object,
    -1: _unknown,  # the kind of every type number the profile's engine does not have
}
