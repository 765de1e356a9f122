"""What the math operators accept (``gdvariant._values.math.operands``)."""

from __future__ import annotations

import pytest

import gdvariant as gd
from gdvariant._values.math.operands import is_scalar, mixed, wrap32


def test_scalars_are_ints_and_floats_not_bools() -> None:
    assert is_scalar(1) and is_scalar(1.5)
    assert not is_scalar(True) and not is_scalar("1") and not is_scalar(None)


def test_mixed_names_both_sides_and_hints_at_plain_tuples() -> None:
    with pytest.raises(TypeError, match=r"'Vector2' and 'tuple'.*plain tuples"):
        mixed("+", gd.Vector2(), (1, 2))
    with pytest.raises(TypeError, match=r"'Vector2' and 'str'$"):
        mixed("*", gd.Vector2(), "x")


def test_wrap32() -> None:
    assert wrap32(2**31) == -(2**31)
    assert wrap32(-(2**31) - 1) == 2**31 - 1
    assert wrap32(5) == 5
