"""Property codecs: how one property value becomes bits on the wire and back.

Every codec is an exact inverse pair: ``encode(v)`` gives ``(bits, width)``, ``decode(reader)``
reads them back, and ``quantize(v)`` is by definition ``decode(encode(v))``: the value a client
will see, so a server can simulate with it. ``error_bound(v)`` states how far ``quantize(v)``
may be from ``v`` (as measured by ``distance``) for a value inside the codec's range; the
property tests check both facts for every codec.

Arithmetic is specified for the GDScript decoder too (docs/replication-wire.md): scalar floats
decode in float64 (GDScript's ``float``); vector components decode in float64 and are then
rounded to float32, the ``real_t`` of Godot's Vector2/3/4 and Quaternion.
"""

from __future__ import annotations

import enum
import math
import struct
from collections.abc import Sequence
from typing import Any, ClassVar

import gdvariant
from gdvariant import DecodeError, EncodeError, Quaternion, Vector2, Vector3, Vector4

from ._bits import BitReader, Malformed

__all__ = [
    "Angle",
    "ArrayOf",
    "Bool",
    "Bytes",
    "Codec",
    "Coord",
    "EntityRef",
    "Enum",
    "Float32",
    "Float64",
    "Half",
    "Int",
    "Normal",
    "Quant",
    "Quat",
    "Str",
    "UInt",
    "VarInt",
    "VarUInt",
    "Variant",
    "Vec2",
    "Vec3",
    "Vec4",
    "codec_from_description",
]

_F32 = struct.Struct("<f")
_F16 = struct.Struct("<e")
_F64 = struct.Struct("<d")
_I32 = struct.Struct("<I")
_I16 = struct.Struct("<H")
_U64 = struct.Struct("<Q")


def to_f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (infinities when out of range, as a C cast)."""
    try:
        return float(_F32.unpack(_F32.pack(x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def _finite(value: Any, codec: Codec) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EncodeError(f"{codec!r} needs a number, not {type(value).__name__}")
    x = float(value)
    if not math.isfinite(x):
        raise EncodeError(f"{codec!r} cannot encode {x}")
    return x


def _whole(value: Any, codec: Codec) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EncodeError(f"{codec!r} needs an int, not {type(value).__name__}")
    return value


class Codec:
    """Base of every property codec.

    ``width`` is the fixed bit width, or None when it depends on the value (``max_bits`` is
    then the worst case, None when unbounded). Subclasses implement ``encode``, ``decode``,
    ``describe`` and ``default``; ``quantize``/``distance``/``error_bound`` have exact-value
    defaults.
    """

    name: ClassVar[str] = ""
    width: int | None = None
    max_bits: int | None = None

    def encode(self, value: Any) -> tuple[int, int]:
        """``value`` as ``(bits, width)``; EncodeError if it is outside the codec's domain."""
        raise NotImplementedError

    def decode(self, reader: BitReader) -> Any:
        """Read one value (raises ``Truncated`` past the end, DecodeError on a bad value)."""
        raise NotImplementedError

    def describe(self) -> list[Any]:
        """The canonical descriptor: ``[name, *parameters]`` (Variant-encodable)."""
        return [self.name]

    def default(self) -> Any:
        """The baseline value of a property with no declared default."""
        raise NotImplementedError

    def quantize(self, value: Any) -> Any:
        """The value a client decodes after ``value`` is sent: ``decode(encode(value))``."""
        bits, width = self.encode(value)
        nbytes = (width + 7) >> 3
        return self.decode(BitReader(bits.to_bytes(nbytes, "little")))

    def distance(self, a: Any, b: Any) -> float:
        """How far apart two values are, in the measure ``error_bound`` uses."""
        return 0.0 if a == b else math.inf

    def error_bound(self, value: Any) -> float:
        """The largest ``distance(value, quantize(value))`` for a value in range (0 = exact)."""
        return 0.0

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        """A codec written bare in a NetClass body is replaced by a :class:`Prop`; anywhere
        else it is just itself. (Typed ``Any`` so that ``entity.health = 3`` type-checks.)"""
        return self

    def __repr__(self) -> str:
        params = ", ".join(repr(p) for p in self.describe()[1:])
        return f"{self.name}({params})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Codec) and self.describe() == other.describe()

    def __hash__(self) -> int:
        return hash(repr(self))


