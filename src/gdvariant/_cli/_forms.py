"""The forms a file's values take on the command line, and the way between them.

A :class:`Payload` is what a binary file holds: one ``var_to_bytes`` value or ``store_var``
records (or the frames of a capture), inside a container or not. Its text form is a document
of Godot text, one value per line after a ``;`` comment that says what the file was; its
bytes are what the engine writes. ``convert`` and ``edit`` go through these.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._binary.codec import VariantCodec
from .._errors import DecodeError, EncodeError, JSONError, TextError
from .._files.containers import sniff
from .._files.guess import Reading, other_engine_note, read_frames, read_whole, record_trouble
from .._files.store_var import encode_records
from .._files.wrapping import Container, open_container
from .._json.api import from_json
from .._text.parser import iter_text_all
from .._text.writer import to_text_line
from ._common import Unreadable, secret
from ._progress import Progress
from ._show import json_line


@dataclass
class Payload:
    """The values of a binary file and how they were laid out."""

    values: list[Any]
    records: bool
    big_endian: bool = False
    cut: int = 0
    container: Container = field(default_factory=Container)

    def describe(self) -> str:
        """``3 store_var records``, ``one value``..."""
        return Reading(self.values, self.records, self.big_endian, self.cut).describe()

    def plaintext(self, codec: VariantCodec) -> bytes:
        """The bytes ``codec``'s engine writes for these values, laid out the same way (a
        capture's cut last frame is left out)."""
        if not self.records:
            return codec.encode(self.values[0])
        return b"".join(encode_records(codec, self.values, self.big_endian))


def open_input(data: bytes, args: argparse.Namespace) -> tuple[Container, bytes, dict[str, Any]]:
    """The container of ``data``, its plaintext, and the secret it took (``key=`` or
    ``password=``; empty unless the file is encrypted, which asks for it)."""
    options = secret(args) if sniff(data[:4]) == "GDEC" else {}
    container, plain = open_container(data, **options, max_size=args.max_size)
    return container, plain, options


def read_payload(
    data: bytes, codec: VariantCodec, args: argparse.Namespace
) -> tuple[Payload, dict[str, Any]]:
    """``data`` read whole as one value, records or a cut capture, and the secret it took;
    :class:`Unreadable` (saying what was tried and which engine reads it) if no reading
    accounts for every byte."""
    container, plain, options = open_input(data, args)
    reading = read_whole(plain, codec, records_first=container.kind != "plain")
    reading = reading or read_frames(plain, codec)
    if reading is None:
        raise Unreadable(why_unreadable(plain, 0, codec))
    payload = Payload(reading.values, reading.records, reading.big_endian, reading.cut, container)
    return payload, options


def why_unreadable(data: bytes, offset: int, codec: VariantCodec) -> str:
    """How the bytes from ``offset`` fail as one value and as records, and which engine reads
    them whole."""
    view = data[offset:]
    try:
        value, end = codec.decode(data, offset)
    except DecodeError as exc:
        as_value = str(exc)
    else:
        name = type(value).__name__
        article = "an" if name[0] in "aeiouAEIOU" else "a"
        as_value = f"only {end - offset} of {len(view)} bytes decode ({article} {name})"
    as_records = record_trouble(view, codec) or (
        "the length prefixes do not chain to the end of the input"
    )
    lines = [
        f"the bytes are not {codec.profile.engine} data: neither one value nor store_var records",
        f"  as one value: {as_value}",
        f"  as records: {as_records}",
    ]
    other = other_engine_note(view, codec)
    if other is not None:
        lines.append(f"note: {other}")
    elif reads_in_a_row(view, codec):
        lines.append("note: they read whole as values one after another: --all prints them")
    return "\n".join(lines)


def reads_in_a_row(data: bytes, codec: VariantCodec) -> bool:
    """Whether ``data`` is bare values one after another, to its last byte."""
    offset = 0
    while offset < len(data):
        try:
            _, offset = codec.decode(data, offset)
        except DecodeError:
            return False
    return offset == len(data) > 0


# ---- the text form ------------------------------------------------------------------------


def to_lines(payload: Payload, version: str, progress: Progress) -> list[str]:
    """Each value as one line of Godot text."""
    lines = []
    counted = progress.over(payload.values, "writing", len(payload.values), "records as text")
    for index, value in enumerate(counted):
        try:
            lines.append(to_text_line(value, version=version))
        except EncodeError as exc:
            raise EncodeError(f"record {index} has no exact text: {exc}") from None
    return lines


def to_document(lines: list[str], comments: list[str]) -> str:
    """Lines of Godot text, one value each, after ``;`` comment lines."""
    head = "".join(f"; {comment}\n" for comment in comments)
    return head + "".join(f"{line}\n" for line in lines)


def from_document(
    text: str,
    version: str,
    *,
    records: bool,
    where: str,
    known: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    expected: int | None = None,
) -> list[Any]:
    """The values of a text document; one value unless ``records``. An error
    names the line and column (of ``where``, the file). ``known``: lines whose values are
    already known (see :func:`iter_text_all`); ``expected``: how many values the count on
    stderr expects."""
    reading = iter_text_all(text, version=version, known=known)
    if progress is not None:
        reading = progress.over(reading, "reading", expected)
    try:
        values = [value for value, _ in reading]
    except TextError as exc:
        got = f" (got {exc.got})" if exc.got else ""
        raise Unreadable(
            f"{where}, line {exc.line}, column {exc.column}: {exc.expected}{got}"
        ) from None
    if not records and len(values) != 1:
        raise ValueError(f"{where}: the file holds one value, the text has {len(values)}")
    return values


def json_values(text: str, dialect: str, *, many: bool) -> list[Any]:
    """The values of JSON text: one document, or with ``many`` one per line (JSON Lines)."""
    which: Literal["tagged", "godot"] = "godot" if dialect == "godot" else "tagged"
    if not many:
        return [from_json(text, dialect=which, allow_objects=True)]
    values = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                values.append(from_json(line, dialect=which, allow_objects=True))
            except JSONError as exc:
                raise Unreadable(f"line {number}: {exc}") from None
    return values


def to_json_lines(payload: Payload) -> str:
    """The values as JSON Lines: one lossless JSON value per line."""
    return "".join(json_line(value) + "\n" for value in payload.values)


def check_lossless(
    payload: Payload, version: str, codec: VariantCodec, progress: Progress
) -> tuple[list[str], dict[str, Any]]:
    """Each value's line of Godot text, and the value each line reads back as (for reading
    the edited text, ``from_document``'s ``known``). Refuses values whose text would not read
    back to the same bytes (an object id, a Signal...): editing them as text would change them
    unseen."""
    lines: list[str] = []
    known: dict[str, Any] = {}
    counted = progress.over(payload.values, "checking", len(payload.values))
    for index, value in enumerate(counted):
        try:
            text = to_text_line(value, version=version)
            back = [v for v, _ in iter_text_all(text, version=version)]
            same = len(back) == 1 and codec.encode(back[0]) == codec.encode(value)
        except (DecodeError, ValueError) as exc:
            raise Unreadable(f"record {index} has no text form: {exc}") from None
        if not same:
            raise Unreadable(f"record {index} does not read back from its text unchanged: {text}")
        lines.append(text)
        known[text] = value
    return lines, known
