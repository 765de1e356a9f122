"""The Godot side: a GDScript (Godot 4) decoder generated from a schema.

``schema.to_gdscript()`` writes one GDScript class that applies this schema's packets
(``docs/replication-wire.md``) and keeps ``state``: entity id -> Dictionary of property path
-> value, with ``classes`` (entity id -> class id) and ``newest_tick`` to acknowledge.
``sorted_state()`` gives ``[state, classes]`` with ids ascending (canonical for
``var_to_bytes``), and ``apply_to_nodes(nodes)`` sets the newest state on game objects
instead (entity id -> Object; each property that differs from what it last set there, by
the names in ``node_properties``), so that a game need not read the Dictionaries at all.

The generated code follows the wire doc's §4 recipe, which was measured in Godot 4.6: one
decode function per class, every field read written inline (a 32-bit refill into a 64-bit
accumulator, no function call per field) and one ``if mask & bit`` block per property
(under one test per group of 8, so a sparse delta skips most of them). It checks what the
Python :class:`SnapshotDecoder` checks and reports the same errors in ``last_error`` and
``last_error_path`` (naming entity and property) instead of raising.

States: the ring of recent ticks (delta bases) holds each entity's values as an Array by flat
index, because copying an Array is cheap (0.1 µs for 30 values in Godot 4.6) and copying a
Dictionary is not (2.6 µs). A packet is decoded into a copy of its base tick's state, copying
only the entities it touches, and nothing is stored until the whole packet has decoded.
``state`` (the newest tick, as Dictionaries) is a view built when it is read: ``apply()`` only
queues (entity, class, mask) per record, and reading ``state`` copies the queued properties
from the newest tick into the view's Dictionaries in place. Each delta comes from a base no
newer than the tick before it, so the queue names every entity and property that differ
since the view was last built, except entities that came and went in between, which are
removed by comparing the entity sets. Building Dictionaries costs about as much as decoding
(1 µs per property written in Godot 4.6), and a client that renders at a lower rate than it
receives packets pays it once per read instead of once per packet.

Float constants (ranges, steps) are not written as decimal literals: Godot 4.6.3's GDScript
parser reads some literals to a different double (``5e-324`` and ``2.2250738585072014e-308``
become 0.0, ``8.98846567431158e+307`` is off by one ulp). They are loaded at start-up from
their exact ``var_to_bytes`` encoding and the steps are computed from them in float64, as
§5 requires. Class baselines are decoded at start-up from the description's default bits by
the generated code itself.

Reading past the end never touches memory out of range: the packet is copied with zero
padding longer than the longest run of reads between two bounds checks. There is a check
after each record header, after each change list, after each property and before each
element of a length-prefixed run. The check names the property that crossed the end.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import gdvariant

from ._codecs import (
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    EntityRef,
    Enum,
    Int,
    Str,
    UInt,
    Variant,
    VarInt,
    VarUInt,
)
from ._delta import DeltaCoder, ScalarDelta, VarIntDelta
from ._float_codecs import (
    Angle,
    Coord,
    Float32,
    Float64,
    Half,
    Normal,
    Quant,
    Quat,
    Vec2,
    Vec3,
    Vec4,
)

if TYPE_CHECKING:
    from ._flatten import FlatProp
    from ._layout import ClassLayout, Schema
    from ._snapshot import EntityState

__all__ = ["generate", "godot_state", "godot_value"]

_HEADER_BYTES = 18
_RECORD_HEADER_BITS = 2 + 1 + 2 + 32
_VAR_GROUPS_BITS = 80
_I64_LOW_63 = "0x7FFFFFFFFFFFFFFF"


def godot_value(codec: Codec, value: Any) -> Any:
    """``value`` (as Python decodes it with ``codec``) as the generated GDScript holds it:
    Enum members become their described int, tuples Arrays (lists), and unsigned values of
    2**63 and above wrap to negative (GDScript ints are signed 64-bit)."""
    if isinstance(codec, Enum) and isinstance(value, enum.Enum):
        return codec.describe()[3][codec.position[value]]
    if isinstance(codec, ArrayOf):
        return [godot_value(codec.element, v) for v in value]
    if isinstance(codec, UInt | VarUInt) and isinstance(value, int) and value >= 1 << 63:
        return value - (1 << 64)
    return value


def godot_state(schema: Schema, state: Mapping[int, EntityState]) -> list[dict[int, Any]]:
    """A decoder state (``SnapshotDecoder.state``, ``SnapshotEncoder.expected_state``) as the
    generated GDScript holds it, ``[{id: {path: value}}, {id: class id}]`` with ids ascending
    and paths in flat order: what its ``var_to_bytes`` must equal."""
    values: dict[int, Any] = {}
    classes: dict[int, int] = {}
    for net_id in sorted(state):
        ent = state[net_id]
        lay = schema.layout(ent.class_name)
        values[net_id] = {p.path: godot_value(p.codec, ent.values[p.path]) for p in lay.props}
        classes[net_id] = lay.class_id
    return [values, classes]


def _straight_bits(codec: Codec) -> int:
    """The most bits ``codec``'s generated code reads between two bounds checks."""
    if isinstance(codec, VarUInt | VarInt):
        return _VAR_GROUPS_BITS
    if isinstance(codec, Str | Variant):  # Bytes is a Str; the byte run is checked first
        return codec.len_bits
    if isinstance(codec, ArrayOf):
        return codec.len_bits + _straight_bits(codec.element)
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return codec.count * _straight_bits(codec.component)
    if codec.max_bits is None:
        raise NotImplementedError(f"no GDScript decoding for {codec!r}")
    return codec.max_bits