class Bool(Codec):
    """One bit."""

    name = "Bool"
    width = max_bits = 1

    def encode(self, value: Any) -> tuple[int, int]:
        if not isinstance(value, bool | int):
            raise EncodeError(f"Bool needs a bool, not {type(value).__name__}")
        return (1 if value else 0), 1

    def decode(self, reader: BitReader) -> bool:
        return reader.read(1) == 1

    def default(self) -> bool:
        return False

    def quantize(self, value: Any) -> bool:
        self.encode(value)
        return bool(value)


def _zigzag(v: int) -> int:
    """Signed to unsigned, small magnitudes first: 0, -1, 1, -2... -> 0, 1, 2, 3..."""
    return (v << 1) if v >= 0 else ((-v << 1) - 1)


def _unzigzag(raw: int) -> int:
    return (raw >> 1) ^ -(raw & 1)


class _Integer(Codec):
    """Integer codecs: exact (quantize is the value itself, once it encodes), default 0."""

    def default(self) -> int:
        return 0

    def quantize(self, value: Any) -> int:
        self.encode(value)
        return int(value)


class UInt(_Integer):
    """An unsigned integer in ``bits`` bits (1-64)."""

    name = "UInt"

    def __init__(self, bits: int) -> None:
        if not 1 <= bits <= 64:
            raise ValueError(f"UInt bits must be 1-64, not {bits}")
        self.bits = self.width = self.max_bits = bits

    def encode(self, value: Any) -> tuple[int, int]:
        v = _whole(value, self)
        if not 0 <= v < 1 << self.bits:
            raise EncodeError(f"{v} does not fit {self!r}")
        return v, self.bits

    def decode(self, reader: BitReader) -> int:
        return reader.read(self.bits)

    def describe(self) -> list[Any]:
        return [self.name, self.bits]


class Int(_Integer):
    """A signed integer in ``bits`` bits: two's complement, or ZigZag (small magnitudes low)."""

    name = "Int"

    def __init__(self, bits: int, zigzag: bool = False) -> None:
        if not 2 <= bits <= 64:
            raise ValueError(f"Int bits must be 2-64, not {bits}")
        self.bits = self.width = self.max_bits = bits
        self.zigzag = zigzag

    def encode(self, value: Any) -> tuple[int, int]:
        v = _whole(value, self)
        half = 1 << (self.bits - 1)
        if not -half <= v < half:
            raise EncodeError(f"{v} does not fit {self!r}")
        if self.zigzag:
            return _zigzag(v), self.bits
        return v & ((1 << self.bits) - 1), self.bits

    def decode(self, reader: BitReader) -> int:
        raw = reader.read(self.bits)
        if self.zigzag:
            return _unzigzag(raw)
        return raw - (1 << self.bits) if raw >> (self.bits - 1) else raw

    def describe(self) -> list[Any]:
        return [self.name, self.bits, self.zigzag]


class VarUInt(_Integer):
    """An unsigned integer below 2**64 as LEB128: groups of 7 value bits plus a "more" bit."""

    name = "VarUInt"
    max_bits = 80

    def encode(self, value: Any) -> tuple[int, int]:
        v = _whole(value, self)
        if not 0 <= v < 1 << 64:
            raise EncodeError(f"{v} does not fit {self!r}")
        return _leb128(v)

    def decode(self, reader: BitReader) -> int:
        return _read_leb128(reader, self)


class VarInt(_Integer):
    """A signed 64-bit integer as ZigZag then LEB128."""

    name = "VarInt"
    max_bits = 80

    def encode(self, value: Any) -> tuple[int, int]:
        v = _whole(value, self)
        if not -(1 << 63) <= v < 1 << 63:
            raise EncodeError(f"{v} does not fit {self!r}")
        return _leb128(_zigzag(v))

    def decode(self, reader: BitReader) -> int:
        return _unzigzag(_read_leb128(reader, self))


def _leb128(v: int) -> tuple[int, int]:
    acc = n = 0
    while True:
        group = v & 0x7F
        v >>= 7
        if v:
            acc |= (group | 0x80) << n
            n += 8
        else:
            return acc | group << n, n + 8


def _read_leb128(reader: BitReader, codec: Codec) -> int:
    value = shift = 0
    while True:
        group = reader.read(8)
        value |= (group & 0x7F) << shift
        shift += 7
        if not group & 0x80:
            break
        if shift >= 70:
            raise Malformed(f"{codec!r}: more than 10 groups")
    if value >> 64:
        raise Malformed(f"{codec!r}: value above 2**64")
    return value


