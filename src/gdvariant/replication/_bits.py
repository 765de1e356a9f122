"""Bit-level reading for the compact wire format (LSB-first, as Source's ``bf_read``).

Writing needs no class: encoders build a Python int ``acc`` and a bit count ``n`` and do
``acc |= value << n; n += width`` (one big-int operation per field, no per-bit loop), then
``acc.to_bytes((n + 7) >> 3, "little")``. Reading is the mirror image, done here with a byte
window per field so that a large packet never turns into one huge int.
"""

from __future__ import annotations

from gdvariant import DecodeError, GodotError

__all__ = ["BitReader", "Malformed", "Truncated", "truncated"]


class Truncated(Exception):
    """The reader ran past the end of its data (turned into a named DecodeError upstream)."""


class Malformed(Exception):
    """A field holds a value its codec cannot produce (an over-long length, a bad enum
    position, invalid UTF-8...): turned into a named DecodeError upstream."""


class BitReader:
    """Reads little-endian, LSB-first bit fields from ``data[start:end]``."""

    __slots__ = ("data", "end_bit", "pos")

    def __init__(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = start * 8
        self.end_bit = (len(data) if end is None else end) * 8

    def read(self, width: int) -> int:
        """The next ``width``-bit unsigned field (``width`` may be 0)."""
        pos = self.pos
        stop = pos + width
        if stop > self.end_bit:
            raise Truncated
        self.pos = stop
        if width == 0:
            return 0
        value = int.from_bytes(self.data[pos >> 3 : (stop + 7) >> 3], "little")
        return (value >> (pos & 7)) & ((1 << width) - 1)

    def read_bytes(self, count: int) -> bytes:
        """``count`` whole bytes starting at the current bit position."""
        if count == 0:
            return b""
        if self.pos & 7 == 0:
            start = self.pos >> 3
            if self.pos + 8 * count > self.end_bit:
                raise Truncated
            self.pos += 8 * count
            return bytes(self.data[start : start + count])
        return self.read(8 * count).to_bytes(count, "little")

    def align(self) -> int:
        """Skip to the next byte boundary; return that byte offset."""
        self.pos = (self.pos + 7) & ~7
        return self.pos >> 3

    @property
    def byte_offset(self) -> int:
        """The byte that holds the next bit (for error messages)."""
        return self.pos >> 3


def truncated(what: str, offset: int) -> DecodeError:
    """The DecodeError for a field that runs past the end of the packet."""
    return DecodeError(f"packet truncated in {what}", offset, code=GodotError.ERR_FILE_EOF)
