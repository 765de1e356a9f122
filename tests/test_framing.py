"""Length-prefixed framing (``gdvariant._framing``), against framing.md's example frames."""

from __future__ import annotations

import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import DecodeError, GodotError, StreamDecoder, frame

MESSAGES: list[Any] = [5, "abc", [1, {"k": gd.Vector2(1, 2)}], None, b"\x01\x02\x03"]


def test_frames_are_stream_peer_put_var() -> None:
    # framing.md §1, engine-verified on 3.2.3: StreamPeerBuffer.put_var(5), with big_endian.
    assert frame(5) == bytes.fromhex("08000000 02000000 05000000")
    assert frame(5, big_endian=True) == bytes.fromhex("00000008 02000000 05000000")
    assert frame("abc") == bytes.fromhex("0c000000 04000000 03000000 61626300")
    assert frame(5, version="3") == frame(5)  # INT is 2 everywhere
    assert frame(gd.Quaternion(), version="3")[4] == 10  # Godot 3's QUAT


def _stream(messages: list[Any], **options: Any) -> bytes:
    return b"".join(frame(m, big_endian=options.get("big_endian", False)) for m in messages)


def test_every_split_point_gives_the_values_in_order() -> None:
    data = _stream(MESSAGES)
    for cut in range(len(data) + 1):
        dec = StreamDecoder()
        dec.feed(data[:cut])
        got = list(dec)
        dec.feed(data[cut:])
        got += list(dec)
        assert got == MESSAGES, cut
        assert dec.buffered == 0


def test_byte_by_byte_and_all_at_once() -> None:
    data = _stream(MESSAGES * 20, big_endian=True)
    dec = StreamDecoder(big_endian=True)
    got = []
    for i in range(len(data)):
        dec.feed(data[i : i + 1])
        got += list(dec)
    assert got == MESSAGES * 20
    whole = StreamDecoder(big_endian=True)
    whole.feed(memoryview(data))
    assert whole.pending() == len(MESSAGES) * 20
    assert [whole.next_value() for _ in range(5)] == MESSAGES
    with pytest.raises(IndexError):
        StreamDecoder().next_value()


def test_an_oversized_frame_is_refused_before_its_bytes_arrive() -> None:
    dec = StreamDecoder(max_frame_size=1024)
    dec.feed(frame(1))
    with pytest.raises(DecodeError) as info:
        dec.feed(struct.pack("<i", 1025) + b"\0" * 10)
    assert info.value.offset == 12  # where the bad frame starts in the stream
    assert info.value.code is GodotError.ERR_OUT_OF_MEMORY
    assert dec.next_value() == 1  # what came before is kept
    with pytest.raises(DecodeError):  # and the decoder stays broken
        dec.feed(frame(2))


@pytest.mark.parametrize("size", [0, -1, -(2**31)])
def test_empty_and_negative_frames_are_refused(size: int) -> None:
    dec = StreamDecoder()
    with pytest.raises(DecodeError, match="frame length"):
        dec.feed(struct.pack("<i", size))


def test_a_frame_that_does_not_decode_names_its_stream_offset() -> None:
    bad = frame([1, "ab"]).replace(b"ab", b"\xff\xfe")
    dec = StreamDecoder()
    with pytest.raises(DecodeError) as info:
        dec.feed(frame(7) + bad)
    assert info.value.path == "[1]"
    assert info.value.offset == 12 + 4 + 24  # second frame, its payload, the string bytes
    assert list(dec) == [7]


def test_bytes_after_the_value_inside_a_frame_are_ignored_as_godot_does() -> None:
    payload = gd.dumps(5) + b"junk"
    dec = StreamDecoder()
    dec.feed(struct.pack("<i", len(payload)) + payload + frame(6))
    assert list(dec) == [5, 6]


def test_objects_stay_off_unless_allowed() -> None:
    obj = gd.GodotObject("Resource", {"resource_name": "x"})
    data = frame(obj, full_objects=True)
    with pytest.raises(DecodeError) as info:
        StreamDecoder().feed(data)
    assert info.value.code is GodotError.ERR_UNAUTHORIZED
    dec = StreamDecoder(allow_objects=True)
    dec.feed(data)
    assert list(dec) == [obj]


def test_version_is_honoured() -> None:
    dec = StreamDecoder(version="3.6")
    dec.feed(frame(gd.RID(), version="3.6"))
    assert list(dec) == [gd.RID()]
    with pytest.raises(ValueError):
        StreamDecoder(max_frame_size=3)