class _Writer:
    """Emits GDScript lines with fresh local names. ``acc``, ``n``, ``bp`` and ``buf`` are
    the bit reader's state (wire doc §4): the next bit is bit ``bp * 8 - n`` of ``buf``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.members: dict[str, str] = {}  # init expression -> member name
        self.member_lines: list[str] = []

    def tmp(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("\t" * indent + text)

    def member(self, expr: str) -> str:
        """A float member set once in ``_init`` to ``expr`` (shared by equal expressions)."""
        name = self.members.get(expr)
        if name is None:
            name = self.members[expr] = f"_k{len(self.members)}"
            self.member_lines.append(f"\t{name} = {expr}")
        return name

    def exact(self, x: float) -> str:
        """A member holding exactly the double ``x`` (decoded from its Variant bytes)."""
        return self.member(f'bytes_to_var("{gdvariant.dumps(float(x)).hex()}".hex_decode())')

    def read(self, indent: int, width: int) -> str:
        """Inline read of ``width`` bits (two reads, low part first, above 32); returns the
        expression holding them."""
        if width == 0:
            return "0"
        if width > 32:
            low = self.read(indent, 32)
            high = self.read(indent, width - 32)
            out = self.tmp()
            self.emit(indent, f"var {out} := {low} | ({high} << 32)")
            return out
        out = self.tmp()
        self.emit(indent, f"if n < {width}:")
        self.emit(indent + 1, "acc |= buf.decode_u32(bp) << n")
        self.emit(indent + 1, "bp += 4")
        self.emit(indent + 1, "n += 32")
        self.emit(indent, f"var {out} := acc & {(1 << width) - 1}")
        self.emit(indent, f"acc >>= {width}")
        self.emit(indent, f"n -= {width}")
        return out

    def resync(self, indent: int, bit: str) -> None:
        """Restart the reader at bit position ``bit``."""
        self.emit(indent, f"bp = {bit} >> 3")
        self.emit(indent, f"acc = buf[bp] >> ({bit} & 7)")
        self.emit(indent, f"n = 8 - ({bit} & 7)")
        self.emit(indent, "bp += 1")

    def fail(self, indent: int, where: tuple[str, str], message: str) -> None:
        """Return the error ``message`` (a GDScript expression) for the property ``where``."""
        cls, path = where
        self.emit(indent, f"return _bad(id, {json.dumps(cls)}, {json.dumps(path)}, {message})")

    def check_end(self, indent: int, where: tuple[str, str]) -> None:
        self.emit(indent, "if (bp << 3) - n > end:")
        self.fail(indent + 1, where, '"packet truncated"')

    def value(self, indent: int, codec: Codec, where: tuple[str, str]) -> str:
        """Inline decode of one value; returns the expression holding it."""
        handler = _VALUES.get(type(codec))
        if handler is None:
            raise NotImplementedError(f"no GDScript decoding for {codec!r}")
        return handler(self, indent, codec, where)


def _bool(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    return f"({w.read(indent, 1)} == 1)"


def _uint(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    return w.read(indent, codec.bits)


def _int(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    raw = w.read(indent, codec.bits)
    out = w.tmp()
    if codec.zigzag:
        w.emit(indent, f"var {out} := (({raw} >> 1) & {_I64_LOW_63}) ^ -({raw} & 1)")
    elif codec.bits == 64:
        return raw  # the two halves already make the signed 64-bit value
    else:
        w.emit(indent, f"var {out} := {raw}")
        w.emit(indent, f"if {out} >> {codec.bits - 1}:")
        w.emit(indent + 1, f"{out} -= {1 << codec.bits}")
    return out


def _leb128(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    raw, shift = w.tmp(), w.tmp()
    w.emit(indent, f"var {raw} := 0")
    w.emit(indent, f"var {shift} := 0")
    w.emit(indent, "while true:")
    group = w.read(indent + 1, 8)
    w.emit(indent + 1, f"if {shift} == 63 and {group} > 1:")
    w.emit(indent + 2, f"if {group} & 128:")
    w.fail(indent + 3, where, f'"{codec!r}: more than 10 groups"')
    w.fail(indent + 2, where, f'"{codec!r}: value above 2**64"')
    w.emit(indent + 1, f"{raw} |= ({group} & 127) << {shift}")
    w.emit(indent + 1, f"{shift} += 7")
    w.emit(indent + 1, f"if not {group} & 128:")
    w.emit(indent + 2, "break")
    if isinstance(codec, VarUInt):
        return raw
    out = w.tmp()
    w.emit(indent, f"var {out} := (({raw} >> 1) & {_I64_LOW_63}) ^ -({raw} & 1)")
    return out


def _quant(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    low, high = w.exact(codec.low), w.exact(codec.high)
    step = w.member(f"({high} - {low}) / float({codec.levels})")
    q = w.read(indent, codec.bits)
    return f"({low} + {q} * {step})"


def _coord(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    flags = w.read(indent, 2)
    out = w.tmp()
    w.emit(indent, f"var {out} := 0.0")
    w.emit(indent, f"if {flags}:")
    sign = w.read(indent + 1, 1)
    whole = w.tmp()
    w.emit(indent + 1, f"var {whole} := 0")
    w.emit(indent + 1, f"if {flags} & 1:")
    w.emit(indent + 2, f"{whole} = {w.read(indent + 2, codec.int_bits)} + 1")
    frac = w.tmp()
    w.emit(indent + 1, f"var {frac} := 0")
    if codec.frac_bits:
        w.emit(indent + 1, f"if {flags} & 2:")
        w.emit(indent + 2, f"{frac} = {w.read(indent + 2, codec.frac_bits)}")
    w.emit(indent + 1, f"{out} = {whole} + {frac} / float({codec.scale})")
    w.emit(indent + 1, f"if {sign}:")
    w.emit(indent + 2, f"{out} = -{out}")
    return out


def _angle(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    period = "float(360)" if codec.degrees else "TAU"
    step = w.member(f"{period} / float({1 << codec.bits})")
    raw = w.read(indent, codec.bits)
    w.emit(indent, f"if {raw} >> {codec.bits - 1}:")
    w.emit(indent + 1, f"{raw} -= {1 << codec.bits}")
    return f"({raw} * {step})"


def _normal(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    step = w.member(f"float(2) / float({codec.levels})")
    a, b = w.read(indent, codec.bits), w.read(indent, codec.bits)
    fx, fy, fz, old, length = (w.tmp() for _ in range(5))
    w.emit(indent, f"var {fx}: float = {a} * {step} - 1.0")
    w.emit(indent, f"var {fy}: float = {b} * {step} - 1.0")
    w.emit(indent, f"var {fz}: float = 1.0 - absf({fx}) - absf({fy})")
    w.emit(indent, f"if {fz} < 0.0:")
    w.emit(indent + 1, f"var {old} := {fx}")
    w.emit(indent + 1, f"{fx} = (1.0 - absf({fy})) * (1.0 if {old} >= 0.0 else -1.0)")
    w.emit(indent + 1, f"{fy} = (1.0 - absf({old})) * (1.0 if {fy} >= 0.0 else -1.0)")
    w.emit(indent, f"var {length} := sqrt({fx} * {fx} + {fy} * {fy} + {fz} * {fz})")
    return f"Vector3({fx} / {length}, {fy} / {length}, {fz} / {length})"


def _quat(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    root = w.member("sqrt(0.5)")
    step = w.member(f"float(2) * {root} / float({codec.levels})")
    big = w.read(indent, 2)
    parts = []
    for _ in range(3):
        q = w.read(indent, codec.bits)
        part = w.tmp()
        w.emit(indent, f"var {part}: float = {q} * {step} - {root}")
        parts.append(part)
    a, b, c = parts
    rest, out = w.tmp(), w.tmp()
    w.emit(indent, f"var {rest} := sqrt(maxf(0.0, 1.0 - ({a} * {a} + {b} * {b} + {c} * {c})))")
    w.emit(indent, f"var {out}: Quaternion")
    orders = [(rest, a, b, c), (a, rest, b, c), (a, b, rest, c), (a, b, c, rest)]
    for i, comps in enumerate(orders):
        w.emit(indent, f"{'if' if i == 0 else 'elif'} {big} == {i}:" if i < 3 else "else:")
        w.emit(indent + 1, f"{out} = Quaternion({', '.join(comps)})")
    return out


def _ieee(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    if isinstance(codec, Half):
        w.emit(indent, f"_scratch.encode_u16(0, {w.read(indent, 16)})")
        return "_scratch.decode_half(0)"
    if isinstance(codec, Float32):
        w.emit(indent, f"_scratch.encode_u32(0, {w.read(indent, 32)})")
        return "_scratch.decode_float(0)"
    w.emit(indent, f"_scratch.encode_u32(0, {w.read(indent, 32)})")
    w.emit(indent, f"_scratch.encode_u32(4, {w.read(indent, 32)})")
    return "_scratch.decode_double(0)"


def _byte_run(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    """Length prefix, maximum check, bounds check, then the bytes (reader restarted after)."""
    length = w.read(indent, codec.len_bits)
    w.emit(indent, f"if {length} > {codec.max_len}:")
    w.fail(indent + 1, where, f'"length %d is over {codec!r}\'s maximum" % {length}')
    at, raw = w.tmp(), w.tmp()
    w.emit(indent, f"var {at} := (bp << 3) - n")
    w.emit(indent, f"if {at} + ({length} << 3) > end:")
    w.fail(indent + 1, where, '"packet truncated"')
    w.emit(indent, f"var {raw} := _take(buf, {at}, {length})")
    w.emit(indent, f"{at} += {length} << 3")
    w.resync(indent, at)
    return raw


def _str(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    raw = _byte_run(w, indent, codec, where)
    w.emit(indent, f"if not _utf8_ok({raw}):")
    w.fail(indent + 1, where, f'"{codec!r}: invalid UTF-8 or a NUL"')
    return f"{raw}.get_string_from_utf8()"


def _bytes(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    return _byte_run(w, indent, codec, where)


def _variant(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    raw = _byte_run(w, indent, codec, where)
    w.emit(indent, f"if {raw}.size() < 4 or {raw}.decode_var_size(0, false) != {raw}.size():")
    w.fail(indent + 1, where, '"bad Variant"')
    return f"{raw}.decode_var(0, false)"


def _enum(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    position = w.read(indent, codec.width or 0)
    values = codec.describe()[3]
    if position != "0":
        w.emit(indent, f"if {position} >= {len(values)}:")
        w.fail(indent + 1, where, f'"{codec!r} has no member number %d" % {position}')
    if values == list(range(len(values))):
        return position
    return f"{json.dumps(values)}[{position}]"


def _entity_ref(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    raw = w.read(indent, codec.bits)
    out = w.tmp()
    w.emit(indent, f"var {out} = null if {raw} == 0 else {raw} - 1")
    return out


def _vec(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    parts = []
    for _ in range(codec.count):
        part = w.tmp()
        w.emit(indent, f"var {part}: float = {w.value(indent, codec.component, where)}")
        parts.append(part)
    return f"{codec.make.__name__}({', '.join(parts)})"


def _array_of(w: _Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    count = w.read(indent, codec.len_bits)
    w.emit(indent, f"if {count} > {codec.max_len}:")
    w.fail(indent + 1, where, f'"count %d is over {codec!r}\'s maximum" % {count}')
    out, i = w.tmp(), w.tmp()
    w.emit(indent, f"var {out} := []")
    w.emit(indent, f"{out}.resize({count})")
    w.emit(indent, f"for {i} in {count}:")
    w.check_end(indent + 1, where)
    w.emit(indent + 1, f"{out}[{i}] = {w.value(indent + 1, codec.element, where)}")
    return out


def _scalar_delta(
    w: _Writer, indent: int, part: ScalarDelta, base: str, where: tuple[str, str]
) -> str:
    """Inline read of one value delta (wire doc §5.1) against the held value ``base``;
    returns the variable holding the new value. The prefix (up to 3 bits) is peeked at once,
    a tier's prefix and difference are taken in one read, and each tier finishes on its own
    (no flag to test afterwards)."""
    codec = part.codec
    out = w.tmp()
    kind = "int" if isinstance(codec, UInt | Int) else "float"
    w.emit(indent, f"var {out}: {kind}")
    prefix = w.tmp()
    # One refill covers the longest tier (3 + t3 <= 23 bits); the padding covers the overread.
    w.emit(indent, f"if n < {3 + part.t3}:")
    w.emit(indent + 1, "acc |= buf.decode_u32(bp) << n")
    w.emit(indent + 1, "bp += 4")
    w.emit(indent + 1, "n += 32")
    w.emit(indent, f"var {prefix} := acc & 7")
    for k, width in enumerate(part.tiers):
        taken = k + 1 + width
        z = w.tmp()
        w.emit(indent, f"{'if' if k == 0 else 'elif'} not {prefix} & {1 << k}:")
        w.emit(indent + 1, f"var {z} := (acc >> {k + 1}) & {(1 << width) - 1}")
        w.emit(indent + 1, f"acc >>= {taken}")
        w.emit(indent + 1, f"n -= {taken}")
        _delta_finish(w, indent + 1, part, base, z, out, where)
    w.emit(indent, "else:")
    w.emit(indent + 1, "acc >>= 3")
    w.emit(indent + 1, "n -= 3")
    w.emit(indent + 1, f"{out} = {w.value(indent + 1, codec, where)}")
    return out


def _delta_finish(
    w: _Writer, indent: int, part: ScalarDelta, base: str, z: str, out: str, where: tuple[str, str]
) -> None:
    """``out`` = the value of the held value's ordinal plus the zigzag difference ``z``."""
    codec = part.codec
    diff = f"(({z} >> 1) ^ -({z} & 1))"
    o = w.tmp()
    if isinstance(codec, UInt | Int):
        w.emit(indent, f"var {o} := (int({base}) + {diff}) & {part.mask}")
        if isinstance(codec, UInt):
            w.emit(indent, f"{out} = {o}")
            return
    elif isinstance(codec, Quant):
        low, high = w.exact(codec.low), w.exact(codec.high)
        q_step = w.member(f"({high} - {low}) / float({codec.levels})")
        ordinal = f"roundi(({base} - {low}) / {q_step})"
        w.emit(indent, f"var {o} := ({ordinal} + {diff}) & {part.mask}")
        w.emit(indent, f"{out} = {low} + {o} * {q_step}")
        return
    elif isinstance(codec, Angle):
        period = "float(360)" if codec.degrees else "TAU"
        a_step = w.member(f"{period} / float({1 << codec.bits})")
        w.emit(indent, f"var {o} := (roundi({base} / {a_step}) + {diff}) & {part.mask}")
    else:
        assert isinstance(codec, Coord)
        w.emit(indent, f"var {o} := roundi({base} * float({codec.scale})) + {diff}")
        w.emit(indent, f"if absi({o}) > {codec.max_q}:")
        w.fail(indent + 1, where, f'"a delta past {codec!r}\'s range"')
        w.emit(indent, f"{out} = float({o}) / float({codec.scale})")
        return
    w.emit(indent, f"if {o} >> {part.width - 1}:")
    w.emit(indent + 1, f"{o} -= {1 << part.width}")
    w.emit(indent, f"{out} = {o}" if isinstance(codec, Int) else f"{out} = {o} * {a_step}")