class Quant(Codec):
    """A float on a uniform grid of ``2**bits`` points from ``low`` to ``high``.

    ``step = (high - low) / (2**bits - 1)``; encode ``q = floor((v - low) / step + 0.5)``
    clamped to the grid (or an EncodeError with ``clamp=False``); decode ``low + q * step`` in
    float64. Maximum error inside ``[low, high]``: ``step / 2`` (plus float64 rounding);
    outside it, plus the distance to the range (the value is clamped).
    """

    name = "Quant"

    def __init__(self, low: float, high: float, bits: int, clamp: bool = True) -> None:
        if not 1 <= bits <= 32:
            raise ValueError(f"Quant bits must be 1-32, not {bits}")
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(f"Quant needs finite low < high, not {low}, {high}")
        self.low, self.high = float(low), float(high)
        self.bits = self.width = self.max_bits = bits
        self.clamp = clamp
        self.levels = (1 << bits) - 1
        self.step = (self.high - self.low) / self.levels
        self.magnitude = max(abs(self.low), abs(self.high))

    def encode(self, value: Any) -> tuple[int, int]:
        x = _finite(value, self)
        if not self.clamp and not self.low <= x <= self.high:
            raise EncodeError(f"{x} is outside {self!r}")
        x = min(max(x, self.low), self.high)
        q = math.floor((x - self.low) / self.step + 0.5)
        return min(max(q, 0), self.levels), self.bits

    def decode(self, reader: BitReader) -> float:
        return self.low + reader.read(self.bits) * self.step

    def describe(self) -> list[Any]:
        return [self.name, self.low, self.high, self.bits, self.clamp]

    def default(self) -> float:
        return float(self.quantize(min(max(0.0, self.low), self.high)))

    def distance(self, a: Any, b: Any) -> float:
        return abs(float(a) - float(b))

    def error_bound(self, value: Any) -> float:
        outside = max(self.low - float(value), float(value) - self.high, 0.0)
        return outside + self.step / 2 + 4 * math.ulp(self.magnitude)


class Coord(Codec):
    """Source's bitcoord, generalised: a signed fixed-point number with zero shortcuts.

    Bits in order: has-integer (1), has-fraction (1); if either, a sign bit (1 = negative),
    then ``integer - 1`` in ``int_bits`` bits if present, then the fraction in ``frac_bits``
    bits if present. Magnitudes clamp to ``2**int_bits + 1 - 2**-frac_bits``. Maximum error:
    half a fraction step, ``2**-(frac_bits + 1)``.
    """

    name = "Coord"

    def __init__(self, int_bits: int = 14, frac_bits: int = 5) -> None:
        if not 1 <= int_bits <= 24 or not 0 <= frac_bits <= 8:
            raise ValueError(
                f"Coord needs int_bits 1-24 and frac_bits 0-8, not {int_bits}, {frac_bits}"
            )
        self.int_bits, self.frac_bits = int_bits, frac_bits
        self.scale = 1 << frac_bits
        self.max_q = ((1 << int_bits) << frac_bits) | (self.scale - 1)
        self.max_bits = 3 + int_bits + frac_bits
        self.magnitude = self.max_q / self.scale

    def encode(self, value: Any) -> tuple[int, int]:
        x = _finite(value, self)
        q = min(math.floor(min(abs(x), self.magnitude) * self.scale + 0.5), self.max_q)
        ip, fp = q >> self.frac_bits, q & (self.scale - 1)
        if q == 0:
            return 0, 2
        bits = (1 if ip else 0) | (2 if fp else 0) | (4 if x < 0 else 0)
        n = 3
        if ip:
            bits |= (ip - 1) << n
            n += self.int_bits
        if fp:
            bits |= fp << n
            n += self.frac_bits
        return bits, n

    def decode(self, reader: BitReader) -> float:
        flags = reader.read(2)
        if not flags:
            return 0.0
        negative = reader.read(1)
        ip = reader.read(self.int_bits) + 1 if flags & 1 else 0
        fp = reader.read(self.frac_bits) if flags & 2 else 0
        v = ip + fp / self.scale
        return -v if negative else v

    def describe(self) -> list[Any]:
        return [self.name, self.int_bits, self.frac_bits]

    def default(self) -> float:
        return 0.0

    def distance(self, a: Any, b: Any) -> float:
        return abs(float(a) - float(b))

    def error_bound(self, value: Any) -> float:
        return 0.5 / self.scale


