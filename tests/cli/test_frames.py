"""``gdvariant frames`` (``gdvariant._cli.frames``) and ``encode --framing``: put_var frames,
as StreamPeer.get_var reads them and put_var writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main


def test_encode_with_framing_writes_what_put_var_sends(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "5", "--framing", "StreamPeer", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == "080000000200000005000000"  # framing.md §1
    assert main(["encode", "5", "--framing", "StreamPeer", "--big-endian", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == "000000080200000005000000"


def test_frames_decodes_a_captured_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "capture.bin"
    path.write_bytes(gd.frame({"seq": 1}) + gd.frame("é") + gd.frame([1, 2])[:-3])
    assert main(["frames", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ['{"seq": 1}', '"é"']
    assert f"ends inside a frame ({len(gd.frame([1, 2])) - 3} bytes)" in captured.err
    assert "2 values" in captured.err


def test_frames_reports_a_bad_frame_and_keeps_what_came_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = gd.frame(7, version="3", framing="PacketPeerStream") + bytes.fromhex("04000000ff000000")
    assert main(["frames", "--hex", data.hex(), "-V", "3", "--framing", "PacketPeerStream"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["7"]
    assert "bad frame: unknown type id 255" in captured.err
    assert "offset 16" in captured.err


def test_frames_refuses_values_that_leave_their_frame_unread(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Godot 3's Dictionary is type 18, Godot 4's Transform3D: 48 bytes read of a longer frame.
    data = gd.frame({"slot": 1, "player": "Ayla"}, version="3") + gd.frame(5, version="3")
    assert main(["frames", "--hex", data.hex()]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "the value in frame 0 (offset 0) ends after 52 bytes, before its frame does" in (
        captured.err
    )
    assert "note: -V 3 reads every whole frame" in captured.err
    assert main(["frames", "--hex", data.hex(), "-V", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "5"


def test_frames_that_do_not_decode_suggest_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.frame([1], version="3")  # Godot 3's Array is type 19, Godot 4's Projection
    assert main(["frames", "--hex", data.hex()]) == 1
    captured = capsys.readouterr()
    assert "offset 4" in captured.err
    assert "note: -V 3 reads every whole frame" in captured.err
