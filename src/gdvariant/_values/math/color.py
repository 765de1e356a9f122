"""``Color``: four float32s (in every build, double ones included), with Godot's operators and
methods. Formulas: Godot 4.6's ``core/math/color.h`` and ``color.cpp``."""

from __future__ import annotations

import math
from typing import Self, SupportsFloat

from ..base import _f, _field
from ..constructors import float_fields
from .componentwise import Componentwise
from .reals import SINGLE, round_half_away

__all__ = ["Color"]

_LUMINANCE = (SINGLE.one(0.2126), SINGLE.one(0.7152), SINGLE.one(0.0722))


def _hex_byte(value: float) -> str:
    """One channel as two hex digits: ``round(v * 255)`` (float32), converted to int as x86
    does (NaN or past int32: INT32_MIN), clamped to 0..255."""
    scaled = round_half_away(SINGLE.one(value * 255.0))
    if math.isfinite(scaled) and -(2.0**31) <= scaled < 2.0**31:
        level = min(max(int(scaled), 0), 255)
    else:
        level = 0
    return f"{level:02x}"


class Color(Componentwise):
    """``Color`` (r, g, b, a): always four 32-bit floats on the wire, in every build.

    ``+ - * /`` with a Color, ``* /`` with a number; ``-c`` is ``1 - c`` per channel, alpha
    included, as in Godot.
    """

    __slots__ = ()
    _fields = ("r", "g", "b", "a")
    _fixed = SINGLE

    @float_fields
    def __new__(
        cls,
        r: SupportsFloat = 0.0,
        g: SupportsFloat = 0.0,
        b: SupportsFloat = 0.0,
        a: SupportsFloat = 1.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(r), _f(g), _f(b), _f(a)))

    r: float = _field(0)

    g: float = _field(1)

    b: float = _field(2)

    a: float = _field(3)

    def __neg__(self) -> Self:
        return tuple.__new__(type(self), SINGLE.all([1.0 - c for c in SINGLE.all(self)]))

    def clamp(self, min: Self | None = None, max: Self | None = None) -> Self:  # noqa: A002
        """Each channel limited to ``[min, max]`` (default: 0 to 1)."""
        lo = Color(0, 0, 0, 0) if min is None else min
        hi = Color(1, 1, 1, 1) if max is None else max
        return super().clamp(lo, hi)  # type: ignore[arg-type]

    def darkened(self, amount: SupportsFloat) -> Self:
        """Each colour channel times ``1 - amount``; alpha kept."""
        one = SINGLE.one
        r, g, b, a = SINGLE.all(self)
        keep = one(1.0 - one(float(amount)))
        return tuple.__new__(type(self), (one(r * keep), one(g * keep), one(b * keep), a))

    def lightened(self, amount: SupportsFloat) -> Self:
        """Each colour channel moved ``amount`` of the way to 1; alpha kept."""
        one = SINGLE.one
        r, g, b, a = SINGLE.all(self)
        t = one(float(amount))
        return tuple.__new__(type(self), (*(one(c + one(one(1.0 - c) * t)) for c in (r, g, b)), a))

    def inverted(self) -> Self:
        """``1 - channel`` for red, green and blue; alpha kept."""
        r, g, b, a = SINGLE.all(self)
        return tuple.__new__(type(self), (*SINGLE.all([1.0 - r, 1.0 - g, 1.0 - b]), a))

    def get_luminance(self) -> float:
        """The luminance ``0.2126 r + 0.7152 g + 0.0722 b`` (of linear colours)."""
        one = SINGLE.one
        r, g, b, _ = SINGLE.all(self)
        wr, wg, wb = _LUMINANCE
        return one(one(one(wr * r) + one(wg * g)) + one(wb * b))

    def blend(self, over: Self) -> Self:
        """``over`` painted over this colour by its alpha."""
        one = SINGLE.one
        r, g, b, a = SINGLE.all(self)
        orr, og, ob, oa = SINGLE.all(self._same(over))
        sa = one(1.0 - oa)
        alpha = one(one(a * sa) + oa)
        if alpha == 0:
            return tuple.__new__(type(self), (0.0, 0.0, 0.0, 0.0))
        mixed = [
            one(one(one(one(c * a) * sa) + one(o * oa)) / alpha)
            for c, o in ((r, orr), (g, og), (b, ob))
        ]
        return tuple.__new__(type(self), (*mixed, alpha))

    def to_html(self, with_alpha: bool = True) -> str:
        """``"rrggbbaa"`` (or ``"rrggbb"``): each channel rounded to 0..255, in hex."""
        channels = self if with_alpha else self[:3]
        return "".join(_hex_byte(c) for c in SINGLE.all(channels))