class Angle(Codec):
    """An angle on a ``2**bits``-point circle, decoded into ``[-period/2, period/2)``.

    ``period`` is 2π (radians, Godot's unit) or 360 with ``degrees=True``. The wire holds
    ``floor(v / period * 2**bits + 0.5) mod 2**bits``; decode reads it as a signed ``bits``-bit
    integer times ``period / 2**bits``. Maximum error (around the circle): half a step.
    """

    name = "Angle"

    def __init__(self, bits: int, degrees: bool = False) -> None:
        if not 2 <= bits <= 32:
            raise ValueError(f"Angle bits must be 2-32, not {bits}")
        self.bits = self.width = self.max_bits = bits
        self.degrees = degrees
        self.period = 360.0 if degrees else math.tau
        self.step = self.period / (1 << bits)

    def encode(self, value: Any) -> tuple[int, int]:
        x = math.fmod(_finite(value, self), self.period)
        return math.floor(x / self.step + 0.5) & ((1 << self.bits) - 1), self.bits

    def decode(self, reader: BitReader) -> float:
        raw = reader.read(self.bits)
        if raw >> (self.bits - 1):
            raw -= 1 << self.bits
        return raw * self.step

    def describe(self) -> list[Any]:
        return [self.name, self.bits, self.degrees]

    def default(self) -> float:
        return 0.0

    def distance(self, a: Any, b: Any) -> float:
        d = math.fmod(float(a) - float(b), self.period)
        return min(abs(d), self.period - abs(d))

    def error_bound(self, value: Any) -> float:
        return self.step / 2 + 4 * math.ulp(max(abs(float(value)), self.period))


def _sign(x: float) -> float:
    """+1 for x >= 0 (zero included), else -1; GDScript's signf(0) is 0, so say it."""
    return 1.0 if x >= 0.0 else -1.0


class Normal(Codec):
    """A unit Vector3 in octahedral form: two coordinates on a grid over [-1, 1].

    Each coordinate takes ``bits`` bits on ``2**bits - 1`` points (so -1, 0 and 1 are exact:
    axis directions survive unchanged). Decode in float64, normalise, round to float32.
    Inputs are normalised first. ``distance`` is the Euclidean distance between the unit
    vectors; the bound is ``sqrt(4.5) * step`` with ``step = 2 / (2**bits - 2)``: rounding
    moves the octahedron point by at most ``step/2`` in x and y and so ``step`` in z (at most
    ``sqrt(1.5) * step``), and projecting the octahedron onto the sphere stretches distances
    by at most ``sqrt(3)`` (its points are at least ``1/sqrt(3)`` from the centre).
    """

    name = "Normal"

    def __init__(self, bits: int = 11) -> None:
        if not 3 <= bits <= 16:
            raise ValueError(f"Normal bits must be 3-16, not {bits}")
        self.bits = bits
        self.width = self.max_bits = 2 * bits
        self.levels = (1 << bits) - 2
        self.step = 2.0 / self.levels

    def encode(self, value: Any) -> tuple[int, int]:
        x, y, z = (_finite(c, self) for c in _components(value, 3, self))
        norm = abs(x) + abs(y) + abs(z)
        if norm == 0.0:
            raise EncodeError(f"{self!r} cannot encode a zero vector")
        px, py = x / norm, y / norm
        if z < 0:
            px, py = (1 - abs(py)) * _sign(px), (1 - abs(px)) * _sign(py)
        qx = min(max(math.floor((px + 1) / self.step + 0.5), 0), self.levels)
        qy = min(max(math.floor((py + 1) / self.step + 0.5), 0), self.levels)
        return qx | qy << self.bits, 2 * self.bits

    def decode(self, reader: BitReader) -> Vector3:
        fx = reader.read(self.bits) * self.step - 1.0
        fy = reader.read(self.bits) * self.step - 1.0
        fz = 1.0 - abs(fx) - abs(fy)
        if fz < 0:
            fx, fy = (1 - abs(fy)) * _sign(fx), (1 - abs(fx)) * _sign(fy)
        length = math.sqrt(fx * fx + fy * fy + fz * fz)
        return Vector3(to_f32(fx / length), to_f32(fy / length), to_f32(fz / length))

    def describe(self) -> list[Any]:
        return [self.name, self.bits]

    def default(self) -> Vector3:
        return Vector3(0.0, 0.0, 1.0)

    def distance(self, a: Any, b: Any) -> float:
        ua, ub = _unit(a), _unit(b)
        return math.dist(ua, ub)

    def error_bound(self, value: Any) -> float:
        return math.sqrt(4.5) * self.step + 1e-6


