"""``store_var`` records on a binary file: ``dump``/``load`` and their many-record forms.

``FileAccess.store_var`` writes a u32 length and then the value's bytes; ``get_var`` reads one
back. There is no count and no terminator: a file of records ends where its bytes end. The
length follows ``FileAccess.big_endian`` (Godot 3: ``File.endian_swap``); the value is always
little-endian. Facts: ``docs/save-files.md`` ("Records") and ``docs/framing.md``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from struct import Struct
from typing import IO, Any

from .._binary.codec import VariantCodec, codec_for
from .._engines.profiles import Profile
from .._errors import DecodeError, GodotError
from .._limits import DEFAULT_LIMITS, Limits, cap, over_limit

__all__ = ["dump", "dump_all", "load", "load_all", "records"]

_LENGTH = {False: Struct("<I"), True: Struct(">I")}
_CHUNK = 1 << 20  # read long records in pieces, so a lying length allocates nothing


def dump(
    value: Any,
    fp: IO[bytes],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    full_objects: bool = False,
    big_endian: bool = False,
) -> None:
    """Write ``value`` to ``fp`` as ``FileAccess.store_var`` does."""
    _binary(fp)
    data = codec_for(version, double, False, full_objects).encode(value)
    fp.write(_LENGTH[big_endian].pack(len(data)) + data)


def records(
    values: Iterable[Any],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    full_objects: bool = False,
    big_endian: bool = False,
) -> Iterator[bytes]:
    """Each value's record bytes (length, then value), made as they are asked for."""
    return encode_records(codec_for(version, double, False, full_objects), values, big_endian)


def encode_records(codec: VariantCodec, values: Iterable[Any], big_endian: bool) -> Iterator[bytes]:
    """:func:`records` for a resolved codec."""
    encode = codec.encode
    prefix = _LENGTH[big_endian].pack
    for value in values:
        data = encode(value)
        yield prefix(len(data)) + data


def dump_all(
    values: Iterable[Any],
    fp: IO[bytes],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    full_objects: bool = False,
    big_endian: bool = False,
) -> int:
    """Write every value as one record after another; return how many were written."""
    _binary(fp)
    count = 0
    for record in encode_records(
        codec_for(version, double, False, full_objects), values, big_endian
    ):
        fp.write(record)
        count += 1
    return count


def _binary(fp: IO[bytes]) -> None:
    if isinstance(fp, io.TextIOBase):
        raise TypeError(
            "the file is open in text mode: records are bytes, open it with open(path, 'wb')"
        )


def _read(fp: IO[bytes], size: int) -> bytes:
    """Up to ``size`` bytes; memory grows with what arrives, not with what was claimed."""
    if size <= _CHUNK:
        return fp.read(size)
    parts = []
    left = size
    while left:
        part = fp.read(min(left, _CHUNK))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


class _Reader:
    """Reads records one by one, keeping the file offset for error messages. With ``whole``
    a value must fill its record: ``get_var`` skips what is left, but ``store_var`` never
    leaves anything, so bytes left over mean another engine's records (or no records)."""

    def __init__(self, fp: IO[bytes], codec: VariantCodec, big_endian: bool, whole: bool = False):
        if isinstance(fp, io.TextIOBase):
            raise TypeError(
                "the file is open in text mode: records are bytes, open it with open(path, 'rb')"
            )
        self.fp = fp
        self.codec = codec
        self.decode = codec.decode
        self.max_size = cap(codec.limits.max_size)
        self.length = _LENGTH[big_endian]
        self.whole = whole
        self.index = 0
        try:
            self.offset = fp.tell()
        except (OSError, AttributeError):
            self.offset = 0

    def next(self) -> Any:
        """The next record's value; ``EOFError`` at a clean end of the file."""
        head = _read(self.fp, 4)
        if not head:
            raise EOFError("no more records")
        start = self.offset
        if len(head) < 4:
            raise DecodeError(
                f"the file ends inside a record's length ({len(head)} of 4 bytes)",
                start + len(head),
                "",
                GodotError.ERR_FILE_EOF,
            )
        (size,) = self.length.unpack(head)
        if size > self.max_size:
            raise over_limit("a record of bytes", size, "max_size", self.max_size, start)
        data = _read(self.fp, size)
        if len(data) < size:
            raise DecodeError(
                f"a record claims {size} bytes but the file has {len(data)} more",
                start + 4 + len(data),
                "",
                GodotError.ERR_FILE_EOF,
            )
        self.offset = start + 4 + size
        try:
            value, used = self.decode(data)
        except DecodeError as exc:
            raise exc.inside("record", start + 4) from None
        if self.whole and used != size:
            raise DecodeError(
                f"the value in record {self.index} ends after {used} of its {size} bytes, and "
                f"store_var leaves none unread: these are not {self.codec.profile.engine} records",
                start + 4 + used,
            )
        self.index += 1
        return value


def load(
    fp: IO[bytes],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    big_endian: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """Read one record from ``fp`` as ``FileAccess.get_var`` does.

    ``EOFError`` when the file has no more records; :class:`DecodeError` (with the file offset)
    for a record that is cut short or does not decode. As in Godot, bytes after the value
    inside its record are skipped.
    """
    codec = codec_for(version, double, allow_objects, False, limits)
    return _Reader(fp, codec, big_endian).next()


def load_all(
    fp: IO[bytes],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    big_endian: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[Any]:
    """Every record of ``fp`` in order, read one at a time (memory: one record)."""
    return decode_records(fp, codec_for(version, double, allow_objects, False, limits), big_endian)


def decode_records(
    fp: IO[bytes], codec: VariantCodec, big_endian: bool, whole: bool = False
) -> Iterator[Any]:
    """:func:`load_all` for a resolved codec; with ``whole``, a value that leaves bytes of
    its record unread is a :class:`DecodeError`."""
    reader = _Reader(fp, codec, big_endian, whole)
    while True:
        try:
            value = reader.next()
        except EOFError:
            return
        yield value
