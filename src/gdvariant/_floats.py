"""Godot's float text, both ways, bit for bit: the one float printer and reader that the text
syntax, both JSON dialects and the engines' element rules share.

Writing: Godot 4.5+ prints floats with Grisu2 digits (shortest or nearly so; not always the
true shortest, so ``repr()`` would differ on about 0.1 % of values), computed with float32
boundaries when the value is a float32. Before 4.5, and in Godot 3, it prints C's ``%g``.
Reading: Godot turns number text into a double with its own ``built_in_strtod``, which is not
correctly rounded; :func:`godot_strtod` reproduces it so a parsed value is the engine's value.
Facts: ``docs/text-format.md`` ("Floats").
"""

from __future__ import annotations

import math
import struct

__all__ = ["f32", "godot_strtod", "grisu2_text", "is_float32", "percent_g"]

_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_MASK64 = (1 << 64) - 1


def f32(value: float) -> float:
    """``(float)value`` in C: the nearest float32 (round to nearest even), inf on overflow."""
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def is_float32(value: float) -> bool:
    """``(double)(float)value == value``: the value is exactly a float32 (NaN is not)."""
    return f32(value) == value


# ---- Grisu2 ------------------------------------------------------------------------------

# Cached powers c_k ~ 10^k as a 64-bit normalized significand and binary exponent, for
# k = -300, -292, ..., 324 (step 8), each rounded to nearest.
_MIN_DEC_EXP = -300
_DEC_STEP = 8


def _cached_power(k: int) -> tuple[int, int]:
    """10^k as (f, e) with 2^63 <= f < 2^64, f correctly rounded."""
    if k >= 0:
        num, den = 10**k, 1
    else:
        num, den = 1, 10**-k
    # choose e so that num/den / 2^e lies in [2^63, 2^64)
    e = num.bit_length() - den.bit_length() - 64
    while True:
        top, d = (num, den << e) if e >= 0 else (num << -e, den)
        q, r = divmod(top, d)
        if q >= 1 << 64:
            e += 1
            continue
        if q < 1 << 63:
            e -= 1
            continue
        break
    if 2 * r >= d:
        q += 1
        if q == 1 << 64:
            q >>= 1
            e += 1
    return q, e


_CACHED = [_cached_power(k) for k in range(_MIN_DEC_EXP, 325, _DEC_STEP)]
_ALPHA = -60


def _mul(xf: int, xe: int, yf: int, ye: int) -> tuple[int, int]:
    """The 64x64-bit product, upper half rounded (half up), as Grisu's DiyFp multiply."""
    return ((xf * yf + (1 << 63)) >> 64), xe + ye + 64


def _normalize(f: int, e: int) -> tuple[int, int]:
    shift = 64 - f.bit_length()
    return f << shift, e - shift


def _boundaries(value: float, single: bool) -> tuple[tuple[int, int], tuple[int, int], int, int]:
    """(v, m-, w+ exponent...): v normalized, m- and m+ normalized to m+'s exponent."""
    if single:
        bits = _U32.unpack(_F32.pack(value))[0]
        precision, bias, mant_mask = 24, 127 + 23, (1 << 23) - 1
        biased_e = bits >> 23
    else:
        bits = _U64.unpack(_F64.pack(value))[0]
        precision, bias, mant_mask = 53, 1023 + 52, (1 << 52) - 1
        biased_e = bits >> 52
    frac = bits & mant_mask
    if biased_e == 0:
        f, e = frac, 1 - bias
    else:
        f, e = frac + (1 << (precision - 1)), biased_e - bias
    closer = frac == 0 and biased_e > 1
    plus_f, plus_e = _normalize(2 * f + 1, e - 1)
    if closer:
        minus_f, minus_e = 4 * f - 1, e - 2
    else:
        minus_f, minus_e = 2 * f - 1, e - 1
    minus_f <<= minus_e - plus_e
    vf, ve = _normalize(f, e)
    return (vf, ve), (minus_f, plus_e), plus_f, plus_e


