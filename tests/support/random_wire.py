"""Random Variant bytes built field by field for any profile: what a stranger can send.

``random_values`` makes values the engine keeps exactly and writes them with our encoder; this
module writes the bytes itself, from the wire layouts, with the edges a decoder must turn into
values the encoder can write back: 64-bit-flagged reals of any size (1e300, subnormals, NaN
payloads) for single-precision builds, 32-bit reals for double ones, ints at the ends of their
widths, strings holding UTF-8 surrogates, BOMs and NULs, typed containers holding elements of
other types, NodePath flags, full objects, Godot 2's Image and InputEvent with any field.
Most inputs decode; the rest are refused, which is fine too.
"""

from __future__ import annotations

import random
import re
import struct
from collections.abc import Callable
from typing import Any

import gdvariant as gd
from gdvariant._values.layouts import LAYOUTS

T = gd.VariantType
FLAG_64 = 1 << 16
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")

#: Bit patterns of doubles: the everyday ones and the edges of float32 (its largest value, the
#: half-way point above it that rounds to inf, subnormals), infinities and NaNs with payloads.
F64_BITS = [
    0x0000000000000000,
    0x8000000000000000,
    0x3FF0000000000000,
    0x3FB999999999999A,  # 0.1
    0x7E37E43C8800759C,  # 1e300
    0xFE37E43C8800759C,  # -1e300
    0x47EFFFFFE0000000,  # 3.4028234663852886e38: float32's largest
    0x47EFFFFFF0000000,  # half-way to the next: rounds to inf
    0x47EFFFFFEFFFFFFF,  # just below it: rounds to float32's largest
    0x36A0000000000000,  # below float32's smallest subnormal: rounds to 0
    0x0000000000000001,  # the smallest double
    0x7FF0000000000000,
    0xFFF0000000000000,
    0x7FF8000000000000,
    0x7FF8000000000123,  # a quiet NaN with a payload
    0x7FF0000000000001,  # a signalling NaN
]
#: Bit patterns of floats, likewise.
F32_BITS = [
    0x00000000,
    0x80000000,
    0x3F800000,
    0x3DCCCCCD,
    0x7F7FFFFF,
    0x00000001,
    0x7F800000,
    0xFF800000,
    0x7FC00000,
    0x7FC00123,
    0x7F800001,  # a signalling NaN
]
I32 = [0, 1, -1, 2**31 - 1, -(2**31), 0x12345678]
I64 = [0, -1, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63)]
#: String bytes: plain, non-ASCII, with a BOM (once, twice, alone), a NUL, UTF-16 surrogates
#: written as 3-byte UTF-8 (lone high, lone low, a pair, a pair out of order), and invalid.
STRINGS = [
    b"",
    b"abc",
    "é漢🎮".encode(),
    b"\xef\xbb\xbfx",
    b"\xef\xbb\xbf\xef\xbb\xbfx",
    b"\xef\xbb\xbf",
    b"a\0b",
    b"\xed\xa0\x80",
    b"x\xed\xbf\xbf",
    b"\xed\xa0\xbd\xed\xb8\x80",
    b"\xed\xb8\x80\xed\xa0\xbd",
    b"\xff",
    b"\xc0\x80",
]


def _u32(n: int) -> bytes:
    return _U32.pack(n & 0xFFFFFFFF)


def _string(rng: random.Random) -> bytes:
    """A headerless String: length, bytes, padding."""
    raw = rng.choice(STRINGS)
    return _u32(len(raw)) + raw + b"\0" * (-len(raw) & 3)


def _real(rng: random.Random, wide: bool) -> bytes:
    if wide:
        return _U64.pack(rng.choice(F64_BITS))
    return _U32.pack(rng.choice(F32_BITS))


def _int32(rng: random.Random) -> bytes:
    return struct.pack("<i", rng.choice(I32))