def _var_int_delta(
    w: _Writer, indent: int, part: VarIntDelta, base: str, where: tuple[str, str]
) -> str:
    """Inline read of a VarInt's delta (a 0 bit and the difference, or 1 and the value)."""
    out, held = w.tmp(), w.tmp()
    w.emit(indent, f"var {out}: int")
    w.emit(indent, f"if {w.read(indent, 1)}:")
    w.emit(indent + 1, f"{out} = {w.value(indent + 1, part.codec, where)}")
    w.emit(indent, "else:")
    d = w.value(indent + 1, part.codec, where)
    w.emit(indent + 1, f"var {held}: int = {base}")
    w.emit(
        indent + 1,
        f"if ({d} > 0 and {held} > {_I64_LOW_63} - {d}) or "
        f"({d} < 0 and {held} < -{_I64_LOW_63} - 1 - {d}):",
    )
    w.fail(indent + 2, where, f'"a delta past {part.codec!r}\'s range"')
    w.emit(indent + 1, f"{out} = {held} + {d}")
    return out


def _delta(w: _Writer, indent: int, coder: DeltaCoder, base: str, where: tuple[str, str]) -> str:
    """Inline read of a property's value delta against ``base``; returns its expression."""
    if coder.vector is None:
        part = coder.parts[0]
        if isinstance(part, VarIntDelta):
            return _var_int_delta(w, indent, part, base, where)
        return _scalar_delta(w, indent, part, base, where)
    parts = []
    held = w.tmp()
    w.emit(indent, f"var {held}: {coder.vector.__name__} = {base}")
    for part, axis in zip(coder.parts, "xyzw", strict=False):
        assert isinstance(part, ScalarDelta)
        value = _scalar_delta(w, indent, part, f"{held}.{axis}", where)
        parts.append(value)
    return f"{coder.vector.__name__}({', '.join(parts)})"