def _unit(v: Any) -> tuple[float, ...]:
    length = math.sqrt(sum(float(c) ** 2 for c in v))
    return tuple(float(c) / length for c in v)


class Quat(Codec):
    """A rotation as "smallest three": the largest component's index (2 bits), then the
    other three on a ``2**bits - 1``-point grid over ``[-1/√2, 1/√2]`` (zero exact).

    The sign is chosen so that the largest component is positive (q and -q are the same
    rotation); decode rebuilds it as ``sqrt(1 - a² - b² - c²)`` in float64 and rounds all four
    to float32. ``distance`` is the Euclidean distance between unit quaternions up to sign;
    the bound is ``2 * step``, ``step = √2 / (2**bits - 2)``: the three sent components move
    by at most ``step/2`` each (``sqrt(3)/2 * step`` together), and the rebuilt largest one,
    at least 1/2, by at most ``1.5 * step``; ``sqrt(3) * step`` in all, to first order.
    """

    name = "Quat"
    _R = math.sqrt(0.5)

    def __init__(self, bits: int = 10) -> None:
        if not 3 <= bits <= 16:
            raise ValueError(f"Quat bits must be 3-16, not {bits}")
        self.bits = bits
        self.width = self.max_bits = 2 + 3 * bits
        self.levels = (1 << bits) - 2
        self.step = 2 * self._R / self.levels

    def encode(self, value: Any) -> tuple[int, int]:
        comps = [_finite(c, self) for c in _components(value, 4, self)]
        length = math.sqrt(sum(c * c for c in comps))
        if length == 0.0:
            raise EncodeError(f"{self!r} cannot encode a zero quaternion")
        comps = [c / length for c in comps]
        big = max(range(4), key=lambda i: (abs(comps[i]), -i))
        if comps[big] < 0:
            comps = [-c for c in comps]
        bits, n = big, 2
        for i, c in enumerate(comps):
            if i != big:
                q = math.floor((c + self._R) / self.step + 0.5)
                bits |= min(max(q, 0), self.levels) << n
                n += self.bits
        return bits, n

    def decode(self, reader: BitReader) -> Quaternion:
        big = reader.read(2)
        comps = [0.0] * 4
        total = 0.0
        for i in range(4):
            if i != big:
                c = reader.read(self.bits) * self.step - self._R
                comps[i] = c
                total += c * c
        comps[big] = math.sqrt(max(0.0, 1.0 - total))
        return Quaternion(*(to_f32(c) for c in comps))

    def describe(self) -> list[Any]:
        return [self.name, self.bits]

    def default(self) -> Quaternion:
        return Quaternion(0.0, 0.0, 0.0, 1.0)

    def distance(self, a: Any, b: Any) -> float:
        ua, ub = _unit(a), _unit(b)
        return min(math.dist(ua, ub), math.dist(ua, tuple(-c for c in ub)))

    def error_bound(self, value: Any) -> float:
        return 2 * self.step + 1e-6


class _IEEE(Codec):
    """Raw IEEE floats; ``rel`` is the relative rounding error, ``tiny`` the absolute one
    near zero (half the smallest subnormal step)."""

    fmt: ClassVar[struct.Struct]
    rel: ClassVar[float]
    tiny: ClassVar[float]

    def __init__(self) -> None:
        self.width = self.max_bits = self.fmt.size * 8

    def encode(self, value: Any) -> tuple[int, int]:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise EncodeError(f"{self.name} needs a number, not {type(value).__name__}")
        try:
            raw = self.fmt.pack(float(value))
        except OverflowError:
            raw = self.fmt.pack(math.copysign(math.inf, float(value)))
        return int.from_bytes(raw, "little"), self.fmt.size * 8

    def decode(self, reader: BitReader) -> float:
        return float(self.fmt.unpack(reader.read_bytes(self.fmt.size))[0])

    def default(self) -> float:
        return 0.0

    def quantize(self, value: Any) -> float:
        bits, _ = self.encode(value)
        return float(self.fmt.unpack(bits.to_bytes(self.fmt.size, "little"))[0])

    def distance(self, a: Any, b: Any) -> float:
        if a == b or (math.isnan(a) and math.isnan(b)):
            return 0.0
        return abs(float(a) - float(b))

    def error_bound(self, value: Any) -> float:
        return abs(float(value)) * self.rel + self.tiny if math.isfinite(value) else 0.0


