"""What unknown bytes are: one ``var_to_bytes`` value or ``store_var`` records, and for which
engine.

Nothing in the bytes says which of the two they are, or which engine wrote them. A reading is
trusted only when it accounts for every byte: one value that ends exactly where the data ends,
or u32 length prefixes that chain exactly to the end with each record's value filling its
record (``store_var`` never leaves slack). Anything less is reported, not printed: bytes of
one kind read as the other decode as nonsense (a record's length 8 reads as a Godot 4
``Rect2i`` header), and so do one engine's bytes read with another's type numbers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from struct import Struct
from typing import Any

from .._binary.codec import VariantCodec
from .._errors import DecodeError

__all__ = [
    "ENGINE_LINES",
    "Reading",
    "engine_for_frames",
    "loose_frame",
    "other_engine",
    "other_engine_note",
    "read_frames",
    "read_whole",
    "record_spans",
    "record_trouble",
    "records_only",
]

#: The engine lines tried when the given one does not read the bytes, newest first.
ENGINE_LINES = ("4", "3", "2", "pandemonium", "pandemonium-g2", "pandemonium-g1")
_LENGTH = {False: Struct("<I"), True: Struct(">I")}


@dataclass(frozen=True)
class Reading:
    """Bytes read whole: one value, or the values of ``store_var`` records."""

    values: list[Any]
    records: bool
    big_endian: bool = False
    #: Bytes of a last frame cut short (a capture that stops mid-frame); 0 for whole data.
    cut: int = 0

    def describe(self) -> str:
        """``one value`` or ``3 store_var records`` (``big-endian`` when the lengths are)."""
        if not self.records:
            return "one value"
        order = ", big-endian lengths" if self.big_endian else ""
        plural = "" if len(self.values) == 1 else "s"
        count = len(self.values)
        if self.cut:
            return f"{count} put_var frame{plural}{order}, then {self.cut} bytes of a cut frame"
        return f"{count} store_var record{plural}{order}"


def _frames(data: bytes, big_endian: bool) -> tuple[list[tuple[int, int]], int]:
    """(start, end) of each whole length-prefixed frame's value, and where the frames stop.

    A frame holds at least a 4-byte header, so a shorter length stops them.
    """
    length = _LENGTH[big_endian]
    spans = []
    pos = 0
    while len(data) - pos >= 4:
        (size,) = length.unpack_from(data, pos)
        if size < 4 or size > len(data) - pos - 4:
            break
        spans.append((pos + 4, pos + 4 + size))
        pos += 4 + size
    return spans, pos


def record_spans(data: bytes, big_endian: bool) -> list[tuple[int, int]] | None:
    """(start, end) of each record's value when the length prefixes chain exactly to the end."""
    spans, stop = _frames(data, big_endian)
    return spans if stop == len(data) else None


def _fills(data: bytes, start: int, end: int, codec: VariantCodec) -> bool:
    """Whether the value at ``start`` decodes and ends exactly at ``end``."""
    try:
        _, used = codec.decode(data[start:end])
    except DecodeError:
        return False
    return bool(used == end - start)


def _whole_records(data: bytes, codec: VariantCodec, big_endian: bool) -> Reading | None:
    spans = record_spans(data, big_endian)
    if spans is None:
        return None
    values = []
    for start, end in spans:
        try:
            value, used = codec.decode(data[start:end])
        except DecodeError:
            return None
        if used != end - start:
            return None
        values.append(value)
    return Reading(values, records=True, big_endian=big_endian)


def read_whole(data: bytes, codec: VariantCodec, *, records_first: bool = False) -> Reading | None:
    """The first reading of ``data`` that accounts for every byte, or None.

    One value is tried first (last with ``records_first``, as inside a save container), and
    records with little-endian, then big-endian lengths. Empty data is zero records.
    """
    if records_first:
        return records_only(data, codec) or _whole_value(data, codec)
    return _whole_value(data, codec) or records_only(data, codec)


def records_only(data: bytes, codec: VariantCodec) -> Reading | None:
    """``data`` read whole as records (either byte order), never as one value."""
    for big_endian in (False, True):
        reading = _whole_records(data, codec, big_endian)
        if reading is not None:
            return reading
    return None