_VALUES: dict[type[Codec], Callable[[_Writer, int, Any, tuple[str, str]], str]] = {
    Bool: _bool,
    UInt: _uint,
    Int: _int,
    VarUInt: _leb128,
    VarInt: _leb128,
    Quant: _quant,
    Coord: _coord,
    Angle: _angle,
    Normal: _normal,
    Quat: _quat,
    Half: _ieee,
    Float32: _ieee,
    Float64: _ieee,
    Str: _str,
    Bytes: _bytes,
    Variant: _variant,
    Enum: _enum,
    EntityRef: _entity_ref,
    Vec2: _vec,
    Vec3: _vec,
    Vec4: _vec,
    ArrayOf: _array_of,
}


def _class_function(w: _Writer, lay: ClassLayout) -> None:
    """``_c<id>(buf, s, end, id, values, delta) -> int``: the change list and values of one
    record of this class from bit ``s`` into ``values`` (by flat index); the bit after them,
    or -1 with ``last_error`` set. The change mask is left in ``_mask``. With ``delta`` (a
    shared update record) the codecs that allow it read a value delta against ``values``."""
    name = lay.name
    wide = lay.count > 62
    w.emit(0, f"# {name}: class {lay.class_id}, {lay.count} properties")
    w.emit(
        0,
        f"func _c{lay.class_id}(buf: PackedByteArray, s: int, end: int, id: int, "
        "values: Array, delta: bool) -> int:",
    )
    w.emit(1, "var bp := s >> 3")
    w.emit(1, "var acc := buf[bp] >> (s & 7)")
    w.emit(1, "var n := 8 - (s & 7)")
    w.emit(1, "bp += 1")
    words = (lay.count + 31) // 32
    if wide:
        w.emit(1, "var mask := PackedInt64Array()")
        w.emit(1, f"mask.resize({words})")
    else:
        w.emit(1, "var mask := 0")
    selector = w.read(1, 1)
    w.emit(1, f"if {selector}:")
    w.emit(2, "var p := -1")
    truncated = f'return _fail("packet truncated in entity %d ({name})\'s change list" % id, id)'
    w.emit(2, "while true:")
    w.emit(3, "if (bp << 3) - n > end:")
    w.emit(4, truncated)
    more = w.read(3, 1)
    w.emit(3, f"if not {more}:")
    w.emit(4, "break")
    gap = w.read(3, lay.index_bits)
    w.emit(3, f"p += 1 + {gap}")
    w.emit(3, f"if p >= {lay.count}:")
    w.emit(
        4,
        f'return _fail("entity %d ({name}): index %d is past its {lay.count} properties" '
        "% [id, p], id)",
    )
    w.emit(3, "mask[p >> 5] |= 1 << (p & 31)" if wide else "mask |= 1 << p")
    w.emit(1, "else:")
    if lay.count == 0:
        w.emit(2, "pass")
    for k in range(words):
        width = min(32, lay.count - 32 * k)
        piece = w.read(2, width)
        w.emit(2, f"mask[{k}] = {piece}" if wide else f"mask |= {piece} << {32 * k}")
    w.emit(1, "if (bp << 3) - n > end:")
    w.emit(2, truncated)
    for indent, prop in _masked(w, lay):
        where = (name, prop.path)
        coder = lay.deltas[prop.index]
        if coder is not None:
            w.emit(indent, "if delta:")
            value = _delta(w, indent + 1, coder, f"values[{prop.index}]", where)
            w.emit(indent + 1, f"values[{prop.index}] = {value}")
            w.emit(indent, "else:")
            indent += 1
        value = w.value(indent, prop.codec, where)
        w.emit(indent, f"values[{prop.index}] = {value}")
        if coder is not None:
            indent -= 1
        w.check_end(indent, where)
    w.emit(1, "_mask = mask")
    w.emit(1, "return (bp << 3) - n")
    w.emit(0, "")
    w.emit(0, "")
    _publish_functions(w, lay)


