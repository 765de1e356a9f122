"""How an engine holds the reals it reads: per profile, how the decoder reads math types and
packed real vector arrays.

The components of Vector2 ... Projection and the elements of PackedVector2/3/4Array are
``real_t``: float32 in a standard build, float64 in a ``precision=double`` one. Godot 4 writes
doubles with the header's 64-bit flag, and every Godot 4 reads both widths into its own: a
single-precision build rounds a double as a C cast does (1e300 becomes inf, 0.1 becomes
0.100000001490116...), a double build widens a float exactly (engine-checked with Godot 4.6).
The decoder gives what the engine holds, so whatever it reads, the same release can write back
(README, "Decoding untrusted data"). Before Godot 4 the flag means nothing on these types: they
are float32 on the wire and in the engine. Colors are float32 in every build.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Iterable
from struct import Struct
from typing import Any, TypeVar

from .._values.layouts import LAYOUTS, PACKED_ARRAYS
from .._values.packed import _PackedNumbers
from .profiles import Profile

__all__ = ["MathRead", "PackedRead", "math_reads", "packed_reads", "reads", "recast", "rounded"]

#: A math type's reading: (struct, unflatten) without the 64-bit flag, then with it.
MathRead = tuple[Struct, Callable[[Any], Any], Struct, Callable[[Any], Any]]
#: A packed real vector array's reading, without the flag and with it: (the class of the bytes
#: on the wire, the class of the value the engine holds).
PackedRead = tuple[tuple[type[Any], type[Any]], tuple[type[Any], type[Any]]]
P = TypeVar("P", bound=_PackedNumbers)

_LITTLE = sys.byteorder == "little"


def rounded(components: Iterable[float]) -> tuple[float, ...]:
    """Each double as a C cast to float holds it (past float32's range: an infinity)."""
    return tuple(array("f", components))


def recast(value: _PackedNumbers, cls: type[P]) -> P:
    """A packed array's elements in ``cls``, the same kind at the other component width
    (narrowed as :func:`rounded` does, or widened exactly)."""
    numbers = array(cls._code, value._numbers())
    if not _LITTLE:
        numbers.byteswap()
    return bytes.__new__(cls, numbers)


def _rounding(unflatten: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda components: unflatten(rounded(components))


_CACHE: dict[str, tuple[dict[int, MathRead], dict[int, PackedRead]]] = {}


def reads(profile: Profile) -> tuple[dict[int, MathRead], dict[int, PackedRead]]:
    """``profile``'s :func:`math_reads` and :func:`packed_reads`, built once (one lookup per
    decode call)."""
    both = _CACHE.get(profile.name)
    if both is None:
        both = _CACHE[profile.name] = (math_reads(profile), packed_reads(profile))
    return both


def math_reads(profile: Profile) -> dict[int, MathRead]:
    """How ``profile`` reads each fixed-size math type, by type number.

    Godot 4 reads a flagged real type as doubles, rounded to float32 unless the build is
    double; a 4.0/4.1 double build reads Vector4 and Projection as doubles even unflagged.
    """
    table = {}
    for vtype, layout in LAYOUTS.items():
        narrow = Struct(f"<{layout.components}{'i' if layout.kind == 'i32' else 'f'}")
        unflatten = layout.unflatten
        if layout.kind != "real" or not profile.double_flagged:
            table[int(vtype)] = (narrow, unflatten, narrow, unflatten)
            continue
        wide = Struct(f"<{layout.components}d")
        wide_unflatten = unflatten if profile.double else _rounding(unflatten)
        if profile.double and vtype in profile.double_unflagged:
            narrow = wide
        table[int(vtype)] = (narrow, unflatten, wide, wide_unflatten)
    return table


def packed_reads(profile: Profile) -> dict[int, PackedRead]:
    """How ``profile`` reads each packed numeric array, by type number: the flag selects 64-bit
    real vectors (Godot 4), and the value is held at the build's own width."""
    table = {}
    for vtype, (narrow, wide) in PACKED_ARRAYS.items():
        held = wide if profile.double else narrow
        flagged = wide if profile.double_flagged else narrow
        table[int(vtype)] = ((narrow, held), (flagged, held))
    return table