def _whole_value(data: bytes, codec: VariantCodec) -> Reading | None:
    if not data:
        return None
    try:
        value, used = codec.decode(data)
    except DecodeError:
        return None
    return Reading([value], records=False) if used == len(data) else None


def read_frames(data: bytes, codec: VariantCodec) -> Reading | None:
    """``data`` read as a capture of ``put_var`` frames that stops inside its last frame.

    Every whole frame's value must fill its frame, and what is left must be the start of a
    frame: part of a length, or a length that claims more than the capture holds.
    """
    for big_endian in (False, True):
        spans, stop = _frames(data, big_endian)
        tail = len(data) - stop
        if not spans or not tail:
            continue
        if tail >= 4 and _LENGTH[big_endian].unpack_from(data, stop)[0] < 4:
            continue
        if all(_fills(data, start, end, codec) for start, end in spans):
            values = [codec.decode(data[start:end])[0] for start, end in spans]
            return Reading(values, records=True, big_endian=big_endian, cut=tail)
    return None


def other_engine(data: bytes, tried: VariantCodec) -> tuple[str, Reading] | None:
    """The first engine line (a ``-V`` value) other than ``tried``'s that reads ``data`` whole."""
    for line in ENGINE_LINES:
        codec = tried.other_version(line)
        if codec.profile.name == tried.profile.name:
            continue
        reading = read_whole(data, codec)
        if reading is not None:
            return line, reading
    return None


def other_engine_note(
    data: bytes,
    tried: VariantCodec,
    option: Callable[[str], str] = "-V {}".format,
    whole: str = "input",
) -> str | None:
    """``-V 3 reads the whole input, as 3 store_var records`` when another engine line reads
    ``data`` whole, or None: what the command line and the library say when bytes are not the
    given engine's (``option`` spells the engine line as the caller takes it)."""
    other = other_engine(data, tried)
    if other is None:
        return None
    line, reading = other
    return f"{option(line)} reads the whole {whole}, as {reading.describe()}"


def loose_frame(
    data: bytes, codec: VariantCodec, big_endian: bool = False
) -> tuple[int, int, int] | None:
    """(index, offset, used) of the first whole frame whose value decodes but ends early.

    ``put_var`` frames are ``store_var`` records on a socket: a value that leaves bytes of its
    frame unread was written for another engine (or is not a frame at all). Frames that do not
    decode, and a last frame cut short, are left to the stream decoder to report.
    """
    for index, (start, end) in enumerate(_frames(data, big_endian)[0]):
        try:
            _, used = codec.decode(data[start:end])
        except DecodeError:
            return None
        if used != end - start:
            return index, start - 4, used
    return None


def engine_for_frames(data: bytes, tried: VariantCodec, big_endian: bool = False) -> str | None:
    """The first engine line other than ``tried``'s whose values fill every whole frame."""
    spans = _frames(data, big_endian)[0]
    for line in ENGINE_LINES:
        codec = tried.other_version(line)
        if codec.profile.name == tried.profile.name or not spans:
            continue
        if all(_fills(data, start, end, codec) for start, end in spans):
            return line
    return None


def record_trouble(data: bytes, codec: VariantCodec) -> str | None:
    """Why length prefixes that chain to the end are still not records of ``codec``: the
    first record whose value does not decode or does not fill it. None if they do not chain.
    """
    view = memoryview(data)
    for big_endian in (False, True):
        spans = record_spans(data, big_endian)
        if not spans:
            continue
        count = f"{len(spans)} store_var record{'' if len(spans) == 1 else 's'}"
        for index, (start, end) in enumerate(spans):
            where = f"record {index} (offset {start - 4})"
            try:
                _, stop = codec.decode(view[:end], start)
            except DecodeError as exc:
                return f"the length prefixes chain as {count}, but {where} does not decode: {exc}"
            if stop != end:
                return (
                    f"the length prefixes chain as {count}, but the value in {where} ends "
                    f"after {stop - start} of its {end - start} bytes"
                )
    return None