def _publish_functions(w: _Writer, lay: ClassLayout) -> None:
    """``_d<id>(values) -> Dictionary``: a whole entity by path, for the ``state`` view;
    ``_n<id>(node, values, old)``: sets on ``node`` the properties that differ from ``old``
    (all of them if ``old`` is empty), for ``apply_to_nodes``."""
    entries = ", ".join(f"{json.dumps(p.path)}: values[{p.index}]" for p in lay.props)
    w.emit(0, f"func _d{lay.class_id}(values: Array) -> Dictionary:")
    w.emit(1, f"return {{{entries}}}")
    w.emit(0, "")
    w.emit(0, "")
    c = lay.class_id
    w.emit(0, f"func _n{c}(node: Object, v: Array, o: Array) -> void:")
    w.emit(1, f"var names: Array = node_properties[{c}]")
    w.emit(1, "if o.is_empty():")
    for p in lay.props:
        w.emit(2, f"node.set(names[{p.index}], v[{p.index}])")
    w.emit(2, "return")
    for p in lay.props:
        i = p.index
        if _holds_ieee(p.codec) or isinstance(p.codec, Variant):
            # == cannot tell -0.0 from 0.0, and a slot of a Variant can change its type
            w.emit(1, f"node.set(names[{i}], v[{i}])")
            continue
        if isinstance(p.codec, EntityRef):  # null or an int
            w.emit(1, f"if typeof(v[{i}]) != typeof(o[{i}]) or v[{i}] != o[{i}]:")
        else:
            w.emit(1, f"if v[{i}] != o[{i}]:")
        w.emit(2, f"node.set(names[{i}], v[{i}])")
    w.emit(0, "")
    w.emit(0, "")
    w.emit(0, "")
    w.emit(0, "")


def _masked(
    w: _Writer, lay: ClassLayout, mask: str = "mask", at: int = 1
) -> Iterator[tuple[int, FlatProp]]:
    """Emit ``if mask & bit:`` per property, in index order, and yield (indent, property)
    for the caller to fill in. With more than 8 properties, each group of 8 sits under one
    test of the group's byte: a sparse mask (the usual delta) skips most tests. ``mask`` names
    the variable and ``at`` is the indent of the outer tests."""
    wide = lay.count > 62

    def test(i: int, bits: int) -> str:
        if wide:
            return f"{mask}[{i >> 5}] & {bits << (i & 31)}"
        return f"{mask} & {bits << i}"

    grouped = lay.count > 8
    for prop in lay.props:
        i = prop.index
        if grouped and i % 8 == 0:
            w.emit(at, f"if {test(i, (1 << min(8, lay.count - i)) - 1)}:")
        indent = at + 1 if grouped else at
        w.emit(indent, f"if {test(i, 1)}:")
        yield indent + 1, prop


def _baseline_bits(lay: ClassLayout) -> bytes:
    """A change list naming every property (bitmask), then each default's bits: what
    ``_c<id>`` decodes at start-up into the class baseline."""
    acc, n = ((1 << lay.count) - 1) << 1, 1 + lay.count
    for bits, width in zip(lay.base_bits, lay.base_widths, strict=True):
        acc |= bits << n
        n += width
    return acc.to_bytes((n + 7) >> 3, "little")


