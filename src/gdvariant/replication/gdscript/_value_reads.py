"""GDScript reads of single values, one emitter per codec, for the generated decoder.

:func:`read_value` writes the inline read of one value of a codec (no function call per field,
wire doc ``docs/replication-wire.md`` §4) and returns the expression that holds it, and
:func:`delta` the read of a value delta against a held value (§5.1). They read with the
``Writer``'s bit reader (``acc``, ``n``, ``bp``, ``buf``); each emitter documents what it
leaves in them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from .._codecs import (
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
from .._delta import DeltaCoder, ScalarDelta, VarIntDelta
from .._float_codecs import (
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
from ._lines import Writer

__all__ = [
    "delta",
    "held_ordinal",
    "holds_ordinals",
    "ordinal_delta",
    "ordinal_read",
    "ordinal_value",
    "read_value",
    "straight_bits",
]

_VAR_GROUPS_BITS = 80
_I64_LOW_63 = "0x7FFFFFFFFFFFFFFF"


def straight_bits(codec: Codec) -> int:
    """The most bits ``codec``'s generated code reads between two bounds checks."""
    if isinstance(codec, VarUInt | VarInt):
        return _VAR_GROUPS_BITS
    if isinstance(codec, Str | Variant):  # Bytes is a Str; the byte run is checked first
        return codec.len_bits
    if isinstance(codec, ArrayOf):
        return codec.len_bits + straight_bits(codec.element)
    if isinstance(codec, Vec2 | Vec3 | Vec4):
        return codec.count * straight_bits(codec.component)
    if codec.max_bits is None:
        raise NotImplementedError(f"no GDScript decoding for {codec!r}")
    return codec.max_bits


def read_value(w: Writer, indent: int, codec: Codec, where: tuple[str, str]) -> str:
    """Inline decode of one value of ``codec``; returns the expression holding it."""
    handler = _VALUES.get(type(codec))
    if handler is None:
        raise NotImplementedError(f"no GDScript decoding for {codec!r}")
    return handler(w, indent, codec, where)


