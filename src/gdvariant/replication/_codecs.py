"""Property codecs: how one property value becomes bits on the wire and back.

Every codec is an exact inverse pair: ``encode(v)`` gives ``(bits, width)``, ``decode(reader)``
reads them back, and ``quantize(v)`` is by definition ``decode(encode(v))``: the value a client
will see, so a server can simulate with it. ``error_bound(v)`` states how far ``quantize(v)``
may be from ``v`` (as measured by ``distance``) for a value inside the codec's range; the
property tests check both facts for every codec. This module has the base class and the
exact codecs (integers, booleans, strings, bytes, enums, entity references, Variants, arrays);
the float codecs are in ``_float_codecs``. The bit layouts are in docs/replication-wire.md §5.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any, ClassVar

import gdvariant
from gdvariant import DecodeError, EncodeError

from ._bits import BitReader, Malformed

__all__ = [
    "ArrayOf",
    "Bool",
    "Bytes",
    "Codec",
    "EntityRef",
    "Enum",
    "Int",
    "Str",
    "UInt",
    "VarInt",
    "VarUInt",
    "Variant",
]


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
        self._end = 1 << bits

    def encode(self, value: Any) -> tuple[int, int]:
        if type(value) is int and 0 <= value < self._end:  # the common case, first
            return value, self.bits
        return self.encode_checked(value)

    def encode_checked(self, value: Any) -> tuple[int, int]:
        """:meth:`encode` with every check in turn: the reference, and the errors' path."""
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
        self._low, self._end, self._mask = -(1 << (bits - 1)), 1 << (bits - 1), (1 << bits) - 1

    def encode(self, value: Any) -> tuple[int, int]:
        if type(value) is int and self._low <= value < self._end:  # the common case, first
            if self.zigzag:
                return (value << 1) if value >= 0 else ((-value << 1) - 1), self.bits
            return value & self._mask, self.bits
        return self.encode_checked(value)

    def encode_checked(self, value: Any) -> tuple[int, int]:
        """:meth:`encode` with every check in turn: the reference, and the errors' path."""
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
