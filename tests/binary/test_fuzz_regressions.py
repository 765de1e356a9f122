"""Inputs the fuzzer (``fuzz/fuzz_decode.py``) found, kept as tests."""

from __future__ import annotations

import pytest

import gdvariant as gd
from gdvariant._binary import core as _core
from tests.support.cores import CORES, core

pytestmark = pytest.mark.usefixtures("impl")  # every codec core


def test_a_godot2_input_event_of_unknown_type_counts_past_the_data() -> None:
    # Found by the harness's size check: a 2.x InputEvent of an unknown type counts 12 payload
    # bytes when only 8 are there, so the consumed size may pass the input by 4 (not 3, as the
    # decoder's docstring said). godot2.md: the type and device are read, the rest skipped.
    data = bytes.fromhex("130000000200010000007fff")
    value, used = gd.decode(data, version="2.1")
    assert isinstance(value, gd.InputEvent)
    assert used == 16 == len(data) + 4


@pytest.mark.parametrize("name", CORES)
def test_a_node_path_whose_counts_wrap_reads_no_strings(name: str) -> None:
    # Found by fuzz/fuzz_cores.py in the compiled core: 1 name + 0xFFFFFFFF subnames wraps to
    # 0 strings (Godot adds the counts as uint32), and the C code sized the subname tuple as
    # "0 - 1", running out of memory. Every string read is a name, and there are none.
    blob = bytes.fromhex("1600000001000080ffffffff00000000")
    core(name)  # skips (or fails, if required) when the compiled core is not built
    with _core.use(name):
        assert gd.decode(blob) == (gd.NodePath(""), 16)


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_a_godot2_input_event_type_past_int32_is_written_back(version: str) -> None:
    # Found by the search for values dumps refused after loads read them: Godot 2 reads and
    # writes an InputEvent's type as a u32 (godot2.md §6), and our encoder wrote it as an int32.
    data = bytes.fromhex("1300000000000080ffffffff0c000000")
    value = gd.loads(data, version=version)
    assert value == gd.InputEvent(2**31, -1)
    assert gd.dumps(value, version=version) == data