class Half(_IEEE):
    """IEEE binary16 (GDScript: ``decode_half``); relative error 2**-11, ±65504 at most."""

    name = "Half"
    fmt = _F16
    rel = 2.0**-11
    tiny = 2.0**-25


class Float32(_IEEE):
    """IEEE binary32; relative error 2**-24."""

    name = "Float32"
    fmt = _F32
    rel = 2.0**-24
    tiny = 2.0**-150


class Float64(_IEEE):
    """IEEE binary64, exact."""

    name = "Float64"
    fmt = _F64
    rel = 0.0
    tiny = 0.0


def _components(value: Any, count: int, codec: Codec) -> Sequence[Any]:
    if not isinstance(value, Sequence) or isinstance(value, str | bytes) or len(value) != count:
        raise EncodeError(f"{codec!r} needs {count} components, not {value!r}")
    return value


class _Vec(Codec):
    """``count`` components with one scalar codec; components decode in float64 and are
    rounded to float32 (Godot's ``real_t``). The bound adds float32 rounding to the
    component codec's."""

    count: ClassVar[int]
    make: ClassVar[Any]

    def __init__(self, component: Codec) -> None:
        if not isinstance(component, Quant | Coord | Angle | Half | Float32 | Float64):
            raise ValueError(f"{self.name} components must be a float codec, not {component!r}")
        self.component = component
        self.width = None if component.width is None else component.width * self.count
        self.max_bits = None if component.max_bits is None else component.max_bits * self.count

    def encode(self, value: Any) -> tuple[int, int]:
        acc = n = 0
        for c in _components(value, self.count, self):
            bits, width = self.component.encode(c)
            acc |= bits << n
            n += width
        return acc, n

    def decode(self, reader: BitReader) -> Any:
        dec = self.component.decode
        return self.make(*(to_f32(dec(reader)) for _ in range(self.count)))

    def describe(self) -> list[Any]:
        return [self.name, self.component.describe()]

    def __repr__(self) -> str:
        return f"{self.name}({self.component!r})"

    def default(self) -> Any:
        return self.make(*(to_f32(self.component.default()) for _ in range(self.count)))

    def distance(self, a: Any, b: Any) -> float:
        return max(self.component.distance(x, y) for x, y in zip(a, b, strict=True))

    def error_bound(self, value: Any) -> float:
        return max(
            self.component.error_bound(c) + abs(float(c)) * 2.0**-23 + 2.0**-149 for c in value
        )


class Vec2(_Vec):
    """A Vector2 of one float codec."""

    name = "Vec2"
    count = 2
    make = Vector2


class Vec3(_Vec):
    """A Vector3 of one float codec."""

    name = "Vec3"
    count = 3
    make = Vector3


class Vec4(_Vec):
    """A Vector4 of one float codec."""

    name = "Vec4"
    count = 4
    make = Vector4


class Str(Codec):
    """A UTF-8 string of at most ``max_bytes`` bytes: its length in
    ``max_bytes.bit_length()`` bits, then the bytes."""

    name = "Str"

    def __init__(self, max_bytes: int = 255) -> None:
        if not 1 <= max_bytes <= 65535:
            raise ValueError(f"Str max_bytes must be 1-65535, not {max_bytes}")
        self.max_len = max_bytes
        self.len_bits = max_bytes.bit_length()
        self.max_bits = self.len_bits + 8 * max_bytes

    def _raw(self, value: Any) -> bytes:
        if not isinstance(value, str):
            raise EncodeError(f"{self!r} needs a str, not {type(value).__name__}")
        if "\x00" in value:
            raise EncodeError("a Godot String cannot contain NUL (U+0000)")
        return value.encode("utf-8")

    def encode(self, value: Any) -> tuple[int, int]:
        raw = self._raw(value)
        if len(raw) > self.max_len:
            raise EncodeError(f"{len(raw)} bytes do not fit {self!r}")
        return len(raw) | int.from_bytes(raw, "little") << self.len_bits, self.len_bits + 8 * len(
            raw
        )

    def _read(self, reader: BitReader) -> bytes:
        length = reader.read(self.len_bits)
        if length > self.max_len:
            raise Malformed(f"length {length} is over {self!r}'s maximum")
        return reader.read_bytes(length)

    def decode(self, reader: BitReader) -> Any:
        try:
            text = self._read(reader).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise Malformed(f"{self!r}: invalid UTF-8") from exc
        if "\x00" in text:
            raise Malformed(f"{self!r}: NUL in a string")
        return text

    def describe(self) -> list[Any]:
        return [self.name, self.max_len]

    def default(self) -> Any:
        return ""

    def quantize(self, value: Any) -> Any:
        self.encode(value)
        return value


