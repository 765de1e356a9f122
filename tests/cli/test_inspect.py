"""The field walk behind ``gdvariant inspect`` (``gdvariant._cli._fields``) and the command.

Expected fields are written by hand from the spec's layouts (shared/spec/godot4.md §4-§5,
godot3.md, containers.md), not from the walk's own output.
"""

from __future__ import annotations

import json
import struct
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdvariant as gd
from gdvariant._cli import main
from gdvariant._cli._fields import inspect_data, walk_records, walk_value
from gdvariant._engines.profiles import get_profile
from tests.support.paths import EXAMPLES

G4 = get_profile("4")
G3 = get_profile("3")


def _rows(section: object) -> list[tuple[int, str, str]]:
    return [(f.offset, f.raw.hex(), f.path) for f in section.fields]  # type: ignore[attr-defined]


def test_a_string_is_header_length_bytes_padding() -> None:
    section = walk_value(bytes.fromhex("04000000 03000000 616263 00"), G4)
    assert _rows(section) == [
        (0, "04000000", ""),
        (4, "03000000", ""),
        (8, "616263", ""),
        (11, "00", ""),
    ]
    assert [f.what.split(":")[0] for f in section.fields] == [
        "String (type 4)",
        "length",
        "bytes",
        "padding",
    ]
    assert (section.good, section.problem) == (12, None)


def test_containers_give_their_elements_paths() -> None:
    # Dictionary {"a": [1]}: 27, count 1, key String "a" (+3 padding), Array 28, count 1, int.
    data = (
        struct.pack("<II", 27, 1)
        + struct.pack("<II1s3x", 4, 1, b"a")
        + struct.pack("<IIII", 28, 1, 2, 1)
    )
    section = walk_value(data, G4)
    paths = [(f.offset, f.path, f.depth) for f in section.fields]
    assert paths == [
        (0, "", 0),
        (4, "", 0),
        (8, "{key #0}", 1),
        (12, "{key #0}", 1),
        (16, "{key #0}", 1),
        (17, "{key #0}", 1),
        (20, '["a"]', 1),
        (24, '["a"]', 1),
        (28, '["a"][0]', 2),
        (32, '["a"][0]', 2),
    ]
    assert section.fields[7].what == "count: 1 elements"


def test_header_flags_are_named() -> None:
    typed = gd.dumps(gd.TypedArray(gd.VariantType.INT, [5]))  # 28 | builtin << 16, type 2
    section = walk_value(typed, G4)
    assert section.fields[0].what == "Array (type 28), typed: builtin"
    assert section.fields[1].what == "element type: int"
    big = walk_value(struct.pack("<Iq", 2 | 1 << 16, 1 << 40), G4)
    assert big.fields[0].what == "int (type 2), 64-bit"
    assert big.fields[1].what == "payload: 1099511627776"


def test_broken_input_says_how_far_it_is_good_and_why_it_stops() -> None:
    # Array of 2: int 7, then an int header with no payload.
    data = struct.pack("<IIIII", 28, 2, 2, 7, 2)
    section = walk_value(data, G4)
    assert section.good == 16
    assert section.problem_offset == 16
    assert section.problem is not None and "int32 payload missing" in section.problem
    assert [f.offset for f in section.fields] == [0, 4, 8, 12]


def test_trailing_bytes_are_a_problem() -> None:
    section = walk_value(gd.dumps(1) + b"\x00", G4)
    assert (section.good, section.problem_offset) == (8, 8)
    assert section.problem == "1 bytes after the value"


def test_records_show_each_length_then_its_value() -> None:
    data = gd.dumps(5) + b""
    out = struct.pack("<I", len(data)) + data + struct.pack("<I", 12) + gd.dumps("abc")
    section = walk_records(out, G4)
    assert [(f.offset, f.path) for f in section.fields if f.depth == 0] == [(0, "#0"), (12, "#1")]
    assert section.fields[0].what == "record 0 length: 8 bytes"
    assert section.problem is None


def test_a_record_that_claims_too_much_stops_there() -> None:
    section = walk_records(struct.pack("<I", 40) + gd.dumps(1), G4)
    assert section.problem == "record 0 claims 40 bytes, 8 are left"
    assert section.good == 4


def test_a_gdec_file_shows_its_header_then_the_records(tmp_path: Path) -> None:
    path = tmp_path / "g3.sav"
    gd.write_save(path, [1], password="pw", version="3")
    sections = inspect_data(path.read_bytes(), G3, password="pw")
    head, plain = sections
    # containers.md §2, Godot 3: magic, u32 mode 1, MD5, u64 length, then the ciphertext.
    assert [(f.offset, len(f.raw)) for f in head.fields] == [
        (0, 4),
        (4, 4),
        (8, 16),
        (24, 8),
        (32, 16),
    ]
    assert head.fields[3].what == "plaintext length: 12 bytes"
    assert plain.title == "plaintext: store_var records"
    assert plain.problem is None
    assert inspect_data(path.read_bytes(), G3)[-1].title.startswith("GDEC")  # no password