def _grisu2_digits(value: float, single: bool) -> tuple[str, int]:
    """Digits and decimal exponent of a finite, positive ``value``: value ~ digits * 10^exp."""
    (vf, ve), (mf, me), pf, pe = _boundaries(value, single)
    f = _ALPHA - pe - 1
    k = abs(f * 78913) >> 18
    k = (-k if f < 0 else k) + (1 if f > 0 else 0)
    index = (-_MIN_DEC_EXP + k + (_DEC_STEP - 1)) // _DEC_STEP
    cf, ce = _CACHED[index]
    cached_k = _MIN_DEC_EXP + index * _DEC_STEP
    wf, _ = _mul(vf, ve, cf, ce)
    lo_f, _ = _mul(mf, me, cf, ce)
    hi_f, hi_e = _mul(pf, pe, cf, ce)
    lo_f += 1
    hi_f -= 1
    exponent = -cached_k
    delta = hi_f - lo_f
    dist = hi_f - wf
    shift = -hi_e
    one = 1 << shift
    p1 = hi_f >> shift
    p2 = hi_f & (one - 1)
    digits: list[int] = []
    n = len(str(p1))
    pow10 = 10 ** (n - 1)
    while n > 0:
        d, p1 = divmod(p1, pow10)
        digits.append(d)
        n -= 1
        rest = (p1 << shift) + p2
        if rest <= delta:
            exponent += n
            _round(digits, dist, delta, rest, pow10 << shift)
            return "".join(map(str, digits)), exponent
        pow10 //= 10
    m = 0
    while True:
        p2 *= 10
        digits.append(p2 >> shift)
        p2 &= one - 1
        m += 1
        delta *= 10
        dist *= 10
        if p2 <= delta:
            break
    exponent -= m
    _round(digits, dist, delta, p2, one)
    return "".join(map(str, digits)), exponent


def _round(digits: list[int], dist: int, delta: int, rest: int, ten_k: int) -> None:
    """Move the last digit towards w while the result stays inside the safe interval."""
    while (
        rest < dist
        and delta - rest >= ten_k
        and (rest + ten_k < dist or dist - rest > rest + ten_k - dist)
    ):
        digits[-1] -= 1
        rest += ten_k


def _exponent_text(e: int) -> str:
    return ("-" if e < 0 else "+") + f"{abs(e):02d}"


def grisu2_text(value: float, single: bool) -> str:
    """``String::num_scientific`` of Godot 4.5+: Grisu2 digits in the to_chars layout (fixed
    for 1e-4 <= |v| < 1e15, no ``.0`` on integers); ``single`` uses float32 boundaries."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, exp10 = _grisu2_digits(abs(value), single)
    k = len(digits)
    n = k + exp10
    if k <= n <= 15:
        body = digits + "0" * (n - k)
    elif 0 < n <= 15:
        body = digits[:n] + "." + digits[n:]
    elif -4 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = mantissa + "e" + _exponent_text(n - 1)
    return sign + body


def percent_g(value: float) -> str:
    """C's ``%lg`` (6 significant digits), as glibc prints it (``inf``, ``-inf``, ``nan``)."""
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    return f"{value:g}"


# ---- built_in_strtod -----------------------------------------------------------------------

_POWERS = (1e1, 1e2, 1e4, 1e8, 1e16, 1e32, 1e64, 1e128, 1e256)
_MAX_EXPONENT = 511


def godot_strtod(text: str) -> float:
    """Godot's ``built_in_strtod`` on a number token ``-?digits[.digits][eE[+-]digits]``.

    At most 18 mantissa digits are kept (leading zeros count), folded as ``1e9*a + b``; then
    one multiply or divide by 10^|exp| built from a table of powers, all in double arithmetic.
    """
    negative = text.startswith("-")
    body = text[1:] if negative or text.startswith("+") else text
    mantissa, _, exp_text = body.replace("E", "e").partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = int_part + frac_part
    point = len(int_part)
    size = len(digits)
    if size > 18:
        frac_exp = point - 18
        digits = digits[:18]
    else:
        frac_exp = point - size
    if not digits:
        return -0.0 if negative else 0.0
    head, tail = digits[:-9] or "0", digits[-9:]
    if len(digits) <= 9:
        head, tail = "0", digits
    fraction = 1.0e9 * int(head) + int(tail)
    exp = 0
    exp_negative = False
    if exp_text:
        if exp_text[0] in "+-":
            exp_negative = exp_text[0] == "-"
            exp_text = exp_text[1:]
        exp = int(exp_text) if exp_text.isdigit() else 0
    exp = frac_exp - exp if exp_negative else frac_exp + exp
    divide = exp < 0
    exp = min(abs(exp), _MAX_EXPONENT)
    scale = 1.0
    for power in _POWERS:
        if exp == 0:
            break
        if exp & 1:
            scale *= power
        exp >>= 1
    fraction = fraction / scale if divide else fraction * scale
    return -fraction if negative else fraction
