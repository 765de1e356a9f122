"""Value deltas: a changed number sent as its difference from the client's baseline.

In a delta packet's shared section, an update record codes each numeric property (and each
component of a vector of them) against the value the client holds at the packet's base tick,
which the server knows: it is the value at that tick. The difference ``d`` of the two
*ordinals* (the integer the codec quantizes to) is sent in one of four forms
(``docs/replication-wire.md`` §5.1), read LSB-first::

    0, then z in t1 bits          (a small step)
    1 0, then z in t2 bits
    1 1 0, then z in t3 bits
    1 1 1, then the whole value   (in the codec's own format)

with ``t1, t2, t3 = ceil(W / 5), ceil(2 W / 5), ceil(3 W / 5)`` for an ordinal of ``W`` bits
(the split that cost least in the benchmark's motion model, among a few tried), and
``z = d + 2**(t - 1)`` in a tier of ``t`` bits (offset binary: the same range per tier as
zigzag, and one subtraction to undo, which the generated GDScript decoder feels). Enter
records and the private section (whose audience a client may join late) carry whole values.

A decoder has no ordinals, only values, so each codec here recovers the ordinal from the value
a decoder holds, exactly: integers are themselves, ``Quant`` is ``round((v - low) / step)``,
``Coord`` is ``round(v * 2**frac_bits)``, ``Angle`` is ``round(v / step)``. A codec only takes
part when that recovery is exact for every value it can decode, in float64, or after the
float32 rounding of a vector component; otherwise its values are always sent whole.

Integer-like ordinals (``UInt``, ``Int``, ``Quant``, ``Angle``: every ``W``-bit pattern is a
value) are subtracted modulo ``2**W``, so a step across the wrap (an angle passing ±π) stays
small and the result is always valid. ``Coord`` ordinals are signed fixed-point numbers and
subtract plainly; a result past the codec's range is an error.

``VarInt`` is already variable-length, so its delta is simpler: a 0 bit and the difference
as a ``VarInt``, or a 1 bit and the whole value (when the difference is past 64 bits).
"""

from __future__ import annotations

from typing import Any

from ._bits import BitReader, Malformed
from ._codecs import Codec, Int, UInt, VarInt
from ._float_codecs import Angle, Coord, Quant, to_f32

__all__ = ["DeltaCoder", "ScalarDelta", "VarIntDelta", "delta_coder"]

_MIN_WIDTH = 4  # narrower ordinals gain nothing from a 1-2 bit prefix
_MAX_WIDTH = 32


