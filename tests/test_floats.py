"""Godot's float text: Grisu2 digits (4.5+), ``%g`` (before), and ``built_in_strtod``.

Expected texts are the spec note's probe values (shared/spec/text-format.md §2.1, §3), which
the engine tests confirm on the real engines."""

from __future__ import annotations

import math
import random
import struct

import pytest

from gdvariant._floats import f32, godot_strtod, grisu2_text, is_float32, percent_g


@pytest.mark.parametrize(
    ("value", "single", "text"),
    [
        (0.1 + 0.2, False, "0.30000000000000004"),
        (1.0 / 3.0, False, "0.3333333333333333"),
        (math.pi, False, "3.141592653589793"),
        (1e14, False, "100000000000000"),
        (1e15, False, "1e+15"),
        (1e-5, False, "1e-05"),
        (0.0001, False, "0.0001"),
        (1e300, False, "1e+300"),
        (5e-324, False, "5e-324"),
        (-95320224.0, True, "-95320224"),  # Grisu2 is not always the shortest
        (2.0**53, True, "9.007199e+15"),
        (3.4028234663852886e38, True, "3.4028235e+38"),
        (f32(1.0 / 3.0), True, "0.33333334"),
        (f32(123456789.0), True, "123456790"),
    ],
)
def test_grisu2_text(value: float, single: bool, text: str) -> None:
    assert grisu2_text(value, single) == text


def test_grisu2_digits_read_back() -> None:
    rng = random.Random(7)
    for _ in range(20_000):
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x) and x != 0:
            assert float(grisu2_text(x, False)) == x
        y = struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0]
        if math.isfinite(y) and y != 0:
            assert f32(float(grisu2_text(y, True))) == y


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (math.pi, "3.14159"),
        (123456.7, "123457"),
        (1e6, "1e+06"),
        (1e-5, "1e-05"),
        (0.1 + 0.2, "0.3"),
    ],
)
def test_percent_g(value: float, text: str) -> None:
    assert percent_g(value) == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("949.3012028926441", 949.30120289264403),  # one ulp below what Python reads
        ("1.2345678901234567e-293", 0.0),  # its power table overflows
        ("5e-324", 0.0),
        ("1.5e-300", 1.4999999999999998e-300),
        ("0.5", 0.5),
        ("-2.5e3", -2500.0),
        ("1e", 1.0),
        ("-0.0", -0.0),
    ],
)
def test_godot_strtod(text: str, value: float) -> None:
    got = godot_strtod(text)
    assert struct.pack("<d", got) == struct.pack("<d", value)


def test_float32_helpers() -> None:
    assert f32(1e300) == math.inf and f32(-1e300) == -math.inf
    assert is_float32(0.5) and not is_float32(0.1) and not is_float32(math.nan)