class Bytes(Str):
    """Raw bytes, at most ``max_len``: length in ``max_len.bit_length()`` bits, then the bytes."""

    name = "Bytes"

    def __init__(self, max_len: int = 255) -> None:
        super().__init__(max_len)

    def _raw(self, value: Any) -> bytes:
        if not isinstance(value, bytes | bytearray):
            raise EncodeError(f"{self!r} needs bytes, not {type(value).__name__}")
        return bytes(value)

    def decode(self, reader: BitReader) -> bytes:
        return self._read(reader)

    def default(self) -> bytes:
        return b""

    def quantize(self, value: Any) -> bytes:
        self.encode(value)
        return bytes(value)


class Enum(Codec):
    """A member of an ``enum.Enum``, sent as its position in ``bit_length(len - 1)`` bits."""

    name = "Enum"

    def __init__(self, enum_type: type[enum.Enum]) -> None:
        self.enum_type = enum_type
        self.members = list(enum_type)
        if not self.members:
            raise ValueError(f"Enum {enum_type.__name__} has no members")
        self.position = {m: i for i, m in enumerate(self.members)}
        self.width = self.max_bits = (len(self.members) - 1).bit_length()

    def encode(self, value: Any) -> tuple[int, int]:
        try:
            return self.position[self.enum_type(value)], self.width or 0
        except (ValueError, KeyError, TypeError) as exc:
            raise EncodeError(f"{value!r} is not a member of {self!r}") from exc

    def decode(self, reader: BitReader) -> enum.Enum:
        i = reader.read(self.width or 0)
        if i >= len(self.members):
            raise Malformed(f"{self!r} has no member number {i}")
        return self.members[i]

    def describe(self) -> list[Any]:
        values = [m.value if isinstance(m.value, int) else i for i, m in enumerate(self.members)]
        return [self.name, self.enum_type.__name__, [m.name for m in self.members], values]

    def default(self) -> enum.Enum:
        return self.members[0]

    def quantize(self, value: Any) -> enum.Enum:
        return self.members[self.encode(value)[0]]


class EntityRef(Codec):
    """A reference to another entity (Source's EHANDLE proxy): its network id + 1 in
    ``bits`` bits, 0 for None. Entities (anything with ``net_id``) are sent as their id."""

    name = "EntityRef"

    def __init__(self, bits: int = 16) -> None:
        if not 2 <= bits <= 32:
            raise ValueError(f"EntityRef bits must be 2-32, not {bits}")
        self.bits = self.width = self.max_bits = bits

    def encode(self, value: Any) -> tuple[int, int]:
        if value is None:
            return 0, self.bits
        ident = getattr(value, "net_id", value)
        ident = _whole(ident, self)
        if not 0 <= ident < (1 << self.bits) - 1:
            raise EncodeError(f"entity id {ident} does not fit {self!r}")
        return ident + 1, self.bits

    def decode(self, reader: BitReader) -> int | None:
        raw = reader.read(self.bits)
        return raw - 1 if raw else None

    def describe(self) -> list[Any]:
        return [self.name, self.bits]

    def default(self) -> None:
        return None

    def quantize(self, value: Any) -> int | None:
        bits, _ = self.encode(value)
        return bits - 1 if bits else None


