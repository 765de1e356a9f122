"""Working out what unknown bytes are (``gdvariant._files.guess``), behind ``gdvariant decode``."""

from __future__ import annotations

import io
import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._binary.codec import codec_for
from gdvariant._files.guess import (
    Reading,
    engine_for_frames,
    loose_frame,
    other_engine,
    read_whole,
    record_spans,
    record_trouble,
    records_only,
)

G4 = codec_for("4")


def _records(values: list[Any], **options: Any) -> bytes:
    out = io.BytesIO()
    gd.dump_all(values, out, **options)
    return out.getvalue()


def test_record_spans_chain_exactly_to_the_end() -> None:
    data = struct.pack("<I", 8) + bytes(8) + struct.pack("<I", 4) + bytes(4)
    assert record_spans(data, False) == [(4, 12), (16, 20)]
    assert record_spans(data + b"\0", False) is None  # a stray byte
    assert record_spans(data[:-1], False) is None  # the last record is cut
    assert record_spans(data, True) is None  # 0x08000000 bytes claimed
    assert record_spans(b"", False) == []
    assert record_spans(struct.pack("<I", 0), False) is None  # no room for a header


def test_one_value_is_read_before_records() -> None:
    assert read_whole(gd.dumps([1, "a"]), G4) == Reading([[1, "a"]], records=False)


def test_records_are_read_when_no_value_fills_the_data() -> None:
    data = _records([42, "x"])
    assert read_whole(data, G4) == Reading([42, "x"], records=True)
    assert read_whole(_records([42], big_endian=True), G4) == Reading(
        [42], records=True, big_endian=True
    )


def test_a_record_with_slack_is_not_a_whole_reading() -> None:
    # Godot's get_var skips bytes after a record's value, but store_var never writes them.
    data = struct.pack("<I", 12) + gd.dumps(1) + bytes(4)
    assert read_whole(data, G4) is None


def test_records_first_inside_a_container() -> None:
    data = bytes.fromhex("0400000000000000")  # "" as a value; a null as a record
    assert read_whole(data, G4) == Reading([""], records=False)
    assert read_whole(data, G4, records_first=True) == Reading([None], records=True)
    assert records_only(gd.dumps([1, 2]), G4) is None


@pytest.mark.parametrize(
    ("version", "values"),
    [("3", [{"hp": 10}, gd.Vector2(1, 2)]), ("2", [[1, 2], "x"])],
)
def test_other_engine_names_the_line_that_reads_it_whole(version: str, values: list[Any]) -> None:
    data = _records(values, version=version)
    found = other_engine(data, G4)
    assert found == (version, Reading(values, records=True))


def test_no_engine_reads_garbage() -> None:
    assert other_engine(b"\xff" * 20, G4) is None


def test_describe() -> None:
    assert Reading([1], records=False).describe() == "one value"
    assert Reading([1], records=True).describe() == "1 store_var record"
    assert Reading([1, 2], records=True, big_endian=True).describe() == (
        "2 store_var records, big-endian lengths"
    )


def test_loose_frame_finds_a_value_that_ends_before_its_frame() -> None:
    godot3 = gd.frame(5, version="3") + gd.frame({"slot": 1, "player": "Ayla"}, version="3")
    # Frame 1 starts at 12; Godot 4 reads its type 18 as a 48-byte Transform3D.
    assert loose_frame(godot3, G4) == (1, 12, 52)
    assert loose_frame(godot3, codec_for("3")) is None


def test_loose_frame_leaves_cut_and_broken_frames_to_the_decoder() -> None:
    whole = gd.frame("abc") + gd.frame(1)
    assert loose_frame(whole[:-2], G4) is None  # the last frame is cut
    assert loose_frame(struct.pack("<II", 4, 255), G4) is None  # type 255 does not decode


def test_engine_for_frames() -> None:
    godot3 = gd.frame([1, 2], version="3") + gd.frame("x", version="3")[:-1]
    assert engine_for_frames(godot3, G4) == "3"
    assert engine_for_frames(gd.frame(1), codec_for("3")) == "4"
    assert engine_for_frames(b"\xff" * 12, G4) is None


def test_record_trouble_names_the_first_record_that_is_not_whole() -> None:
    godot3 = _records([5, {"slot": 1, "player": "Ayla"}], version="3")  # record 1 at offset 12
    assert record_trouble(godot3, G4) == (
        "the length prefixes chain as 2 store_var records, but the value in record 1 "
        "(offset 12) ends after 52 of its 56 bytes"
    )
    assert record_trouble(godot3, codec_for("3")) is None
    broken = struct.pack("<II", 4, 255)
    trouble = record_trouble(broken, G4)
    assert trouble is not None
    assert trouble.startswith("the length prefixes chain as 1 store_var record, but record 0 ")
    assert "does not decode: unknown type id 255" in trouble and "offset 4" in trouble
    assert record_trouble(b"\xff" * 8, G4) is None  # no chain at all