class _Writer:
    """One input for one profile: ``value()`` writes a random value's bytes."""

    def __init__(self, rng: random.Random, profile: gd.Profile) -> None:
        self.rng = rng
        self.profile = profile
        self.ids = {vtype: wire for vtype, wire in profile.wire_ids.items()}
        self.flags = not profile.strict_header  # Godot 2 allows no header bits at all

    def flag(self) -> int:
        return FLAG_64 if self.flags and self.rng.random() < 0.5 else 0

    def value(self, depth: int = 0) -> bytes:
        rng = self.rng
        containers = [t for t in _CONTAINERS if t in self.ids]
        if depth < 3 and containers and rng.random() < 0.3:
            vtype = rng.choice(containers)
        else:
            vtype = rng.choice([t for t in self.ids if t not in _CONTAINERS])
        return _WRITERS.get(vtype, _Writer.header_only)(self, vtype, depth)

    def header_only(self, vtype: T, depth: int) -> bytes:
        return _u32(self.ids[vtype])

    def scalar(self, vtype: T, depth: int) -> bytes:
        flag = self.flag()
        head = _u32(self.ids[vtype] | flag)
        if vtype == T.BOOL:
            return head + _u32(self.rng.choice([0, 1, 2, 0xFFFFFFFF]))
        if vtype == T.INT:
            return head + (struct.pack("<q", self.rng.choice(I64)) if flag else _int32(self.rng))
        return head + _real(self.rng, bool(flag))  # FLOAT

    def text(self, vtype: T, depth: int) -> bytes:
        return _u32(self.ids[vtype]) + _string(self.rng)

    def math(self, vtype: T, depth: int) -> bytes:
        layout = LAYOUTS[vtype]
        flag = self.flag()
        body = b"".join(
            _int32(self.rng) if layout.kind == "i32" else _real(self.rng, bool(flag))
            for _ in range(layout.components)
        )
        if layout.kind == "real" and flag and not self.profile.double_flagged:
            flag = 0  # before Godot 4 the flag means nothing here: keep the sizes right
            body = b"".join(_real(self.rng, False) for _ in range(layout.components))
        return _u32(self.ids[vtype] | flag) + body

    def node_path(self, vtype: T, depth: int) -> bytes:
        rng = self.rng
        if self.profile.old_node_path and rng.random() < 0.3:  # Godot 2.0's plain text
            raw = rng.choice([b"a/b:c", b"/root", b"", b":x", b"a//b"])
            return _u32(self.ids[vtype]) + _u32(len(raw)) + raw
        names, subnames, flags = rng.randrange(3), rng.randrange(3), rng.randrange(4)
        parts = names + subnames + (1 if flags & 2 else 0)
        head = _u32(self.ids[vtype]) + _u32(names | 0x80000000) + _u32(subnames) + _u32(flags)
        return head + b"".join(_string(rng) for _ in range(parts))

    def rid(self, vtype: T, depth: int) -> bytes:
        if not self.profile.rid_payload:
            return _u32(self.ids[vtype])
        return _u32(self.ids[vtype]) + _U64.pack(self.rng.choice([0, 1, 2**64 - 1]))

    def object(self, vtype: T, depth: int) -> bytes:
        rng = self.rng
        if not self.profile.objects:
            return _u32(self.ids[vtype])
        if rng.random() < 0.5 or depth >= 3:
            return _u32(self.ids[vtype] | FLAG_64) + _U64.pack(rng.choice([0, 7, 2**64 - 1]))
        count = rng.randrange(3)
        props = b"".join(_string(rng) + self.value(depth + 1) for _ in range(count))
        name = rng.choice([b"Node", b"RefCounted", b"Resource", b""])
        return _u32(self.ids[vtype]) + _u32(len(name)) + name + _u32(count) + props

    def signal(self, vtype: T, depth: int) -> bytes:
        return _u32(self.ids[vtype]) + _string(self.rng) + _U64.pack(2**64 - 1)

    def element_info(self, kind: int) -> bytes:
        """A typed container's element type: a builtin type id, or a class or script name."""
        if kind == 1:
            return _u32(self.rng.choice(list(self.ids.values())))
        if kind in (2, 3):
            raw = self.rng.choice([b"Node", b"EncodedObjectAsID", b"res://a.gd"])
            return _u32(len(raw)) + raw + b"\0" * (-len(raw) & 3)
        return b""

    def count(self) -> int:
        """A container's count: Godot 2 may mark it shared (bit 31)."""
        shared = self.profile.shared_bit and self.rng.random() < 0.3
        return self.rng.randrange(4) | (0x80000000 if shared else 0)

    def array(self, vtype: T, depth: int) -> bytes:
        header = self.ids[vtype]
        info = b""
        if self.profile.typed_arrays and self.rng.random() < 0.6:
            kind = self.rng.randrange(1, 4)
            header |= kind << 16
            info = self.element_info(kind)
        count = self.count()
        items = b"".join(self.value(depth + 1) for _ in range(count & 0x7FFFFFFF))
        return _u32(header) + info + _u32(count) + items

    def dictionary(self, vtype: T, depth: int) -> bytes:
        header = self.ids[vtype]
        info = b""
        if self.profile.typed_dictionaries and self.rng.random() < 0.6:
            key_kind, value_kind = self.rng.randrange(4), self.rng.randrange(4)
            header |= key_kind << 16 | value_kind << 18
            info = self.element_info(key_kind) + self.element_info(value_kind)
        count = self.count()
        items = b"".join(self.value(depth + 1) for _ in range(2 * (count & 0x7FFFFFFF)))
        return _u32(header) + info + _u32(count) + items

    def typed_array(self, vtype: T, depth: int) -> bytes:
        """Pandemonium's TYPED_ARRAY / PACKED_TYPED_ARRAY: element type, class, count."""
        element = self.rng.choice(list(self.profile.wire_ids))
        header = self.ids[vtype]
        info = _u32(self.ids[element])
        if element == T.OBJECT:
            if self.rng.random() < 0.5:
                header |= FLAG_64
            else:
                info += _u32(self.ids[T.STRING_NAME]) + _u32(4) + b"Node"
        count = self.rng.randrange(4)
        items = b"".join(self.value(depth + 1) for _ in range(count))
        return _u32(header) + info + _u32(count) + items

    def packed(self, vtype: T, depth: int) -> bytes:
        rng = self.rng
        head = self.ids[vtype]
        count = rng.randrange(4)
        if vtype == T.PACKED_BYTE_ARRAY:
            raw = rng.randbytes(count)
            return _u32(head) + _u32(count) + raw + b"\0" * (-count & 3)
        if vtype == T.PACKED_STRING_ARRAY:
            return _u32(head) + _u32(count) + b"".join(_string(rng) for _ in range(count))
        if vtype in _PACKED_REALS:
            flag = self.flag() if self.profile.double_flagged else 0
            width = _PACKED_REALS[vtype]
            body = b"".join(_real(rng, bool(flag)) for _ in range(count * width))
            return _u32(head | flag) + _u32(count) + body
        if vtype in _PACKED_FLOATS:
            wide = vtype == T.PACKED_FLOAT64_ARRAY
            width = _PACKED_FLOATS[vtype]
            body = b"".join(_real(rng, wide) for _ in range(count * width))
            return _u32(head) + _u32(count) + body
        wide = vtype == T.PACKED_INT64_ARRAY
        width = _PACKED_INTS[vtype]
        pick: Callable[[], bytes] = (
            (lambda: struct.pack("<q", rng.choice(I64))) if wide else (lambda: _int32(rng))
        )
        return _u32(head) + _u32(count) + b"".join(pick() for _ in range(count * width))

    def image(self, vtype: T, depth: int) -> bytes:
        rng = self.rng
        size = rng.randrange(5)
        fields = [rng.choice([0, 22, 23]), rng.choice([0, 2**32 - 1]), 2**32 - 1, 1, size]
        data = rng.randbytes(size)
        return _u32(self.ids[vtype]) + b"".join(map(_u32, fields)) + data + b"\0" * (-size & 3)

    def input_event(self, vtype: T, depth: int) -> bytes:
        rng = self.rng
        etype = rng.choice([0, 1, 3, 4, 5, 6, 8, 9, 2**31, 2**32 - 1])
        device = rng.choice([0, 2**32 - 1])
        extra = rng.choice([b"", _u32(2**32 - 1), _u32(2**32 - 1) + _real(rng, False)])
        return _u32(self.ids[vtype]) + _u32(etype) + _u32(device) + _u32(12) + extra