class Variant(Codec):
    """Any Godot value, as gdvariant's own ``var_to_bytes`` encoding: the byte count in
    ``max_bytes.bit_length()`` bits, then the bytes (GDScript: ``bytes_to_var``)."""

    name = "Variant"

    def __init__(self, max_bytes: int = 1024) -> None:
        if not 4 <= max_bytes <= 1 << 20:
            raise ValueError(f"Variant max_bytes must be 4-1048576, not {max_bytes}")
        self.max_len = max_bytes
        self.len_bits = max_bytes.bit_length()
        self.max_bits = self.len_bits + 8 * max_bytes

    def encode(self, value: Any) -> tuple[int, int]:
        raw = gdvariant.dumps(value)
        if len(raw) > self.max_len:
            raise EncodeError(f"{len(raw)} encoded bytes do not fit {self!r}")
        return len(raw) | int.from_bytes(raw, "little") << self.len_bits, self.len_bits + 8 * len(
            raw
        )

    def decode(self, reader: BitReader) -> Any:
        length = reader.read(self.len_bits)
        if length > self.max_len:
            raise Malformed(f"length {length} is over {self!r}'s maximum")
        try:
            return gdvariant.loads(reader.read_bytes(length))
        except DecodeError as exc:
            raise Malformed(f"bad Variant: {exc}") from exc

    def describe(self) -> list[Any]:
        return [self.name, self.max_len]

    def default(self) -> Any:
        return None

    def quantize(self, value: Any) -> Any:
        return gdvariant.loads(gdvariant.dumps(value))


class ArrayOf(Codec):
    """A length-prefixed list (Source's DPT_Array): the count in ``max_len.bit_length()``
    bits, then each element; one flat property, re-sent whole on any change. Decodes to a
    tuple."""

    name = "ArrayOf"

    def __init__(self, element: Codec, max_len: int) -> None:
        if not 1 <= max_len <= 65535:
            raise ValueError(f"ArrayOf max_len must be 1-65535, not {max_len}")
        self.element = element
        self.max_len = max_len
        self.len_bits = max_len.bit_length()
        eb = element.max_bits
        self.max_bits = None if eb is None else self.len_bits + eb * max_len

    def encode(self, value: Any) -> tuple[int, int]:
        if not isinstance(value, Sequence) or isinstance(value, str | bytes):
            raise EncodeError(f"{self!r} needs a sequence, not {type(value).__name__}")
        if len(value) > self.max_len:
            raise EncodeError(f"{len(value)} elements do not fit {self!r}")
        acc, n = len(value), self.len_bits
        for item in value:
            bits, width = self.element.encode(item)
            acc |= bits << n
            n += width
        return acc, n

    def decode(self, reader: BitReader) -> tuple[Any, ...]:
        count = reader.read(self.len_bits)
        if count > self.max_len:
            raise Malformed(f"count {count} is over {self!r}'s maximum")
        return tuple(self.element.decode(reader) for _ in range(count))

    def describe(self) -> list[Any]:
        return [self.name, self.element.describe(), self.max_len]

    def __repr__(self) -> str:
        return f"{self.name}({self.element!r}, {self.max_len})"

    def default(self) -> tuple[Any, ...]:
        return ()

    def distance(self, a: Any, b: Any) -> float:
        if len(a) != len(b):
            return math.inf
        return max((self.element.distance(x, y) for x, y in zip(a, b, strict=True)), default=0.0)

    def error_bound(self, value: Any) -> float:
        return max((self.element.error_bound(v) for v in value), default=0.0)


def codec_from_description(desc: Sequence[Any]) -> Codec:
    """Rebuild a codec from its ``describe()`` list (a client's half of the handshake)."""
    if not isinstance(desc, Sequence) or not desc or not isinstance(desc[0], str):
        raise ValueError(f"not a codec descriptor: {desc!r}")
    name, params = desc[0], list(desc[1:])
    if name in _SIMPLE:
        simple: Codec = _SIMPLE[name](*params)
        return simple
    if name in ("Vec2", "Vec3", "Vec4"):
        return _VECS[name](codec_from_description(params[0]))
    if name == "ArrayOf":
        return ArrayOf(codec_from_description(params[0]), int(params[1]))
    if name == "Enum":
        enum_name, names, values = params
        made = enum.IntEnum(str(enum_name), list(zip(names, values, strict=True)))  # type: ignore[misc]
        return Enum(made)
    raise ValueError(f"unknown codec {name!r}")


_SIMPLE: dict[str, Any] = {
    c.name: c
    for c in (
        Bool,
        UInt,
        Int,
        VarUInt,
        VarInt,
        Quant,
        Coord,
        Angle,
        Normal,
        Quat,
        Half,
        Float32,
        Float64,
        Str,
        Bytes,
        EntityRef,
        Variant,
    )
}
_VECS: dict[str, type[_Vec]] = {"Vec2": Vec2, "Vec3": Vec3, "Vec4": Vec4}
