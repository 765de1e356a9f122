"""Length-prefixed framing (``gdvariant._net.framing``), against framing.md's example frames."""

from __future__ import annotations

import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import DecodeError, GodotError, StreamDecoder, frame

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

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


# ---------------------------------------------------------------- the three framings


def test_packet_peer_stream_frames_have_a_little_endian_prefix() -> None:
    # framing.md §1, engine-verified on 3.2.3: PacketPeerStream.put_var(5) over a StreamPeerBuffer.
    assert frame(5, framing="PacketPeerStream") == bytes.fromhex("08000000 02000000 05000000")
    with pytest.raises(ValueError, match="big_endian"):
        frame(5, framing=gd.Framing.PACKET_PEER_STREAM, big_endian=True)
    with pytest.raises(ValueError, match="big_endian"):
        StreamDecoder(framing="PacketPeerStream", big_endian=True)


def test_a_packet_is_the_bare_encoding() -> None:
    assert frame("ab", framing="PacketPeer") == gd.dumps("ab")
    with pytest.raises(ValueError, match="decode_packet"):
        StreamDecoder(framing="PacketPeer")


def _bytes_value_of_size(size: int) -> bytes:
    """A PackedByteArray whose encoding takes exactly ``size`` bytes (size % 4 == 0)."""
    return b"\0" * (size - 8)


def test_packet_peer_stream_sends_only_what_a_default_godot_receiver_takes() -> None:
    # Encodings are whole 4-byte words, so 65528 is the largest that fits in 65531.
    assert len(frame(_bytes_value_of_size(65528), framing="PacketPeerStream")) == 65532
    with pytest.raises(gd.EncodeError, match="65531"):  # 65532 bytes: Godot would stall
        frame(_bytes_value_of_size(65532), framing="PacketPeerStream")
    frame(_bytes_value_of_size(65532), framing="PacketPeerStream", max_size=1 << 20)


def test_packet_peer_stream_receives_what_a_default_godot_sender_sends() -> None:
    dec = StreamDecoder(framing="PacketPeerStream")
    assert dec.max_frame_size == gd.PACKET_PEER_STREAM_MAX_SEND == 65532
    big = frame(_bytes_value_of_size(65532), framing="PacketPeerStream", max_size=65532)
    dec.feed(big)
    assert dec.pending() == 1
    with pytest.raises(DecodeError, match=r"outside 1\.\.65532"):
        dec.feed(struct.pack("<i", 65533))


def test_packet_peer_refuses_what_encode_buffer_max_size_refuses() -> None:
    # PacketPeer.put_var: over 8 MiB is ERR_OUT_OF_MEMORY in 3.2+ and 4.x; 3.0/3.1 and 2.x
    # encode on the stack with no check.
    huge = _bytes_value_of_size(8 * 1024 * 1024 + 4)
    with pytest.raises(gd.EncodeError, match="PacketPeer limit of 8388608"):
        frame(huge, framing="PacketPeer")
    with pytest.raises(gd.EncodeError):
        frame(huge, framing="PacketPeer", version="3.2")
    assert len(frame(huge, framing="PacketPeer", version="3.1")) == len(huge) + 8
    assert gd.get_profile("2").packet_size_limit is None
    assert len(frame(huge)) == len(huge) + 12  # StreamPeer.put_var has no such limit


def test_decode_packet_is_packet_peer_get_var() -> None:
    assert gd.decode_packet(gd.dumps([1, 2]) + b"trailing") == [1, 2]
    assert gd.decode_packet(frame(gd.Quaternion(), version="3", framing="PacketPeer"), version="3")
    with pytest.raises(DecodeError) as info:
        gd.decode_packet(b"\0" * 9, max_size=8)
    assert info.value.code is GodotError.ERR_OUT_OF_MEMORY
    with pytest.raises(DecodeError):
        gd.decode_packet(b"\x04\0\0\0\xff\0\0\0")


def test_the_end_of_a_stream_inside_a_frame_is_an_error() -> None:
    dec = StreamDecoder()
    dec.feed(frame(1) + frame("abc")[:-2])
    with pytest.raises(DecodeError) as info:
        dec.feed_eof()
    assert info.value.code is GodotError.ERR_FILE_EOF
    assert info.value.offset == 12 + 14
    assert list(dec) == [1]
    clean = StreamDecoder()
    clean.feed(frame(1))
    clean.feed_eof()  # between frames: nothing lost
    assert list(clean) == [1]


def test_wire_format_binds_a_connection_s_options() -> None:
    wire = gd.WireFormat(version="3", big_endian=True)
    assert wire.frame(5) == frame(5, version="3", big_endian=True)
    dec = wire.stream_decoder()
    dec.feed(wire.frame(gd.Quaternion(1, 2, 3, 4)))
    assert list(dec) == [gd.Quaternion(1, 2, 3, 4)]
    packets = gd.WireFormat.for_packets({"version": "3"}, "UDP")
    assert packets.is_packet
    assert packets.decode_packet(packets.frame("x")) == "x"
    with pytest.raises(ValueError, match="UDP carries one value per packet"):
        gd.WireFormat.for_packets({"framing": "StreamPeer"}, "UDP")
    with pytest.raises(ValueError, match="big_endian"):
        gd.WireFormat.for_packets({"big_endian": True}, "UDP")
    with pytest.raises(ValueError):
        gd.WireFormat(version="9")


def test_wire_options_name_every_wire_format_field() -> None:
    import dataclasses

    fields = {f.name for f in dataclasses.fields(gd.WireFormat)}
    assert set(gd.WireOptions.__annotations__) == fields
