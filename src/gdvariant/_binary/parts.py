"""Readers of the parts of a value on the wire: strings and typed-container heads.

The decoder reads values with them, and the field walk behind ``gdvariant inspect``
(:mod:`gdvariant._cli._fields`) reads the same parts with the same rules, so neither keeps its own
copy.
"""

from __future__ import annotations

from struct import Struct

from .._engines.profiles import Profile
from .._errors import DecodeError, GodotError
from .._limits import cap, over_limit
from .._values.base import VariantType
from .._values.collections import ContainerKind, ElementType
from .._values.layouts import COUNT_MASK, FLAG_64

__all__ = [
    "decode_utf8",
    "godot_text",
    "read_container_type",
    "read_pandemonium_element_type",
    "read_string",
]

_U32 = Struct("<I")
_I32 = Struct("<i")
_EOF = GodotError.ERR_FILE_EOF
T = VariantType


def _fail(reason: str, offset: int, code: GodotError = GodotError.ERR_INVALID_DATA) -> DecodeError:
    return DecodeError(reason, offset, "", code)


def read_string(
    buf: bytes, pos: int, end: int, surrogates: bool = False, max_len: int = cap(None)
) -> tuple[str, int]:
    """Godot's ``_decode_string``: u32 length, UTF-8 bytes, padding to 4 (which must be there)."""
    if end - pos < 4:
        raise _fail("string length missing", pos)
    n = _I32.unpack_from(buf, pos)[0]
    if n < 0 or n + (-n & 3) > end - pos - 4:
        raise _fail(f"string of {n} bytes runs past the end of the data", pos, _EOF)
    if n > max_len:
        raise over_limit("a string of bytes", n, "max_length", max_len, pos)
    start = pos + 4
    try:
        text = buf[start : start + n].decode()
    except UnicodeDecodeError:
        text = decode_utf8(memoryview(buf)[start : start + n], start, surrogates)
    else:
        if not text.isascii() or "\0" in text:
            text = godot_text(text)
    return text, start + n + (-n & 3)


def decode_utf8(raw: memoryview, offset: int, surrogates: bool = False) -> str:
    """Invalid UTF-8 is fine only after a NUL, where Godot's parser has already stopped.

    Godot 2/3 (``surrogates``) also accept UTF-16 surrogates written as 3-byte sequences.
    """
    errors = "surrogatepass" if surrogates else "strict"
    try:
        return godot_text(str(raw, "utf-8", errors))
    except UnicodeDecodeError as exc:
        nul = raw.tobytes().find(b"\0")
        if nul < 0 or nul > exc.start:
            raise _fail(f"invalid UTF-8 in string: {exc.reason}", offset + exc.start) from None
        return godot_text(str(raw[:nul], "utf-8", errors))


def godot_text(text: str) -> str:
    """What Godot keeps of decoded text: up to the first NUL, without one leading BOM."""
    nul = text.find("\0")
    if nul >= 0:
        text = text[:nul]
    return text[1:] if text[:1] == "\ufeff" else text


def read_container_type(
    buf: bytes, pos: int, end: int, kind: int, profile: Profile, max_len: int
) -> tuple[ElementType | None, int]:
    """Read the element-type info of a typed container (``_decode_container_type``)."""
    if kind == ContainerKind.BUILTIN:
        if end - pos < 4:
            raise _fail("typed container: builtin type missing", pos)
        wire = _U32.unpack_from(buf, pos)[0]
        vtype = profile.types_by_id[wire] if wire < 256 else None
        if vtype is None:
            raise _fail(f"typed container: unknown builtin type {wire}", pos)
        return (None if vtype == T.NIL else ElementType.builtin(vtype)), pos + 4
    if kind == ContainerKind.NONE:
        return None, pos
    name, pos = read_string(buf, pos, end, False, max_len)
    return ElementType(ContainerKind(kind), T.OBJECT, name), pos


def read_pandemonium_element_type(
    buf: bytes, pos: int, end: int, header: int, profile: Profile, max_len: int
) -> tuple[ElementType, int]:
    """Pandemonium's typed-array head: element type, then an object class as a StringName.

    Pandemonium does not range-check the element type; we reject one its table lacks.
    """
    if end - pos < 8:
        raise _fail("TypedArray element type missing", pos)
    wire = _U32.unpack_from(buf, pos + 4)[0] & COUNT_MASK
    vtype = profile.types_by_id[wire] if wire < 256 else None
    if vtype is None:
        raise _fail(f"TypedArray element type {wire} is not a type of {profile.engine}", pos + 4)
    pos += 8
    if vtype != T.OBJECT:
        return ElementType.builtin(vtype), pos
    if header & FLAG_64:  # objects sent as ids: no class name
        return ElementType.class_name("EncodedObjectAsID"), pos
    if end - pos < 4 or _U32.unpack_from(buf, pos)[0] & 0xFF != profile.wire_ids[T.STRING_NAME]:
        raise _fail("TypedArray class name must be a StringName", pos)
    name, pos = read_string(buf, pos + 4, end, profile.surrogates, max_len)
    return ElementType.class_name(name), pos
