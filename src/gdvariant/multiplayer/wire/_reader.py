"""Bounds-checked little-endian reads over one packet; every failure is a DecodeError."""

from __future__ import annotations

import struct

from ... import DecodeError

Buffer = bytes | bytearray | memoryview

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")


class Reader:
    """A cursor over ``data`` that names ``what`` (the packet kind) in its errors."""

    def __init__(self, data: Buffer, what: str, offset: int = 0) -> None:
        self.data = bytes(data)
        self.what = what
        self.offset = offset

    @property
    def remaining(self) -> int:
        return len(self.data) - self.offset

    def error(self, reason: str, offset: int | None = None) -> DecodeError:
        where = self.offset if offset is None else offset
        return DecodeError(f"{self.what}: {reason}", where)

    def need(self, count: int, field: str) -> int:
        """Check that ``count`` bytes remain for ``field``; return the field's offset."""
        start = self.offset
        if count < 0 or self.remaining < count:
            raise self.error(f"truncated {field} (needs {count} bytes, {self.remaining} left)")
        self.offset += count
        return start

    def u8(self, field: str) -> int:
        return self.data[self.need(1, field)]

    def u16(self, field: str) -> int:
        return int(_U16.unpack_from(self.data, self.need(2, field))[0])

    def u32(self, field: str) -> int:
        return int(_U32.unpack_from(self.data, self.need(4, field))[0])

    def i32(self, field: str) -> int:
        return int(_I32.unpack_from(self.data, self.need(4, field))[0])

    def u64(self, field: str) -> int:
        return int(_U64.unpack_from(self.data, self.need(8, field))[0])

    def take(self, count: int, field: str) -> bytes:
        start = self.need(count, field)
        return self.data[start : start + count]

    def rest(self) -> bytes:
        start, self.offset = self.offset, len(self.data)
        return self.data[start:]

    def cstr(self, count: int, field: str) -> str:
        """``count`` bytes read as Godot's ``String::utf8(p, len)``: up to the first NUL."""
        start = self.offset
        raw = self.take(count, field)
        text = raw.split(b"\0", 1)[0]
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.error(f"{field} is not UTF-8 ({exc.reason})", start + exc.start) from None

    def end(self) -> None:
        """Refuse bytes after the last field (Godot's own writers never leave any)."""
        if self.remaining:
            raise self.error(f"{self.remaining} unexpected trailing bytes")


def cstr(text: str) -> bytes:
    """UTF-8 bytes and one NUL, as ``encode_cstring`` writes them (the length counts the NUL).
    A Godot String cannot hold a NUL, so one inside ``text`` is refused."""
    if "\0" in text:
        raise ValueError(f"NUL inside {text!r}: a Godot name or path cannot hold one")
    return text.encode("utf-8") + b"\0"


def pack_u16(value: int) -> bytes:
    return _U16.pack(value)


def pack_u32(value: int) -> bytes:
    return _U32.pack(value)


def pack_i32(value: int) -> bytes:
    return _I32.pack(value)


def pack_u64(value: int) -> bytes:
    return _U64.pack(value)
