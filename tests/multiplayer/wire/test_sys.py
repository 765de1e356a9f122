"""RAW and the SYS packets (gdvariant.multiplayer.wire._sys); bytes by hand."""

from __future__ import annotations

import pytest

from gdvariant import DecodeError
from gdvariant.multiplayer.wire import (
    AddPeer,
    Auth,
    DelPeer,
    Raw,
    Relay,
    decode_scene_packet,
    encode_scene_packet,
)

CASES = [
    (Raw(b"x"), "0378"),
    (Auth(b"hi"), "07006869"),
    (Auth(), "0700"),
    (AddPeer(123456), "070140e20100"),
    (DelPeer(123456), "070240e20100"),
    (Relay(123456, b"\x03x"), "070340e201000378"),
    (Relay(1957332416, b"\x03x"), "0703c085aa740378"),
    (Relay(0, b"\x03\x06"), "0703000000000306"),
    (Relay(-5, b"\x03\x06"), "0703fbffffff0306"),
]


@pytest.mark.parametrize(("packet", "hex_"), CASES)
def test_layouts(packet: object, hex_: str) -> None:
    assert encode_scene_packet(packet).hex() == hex_  # type: ignore[arg-type]
    assert decode_scene_packet(bytes.fromhex(hex_)) == packet


def test_auth_completed() -> None:
    assert Auth().completed and not Auth(b"x").completed


@pytest.mark.parametrize(
    "hex_",
    ["03", "07", "0704", "07ff", "070140e201", "070140e2010000", "070340e20100", "1378", "1700"],
)
def test_malformed(hex_: str) -> None:
    with pytest.raises(DecodeError):
        decode_scene_packet(bytes.fromhex(hex_))


def test_encode_refuses_empty_payloads() -> None:
    with pytest.raises(ValueError, match="RAW"):
        encode_scene_packet(Raw(b""))
    with pytest.raises(ValueError, match="RELAY"):
        encode_scene_packet(Relay(2, b""))