def _bool(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    return f"({w.read(indent, 1)} == 1)"


def _uint(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    return w.read(indent, codec.bits)


def _int(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
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


def _leb128(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
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


def _quant(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    low, high = w.exact(codec.low), w.exact(codec.high)
    step = w.member(f"({high} - {low}) / float({codec.levels})")
    q = w.read(indent, codec.bits)
    return f"({low} + {q} * {step})"


def _coord_fields(w: Writer, indent: int, codec: Any, out: str, zero: str) -> tuple[str, ...]:
    """Declare ``out`` as ``zero`` and, under ``if flags:`` (left open at ``indent + 1``), read
    a Coord's sign, its integer part (the field + 1, or 0) and its fraction (or 0)."""
    flags = w.read(indent, 2)
    w.emit(indent, f"var {out} := {zero}")
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
    return sign, whole, frac


def _coord(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    out = w.tmp()
    sign, whole, frac = _coord_fields(w, indent, codec, out, "0.0")
    # The scale is 2**frac_bits <= 256: exact as a literal, no conversion at run time.
    w.emit(indent + 1, f"{out} = {whole} + {frac} / {codec.scale}.0")
    w.emit(indent + 1, f"if {sign}:")
    w.emit(indent + 2, f"{out} = -{out}")
    return out


def _angle(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    period = "float(360)" if codec.degrees else "TAU"
    step = w.member(f"{period} / float({1 << codec.bits})")
    raw = w.read(indent, codec.bits)
    w.emit(indent, f"if {raw} >> {codec.bits - 1}:")
    w.emit(indent + 1, f"{raw} -= {1 << codec.bits}")
    return f"({raw} * {step})"


def _normal(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
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


def _quat(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
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


def _ieee(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    if isinstance(codec, Half):
        w.emit(indent, f"_scratch.encode_u16(0, {w.read(indent, 16)})")
        return "_scratch.decode_half(0)"
    if isinstance(codec, Float32):
        w.emit(indent, f"_scratch.encode_u32(0, {w.read(indent, 32)})")
        return "_scratch.decode_float(0)"
    w.emit(indent, f"_scratch.encode_u32(0, {w.read(indent, 32)})")
    w.emit(indent, f"_scratch.encode_u32(4, {w.read(indent, 32)})")
    return "_scratch.decode_double(0)"


def _byte_run(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    """Length prefix, maximum check, bounds check, then the bytes (reader restarted after):
    a slice where the run starts on a byte, else copied 4 bytes a step, shifted (the
    padding covers the reads past the run)."""
    length = w.read(indent, codec.len_bits)
    w.emit(indent, f"if {length} > {codec.max_len}:")
    w.fail(indent + 1, where, f'"length %d is over {codec!r}\'s maximum" % {length}')
    at, raw = w.tmp(), w.tmp()
    w.emit(indent, f"var {at} := (bp << 3) - n")
    w.emit(indent, f"if {at} + ({length} << 3) > end:")
    w.fail(indent + 1, where, '"packet truncated"')
    byte, shift, i = w.tmp(), w.tmp(), w.tmp()
    w.emit(indent, f"var {byte} := {at} >> 3")
    w.emit(indent, f"var {shift} := {at} & 7")
    w.emit(indent, f"var {raw} := PackedByteArray()")
    w.emit(indent, f"if {shift} == 0:")
    w.emit(indent + 1, f"{raw} = buf.slice({byte}, {byte} + {length})")
    w.emit(indent, "else:")
    w.emit(indent + 1, f"{raw}.resize({length} + 3)")
    w.emit(indent + 1, f"var {i} := 0")
    w.emit(indent + 1, f"while {i} < {length}:")
    w.emit(
        indent + 2,
        f"{raw}.encode_u32({i}, (buf.decode_u64({byte} + {i}) >> {shift}) & 0xFFFFFFFF)",
    )
    w.emit(indent + 2, f"{i} += 4")
    w.emit(indent + 1, f"{raw}.resize({length})")
    w.emit(indent, f"{at} += {length} << 3")
    w.resync(indent, at)
    return raw


def _str(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    """A string: ASCII without NUL is told by the engine (read as Latin-1, a byte from 0x80
    up becomes two bytes in UTF-8); anything else is checked by ``_utf8_ok`` before the
    engine decodes it as UTF-8 (which would replace bad bytes, and print an error). The
    engine's UTF-8 decoder drops one leading BOM (EF BB BF), which is part of the value
    here, so a string that starts with one gets it back (wire doc §5)."""
    raw = _byte_run(w, indent, codec, where)
    out = w.tmp()
    w.emit(indent, f"var {out} := {raw}.get_string_from_ascii()")
    w.emit(indent, f"if {raw}.has(0) or {out}.to_utf8_buffer().size() != {raw}.size():")
    w.emit(indent + 1, f"if not _utf8_ok({raw}):")
    w.fail(indent + 2, where, f'"{codec!r}: invalid UTF-8 or a NUL"')
    w.emit(indent + 1, f"{out} = {raw}.get_string_from_utf8()")
    # valid UTF-8 that starts with 0xEF has at least 3 bytes
    w.emit(indent + 1, f"if {raw}[0] == 0xEF and {raw}[1] == 0xBB and {raw}[2] == 0xBF:")
    w.emit(indent + 2, f"{out} = BOM + {out}")
    return out


def _bytes(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    return _byte_run(w, indent, codec, where)


def _variant(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    raw = _byte_run(w, indent, codec, where)
    w.emit(indent, f"if {raw}.size() < 4 or {raw}.decode_var_size(0, false) != {raw}.size():")
    w.fail(indent + 1, where, '"bad Variant"')
    return f"{raw}.decode_var(0, false)"


def _enum(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    position = w.read(indent, codec.width or 0)
    values = codec.describe()[3]
    if position != "0":
        w.emit(indent, f"if {position} >= {len(values)}:")
        w.fail(indent + 1, where, f'"{codec!r} has no member number %d" % {position}')
    if values == list(range(len(values))):
        return position
    return f"{json.dumps(values)}[{position}]"


def _entity_ref(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    raw = w.read(indent, codec.bits)
    out = w.tmp()
    w.emit(indent, f"var {out} = null if {raw} == 0 else {raw} - 1")
    return out


def _vec(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    parts = []
    for _ in range(codec.count):
        part = w.tmp()
        w.emit(indent, f"var {part}: float = {read_value(w, indent, codec.component, where)}")
        parts.append(part)
    return f"{codec.make.__name__}({', '.join(parts)})"


def _array_of(w: Writer, indent: int, codec: Any, where: tuple[str, str]) -> str:
    count = w.read(indent, codec.len_bits)
    w.emit(indent, f"if {count} > {codec.max_len}:")
    w.fail(indent + 1, where, f'"count %d is over {codec!r}\'s maximum" % {count}')
    out, i = w.tmp(), w.tmp()
    w.emit(indent, f"var {out} := []")
    w.emit(indent, f"{out}.resize({count})")
    w.emit(indent, f"for {i} in {count}:")
    w.check_end(indent + 1, where)
    w.emit(indent + 1, f"{out}[{i}] = {read_value(w, indent + 1, codec.element, where)}")
    return out


def _scalar_delta(
    w: Writer,
    indent: int,
    part: ScalarDelta,
    base: str,
    where: tuple[str, str],
    *,
    ordinal: bool = False,
    typed: bool = False,
) -> str:
    """Inline read of one value delta (wire doc §5.1) against the held value ``base``;
    returns the variable holding the new value. The prefix (up to 3 bits) is peeked at once,
    a tier's prefix and difference are taken in one read, and each tier finishes on its own
    (no flag to test afterwards). With ``ordinal``, ``base`` and the result are held
    ordinals (``held_ordinal``) instead of values. ``typed``: ``base`` is an int expression
    already (a typed column's cell), read in place rather than copied to a local."""
    codec = part.codec
    out = w.tmp()
    kind = "int" if ordinal or isinstance(codec, UInt | Int) else "float"
    w.emit(indent, f"var {out}: {kind}")
    # One refill covers the longest tier (3 + t3 <= 23 bits); the padding covers the overread.
    w.fill(indent, "refill", bits=3 + part.t3)
    for k, (width, bias) in enumerate(zip(part.tiers, part.biases, strict=True)):
        taken = k + 1 + width
        z = w.tmp()
        # acc is unchanged until a tier is taken, so each tier tests its prefix bit there.
        w.emit(indent, f"{'if' if k == 0 else 'elif'} not acc & {1 << k}:")
        w.emit(indent + 1, f"var {z} := (acc >> {k + 1}) & {(1 << width) - 1}")
        w.emit(indent + 1, f"acc >>= {taken}")
        w.emit(indent + 1, f"n -= {taken}")
        diff = f"({z} - {bias})"
        if ordinal:
            _ordinal_finish(w, indent + 1, part, base, diff, out, where)
        else:
            _delta_finish(w, indent + 1, part, base, diff, out, where, typed=typed)
    w.emit(indent, "else:")
    w.emit(indent + 1, "acc >>= 3")
    w.emit(indent + 1, "n -= 3")
    whole = (
        ordinal_read(w, indent + 1, codec) if ordinal else read_value(w, indent + 1, codec, where)
    )
    w.emit(indent + 1, f"{out} = {whole}")
    return out


def _ordinal_finish(
    w: Writer,
    indent: int,
    part: ScalarDelta,
    base: str,
    diff: str,
    out: str,
    where: tuple[str, str],
) -> None:
    """``out`` = the held ordinal ``base`` plus the difference ``diff`` (an expression)."""
    if not isinstance(part.codec, Coord):
        w.emit(indent, f"{out} = ({base} + {diff}) & {part.mask}")
        return
    o = w.tmp()
    w.emit(indent, f"var {o} := ({base} >> 1) + {diff}")
    w.emit(indent, f"if absi({o}) > {part.codec.max_q}:")
    w.fail(indent + 1, where, f'"a delta past {part.codec!r}\'s range"')
    w.emit(indent, f"{out} = {o} << 1")


def ordinal_delta(
    w: Writer, indent: int, part: ScalarDelta, base: str, where: tuple[str, str]
) -> str:
    """Inline read of one value delta against the held ordinal ``base``; returns the
    variable holding the new held ordinal."""
    return _scalar_delta(w, indent, part, base, where, ordinal=True)


def holds_ordinals(coder: DeltaCoder | None) -> bool:
    """Whether a property with this delta coder is held as ordinals (one per component):
    the float codecs (Quant, Angle, Coord), whose value deltas then need no conversion."""
    return coder is not None and all(
        isinstance(part, ScalarDelta) and isinstance(part.codec, Quant | Angle | Coord)
        for part in coder.parts
    )


def ordinal_read(w: Writer, indent: int, codec: Codec) -> str:
    """Inline read of a whole Quant, Angle or Coord value as its held ordinal: the raw field
    of Quant and Angle (the modular ordinal, wire doc §5.1), and for Coord the signed ordinal times
    2, plus 1 for -0.0 (a sign bit on a zero magnitude, which an ordinal cannot hold)."""
    if isinstance(codec, Quant | Angle):
        return w.read(indent, codec.bits)
    assert isinstance(codec, Coord)
    out = w.tmp()
    sign, whole, frac = _coord_fields(w, indent, codec, out, "0")
    mag = w.tmp()
    w.emit(indent + 1, f"var {mag} := {whole} * {codec.scale} + {frac}")
    w.emit(indent + 1, f"{out} = ((-{mag} << 1) | int({mag} == 0)) if {sign} else {mag} << 1")
    return out


def _quant_step(w: Writer, codec: Quant) -> tuple[str, str]:
    """The members holding a Quant's low end and step (computed in float64, wire doc §5)."""
    low, high = w.exact(codec.low), w.exact(codec.high)
    return low, w.member(f"({high} - {low}) / float({codec.levels})")


def _angle_step(w: Writer, codec: Angle) -> str:
    """The member holding an Angle's step."""
    period = "float(360)" if codec.degrees else "TAU"
    return w.member(f"{period} / float({1 << codec.bits})")


def ordinal_value(w: Writer, codec: Codec, o: str) -> str:
    """The value (float64) of the held ordinal ``o`` (an expression read up to three times)."""
    if isinstance(codec, Quant):
        low, step = _quant_step(w, codec)
        return f"({low} + {o} * {step})"
    if isinstance(codec, Angle):
        step = _angle_step(w, codec)
        top = codec.bits - 1
        return f"(({o} - {1 << codec.bits} if {o} >> {top} else {o}) * {step})"
    assert isinstance(codec, Coord)
    return f"(-0.0 if {o} == 1 else ({o} >> 1) / {codec.scale}.0)"


def held_ordinal(w: Writer, codec: Codec, v: str) -> str:
    """The held ordinal of the value ``v`` (wire doc §5.1; exact for every value the codec
    gives)."""
    if isinstance(codec, Quant):
        low, step = _quant_step(w, codec)
        return f"roundi(({v} - {low}) / {step})"
    if isinstance(codec, Angle):
        step = _angle_step(w, codec)
        return f"(roundi({v} / {step}) & {(1 << codec.bits) - 1})"
    assert isinstance(codec, Coord)
    return f"_coord_ordinal({v}, {codec.scale}.0)"


def _delta_finish(
    w: Writer,
    indent: int,
    part: ScalarDelta,
    base: str,
    diff: str,
    out: str,
    where: tuple[str, str],
    *,
    typed: bool = False,
) -> None:
    """``out`` = the value of the held value's ordinal plus the difference ``diff`` (an
    expression). ``typed``: ``base`` is an int expression already, used in place (a local
    copy of a typed column's cell cost 1.3% of a packet's decoding in Godot 4.6)."""
    codec = part.codec
    o = w.tmp()
    if isinstance(codec, UInt | Int):
        held = base
        if not typed:
            held = w.tmp()
            w.emit(indent, f"var {held}: int = {base}")
        if isinstance(codec, UInt):
            w.emit(indent, f"{out} = ({held} + {diff}) & {part.mask}")
            return
        w.emit(indent, f"var {o} := ({held} + {diff}) & {part.mask}")
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
        w.emit(indent, f"var {o} := roundi({base} * {codec.scale}.0) + {diff}")
        w.emit(indent, f"if absi({o}) > {codec.max_q}:")
        w.fail(indent + 1, where, f'"a delta past {codec!r}\'s range"')
        w.emit(indent, f"{out} = {o} / {codec.scale}.0")
        return
    w.emit(indent, f"if {o} >> {part.width - 1}:")
    w.emit(indent + 1, f"{o} -= {1 << part.width}")
    w.emit(indent, f"{out} = {o}" if isinstance(codec, Int) else f"{out} = {o} * {a_step}")


def _var_int_delta(
    w: Writer, indent: int, part: VarIntDelta, base: str, where: tuple[str, str]
) -> str:
    """Inline read of a VarInt's delta (a 0 bit and the difference, or 1 and the value)."""
    out, held = w.tmp(), w.tmp()
    w.emit(indent, f"var {out}: int")
    w.emit(indent, f"if {w.read(indent, 1)}:")
    w.emit(indent + 1, f"{out} = {read_value(w, indent + 1, part.codec, where)}")
    w.emit(indent, "else:")
    d = read_value(w, indent + 1, part.codec, where)
    w.emit(indent + 1, f"var {held}: int = {base}")
    w.emit(
        indent + 1,
        f"if ({d} > 0 and {held} > {_I64_LOW_63} - {d}) or "
        f"({d} < 0 and {held} < -{_I64_LOW_63} - 1 - {d}):",
    )
    w.fail(indent + 2, where, f'"a delta past {part.codec!r}\'s range"')
    w.emit(indent + 1, f"{out} = {held} + {d}")
    return out


def delta(
    w: Writer,
    indent: int,
    coder: DeltaCoder,
    base: str,
    where: tuple[str, str],
    *,
    typed: bool = False,
) -> str:
    """Inline read of a property's value delta against ``base``; returns its expression.
    ``typed``: ``base`` is a typed column's cell (an int for the integer codecs)."""
    if coder.vector is None:
        part = coder.parts[0]
        if isinstance(part, VarIntDelta):
            return _var_int_delta(w, indent, part, base, where)
        return _scalar_delta(w, indent, part, base, where, typed=typed)
    parts = []
    held = w.tmp()
    w.emit(indent, f"var {held}: {coder.vector.__name__} = {base}")
    for part, axis in zip(coder.parts, "xyzw", strict=False):
        assert isinstance(part, ScalarDelta)
        value = _scalar_delta(w, indent, part, f"{held}.{axis}", where)
        parts.append(value)
    return f"{coder.vector.__name__}({', '.join(parts)})"


_VALUES: dict[type[Codec], Callable[[Writer, int, Any, tuple[str, str]], str]] = {
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