def test_a_gcpf_file_shows_its_block_table(tmp_path: Path) -> None:
    path = tmp_path / "z.sav"
    gd.write_save(path, [bytes(100)], compression=gd.Compression.DEFLATE, block_size=64)
    head = inspect_data(path.read_bytes(), G4)[0]
    # A record of 4 + (4 + 4 + 100) bytes in 64-byte blocks: 112 // 64 + 1 = 2 table entries.
    assert head.fields[3].what == "plaintext size: 112 bytes in 2 blocks"
    assert [f.path for f in head.fields[4:6]] == ["block 0", "block 1"]
    assert head.fields[-1].what == "magic: GCPF (end)"


def test_cli_inspect_prints_a_line_per_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--hex", "0c000000 04000000 03000000 61626300"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "# store_var records: 16 bytes"
    rows = [line.split() for line in out[2:-1]]
    assert [r[0] for r in rows] == ["0", "4", "8", "12", "15"]
    assert out[-1] == "# all 16 bytes read"


def test_cli_inspect_broken_input_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--hex", "1c000000 01000000 02000000"]) == 1
    out = capsys.readouterr().out
    assert "# good: 8 of 12 bytes" in out
    assert "# stops at offset 8: int32 payload missing" in out


def test_cli_inspect_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", "--hex", gd.dumps([1]).hex(), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    (section,) = report["sections"]
    assert [f["offset"] for f in section["fields"]] == [0, 4, 8, 12]
    assert section["fields"][2]["path"] == "[0]"


def test_cli_inspect_names_the_engine_that_fits(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.dumps({"a": 1}, version="3")  # Godot 3's Dictionary (18) is Godot 4's Transform3D
    assert main(["inspect", "--hex", data.hex()]) == 1
    assert "note: -V 3 reads the whole input, as one value" in capsys.readouterr().err


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=64),
        st.builds(lambda b: b"GCPF" + b, st.binary(max_size=40)),
        st.builds(lambda b: gd.dumps([1, "ab", {"k": 2.5}]) + b, st.binary(max_size=8)),
    ),
    st.sampled_from(["4", "3", "2", "pandemonium"]),
)
def test_any_bytes_give_sections_not_exceptions(data: bytes, version: str) -> None:
    sections = inspect_data(data, get_profile(version))
    for section in sections:
        assert 0 <= section.good <= section.size
        assert (section.problem is None) == (section.problem_offset is None)
        assert all(f.offset + len(f.raw) <= section.size for f in section.fields)


def test_cli_inspect_of_godot3_records_without_v3_exits_1_with_decodes_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Godot 3's records read as Godot 4 leave bytes of their records unread (Godot 3's
    Dictionary, 18, is Godot 4's Transform3D): the dump is shown, but it is not Godot 4 data."""
    save = str(EXAMPLES / "godot3_save.sav")
    assert main(["decode", save]) == 1
    note = capsys.readouterr().err.splitlines()[-1]
    assert note == "note: -V 3 reads the whole input, as 3 store_var records"
    assert main(["inspect", save]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [note]
    assert "not Godot 4.6 records" in captured.out.splitlines()[-1]
    assert main(["inspect", save, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["sections"][0]["unread_records"] == 2
    assert main(["inspect", "-V", "3", save]) == 0


def test_cli_inspect_prints_as_it_walks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Memory stays small however long the dump: the lines go out as the fields are found
    (it used to keep every field of every record first: 593 MB for a 7.8 MB save)."""
    path = tmp_path / "big.sav"
    gd.write_save(path, [{"id": i, "name": "abcd", "at": gd.Vector2(i, 2)} for i in range(1500)])
    out = tmp_path / "dump.txt"
    with out.open("w") as sink:
        monkeypatch.setattr("sys.stdout", sink)
        tracemalloc.start()
        try:
            assert main(["inspect", str(path)]) == 0
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    lines = out.read_text().splitlines()
    # a record's fields: its length, the Dictionary's header and count, and for each of the
    # 3 pairs: the key's header, length, bytes and padding (none for "name"), the value's
    # header and payload (a String: header, length, bytes)
    assert len(lines) == 3 + 1500 * (3 + 3 * 4 - 1 + 2 + 3 + 2)
    assert lines[-1] == f"# all {path.stat().st_size} bytes read"
    assert peak < out.stat().st_size / 2, (peak, out.stat().st_size)