class ScalarDelta:
    """Delta coding for one scalar codec (a property, or one component of a vector).

    ``kind`` is ``"mod"`` (ordinal modulo ``2**width``) or ``"coord"`` (signed ordinal).
    """

    def __init__(self, codec: Codec, kind: str, width: int) -> None:
        self.codec, self.kind, self.width = codec, kind, width
        self.mask = (1 << width) - 1
        self.half = 1 << (width - 1)
        self.tiers = tuple(-(-k * width // 5) for k in (1, 2, 3))
        self.t1, self.t2, self.t3 = self.tiers
        # Each tier's offset: z = d + bias, so a tier of t bits holds -2**(t-1) <= d < 2**(t-1).
        self.biases = tuple(1 << (t - 1) for t in self.tiers)
        self.b1, self.b2, self.b3 = self.biases
        self.w1, self.w2, self.w3 = 1 + self.t1, 2 + self.t2, 3 + self.t3  # with the prefix
        # The ordinal is the field's bits themselves (all but zigzag Int and Coord).
        self.plain = kind == "mod" and not (isinstance(codec, Int) and codec.zigzag)

    # Server side: from the codec's bits.

    def ordinal(self, bits: int) -> int:
        """The ordinal of one encoded value (``bits`` holds exactly this value's field)."""
        codec = self.codec
        if self.kind == "mod":
            if isinstance(codec, Int) and codec.zigzag:
                return ((bits >> 1) ^ -(bits & 1)) & self.mask
            return bits
        assert isinstance(codec, Coord)
        flags = bits & 3
        if not flags:
            return 0
        n = 3
        ip = fp = 0
        if flags & 1:
            ip = ((bits >> n) & ((1 << codec.int_bits) - 1)) + 1
            n += codec.int_bits
        if flags & 2:
            fp = (bits >> n) & (codec.scale - 1)
        q = ip << codec.frac_bits | fp
        return -q if bits & 4 else q

    def field_width(self, bits: int) -> int:
        """How many bits the value starting at bit 0 of ``bits`` takes."""
        codec = self.codec
        if codec.width is not None:
            return codec.width
        assert isinstance(codec, Coord)
        flags = bits & 3
        if not flags:
            return 2
        return 3 + (codec.int_bits if flags & 1 else 0) + (codec.frac_bits if flags & 2 else 0)

    def code(self, new_bits: int, new_width: int, base_bits: int) -> tuple[int, int]:
        """``(code, width)`` of ``new`` against ``base`` (both given as codec bits)."""
        if self.plain:
            d = ((new_bits - base_bits + self.half) & self.mask) - self.half
        else:
            d = self.ordinal(new_bits) - self.ordinal(base_bits)
            if self.kind == "mod":
                d = ((d + self.half) & self.mask) - self.half
        if -self.b1 <= d < self.b1:
            return (d + self.b1) << 1, self.w1
        if -self.b2 <= d < self.b2:
            return 1 | (d + self.b2) << 2, self.w2
        if -self.b3 <= d < self.b3:
            return 3 | (d + self.b3) << 3, self.w3
        return 7 | new_bits << 3, 3 + new_width

    # Decoder side: from the value a client holds.

    def value_ordinal(self, value: Any) -> int:
        """The ordinal of a decoded value (exact for every value the codec decodes)."""
        codec = self.codec
        if isinstance(codec, UInt | Int):
            return int(value) & self.mask
        if isinstance(codec, Quant):
            return round((float(value) - codec.low) / codec.step)
        if isinstance(codec, Angle):
            return round(float(value) / codec.step) & self.mask
        assert isinstance(codec, Coord)
        return round(float(value) * codec.scale)

    def read(self, reader: BitReader, base: Any) -> Any:
        """Read one delta-coded value against the decoded ``base`` value."""
        if not reader.read(1):
            d = reader.read(self.t1) - self.b1
        elif not reader.read(1):
            d = reader.read(self.t2) - self.b2
        elif not reader.read(1):
            d = reader.read(self.t3) - self.b3
        else:
            return self.codec.decode(reader)
        o = self.value_ordinal(base) + d
        codec = self.codec
        if self.kind == "mod":
            o &= self.mask
            if isinstance(codec, UInt):
                return o
            if isinstance(codec, Quant):
                return codec.low + o * codec.step
            if isinstance(codec, Int):
                return o - (1 << self.width) if o >> (self.width - 1) else o
            assert isinstance(codec, Angle)
            return (o - (1 << self.width) if o >> (self.width - 1) else o) * codec.step
        assert isinstance(codec, Coord)
        if abs(o) > codec.max_q:
            raise Malformed(f"delta to {o / codec.scale} is outside {codec!r}")
        return o / codec.scale


class VarIntDelta:
    """Delta coding of a ``VarInt``: ``0`` and the difference as a VarInt, or ``1`` and the
    whole value."""

    kind = "var"
    _LOW, _HIGH = -(1 << 63), 1 << 63

    def __init__(self, codec: VarInt) -> None:
        self.codec = codec

    def code(self, new_bits: int, new_width: int, base_bits: int) -> tuple[int, int]:
        """``(code, width)`` of ``new`` against ``base`` (both given as codec bits)."""
        d = self._value(new_bits) - self._value(base_bits)
        if self._LOW <= d < self._HIGH:
            bits, width = self.codec.encode(d)
            return bits << 1, width + 1
        return 1 | new_bits << 1, new_width + 1

    def _value(self, bits: int) -> int:
        return int(self.codec.decode(BitReader(bits.to_bytes(10, "little"))))

    def read(self, reader: BitReader, base: Any) -> Any:
        """Read one delta-coded value against the decoded ``base`` value."""
        if reader.read(1):
            return self.codec.decode(reader)
        value = int(base) + self.codec.decode(reader)
        if not self._LOW <= value < self._HIGH:
            raise Malformed(f"delta to {value} is outside {self.codec!r}")
        return value


def _scalar(codec: Codec, in_vector: bool) -> ScalarDelta | VarIntDelta | None:
    """The delta coding of a scalar codec, or None when its values are always sent whole."""
    # The precision p of the value a decoder holds: float32 in vectors, else float64 (with
    # slack for the decoder's own float64 arithmetic).
    precision = 2.0**-23 if in_vector else 2.0**-50
    if isinstance(codec, VarInt):
        return VarIntDelta(codec)
    if isinstance(codec, UInt | Int) and not in_vector:
        width = codec.bits
        kind = "mod"
    elif isinstance(codec, Quant | Angle):
        width = codec.bits
        kind = "mod"
        magnitude = codec.magnitude if isinstance(codec, Quant) else codec.period / 2
        if magnitude * precision >= codec.step / 4:
            return None
    elif isinstance(codec, Coord):
        width = codec.max_q.bit_length() + 1
        kind = "coord"
        if in_vector and codec.max_q >= 1 << 24:
            return None  # float32 would round the value
    else:
        return None
    if not _MIN_WIDTH <= width <= _MAX_WIDTH:
        return None
    return ScalarDelta(codec, kind, width)


class DeltaCoder:
    """Delta coding of one property: one :class:`ScalarDelta` per component."""

    def __init__(self, parts: tuple[ScalarDelta | VarIntDelta, ...], vector: Any) -> None:
        self.parts = parts
        self.vector = vector  # the Vector2/3/4 type, or None for a scalar
        # vector components whose fields are exactly their W-bit ordinals (Quant, Angle)
        self.fixed = all(isinstance(p, ScalarDelta) and p.plain for p in parts)
        #: a scalar whose bits are its ordinal (the encoder inlines its code)
        self.plain = vector is None and self.fixed

    def fragment(self, new_bits: int, new_width: int, base_bits: int) -> tuple[int, int]:
        """``(code, width)`` of the whole property against its baseline's bits."""
        if self.vector is None:
            return self.parts[0].code(new_bits, new_width, base_bits)
        acc = n = 0
        if self.fixed:
            part = self.parts[0]
            assert isinstance(part, ScalarDelta)
            w, m = part.width, part.mask
            for k in range(0, w * len(self.parts), w):
                code, width = part.code((new_bits >> k) & m, w, (base_bits >> k) & m)
                acc |= code << n
                n += width
            return acc, n
        for part in self.parts:
            assert isinstance(part, ScalarDelta)
            nw = part.field_width(new_bits)
            bw = part.field_width(base_bits)
            code, width = part.code(new_bits & ((1 << nw) - 1), nw, base_bits & ((1 << bw) - 1))
            acc |= code << n
            n += width
            new_bits >>= nw
            base_bits >>= bw
        return acc, n

    def read(self, reader: BitReader, base: Any) -> Any:
        """Read the property's delta against the decoded ``base`` value."""
        if self.vector is None:
            return self.parts[0].read(reader, base)
        return self.vector(
            *(to_f32(p.read(reader, b)) for p, b in zip(self.parts, base, strict=True))
        )


def delta_coder(codec: Codec) -> DeltaCoder | None:
    """How ``codec``'s values are delta-coded, or None if they are always sent whole."""
    component = getattr(codec, "component", None)
    if component is not None:
        part = _scalar(component, True)
        if part is None:
            return None
        return DeltaCoder((part,) * int(codec.count), codec.make)  # type: ignore[attr-defined]
    part = _scalar(codec, False)
    return None if part is None else DeltaCoder((part,), None)
