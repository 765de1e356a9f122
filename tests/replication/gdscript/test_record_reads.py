"""The generated decoder's record reading (``gdscript._record_reads``): how long a fast path may
read without a bounds check, the padding that covers it, and the mask tests' grouping. The
engine runs these paths in ``tests/live/replication/test_gdscript.py``."""

from __future__ import annotations

import re

import pytest

from gdvariant.replication import Bool, NetClass, Schema, Str, UInt, gdscript
from gdvariant.replication.gdscript import _record_reads as records
from gdvariant.replication.gdscript._lines import Writer
from tests.support.replication_worlds import gdscript_schema


class Small(NetClass):
    a = UInt(9)
    b = Bool()
    c = Str(8)


def test_fast_run_bits_is_the_whole_record_when_it_fits() -> None:
    lay = Schema.build([Small]).layout("Small")
    changes = max(2 + 3 * (1 + lay.index_bits), 1 + 3)
    values = (9 + 12) + (1 + 12) + (4 + 12)
    assert records.fast_run_bits(lay) == changes + values


def test_long_records_check_after_each_property(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = Schema.build([Small])
    lay = schema.layout("Small")
    fits = gdscript.generate(schema)
    monkeypatch.setattr(records, "FAST_RUN_BITS", 0)
    assert records.fast_run_bits(lay) == max(2 + 3 * (1 + lay.index_bits), 1 + 3)
    checked = gdscript.generate(schema)
    assert checked.count("return _recheck(") > fits.count("return _recheck(")


def test_padding_covers_the_longest_unchecked_run() -> None:
    schema = gdscript_schema()
    text = gdscript.generate(schema)
    padding = int(re.search(r"_padding\.resize\((\d+)\)", text)[1])  # type: ignore[index]
    longest = max(records.fast_run_bits(lay) for lay in schema.classes)
    assert padding >= (longest + 7) // 8 + 8


def test_masked_groups_of_four() -> None:
    lay = gdscript_schema().layout("Pawn")
    w = Writer()
    for indent, prop in records.masked(w, lay, "m", 1):
        w.emit(indent, f"pass  # {prop.path}")
    groups = [line for line in w.lines if line.startswith("\tif ")]
    assert len(groups) == -(-lay.count // 4)
    assert groups[0] == "\tif m & 15:"


def test_every_class_has_a_fast_path_and_a_checked_twin() -> None:
    schema = gdscript_schema()
    text = gdscript.generate(schema)
    recheck = text[text.index("func _recheck(") :]
    for lay in schema.classes:
        assert f"func _c{lay.class_id}(" in text
        assert f"_c{lay.class_id}(buf, s, end, id, values, delta)" in recheck
        assert f"var m{lay.class_id} := " in text  # its inline record in _section
