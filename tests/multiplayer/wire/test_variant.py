"""The compressed Variant form (gdvariant.multiplayer.wire._variant): expected bytes written by hand
from the layout (meta byte: type in bits 0-5, INT width mode in bits 6-7, BOOL value in bit 7)."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdvariant as gd
from gdvariant.multiplayer.wire import (
    decode_compressed,
    decode_compressed_list,
    encode_compressed,
    encode_compressed_list,
)
from tests.support.random_values import random_value

INTS = [
    (0, "0200"),
    (100, "0264"),
    (-1, "02ff"),
    (127, "027f"),
    (-128, "0280"),
    (128, "428000"),
    (-129, "427fff"),
    (32767, "42ff7f"),
    (32768, "8200800000"),
    (40000, "82409c0000"),
    (2**31 - 1, "82ffffff7f"),
    (-(2**31), "8200000080"),
    (2**31, "c20000008000000000"),
    (5000000000, "c200f2052a01000000"),
    (-(2**63), "c20000000000000080"),
]


@pytest.mark.parametrize(("value", "hex_"), INTS)
def test_int_takes_the_smallest_width(value: int, hex_: str) -> None:
    assert encode_compressed(value).hex() == hex_
    assert decode_compressed(bytes.fromhex(hex_)) == (value, len(hex_) // 2)


def test_bool_is_one_byte() -> None:
    assert encode_compressed(True) == b"\x81"
    assert encode_compressed(False) == b"\x01"
    assert decode_compressed(b"\x81") == (True, 1)
    assert decode_compressed(b"\x01") == (False, 1)
    assert decode_compressed(b"\x41") == (False, 1)  # Godot ignores the mode bits of a BOOL


@pytest.mark.parametrize(
    "value",
    [None, 0.5, 0.1, "run", gd.Vector2(100, 200), [1, "a"], {"k": gd.Vector3(1, 2, 3)}, b"\x01"],
)
def test_other_types_are_var_to_bytes(value: object) -> None:
    assert encode_compressed(value) == gd.dumps(value)


def test_known_other_type_bytes() -> None:
    assert encode_compressed("run").hex() == "0400000003000000" + "72756e00"
    assert encode_compressed(gd.Vector2(100, 200)).hex() == "05000000" + "0000c842" + "00004843"
    assert encode_compressed(0.5).hex() == "03000000" + "0000003f"


def test_wider_ints_than_needed_are_accepted() -> None:
    assert decode_compressed(bytes.fromhex("420a00")) == (10, 3)
    assert decode_compressed(bytes.fromhex("c20a00000000000000")) == (10, 9)


def test_too_big_int_is_refused() -> None:
    with pytest.raises(gd.EncodeError):
        encode_compressed(2**63)


@pytest.mark.parametrize(
    "hex_",
    ["", "42", "4201", "820100", "c2010203", "3f000000", "44000000", "04000000"],
)
def test_malformed_values_raise_decode_error(hex_: str) -> None:
    with pytest.raises(gd.DecodeError):
        decode_compressed(bytes.fromhex(hex_))


def test_end_bounds_a_value() -> None:
    data = bytes.fromhex("0400000003000000" + "72756e00")
    with pytest.raises(gd.DecodeError):
        decode_compressed(data, end=8)


def test_lists_are_plain_concatenations() -> None:
    data = encode_compressed_list([True, 100, "run"])
    assert data.hex() == "81" + "0264" + "0400000003000000" + "72756e00"
    assert decode_compressed_list(data) == ([True, 100, "run"], len(data))
    assert decode_compressed_list(data, count=2) == ([True, 100], 3)
    assert decode_compressed_list(data, 1, end=3) == ([100], 3)
    with pytest.raises(gd.DecodeError):
        decode_compressed_list(data, count=4)


@settings(max_examples=200, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1))
def test_ints_round_trip(value: int) -> None:
    data = encode_compressed(value)
    assert decode_compressed(data) == (value, len(data))
    assert len(data) - 1 == next(
        n for n in (1, 2, 4, 8) if -(2 ** (8 * n - 1)) <= value < 2 ** (8 * n - 1)
    )


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32))
def test_random_values_round_trip(seed: int) -> None:
    value = random_value(random.Random(seed))
    data = encode_compressed(value)
    again, end = decode_compressed(data)
    assert end == len(data)
    assert encode_compressed(again) == data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_raise_only_decode_errors(data: bytes) -> None:
    with contextlib.suppress(gd.DecodeError):
        decode_compressed_list(data)


def _outcome(call: Callable[[], object]) -> object:
    """What ``call`` returns, or the DecodeError it raises as (message, offset)."""
    try:
        return call()
    except gd.DecodeError as exc:
        return ("error", str(exc), exc.offset)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["0201", "42ff7f", "82409c0000", "c20000008000000000", "81", "01",
                              "0400000003000000" "72756e00", "c1", "42ff", "82", ""]),
             max_size=6).map(lambda parts: bytes.fromhex("".join(parts))),
    st.integers(0, 7),
    st.integers(0, 3),
)  # fmt: skip
def test_counted_lists_read_from_bytes_as_from_any_buffer(data: bytes, count: int, at: int) -> None:
    """A counted list in bytes (an RPC's arguments) takes a path that reads BOOL and INT
    itself: the same values, offsets and errors as the general one (a bytearray's)."""
    offset = min(at, len(data))
    fast = _outcome(lambda: decode_compressed_list(data, offset, count=count))
    general = _outcome(lambda: decode_compressed_list(bytearray(data), offset, count=count))
    assert fast == general