_CONTAINERS = frozenset({T.ARRAY, T.DICTIONARY, T.TYPED_ARRAY, T.PACKED_TYPED_ARRAY})
_PACKED_REALS = {
    T.PACKED_VECTOR2_ARRAY: 2,
    T.PACKED_VECTOR3_ARRAY: 3,
    T.PACKED_VECTOR4_ARRAY: 4,
}
_PACKED_FLOATS = {T.PACKED_FLOAT32_ARRAY: 1, T.PACKED_FLOAT64_ARRAY: 1, T.PACKED_COLOR_ARRAY: 4}
_PACKED_INTS = {
    T.PACKED_INT32_ARRAY: 1,
    T.PACKED_INT64_ARRAY: 1,
    T.PACKED_VECTOR2I_ARRAY: 2,
    T.PACKED_VECTOR3I_ARRAY: 3,
    T.PACKED_VECTOR4I_ARRAY: 4,
}
_WRITERS: dict[T, Callable[[_Writer, T, int], bytes]] = {
    T.BOOL: _Writer.scalar,
    T.INT: _Writer.scalar,
    T.FLOAT: _Writer.scalar,
    T.STRING: _Writer.text,
    T.STRING_NAME: _Writer.text,
    T.NODE_PATH: _Writer.node_path,
    T.RID: _Writer.rid,
    T.OBJECT: _Writer.object,
    T.SIGNAL: _Writer.signal,
    T.ARRAY: _Writer.array,
    T.DICTIONARY: _Writer.dictionary,
    T.TYPED_ARRAY: _Writer.typed_array,
    T.PACKED_TYPED_ARRAY: _Writer.typed_array,
    T.IMAGE: _Writer.image,
    T.INPUT_EVENT: _Writer.input_event,
    **{vtype: _Writer.math for vtype in LAYOUTS},
    **{vtype: _Writer.packed for vtype in (*_PACKED_REALS, *_PACKED_FLOATS, *_PACKED_INTS)},
    T.PACKED_BYTE_ARRAY: _Writer.packed,
    T.PACKED_STRING_ARRAY: _Writer.packed,
}