def _section(w: _Writer, schema: Schema) -> None:
    """``_section``: one section's records, each read up to its class, then ``_c<id>``.
    The usual record header (an id gap of 0) is the low 3 bits of the record's first byte,
    read without the bit reader. Each entity's Array holds its class id after its values."""
    w.emit(
        0,
        "func _section(buf: PackedByteArray, size: int, pos: int, count: int, "
        "st: Dictionary, shared: bool, deltas: bool, touched: Array) -> int:",
    )
    w.emit(1, "var prev := -1")
    w.emit(1, "var end := size << 3")
    w.emit(1, "for r in count:")
    w.emit(2, "if pos >= size:")
    w.emit(3, 'return _fail("packet truncated before a record at byte %d" % pos)')
    w.emit(2, "var b0 := buf[pos]")
    w.emit(2, "var op := b0 & 3")
    w.emit(2, "var at := (pos << 3) + 3")
    w.emit(2, "var id := prev + 1")
    w.emit(2, "if b0 & 4:")
    w.emit(3, "var bp := 0")
    w.emit(3, "var acc := 0")
    w.emit(3, "var n := 0")
    w.resync(3, "at")
    size = w.read(3, 2)
    for k, width in enumerate((4, 8, 16, 32)):
        w.emit(3, f"{'if' if k == 0 else 'elif'} {size} == {k}:" if k < 3 else "else:")
        w.emit(4, f"id += {w.read(4, width)}")
    w.emit(3, "at = (bp << 3) - n")
    w.emit(3, "if at > end:")
    w.emit(4, 'return _fail("packet truncated in a record header at byte %d" % pos)')
    w.emit(2, "prev = id")
    w.emit(2, "if op == 2:")
    w.emit(3, "if not st.erase(id):")
    w.emit(4, 'return _fail("delete of entity %d, which this client lacks" % id, id)')
    w.emit(3, "touched.append(id)")
    w.emit(3, "touched.append(-1)")
    w.emit(3, "touched.append(0)")
    w.emit(3, "pos = (at + 7) >> 3")
    w.emit(3, "continue")
    w.emit(2, "var c := 0")
    w.emit(2, "var delta := deltas and op == 0")
    w.emit(2, "var values: Array")
    w.emit(2, "if op == 0:")
    w.emit(3, "var old = st.get(id)")
    w.emit(3, "if old == null:")
    w.emit(4, 'return _fail("update of entity %d, which this client lacks" % id, id)')
    w.emit(3, "values = old.duplicate()")
    w.emit(3, "c = values[-1]")
    w.emit(2, "elif op == 3 or not shared:")
    w.emit(3, 'return _fail("record op %d is not allowed here (entity %d)" % [op, id], id)')
    w.emit(2, "else:")
    if schema.class_bits:
        w.emit(3, "var bp := 0")
        w.emit(3, "var acc := 0")
        w.emit(3, "var n := 0")
        w.resync(3, "at")
        w.emit(3, f"c = {w.read(3, schema.class_bits)}")
        w.emit(3, "at = (bp << 3) - n")
        w.emit(3, "if at > end:")
        w.emit(4, 'return _fail("packet truncated in entity %d\'s class id" % id, id)')
    w.emit(3, f"if c >= {len(schema.classes)}:")
    w.emit(4, 'return _fail("entity %d enters with unknown class id %d" % [id, c], id)')
    w.emit(3, "values = _baselines[c].duplicate()")
    for k, lay in enumerate(schema.classes):
        w.emit(2, f"{'if' if k == 0 else 'elif'} c == {lay.class_id}:")
        w.emit(3, f"at = _c{lay.class_id}(buf, at, end, id, values, delta)")
    w.emit(2, "if at < 0:")
    w.emit(3, "return -1")
    w.emit(2, "st[id] = values")
    w.emit(2, "touched.append(id)")
    w.emit(2, "touched.append(c if op == 0 else -2 - c)")
    w.emit(2, "touched.append(_mask)")
    w.emit(2, "pos = (at + 7) >> 3")
    w.emit(1, "return pos")
    w.emit(0, "")
    w.emit(0, "")
    _publish(w, schema)
    _node_dispatch(w, schema)


def _holds_ieee(codec: Codec) -> bool:
    """Whether ``codec``'s values hold IEEE floats that can be -0.0 (Half, Float32/64)."""
    inner = getattr(codec, "component", None) or getattr(codec, "element", None)
    return isinstance(codec, Half | Float32 | Float64) or (inner is not None and _holds_ieee(inner))


def _node_property(path: str) -> str:
    """The default node property name of a flat property path (``purse.gold`` ->
    ``purse_gold``, ``ammo[2]`` -> ``ammo_2``)."""
    return path.replace(".", "_").replace("[", "_").replace("]", "")


def _node_dispatch(w: _Writer, schema: Schema) -> None:
    """``_node_set(node, values, old)``: ``_n<id>`` of the entity's class."""
    w.emit(0, "func _node_set(node: Object, v: Array, old: Array) -> void:")
    w.emit(1, "var c: int = v[-1]")
    for k, lay in enumerate(schema.classes):
        w.emit(1, f"{'if' if k == 0 else 'elif'} c == {lay.class_id}:")
        w.emit(2, f"_n{lay.class_id}(node, v, old)")
    if not schema.classes:
        w.emit(1, "pass")
    w.emit(0, "")
    w.emit(0, "")


def _publish(w: _Writer, schema: Schema) -> None:
    """``_publish``: brings the ``state`` view from the tick it last showed to the newest
    one. Every packet applied since was a delta from a base no newer than the newest tick
    before it, so the records kept in ``_pending`` name every entity and property that
    differ, except entities that came and went in between (removed at the end). ``_pending``
    holds (id, code, mask) per record: code -1 = delete, c = update of class c, -2 - c =
    enter of class c. The values are read from the newest state, so a property that several
    packets changed is copied once with its newest value; an entity whose newest class is not
    the view's is rebuilt whole. Too many pending records, and the view is rebuilt whole."""
    w.emit(0, "func _publish() -> void:")
    w.emit(1, "var st: Dictionary = _states[newest_tick]")
    w.emit(1, "var view := _view")
    w.emit(1, "var shown := _view_classes")
    w.emit(1, "var pending := _pending")
    w.emit(1, "_pending = []")
    w.emit(1, "_stale = false")
    w.emit(1, "if pending.size() > 6 * st.size() + 96:")
    w.emit(2, "view.clear()")
    w.emit(2, "shown.clear()")
    w.emit(2, "pending = []")
    w.emit(2, "for id in st:")
    w.emit(3, "pending.append(id)")
    w.emit(3, "pending.append(-2)")
    w.emit(3, "pending.append(0)")
    w.emit(1, "var i := 0")
    w.emit(1, "var count := pending.size()")
    w.emit(1, "while i < count:")
    w.emit(2, "var id: int = pending[i]")
    w.emit(2, "var code: int = pending[i + 1]")
    w.emit(2, "i += 3")
    w.emit(2, "if code == -1:")
    w.emit(3, "view.erase(id)")
    w.emit(3, "shown.erase(id)")
    w.emit(3, "continue")
    w.emit(2, "var values = st.get(id)")
    w.emit(2, "if values == null:  # deleted again by a later record")
    w.emit(3, "continue")
    w.emit(2, "var c: int = values[-1]")
    w.emit(2, "var d = view.get(id)")
    w.emit(2, "if code != c or d == null or shown.get(id, -1) != c:")
    w.emit(3, "shown[id] = c")
    for k, lay in enumerate(schema.classes):
        w.emit(3, f"{'if' if k == 0 else 'elif'} c == {lay.class_id}:")
        w.emit(4, f"view[id] = _d{lay.class_id}(values)")
    for lay in schema.classes:
        w.emit(2, f"elif c == {lay.class_id}:")
        kind = "PackedInt64Array" if lay.count > 62 else "int"
        w.emit(3, f"var m{lay.class_id}: {kind} = pending[i - 1]")
        if not lay.props:
            w.emit(3, "pass")
        for indent, p in _masked(w, lay, f"m{lay.class_id}", 3):
            w.emit(indent, f"d[{json.dumps(p.path)}] = values[{p.index}]")
    w.emit(1, "if view.size() != st.size():")
    w.emit(2, "for id in view.keys():")
    w.emit(3, "if not st.has(id):")
    w.emit(4, "view.erase(id)")
    w.emit(4, "shown.erase(id)")
    w.emit(0, "")
    w.emit(0, "")


