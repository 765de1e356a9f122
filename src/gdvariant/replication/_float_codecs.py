"""Float codecs: quantized ranges, coordinates, angles, normals, rotations, IEEE floats and
vectors of them.

Scalar floats decode in float64 (GDScript's ``float``). Vector components also decode in
float64 and are then rounded to float32, the ``real_t`` of Godot's Vector2/3/4 and Quaternion
(``docs/replication-wire.md`` §5). Each codec states its error bound; the derivations are in
the docstrings and the tests check them.

Out of range, every codec raises EncodeError (the rule of all codecs, wire doc §6): a finite
value past ``Quant``'s or ``Coord``'s range, past the largest finite ``Half``/``Float32``, or a
vector component past float32's. ``clamp=True`` on ``Quant`` and ``Coord`` clamps instead.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any, ClassVar

from gdvariant import EncodeError, Quaternion, Vector2, Vector3, Vector4

from ._bits import BitReader
from ._codecs import Codec

__all__ = [
    "Angle",
    "Coord",
    "Float32",
    "Float64",
    "Half",
    "Normal",
    "Quant",
    "Quat",
    "Vec2",
    "Vec3",
    "Vec4",
    "to_f32",
]

_F32 = struct.Struct("<f")
_F16 = struct.Struct("<e")
_F64 = struct.Struct("<d")


def to_f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (infinities when out of range, as a C cast)."""
    try:
        return float(_F32.unpack(_F32.pack(x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


#: The largest finite float32; a finite value past it (by more than rounding) has no float32.
F32_MAX = float.fromhex("0x1.fffffep127")


def _number(value: Any, codec: Codec) -> float:
    """``value`` as a float (an int too large for one is out of every range)."""
    if type(value) is float:  # the common case, first: float(value) is value itself
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EncodeError(f"{codec!r} needs a number, not {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise EncodeError(f"{value} is out of {codec!r}'s range") from None


def _finite(value: Any, codec: Codec) -> float:
    x = _number(value, codec)
    if not math.isfinite(x):
        raise EncodeError(f"{codec!r} cannot encode {x}")
    return x


class Quant(Codec):
    """A float on a uniform grid of ``2**bits`` points from ``low`` to ``high``.

    ``step = (high - low) / (2**bits - 1)``; encode ``q = floor((v - low) / step + 0.5)``;
    decode ``low + q * step`` in float64. A value outside ``[low, high]`` is an EncodeError,
    or with ``clamp=True`` is clamped to the range first. Maximum error inside ``[low, high]``:
    ``step / 2`` (plus float64 rounding); a clamped value, plus its distance to the range.
    """

    name = "Quant"

    def __init__(self, low: float, high: float, bits: int, clamp: bool = False) -> None:
        if not 1 <= bits <= 32:
            raise ValueError(f"Quant bits must be 1-32, not {bits}")
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(f"Quant needs finite low < high, not {low}, {high}")
        self.low, self.high = float(low), float(high)
        self.bits = self.width = self.max_bits = bits
        self.clamp = clamp
        self.levels = (1 << bits) - 1
        self.step = (self.high - self.low) / self.levels
        if not 0.0 < self.step < math.inf:  # a float64 cannot hold the grid's step
            raise ValueError(
                f"Quant's range {low!r}..{high!r} in {bits} bits has no step a float can hold"
            )
        self.magnitude = max(abs(self.low), abs(self.high))

    def encode(self, value: Any) -> tuple[int, int]:
        x = _finite(value, self)
        if not self.clamp and not self.low <= x <= self.high:
            raise EncodeError(
                f"{x!r} is outside {self!r}'s range [{self.low!r}, {self.high!r}] "
                "(clamp=True clamps it)"
            )
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
    bits if present. The largest magnitude is ``2**int_bits + 1 - 2**-frac_bits``: a value past
    it is an EncodeError, or with ``clamp=True`` is clamped to it. Maximum error: half a
    fraction step, ``2**-(frac_bits + 1)`` (a clamped value, plus its distance to the range).
    """

    name = "Coord"

    def __init__(self, int_bits: int = 14, frac_bits: int = 5, clamp: bool = False) -> None:
        if not 1 <= int_bits <= 24 or not 0 <= frac_bits <= 8:
            raise ValueError(
                f"Coord needs int_bits 1-24 and frac_bits 0-8, not {int_bits}, {frac_bits}"
            )
        self.int_bits, self.frac_bits, self.clamp = int_bits, frac_bits, clamp
        self.scale = 1 << frac_bits
        self.max_q = ((1 << int_bits) << frac_bits) | (self.scale - 1)
        self.max_bits = 3 + int_bits + frac_bits
        self.magnitude = self.max_q / self.scale

    def encode(self, value: Any) -> tuple[int, int]:
        x = _finite(value, self)
        if abs(x) > self.magnitude and not self.clamp:
            raise EncodeError(
                f"{x!r} is outside {self!r}'s range ±{self.magnitude!r} (clamp=True clamps it)"
            )
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
        return [self.name, self.int_bits, self.frac_bits, self.clamp]

    def default(self) -> float:
        return 0.0

    def distance(self, a: Any, b: Any) -> float:
        return abs(float(a) - float(b))

    def error_bound(self, value: Any) -> float:
        return max(abs(float(value)) - self.magnitude, 0.0) + 0.5 / self.scale


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
    near zero (half the smallest subnormal step). Infinities and NaN are values like any
    other; a finite value that would round to infinity is out of range (an EncodeError)."""

    fmt: ClassVar[struct.Struct]
    rel: ClassVar[float]
    tiny: ClassVar[float]
    width: int

    def __init__(self) -> None:
        self.width = self.max_bits = self.fmt.size * 8

    def encode(self, value: Any) -> tuple[int, int]:
        if type(value) is float:  # the common case, without _number's checks
            try:
                return int.from_bytes(self.fmt.pack(value), "little"), self.width
            except OverflowError:
                pass  # encode_checked names the value out of range
        return self.encode_checked(value)

    def encode_checked(self, value: Any) -> tuple[int, int]:
        """:meth:`encode` with every check in turn: the reference, and the errors' path."""
        x = _number(value, self)
        try:
            raw = self.fmt.pack(x)
        except OverflowError:  # finite, but it rounds to infinity in this format
            raise EncodeError(f"{x!r} is outside {self.name}'s range") from None
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


def _packer(component: Codec, count: int) -> Any:
    """``struct`` packing of ``count`` raw IEEE ``component`` values, little-endian: the
    same bits, concatenated, as the component codec's own pack of each."""
    assert isinstance(component, _IEEE)
    return struct.Struct("<" + component.fmt.format[-1] * count).pack


def _components(value: Any, count: int, codec: Codec) -> Sequence[Any]:
    """``value``'s components, checked to be ``count`` (a sequence, not text). A tuple or a
    list is taken without asking ``Sequence``: CPython's check of a class registered with an
    ABC (``tuple``) is never cached, so every such write ran the ABC's Python
    ``__subclasscheck__`` and ``__subclasshook__``."""
    kind = type(value)
    plain = kind is tuple or kind is list
    if not plain and (not isinstance(value, Sequence) or isinstance(value, str | bytes)):
        raise EncodeError(f"{codec!r} needs {count} components, not {value!r}")
    components: Sequence[Any] = value
    if len(components) != count:
        raise EncodeError(f"{codec!r} needs {count} components, not {value!r}")
    return components


class _Vec(Codec):
    """``count`` components with one scalar codec; components decode in float64 and are
    rounded to float32 (Godot's ``real_t``). The bound adds float32 rounding to the
    component codec's. A finite component whose value would round to a float32 infinity is
    out of range (only a component codec that reaches past float32 can make one).

    Raw IEEE components (Half, Float32, Float64) of a value of exactly the vector type with
    float components, the case of nearly every write, are packed all at once by one
    ``struct``: the same bits as :meth:`encode_checked`, the reference, which any other value
    (and any value out of range, to name the component) still takes."""

    count: ClassVar[int]
    make: ClassVar[Any]

    def __init__(self, component: Codec) -> None:
        if not isinstance(component, Quant | Coord | Angle | Half | Float32 | Float64):
            raise ValueError(f"{self.name} components must be a float codec, not {component!r}")
        self.component = component
        #: whether a component's decoded value can be past float32's range
        self.wide = isinstance(component, Float64) or (
            isinstance(component, Quant) and component.magnitude > F32_MAX
        )
        self.width = None if component.width is None else component.width * self.count
        self.max_bits = None if component.max_bits is None else component.max_bits * self.count
        ieee = type(component) in (Half, Float32, Float64)
        #: every component at once (None: not raw IEEE components); for Float64, the float32
        #: pack that fails as _check_real does, on a finite value past float32's range
        self._pack = _packer(component, self.count) if ieee else None
        self._real = _packer(Float32(), self.count) if self.wide and ieee else None

    def encode(self, value: Any) -> tuple[int, int]:
        pack = self._pack
        if pack is not None and type(value) is self.make:
            for c in value:
                if type(c) is not float:
                    break
            else:
                try:
                    raw = pack(*value)
                    if self._real is not None:
                        self._real(*value)
                    return int.from_bytes(raw, "little"), len(raw) * 8
                except OverflowError:
                    pass  # encode_checked names the component out of range
        return self.encode_checked(value)

    def encode_checked(self, value: Any) -> tuple[int, int]:
        """:meth:`encode` one component at a time, through the component codec: the
        reference for every value (and the path of every error)."""
        acc = n = 0
        for c in _components(value, self.count, self):
            bits, width = self.component.encode(c)
            if self.wide:
                self._check_real(bits, width)
            acc |= bits << n
            n += width
        return acc, n

    def _check_real(self, bits: int, width: int) -> None:
        """EncodeError if a component decodes to a finite value past float32's range."""
        seen = self.component.decode(BitReader(bits.to_bytes((width + 7) >> 3, "little")))
        if math.isfinite(seen) and math.isinf(to_f32(seen)):
            raise EncodeError(
                f"component {seen!r} is outside {self!r}'s range (a float32, Godot's real_t)"
            )

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
