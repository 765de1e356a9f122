"""Godot 2's Image and InputEvent values (``gdvariant._values.godot2``): godot2.md §5 and §6."""

from __future__ import annotations

import pickle
import struct

import pytest

import gdvariant as gd
from gdvariant import DecodeError, EncodeError, Image, InputEvent, InputEventType

E = InputEventType


def test_image_fields_and_equality() -> None:
    img = Image(4, 0, 1, 1, b"\x01\x02\x03\x04")
    assert (img.format, img.mipmaps, img.width, img.height, img.data) == (4, 0, 1, 1, b"\1\2\3\4")
    assert img == Image(4, 0, 1, 1, bytearray(b"\1\2\3\4"))
    assert img != Image(4, 0, 1, 1, b"")
    assert pickle.loads(pickle.dumps(img)) == img
    assert hash(img) == hash(Image(4, 0, 1, 1, b"\1\2\3\4"))


def test_empty_image_is_24_bytes() -> None:
    # §5: format, mipmaps, width, height, length 0.
    data = struct.pack("<6I", 15, 0, 0, 0, 0, 0)
    assert gd.dumps(Image(), version="2") == data
    assert gd.decode(data, version="2") == (Image(), 24)


def test_image_data_is_padded() -> None:
    img = Image(3, 0, 1, 1, b"\xff\x00\x80")  # RGB 1x1
    data = gd.dumps(img, version="2")
    assert data == struct.pack("<6I", 15, 3, 0, 1, 1, 3) + b"\xff\x00\x80\x00"
    assert gd.loads(data, version="2") == img
    # Godot 2 leaves the padding unwritten: any byte there reads the same.
    assert gd.loads(data[:-1] + b"\xaa", version="2") == img
    # ...and counts it even when the data ends without it, like PackedByteArray.
    assert gd.decode(data[:-1], version="2") == (img, 28)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (struct.pack("<6I", 15, 23, 0, 0, 0, 0), "format"),  # FORMAT_MAX
        (struct.pack("<5Ii", 15, 4, 0, 1, 1, -4), "runs past"),  # negative length
        (struct.pack("<6I", 15, 4, 0, 1, 1, 4) + b"\0\0", "runs past"),
        (struct.pack("<5I", 15, 4, 0, 1, 1), "header"),
    ],
)
def test_bad_images(data: bytes, why: str) -> None:
    with pytest.raises(DecodeError, match=why):
        gd.loads(data, version="2")


def test_image_encode_checks_the_format() -> None:
    with pytest.raises(EncodeError, match="format"):
        gd.dumps(Image(23), version="2")


EVENTS = [
    # (event, extra payload words after type/device/length, total length word)
    (InputEvent(E.NONE, 1), b"", 12),
    (InputEvent(E.KEY, 2, InputEvent.MASK_SHIFT | InputEvent.MASK_CTRL, 65), "mods", 20),
    (InputEvent(E.MOUSE_MOTION, 0), b"", 12),
    (InputEvent(E.MOUSE_BUTTON, 0, code=2), struct.pack("<i", 2), 16),
    (InputEvent(E.JOYSTICK_MOTION, 3, code=1, axis_value=-0.5), struct.pack("<if", 1, -0.5), 20),
    (InputEvent(E.JOYSTICK_BUTTON, 3, code=7), struct.pack("<i", 7), 16),
    (InputEvent(E.SCREEN_TOUCH, 0, code=4), struct.pack("<i", 4), 16),
    (InputEvent(E.SCREEN_DRAG, 0), b"", 12),
    (InputEvent(E.ACTION, 0), b"", 12),
]


@pytest.mark.parametrize(("event", "extra", "length"), EVENTS, ids=lambda x: str(x)[:30])
def test_input_events_round_trip(event: InputEvent, extra: bytes | str, length: int) -> None:
    if extra == "mods":
        extra = struct.pack("<Ii", (1 << 25) | (1 << 28), 65)
    assert isinstance(extra, bytes)
    data = struct.pack("<IIiI", 19, event.type, event.device, length) + extra
    assert gd.dumps(event, version="2") == data
    assert gd.decode(data, version="2") == (event, len(data))


def test_input_event_length_word_is_ignored_and_size_follows_the_type() -> None:
    key = struct.pack("<IIiIIi", 19, E.KEY, 0, 999, 1 << 26, 32)
    assert gd.decode(key, version="2") == (InputEvent(E.KEY, 0, 1 << 26, 32), 24)
    # A field-less event needs 8 bytes after the header but counts 12.
    assert gd.decode(struct.pack("<IIi", 19, E.ACTION, 5), version="2")[1] == 16
    # Unknown event types (not validated by Godot 2) count as field-less.
    assert gd.decode(struct.pack("<IIiI", 19, 42, 0, 12), version="2")[1] == 16


def test_input_event_decoder_keeps_only_the_modifier_bits() -> None:
    data = struct.pack("<IIiIIi", 19, E.KEY, 0, 20, 0xFFFFFFFF, 1)
    assert gd.loads(data, version="2").modifiers == InputEvent.MODIFIER_MASK
    with pytest.raises(EncodeError, match="modifiers"):
        gd.dumps(InputEvent(E.KEY, modifiers=1), version="2")


@pytest.mark.parametrize("cut", [4, 8, 12, 16, 19])
def test_truncated_key_events(cut: int) -> None:
    data = gd.dumps(InputEvent(E.KEY, 0, 0, 65), version="2")
    with pytest.raises(DecodeError):
        gd.loads(data[:cut], version="2")


def test_only_godot2_has_them() -> None:
    for version in ("3", "4", "pandemonium"):
        with pytest.raises(EncodeError, match="IMAGE"):
            gd.dumps([Image()], version=version)
        with pytest.raises(EncodeError, match="INPUT_EVENT"):
            gd.dumps(InputEvent(), version=version)
