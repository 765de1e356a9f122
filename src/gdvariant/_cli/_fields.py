"""The bytes of a value, field by field, as a protocol analyser shows a packet.

Each :class:`Field` is one run of bytes (a header, a length, a string's bytes, padding, a
count...) with its offset, the path of the value it belongs to and what it means. The walk
reads structure only: which type id means what comes from the :class:`Profile`, and every
leaf value (and whether it is valid at all) comes from the codec (``VariantCodec.decode``), so
there are no version rules here. On broken input the walk stops at the first bad field, and
the codec's own error says why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from struct import Struct
from typing import Any

from .._binary.codec import VariantCodec, codec_for
from .._binary.parts import read_container_type, read_pandemonium_element_type, read_string
from .._engines.profiles import KIND_BARE_OBJECT, KIND_BARE_RID, Profile
from .._engines.text_syntax import SCALAR_NAMES, text_syntax
from .._errors import DecodeError, key_repr
from .._files.containers import GCPF_HEADER, GDEC, GDEC_HEADERS, U32, sniff
from .._files.guess import record_spans
from .._files.wrapping import open_container
from .._limits import DEFAULT_LIMITS, Limits
from .._values.base import VariantType
from .._values.collections import ContainerKind, ElementType

__all__ = [
    "Field",
    "Listener",
    "Section",
    "field_json",
    "inspect_data",
    "inspect_into",
    "walk_records",
    "walk_value",
]

T = VariantType
Render = Callable[[Any], str]
Out = Callable[["Field"], None]
_I32 = Struct("<i")
_LENGTH = {False: Struct("<I"), True: Struct(">I")}
_FLAG_64 = 1 << 16
#: Deeper containers are shown as one field each (the walk recurses; the codec does not).
SHOWN_DEPTH = 64
_MAX = 1 << 62
_NAMES = {**SCALAR_NAMES, **text_syntax("4").names}
_KINDS = {0: "none", 1: "builtin", 2: "class name", 3: "script"}


@dataclass(frozen=True)
class Field:
    """One run of bytes: where (``offset`` in its section's buffer), the bytes, the path of
    the value it belongs to, what it means, and how deep that value is nested."""

    offset: int
    raw: bytes
    path: str
    what: str
    depth: int = 0


@dataclass
class Section:
    """The fields of one buffer (a container's header, or the plaintext inside it), how many
    of its bytes read (``good``), and if not all: why the walk stopped and where."""

    title: str
    size: int
    fields: list[Field] = field(default_factory=list)
    good: int = 0
    problem: str | None = None
    problem_offset: int | None = None
    #: Records whose value ends before the record does (``get_var`` skips the rest, but
    #: ``store_var`` never writes such records: they were written for another engine).
    unread_records: int = 0

    def summary(self) -> dict[str, Any]:
        """What the walk found, as plain JSON types (``--json``), without the fields."""
        return {
            "title": self.title,
            "size": self.size,
            "good": self.good,
            "problem": self.problem,
            "problem_offset": self.problem_offset,
            "unread_records": self.unread_records,
        }

    def to_json(self) -> dict[str, Any]:
        """The section as plain JSON types (``--json``)."""
        return {**self.summary(), "fields": [field_json(f) for f in self.fields]}


def field_json(f: Field) -> dict[str, Any]:
    """One field as plain JSON types."""
    return {
        "offset": f.offset,
        "size": len(f.raw),
        "hex": f.raw.hex(),
        "path": f.path,
        "what": f.what,
        "depth": f.depth,
    }


class _Stop(Exception):
    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(reason)
        self.offset = offset
        self.reason = reason


def type_name(vtype: VariantType) -> str:
    """Godot's name of a type (``Vector2``, ``PackedInt32Array``, ``int``)."""
    return _NAMES.get(vtype, vtype.name.title().replace("_", ""))


def _element(spec: ElementType | None) -> str:
    if spec is None:
        return "Variant"
    if spec.kind == ContainerKind.BUILTIN:
        return type_name(spec.type)
    return spec.name


class _Walker:
    """Walks values in ``data[:end]``, handing each field to ``out`` as it is found (or
    holding them in ``held`` while a value the codec refuses is walked, to keep only those
    before the place it stops)."""

    def __init__(self, data: bytes, end: int, codec: VariantCodec, render: Render, out: Out):
        self.buf = data
        self.end = end
        self.view = memoryview(data)[:end]  # what the codec reads: never past ``end``
        self.profile = codec.profile
        self.codec = codec
        self.render = render
        self.out = out
        self.held: list[Field] | None = None

    def emit(self, start: int, stop: int, path: str, what: str, depth: int) -> None:
        found = Field(start, self.buf[start:stop], path, what, depth)
        if self.held is None:
            self.out(found)
        else:
            self.held.append(found)

    def u32(self, pos: int, what: str) -> int:
        if self.end - pos < 4:
            raise _Stop(pos, f"{what} missing: the data ends")
        return int(U32.unpack_from(self.buf, pos)[0])

    def header_text(self, header: int, kind: int) -> str:
        wire = header & 0xFF
        if kind == KIND_BARE_RID:
            return f"RID (type {wire}, no payload in {self.profile.engine})"
        if kind == KIND_BARE_OBJECT:
            return f"Object (type {wire}, written as nothing in {self.profile.engine})"
        vtype = VariantType(kind)
        text = f"{type_name(vtype)} (type {wire})"
        flags = header & 0xFFFFFF00
        notes = []
        if vtype == T.ARRAY and self.profile.typed_arrays and flags & 0x30000:
            notes.append(f"typed: {_KINDS[(header >> 16) & 3]}")
            flags &= ~0x30000
        elif vtype == T.DICTIONARY and self.profile.typed_dictionaries and flags & 0xF0000:
            notes.append(f"keys {_KINDS[(header >> 16) & 3]}, values {_KINDS[(header >> 18) & 3]}")
            flags &= ~0xF0000
        elif flags & _FLAG_64:
            notes.append("as an instance id" if vtype == T.OBJECT else "64-bit")
            flags &= ~_FLAG_64
        if flags:
            notes.append(f"other flag bits 0x{flags:08x}")
        return f"{text}, {', '.join(notes)}" if notes else text

    def value(self, pos: int, path: str, depth: int) -> int:
        """Walk the value at ``pos``; return where it ends."""
        header = self.u32(pos, "value header")
        kind = self.profile.kind_codes[header & 0xFF]
        if kind < 0:
            raise _Stop(pos, f"unknown type id {header & 0xFF} for {self.profile.engine}")
        container = kind in (T.ARRAY, T.DICTIONARY, T.TYPED_ARRAY, T.PACKED_TYPED_ARRAY) or (
            kind == T.OBJECT and not header & _FLAG_64
        )
        if container and depth < SHOWN_DEPTH:
            self.emit(pos, pos + 4, path, self.header_text(header, kind), depth)
            return self.container(header, kind, pos, path, depth)
        try:
            value, end = self.codec.decode(self.view, pos)
        except DecodeError as exc:
            raise _Stop(exc.offset, exc.reason) from None
        self.leaf(kind, self.header_text(header, kind), pos, min(end, self.end), value, path, depth)
        return end

    def leaf(
        self, kind: int, head: str, pos: int, end: int, value: Any, path: str, depth: int
    ) -> None:
        """A leaf's fields: its header (``head``), then its payload's."""
        shown = self.render(value)
        body = pos + 4
        if end == body:
            self.emit(pos, end, path, f"{head} = {shown}", depth)
            return
        self.emit(pos, body, path, head, depth)
        if kind in (T.STRING, T.STRING_NAME, T.PACKED_BYTE_ARRAY):
            size = _I32.unpack_from(self.buf, body)[0]
            unit = "count" if kind == T.PACKED_BYTE_ARRAY else "length"
            self.emit(body, body + 4, path, f"{unit}: {size} bytes", depth)
            stop = min(body + 4 + size, end)
            self.emit(body + 4, stop, path, f"bytes: {shown}", depth)
            if end > stop:
                self.emit(stop, end, path, f"padding: {end - stop} bytes to a multiple of 4", depth)
            return
        if kind == T.PACKED_STRING_ARRAY:
            count = _I32.unpack_from(self.buf, body)[0]
            self.emit(body, body + 4, path, f"count: {count} strings", depth)
            at = body + 4
            for index, text in enumerate(value):
                _, stop = read_string(self.buf, at, self.end, True, _MAX)
                self.emit(at, stop, f"{path}[{index}]", f"string: {self.render(text)}", depth + 1)
                at = stop
            return
        packed = kind >= T.PACKED_INT32_ARRAY and kind != T.IMAGE and kind != T.INPUT_EVENT
        if packed and kind <= T.PACKED_VECTOR4I_ARRAY:
            count = _I32.unpack_from(self.buf, body)[0]
            self.emit(body, body + 4, path, f"count: {count} elements", depth)
            self.emit(body + 4, end, path, f"elements: {shown}", depth)
            return
        if kind == T.NODE_PATH and self.end - body >= 12:
            names, subs, flags = Struct("<III").unpack_from(self.buf, body)
            if names & 0x80000000:
                what = f"counts: {names & 0x7FFFFFFF} names, {subs} subnames, flags {flags}"
                self.emit(body, body + 12, path, what, depth)
                self.emit(body + 12, end, path, f"names: {shown}", depth)
                return
        self.emit(body, end, path, f"payload: {shown}", depth)

    def container(self, header: int, kind: int, pos: int, path: str, depth: int) -> int:
        at = pos + 4
        spec: ElementType | None
        try:
            if kind == T.OBJECT:
                return self.object_(pos, path, depth)
            if kind in (T.TYPED_ARRAY, T.PACKED_TYPED_ARRAY):
                spec, stop = read_pandemonium_element_type(
                    self.buf, pos, self.end, header, self.profile, _MAX
                )
                self.emit(at, stop, path, f"element type: {_element(spec)}", depth)
                at = stop
            elif kind == T.ARRAY and self.profile.typed_arrays and header & 0x30000:
                spec, stop = read_container_type(
                    self.buf, at, self.end, (header >> 16) & 3, self.profile, _MAX
                )
                self.emit(at, stop, path, f"element type: {_element(spec)}", depth)
                at = stop
            elif kind == T.DICTIONARY and self.profile.typed_dictionaries and header & 0xF0000:
                for shift, role in ((16, "key"), (18, "value")):
                    spec, stop = read_container_type(
                        self.buf, at, self.end, (header >> shift) & 3, self.profile, _MAX
                    )
                    self.emit(at, stop, path, f"{role} type: {_element(spec)}", depth)
                    at = stop
        except DecodeError as exc:
            raise _Stop(exc.offset, exc.reason) from None
        word = self.u32(at, "count")
        count = word & 0x7FFFFFFF
        shared = ", shared (bit 31)" if word & 0x80000000 else ""
        unit = "pairs" if kind == T.DICTIONARY else "elements"
        self.emit(at, at + 4, path, f"count: {count} {unit}{shared}", depth)
        at += 4
        for index in range(count):
            if kind != T.DICTIONARY:
                at = self.value(at, f"{path}[{index}]", depth + 1)
                continue
            key_at = at
            at = self.value(at, f"{path}{{key #{index}}}", depth + 1)
            key, _ = self.codec.decode(self.view, key_at)
            at = self.value(at, f"{path}[{key_repr(key)}]", depth + 1)
        return at

    def object_(self, pos: int, path: str, depth: int) -> int:
        name, at = read_string(self.buf, pos + 4, self.end, True, _MAX)
        self.emit(pos + 4, at, path, f"class name: {name!r}", depth)
        if not name:
            return at
        count = max(_I32.unpack_from(self.buf, at)[0], 0) if self.end - at >= 4 else None
        if count is None:
            raise _Stop(at, "Object property count missing")
        self.emit(at, at + 4, path, f"count: {count} properties", depth)
        at += 4
        for _ in range(count):
            prop, stop = read_string(self.buf, at, self.end, True, _MAX)
            self.emit(at, stop, f"{path}.{prop}", f"property name: {prop!r}", depth + 1)
            at = self.value(stop, f"{path}.{prop}", depth + 1)
        return at


def walk_value(
    data: bytes,
    profile: Profile,
    *,
    allow_objects: bool = False,
    offset: int = 0,
    render: Render = repr,
    title: str = "one var_to_bytes value",
    out: Out | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Section:
    """The fields of one value at ``offset``; bytes after it are a problem of their own.
    The fields go to ``out`` as they are found, or into the section's ``fields``."""
    section = Section(title, len(data))
    codec = codec_for(profile, False, allow_objects, False, limits)
    walker = _Walker(data, len(data), codec, render, out or section.fields.append)
    try:
        end = _checked(walker, offset, "", 0)
    except _Stop as stop:
        _stopped(section, stop)
        return section
    section.good = min(end, len(data))
    if end < len(data):
        section.problem = f"{len(data) - end} bytes after the value"
        section.problem_offset = end
    return section


def _checked(walker: _Walker, offset: int, path: str, depth: int) -> int:
    """Walk one value as far as its fields go; where the codec refuses it (a count that
    cannot fit, a limit...), its own message, with its offset and path, is added."""
    try:
        walker.codec.decode(walker.view, offset)
    except DecodeError as exc:
        codec = str(exc)
        walker.held = []
        try:
            end = walker.value(offset, path, depth)
        except _Stop as stop:
            reason = stop.reason if stop.reason in codec else f"{stop.reason}; the decoder: {codec}"
            failure = _Stop(stop.offset, reason)
        else:
            failure = _Stop(min(end, exc.offset), codec)
        held, walker.held = walker.held, None
        for found in held:
            if found.offset + len(found.raw) <= failure.offset:
                walker.out(found)
        raise failure from None
    return walker.value(offset, path, depth)


def _stopped(section: Section, stop: _Stop) -> None:
    section.good = stop.offset
    section.problem = stop.reason
    section.problem_offset = stop.offset


def walk_records(
    data: bytes,
    profile: Profile,
    *,
    big_endian: bool = False,
    allow_objects: bool = False,
    render: Render = repr,
    title: str = "store_var records",
    out: Out | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Section:
    """The fields of ``store_var`` records (or ``put_var`` frames): each length, then its
    value. The fields go to ``out`` as they are found, or into the section's ``fields``."""
    section = Section(title, len(data))
    sink = out or section.fields.append
    length = _LENGTH[big_endian]
    codec = codec_for(profile, False, allow_objects, False, limits)
    walker = _Walker(data, len(data), codec, render, sink)
    order = "big-endian " if big_endian else ""
    pos = index = 0
    try:
        while pos < len(data):
            mark = f"#{index}"
            if len(data) - pos < 4:
                raise _Stop(pos, f"record {index}: the data ends inside its length")
            (size,) = length.unpack_from(data, pos)
            walker.emit(pos, pos + 4, mark, f"record {index} {order}length: {size} bytes", 0)
            if size > len(data) - pos - 4:
                raise _Stop(
                    pos + 4, f"record {index} claims {size} bytes, {len(data) - pos - 4} are left"
                )
            end = pos + 4 + size
            inner = _Walker(data, end, codec, render, sink)
            stop = _checked(inner, pos + 4, mark, 1)
            if stop < end:
                walker.emit(stop, end, mark, f"unread: {end - stop} bytes (get_var skips them)", 1)
                section.unread_records += 1
            pos = end
            index += 1
    except _Stop as stop:
        _stopped(section, stop)
        return section
    section.good = len(data)
    return section


def _gdec_header(data: bytes) -> Section:
    """The fields of a GDEC header (both layouts that fit are possible; the first is shown)."""
    section = Section("GDEC container (encrypted)", len(data))
    if (
        len(data) >= GDEC_HEADERS[4].size
        and data[:4] == GDEC
        and GDEC_HEADERS[3].unpack_from(data)[1] != 1
    ):
        _, digest, size, _ = GDEC_HEADERS[4].unpack_from(data)
        parts = [(4, "magic: GDEC"), (16, f"MD5 of the plaintext: {digest.hex()}")]
        parts += [(8, f"plaintext length: {size} bytes"), (16, "IV (AES-256-CFB, Godot 4 layout)")]
    elif len(data) >= GDEC_HEADERS[3].size:
        swapped = data[:4] != GDEC
        layout = Struct(">4sI16sQ") if swapped else GDEC_HEADERS[3]
        _, mode, digest, size = layout.unpack_from(data)
        order = " (big-endian: File.endian_swap)" if swapped else ""
        parts = [(4, f"magic: GDEC{order}"), (4, f"mode: {mode} (AES-256-ECB, Godot 2/3 layout)")]
        parts += [
            (16, f"MD5 of the plaintext: {digest.hex()}"),
            (8, f"plaintext length: {size} bytes"),
        ]
    else:
        section.problem, section.problem_offset = "the GDEC header is cut short", 0
        return section
    at = 0
    for width, what in parts:
        section.fields.append(Field(at, data[at : at + width], "", what))
        at += width
    section.fields.append(Field(at, data[at:], "", f"ciphertext: {len(data) - at} bytes"))
    section.good = len(data)
    return section


def _gcpf_header(data: bytes) -> Section:
    section = Section("GCPF container (compressed)", len(data))
    if len(data) < GCPF_HEADER.size:
        section.problem, section.problem_offset = "the GCPF header is cut short", 0
        return section
    _, mode, block, total = GCPF_HEADER.unpack_from(data)
    count = total // block + 1 if block else 0
    fields = [
        Field(0, data[:4], "", "magic: GCPF"),
        Field(4, data[4:8], "", f"compression mode: {mode}"),
        Field(8, data[8:12], "", f"block size: {block}"),
        Field(12, data[12:16], "", f"plaintext size: {total} bytes in {count} blocks"),
    ]
    at = GCPF_HEADER.size
    sizes = []
    for index in range(count):
        if len(data) - at < 4:
            break
        (size,) = U32.unpack_from(data, at)
        sizes.append(size)
        fields.append(Field(at, data[at : at + 4], f"block {index}", f"compressed size: {size}"))
        at += 4
    for index, size in enumerate(sizes):
        if at + size > len(data):
            section.problem = f"the file ends inside block {index} ({size} bytes claimed)"
            section.problem_offset = min(at, len(data))
            break
        fields.append(Field(at, data[at : at + size], f"block {index}", f"{size} compressed bytes"))
        at += size
    if data[at : at + 4] == b"GCPF":
        fields.append(Field(at, data[at : at + 4], "", "magic: GCPF (end)"))
        at += 4
    section.fields = fields
    section.good = min(at, len(data))
    return section


class Listener:
    """Takes a dump as it is walked: a section's title and size as it starts, each of its
    fields as it is found, then the section with what its walk found (``good``,
    ``problem``...). This one keeps everything: ``sections``, with their fields."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self._fields: list[Field] = []

    def begin(self, title: str, size: int) -> None:
        """A section starts."""
        self._fields = []

    def field(self, found: Field) -> None:
        """The next field of the section."""
        self._fields.append(found)

    def end(self, section: Section) -> None:
        """The section has ended."""
        section.fields = self._fields
        self.sections.append(section)


def inspect_data(
    data: bytes,
    profile: Profile,
    *,
    key: bytes | None = None,
    password: str | None = None,
    allow_objects: bool = False,
    render: Render = repr,
    records: bool | None = None,
    big_endian: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> list[Section]:
    """Every section of ``data``, with its fields: :func:`inspect_into` kept in memory."""
    listener = Listener()
    inspect_into(
        listener,
        data,
        profile,
        key=key,
        password=password,
        allow_objects=allow_objects,
        render=render,
        records=records,
        big_endian=big_endian,
        limits=limits,
    )
    return listener.sections


def inspect_into(
    listener: Listener,
    data: bytes,
    profile: Profile,
    *,
    key: bytes | None = None,
    password: str | None = None,
    allow_objects: bool = False,
    render: Render = repr,
    records: bool | None = None,
    big_endian: bool | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> None:
    """Every section of ``data`` to ``listener``, each field as it is found: a container's
    header (if any), then its plaintext as one value or as records, whichever reads further
    (``records`` forces one). ``limits`` apply to the values and a container's plaintext."""
    kind = sniff(data[:4])
    plain: bytes | None = data
    if kind != "plain":
        head = _gdec_header(data) if kind == "GDEC" else _gcpf_header(data)
        plain = None
        if kind != "GDEC" or key is not None or password is not None:
            most = limits.max_size
            try:
                _, plain = open_container(data, key=key, password=password, max_size=most)
            except DecodeError as exc:  # a damaged container: its header is all there is
                head.problem, head.problem_offset = str(exc), exc.offset
                head.good = min(head.good, exc.offset)
        listener.begin(head.title, head.size)
        for found in head.fields:
            listener.field(found)
        listener.end(head)
    if plain is None:
        return
    codec = codec_for(profile, False, allow_objects, False, limits)
    order = _choose(plain, codec, _tries(kind, records, big_endian))
    title = "one var_to_bytes value" if order is None else "store_var records"
    title += " (big-endian lengths)" if order else ""
    title = title if kind == "plain" else f"plaintext: {title}"
    listener.begin(title, len(plain))
    section = _walk(plain, codec, order, render, listener.field)
    section.title = title
    listener.end(section)


def _tries(kind: str, records: bool | None, big_endian: bool | None) -> list[bool | None]:
    """The readings to try, best first: None for one value, else the records' byte order."""
    tries: list[bool | None] = []
    if records is not True and big_endian is None:
        tries.append(None)
    if records is not False:
        tries += [False, True] if big_endian is None else [big_endian]
    if kind != "plain" and records is None:
        tries.reverse()  # a container holds records unless they fail
    return tries


def _walk(
    plain: bytes, codec: VariantCodec, order: bool | None, render: Render, out: Out
) -> Section:
    options: dict[str, Any] = {"allow_objects": codec.allow_objects, "limits": codec.limits}
    if order is None:
        return walk_value(plain, codec.profile, render=render, out=out, **options)
    return walk_records(plain, codec.profile, big_endian=order, render=render, out=out, **options)


def _choose(plain: bytes, codec: VariantCodec, tries: list[bool | None]) -> bool | None:
    """The first reading that reads every byte, as the codec sees it (a record's value may
    leave some of it unread); else the one whose walk gets furthest (the first of equals)."""
    for order in tries:
        if _reads(plain, codec, order):
            return order
    if len(tries) == 1:
        return tries[0]
    goods = [_walk(plain, codec, order, _silent, _discard).good for order in tries]
    return tries[goods.index(max(goods))]


def _reads(plain: bytes, codec: VariantCodec, order: bool | None) -> bool:
    """Whether ``plain`` reads whole as one value (``order`` None) or as records in that
    byte order whose values each decode inside their record."""
    view = memoryview(plain)
    if order is None:
        try:
            return bool(codec.decode(view)[1] == len(plain))
        except DecodeError:
            return False
    spans = record_spans(plain, order)
    if spans is None:
        return False
    try:
        for start, end in spans:
            codec.decode(view[:end], start)
    except DecodeError:
        return False
    return True


def _silent(value: Any) -> str:
    return ""


def _discard(found: Field) -> None:
    pass
