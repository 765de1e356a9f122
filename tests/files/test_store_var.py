"""``store_var`` records (``gdvariant._files.store_var``): dump/load and the many-record forms."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest

import gdvariant as gd

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

VALUES = [42, "héllo wörld", [1, gd.Vector2(1, 2)], {"k": None}, b"\x00\x01"]


def test_a_record_is_store_var_s_bytes() -> None:
    # containers.md §9: the payload starts 08000000 02000000 2a000000 for store_var(42).
    buf = io.BytesIO()
    gd.dump(42, buf)
    assert buf.getvalue() == bytes.fromhex("08000000 02000000 2a000000")
    buf = io.BytesIO()
    gd.dump(1, buf, big_endian=True)  # framing.md: FileAccess.big_endian flips the length only
    assert buf.getvalue() == bytes.fromhex("00000008 02000000 01000000")


@pytest.mark.parametrize("big_endian", [False, True])
def test_many_records_round_trip_in_order(big_endian: bool) -> None:
    buf = io.BytesIO()
    assert gd.dump_all(VALUES, buf, version="3", big_endian=big_endian) == len(VALUES)
    buf.seek(0)
    assert gd.load(buf, version="3", big_endian=big_endian) == VALUES[0]
    assert list(gd.load_all(buf, version="3", big_endian=big_endian)) == VALUES[1:]
    with pytest.raises(EOFError):
        gd.load(buf)


def test_a_cut_record_names_its_file_offset() -> None:
    data = b"".join(gd.records(VALUES))
    first = len(next(gd.records(VALUES[:1])))
    with pytest.raises(gd.DecodeError) as info:
        list(gd.load_all(io.BytesIO(data[:-1])))
    assert info.value.code is gd.GodotError.ERR_FILE_EOF
    with pytest.raises(gd.DecodeError, match="inside a record's length"):
        list(gd.load_all(io.BytesIO(data[: first + 2])))
    bad = data[:first] + struct.pack("<I", 8) + b"\xff" * 8
    with pytest.raises(gd.DecodeError) as info:
        list(gd.load_all(io.BytesIO(bad)))
    assert info.value.offset == first + 4
    assert "bad record" in info.value.reason


def test_a_record_over_max_size_is_refused_before_it_is_read() -> None:
    data = struct.pack("<I", 100) + gd.dumps(b"x" * 92)
    with pytest.raises(gd.DecodeError, match="over the max_size limit") as info:
        gd.load(io.BytesIO(data), limits=gd.Limits(max_size=99))
    assert (info.value.limit, info.value.offset) == ("max_size", 0)
    assert gd.load(io.BytesIO(data), limits=gd.Limits(max_size=100)) == b"x" * 92


def test_a_lying_length_allocates_nothing() -> None:
    import tracemalloc

    data = struct.pack("<I", 0xFFFFFFF0) + b"\0" * 16
    tracemalloc.start()
    with pytest.raises(gd.DecodeError, match="claims 4294967280 bytes"):
        gd.load(io.BytesIO(data), limits=gd.Limits(max_size=None))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 << 20


def test_bytes_after_the_value_inside_a_record_are_skipped() -> None:
    payload = gd.dumps(5) + b"pad!"
    buf = io.BytesIO(struct.pack("<I", len(payload)) + payload + next(gd.records([6])))
    assert list(gd.load_all(buf)) == [5, 6]


def test_a_file_open_in_text_mode_is_a_type_error_that_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "save.dat"
    path.write_bytes(b"".join(gd.records([1, "two"])))
    with path.open() as text, pytest.raises(TypeError, match=r"text mode.*open\(path, 'rb'\)"):
        gd.load(text)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text mode"):
        list(gd.load_all(io.StringIO("abcd")))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"text mode.*'wb'"):
        gd.dump(1, io.StringIO())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="text mode"):
        gd.dump_all([1], io.StringIO())  # type: ignore[arg-type]