def random_wire(rng: random.Random, profile: gd.Profile) -> bytes:
    """The bytes of one random value for ``profile``, written field by field."""
    return _Writer(rng, profile).value()


# ---------------------------------------------------------------- what a write and read change

_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _joined(match: re.Match[str]) -> str:
    return match.group().encode("utf-16", "surrogatepass").decode("utf-16")


def reread(value: Any, profile: gd.Profile) -> Any:
    """``value`` as the engine holds it after writing it and reading it back: the changes the
    engine itself makes, so that ``loads(dumps(value))`` can give nothing else.

    - Every release drops one leading BOM of a String it reads (so a String that still starts
      with one loses it on the next read; Godot 4.6, 3.6 and 3.2 do so, engine-checked);
    - Godot 3.6 writes a high-low surrogate pair as its one character and any other surrogate
      as a space (engine-checked);
    - Pandemonium writes a PoolVector4iArray's z where its w belongs (its own bug).
    """

    def text(s: str) -> str:
        if profile.surrogate_writing == "joined":
            s = _SURROGATE.sub(" ", _PAIR.sub(_joined, s))
        return s[1:] if s.startswith("\ufeff") else s

    def etype(spec: gd.ElementType | None) -> gd.ElementType | None:
        if spec is None or not spec.name:
            return spec
        return gd.ElementType(spec.kind, spec.type, text(spec.name))

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            out = text(v)
            return gd.StringName(out) if isinstance(v, gd.StringName) else out
        if isinstance(v, gd.NodePath):
            return gd.NodePath.from_parts(map(text, v.names), map(text, v.subnames), v.absolute)
        if isinstance(v, gd.PackedStringArray):
            return gd.PackedStringArray(map(text, v))
        if isinstance(v, gd.Signal):
            return gd.Signal(text(v[0]), v[1])
        if isinstance(v, gd.GodotObject):
            return gd.GodotObject(text(v[0]), tuple((text(n), walk(x)) for n, x in v[1]))
        if isinstance(v, gd.TypedArray):
            spec = etype(v.element_type)
            assert spec is not None
            return type(v)(spec, [walk(x) for x in v])
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, gd.Dictionary):
            pairs = [(walk(k), walk(x)) for k, x in v.items()]
            return gd.Dictionary(pairs, etype(v.key_type), etype(v.value_type))
        if isinstance(v, dict):
            pairs = [(walk(k), walk(x)) for k, x in v.items()]
            merged = len({k for k, _ in pairs}) < len(pairs)  # two Strings now the same
            return gd.Dictionary(pairs) if merged else dict(pairs)
        if isinstance(v, gd.PackedVector4iArray) and profile.vector4i_array_w_from_z:
            return gd.PackedVector4iArray((x, y, z, z) for x, y, z, _ in v)
        return v

    return walk(value)
