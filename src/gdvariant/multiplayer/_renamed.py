"""Names this package had before its wire got its own namespace, kept working for a while:
each use warns (DeprecationWarning) and names the new one (CHANGELOG.md says what moved)."""

from __future__ import annotations

from typing import Any

from .. import DEFAULT_LIMITS, Limits
from ._scene import Notifier
from .wire import (
    WIRE_VERSIONS,
    Packet,
    WireVersion,
    decode_scene_packet,
    encode_scene_packet,
    wire_version,
)
from .wire._reader import Buffer


def decode_packet(
    data: Buffer,
    *,
    protocol: str | WireVersion = "4.6",
    allow_objects: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Packet:
    """The old name and keywords of :func:`~gdvariant.multiplayer.wire.decode_scene_packet`."""
    return decode_scene_packet(data, version=protocol, allow_objects=allow_objects, limits=limits)


def encode_packet(
    packet: Packet, *, protocol: str | WireVersion = "4.6", full_objects: bool = False
) -> bytes:
    """The old name and keywords of :func:`~gdvariant.multiplayer.wire.encode_scene_packet`."""
    return encode_scene_packet(packet, version=protocol, full_objects=full_objects)


#: old name -> (the object now, its new name)
RENAMED: dict[str, tuple[Any, str]] = {
    "Protocol": (WireVersion, "gdvariant.multiplayer.wire.WireVersion"),
    "PROTOCOLS": (WIRE_VERSIONS, "gdvariant.multiplayer.wire.WIRE_VERSIONS"),
    "get_protocol": (wire_version, "gdvariant.multiplayer.wire.wire_version"),
    "decode_packet": (decode_packet, "gdvariant.multiplayer.wire.decode_scene_packet"),
    "encode_packet": (encode_packet, "gdvariant.multiplayer.wire.encode_scene_packet"),
    "Signal": (Notifier, "gdvariant.multiplayer.Notifier"),
}
