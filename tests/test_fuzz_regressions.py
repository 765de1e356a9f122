"""Inputs the fuzzer (``fuzz/fuzz_decode.py``) found, kept as tests."""

from __future__ import annotations

import pytest

import gdvariant as gd

pytestmark = pytest.mark.usefixtures("impl")  # every codec core


def test_a_godot2_input_event_of_unknown_type_counts_past_the_data() -> None:
    # Found by the harness's size check: a 2.x InputEvent of an unknown type counts 12 payload
    # bytes when only 8 are there, so the consumed size may pass the input by 4 (not 3, as the
    # decoder's docstring said). godot2.md: the type and device are read, the rest skipped.
    data = bytes.fromhex("130000000200010000007fff")
    value, used = gd.decode(data, version="2.1")
    assert isinstance(value, gd.InputEvent)
    assert used == 16 == len(data) + 4