_RUNTIME = """
## Decodes one packet; returns its tick, or -1 with [member last_error] set (and nothing
## changed). A delta needs the state of its base tick: keep acknowledging [member newest_tick].
func apply(packet: PackedByteArray) -> int:
	last_error = ""
	last_error_path = ""
	if _broken != "":
		return _fail(_broken)
	var size := packet.size()
	if size < 18:
		return _fail("packet of %d bytes is shorter than the 18-byte header" % size)
	if packet[0] != 1:
		return _fail("packet version %d, expected 1" % packet[0])
	var flags := packet[1]
	if flags & ~7:
		return _fail("unknown packet flags 0x%02x" % flags)
	var tick := packet.decode_u32(2)
	var base := packet.decode_u32(6)
	if bool(flags & 2) != (base == 0):
		return _fail("full flag and base tick %d disagree" % base)
	var pos := 18
	if flags & 1:
		if size < 26:
			return _fail("packet truncated in the schema fingerprint")
		var stamp := packet.slice(18, 26).hex_encode()
		if stamp != FINGERPRINT:
			return _fail("schema fingerprint %s is not ours (%s)" % [stamp, FINGERPRINT])
		pos = 26
	var st := {}
	if base:
		if not _states.has(base):
			var why := "packet for tick %d is a delta from tick %d, which this client lacks"
			return _fail(why % [tick, base])
		st = _states[base].duplicate()
	var buf := packet.duplicate()
	buf.append_array(_padding)
	var touched := []
	pos = _section(buf, size, pos, packet.decode_u32(10), st, true, bool(flags & 4), touched)
	if pos < 0:
		return -1
	pos = _section(buf, size, pos, packet.decode_u32(14), st, false, false, touched)
	if pos < 0:
		return -1
	if pos != size:
		return _fail("%d bytes of trailing data after the records" % (size - pos))
	_states[tick] = st
	if tick >= newest_tick:
		newest_tick = tick
		_pending.append_array(touched)
		_stale = true
	for old in _states.keys():
		if old <= newest_tick - history:
			_states.erase(old)
	return tick


## The newest state as [{id: {path: value}}, {id: class id}] with ids ascending, so that
## var_to_bytes of it is canonical (to compare with a server's, or to save).
func sorted_state() -> Array:
	var view := state
	var ids := view.keys()
	ids.sort()
	var values := {}
	var classes_by_id := {}
	for id in ids:
		values[id] = view[id]
		classes_by_id[id] = _view_classes[id]
	return [values, classes_by_id]


## Sets the newest state on nodes instead of reading [member state]: [param nodes] maps entity
## id -> Object (a Node of the game). Each property of entity id that differs from what this
## function last set on nodes[id] is set with Object.set(), by the name in
## [member node_properties]; all of them the first time, or when the node or the entity's
## class changed. Entities without a node, and nodes without an entity, are skipped.
func apply_to_nodes(nodes: Dictionary) -> void:
	var st: Dictionary = _states.get(newest_tick, {})
	for id in nodes:
		var v = st.get(id)
		if v == null:
			_node_last.erase(id)
			continue
		var node: Object = nodes[id]
		var last = _node_last.get(id)
		var old: Array = []
		if last != null and last[0] == node.get_instance_id() and last[1][-1] == v[-1]:
			if is_same(last[1], v):
				continue
			old = last[1]
		_node_set(node, v, old)
		_node_last[id] = [node.get_instance_id(), v]
	if _node_last.size() > 2 * nodes.size() + 64:
		for id in _node_last.keys():
			if not nodes.has(id):
				_node_last.erase(id)


## The ticks whose states are kept (delta bases), oldest first: any of them may be acked.
func held_ticks() -> Array:
	var ticks := _states.keys()
	ticks.sort()
	return ticks


## The class (table) name of entity [param id] in [member state], or "" if absent.
func class_of(id: int) -> String:
	var c = classes.get(id)
	return "" if c == null else CLASS_NAMES[c]


func _fail(message: String, id: int = -1) -> int:
	last_error = message
	last_error_path = "entity[%d]" % id if id >= 0 else ""
	return -1


func _bad(id: int, cls: String, path: String, message: String) -> int:
	last_error = "entity %d (%s) property %s: %s" % [id, cls, path, message]
	last_error_path = "entity[%d].%s" % [id, path]
	return -1


## [param count] bytes of [param buf] from bit [param s] (the caller checked the bounds).
static func _take(buf: PackedByteArray, s: int, count: int) -> PackedByteArray:
	var at := s >> 3
	var shift := s & 7
	if shift == 0:
		return buf.slice(at, at + count)
	var out := PackedByteArray()
	out.resize(count)
	for i in count:
		out[i] = ((buf[at + i] | (buf[at + i + 1] << 8)) >> shift) & 255
	return out


## Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF) without NUL,
## checked here because get_string_from_utf8() replaces bad bytes instead of failing.
static func _utf8_ok(raw: PackedByteArray) -> bool:
	var i := 0
	var size := raw.size()
	while i < size:
		var b := raw[i]
		var more := 0
		var low := 0x80
		var high := 0xBF
		if b == 0:
			return false
		elif b < 0x80:
			i += 1
			continue
		elif b >= 0xC2 and b <= 0xDF:
			more = 1
		elif b >= 0xE0 and b <= 0xEF:
			more = 2
			if b == 0xE0:
				low = 0xA0
			elif b == 0xED:
				high = 0x9F
		elif b >= 0xF0 and b <= 0xF4:
			more = 3
			if b == 0xF0:
				low = 0x90
			elif b == 0xF4:
				high = 0x8F
		else:
			return false
		if i + more >= size:
			return false
		for k in more:
			var c := raw[i + 1 + k]
			if c < (low if k == 0 else 0x80) or c > (high if k == 0 else 0xBF):
				return false
		i += more + 1
	return true
"""


def generate(schema: Schema, *, class_name: str | None = None) -> str:
    """The GDScript source of a decoder for ``schema``'s packets (see the module doc)."""
    if class_name is not None and not class_name.isidentifier():
        raise ValueError(f"class_name must be an identifier, not {class_name!r}")
    body = _Writer()
    for lay in schema.classes:
        _class_function(body, lay)
    _section(body, schema)
    straight = [_RECORD_HEADER_BITS + schema.class_bits]
    for lay in schema.classes:
        straight.append(1 + lay.count)
        # A value delta adds at most a 3-bit prefix per component to the whole value.
        straight.extend(_straight_bits(p.codec) + 3 * 4 for p in lay.props)
    padding = (max(straight) + 7) // 8 + 8

    head = _Writer()
    head.emit(0, f"# Generated by gdvariant.replication from schema {schema.fingerprint.hex()}.")
    head.emit(0, "# Do not edit: regenerate with schema.to_gdscript() when the schema changes.")
    if class_name:
        head.emit(0, f"class_name {class_name}")
    head.emit(0, "extends RefCounted")
    head.emit(0, "")
    head.emit(0, "## The schema's global fingerprint; packets stamped with another are refused.")
    head.emit(0, f'const FINGERPRINT := "{schema.fingerprint.hex()}"')
    names = [lay.name for lay in schema.classes]
    head.emit(0, "## Class (table) names by class id.")
    head.emit(0, f"const CLASS_NAMES := {json.dumps(names)}")
    prints = {lay.name: lay.fingerprint.hex() for lay in schema.classes}
    head.emit(0, "## Per-class fingerprints, by class name.")
    head.emit(0, f"const CLASS_FINGERPRINTS := {json.dumps(prints)}")
    head.emit(0, "")
    head.emit(0, "## How many recent ticks' states are kept as delta bases.")
    head.emit(0, "var history := 32")
    head.emit(0, "## The newest state: entity id -> {property path: value}. Built when read, from")
    head.emit(0, "## the records applied since the last read, and then updated in place.")
    head.emit(0, "var state: Dictionary:")
    head.emit(1, "get:")
    head.emit(2, "if _stale:")
    head.emit(3, "_publish()")
    head.emit(2, "return _view")
    head.emit(0, "## Entity id -> class id (an index into CLASS_NAMES), for [member state].")
    head.emit(0, "var classes: Dictionary:")
    head.emit(1, "get:")
    head.emit(2, "if _stale:")
    head.emit(3, "_publish()")
    head.emit(2, "return _view_classes")
    head.emit(
        0, "## Per class id, the node property each flat property is set to by apply_to_nodes():"
    )
    head.emit(0, '## the path with "." and "[" as "_" and "]" dropped ("purse.gold" is purse_gold,')
    head.emit(0, '## "ammo[2]" is ammo_2). Change an entry to map a property elsewhere.')
    node_names = [[_node_property(p.path) for p in lay.props] for lay in schema.classes]
    head.emit(0, f"var node_properties: Array = {json.dumps(node_names)}")
    head.emit(0, "## The newest tick applied: the one to acknowledge (0 before any).")
    head.emit(0, "var newest_tick := 0")
    head.emit(0, '## Why the last apply() failed, naming entity and property; "" if it did not.')
    head.emit(0, 'var last_error := ""')
    head.emit(0, "## Where it failed, as entity[12].origin.")
    head.emit(0, 'var last_error_path := ""')
    head.emit(0, "")
    head.emit(0, "var _states := {}")
    head.emit(0, "var _view := {}")
    head.emit(0, "var _view_classes := {}")
    head.emit(0, "var _pending := []")
    head.emit(0, "var _node_last := {}")
    head.emit(0, "var _stale := false")
    head.emit(0, "var _baselines := []")
    head.emit(0, 'var _broken := ""')
    head.emit(0, "var _scratch := PackedByteArray()")
    head.emit(0, "var _padding := PackedByteArray()")
    head.emit(0, "var _mask: Variant")
    for member in body.members.values():
        head.emit(0, f"var {member}: float")
    head.emit(0, "")
    head.emit(0, "")
    head.emit(0, "func _init() -> void:")
    head.emit(1, "_scratch.resize(8)")
    head.emit(1, f"_padding.resize({padding})")
    head.emit(1, "_padding.fill(0)")
    head.lines.extend(body.member_lines)
    for lay in schema.classes:
        raw = _baseline_bits(lay)
        head.emit(1, f'var base{lay.class_id} := "{raw.hex()}".hex_decode()')
        head.emit(1, f"base{lay.class_id}.append_array(_padding)")
        head.emit(1, f"var values{lay.class_id} := []")
        head.emit(1, f"values{lay.class_id}.resize({lay.count + 1})")
        head.emit(1, f"values{lay.class_id}[{lay.count}] = {lay.class_id}")
        head.emit(
            1,
            f"if _c{lay.class_id}(base{lay.class_id}, 0, {8 * len(raw)}, -1, "
            f"values{lay.class_id}, false) < 0:",
        )
        head.emit(2, f'_broken = "cannot decode the baseline of {lay.name}: " + last_error')
        head.emit(1, f"_baselines.append(values{lay.class_id})")
    head.emit(0, "")
    return "\n".join([*head.lines, "", *body.lines]) + _RUNTIME
