"""SceneMultiplayer's command bytes and what each Godot 4 release puts on the wire.

Byte 0 of every packet: bits 0-2 the command, bit 3 unused, bits 4-7 per-command flags.
Engine differences are data (:data:`WIRE_VERSIONS`), looked up once, never ``if version`` in
a codec; docs/multiplayer.md ("Versions") says which rows were checked against an engine.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "WIRE_VERSIONS",
    "Command",
    "SysCommand",
    "WireVersion",
    "wire_version",
]

CMD_MASK = 0x07
FLAG_SHIFT = 4
#: The SYNC flag that marks a delta (``0x16``).
SYNC_DELTA_FLAG = 1 << FLAG_SHIFT


class Command(enum.IntEnum):
    """The command in bits 0-2 of byte 0."""

    REMOTE_CALL = 0
    SIMPLIFY_PATH = 1
    CONFIRM_PATH = 2
    RAW = 3
    SPAWN = 4
    DESPAWN = 5
    SYNC = 6
    SYS = 7


class SysCommand(enum.IntEnum):
    """Byte 1 of a SYS packet."""

    AUTH = 0
    ADD_PEER = 1
    DEL_PEER = 2
    RELAY = 3


@dataclass(frozen=True)
class WireVersion:
    """What one engine release puts on the wire.

    ``confirm_by_id``: CONFIRM_PATH carries the u32 cache id (4.3+), not the path (4.0-4.2).
    ``delta_sync``: ``0x16`` delta packets exist (4.1+; a 4.0 peer misreads them).
    ``first_sync_accepted``: a synchronizer takes its first SYNC whatever its time (4.2+).
    ``relay_excludes_negative``: relay target ``-N`` means all but N (4.3+; 4.0-4.2 sent to N).
    ``auth_explicit_completion``: a pending peer is admitted only on its ``07 00`` (4.3+); before,
    any packet after our own completion counted as the peer's.
    """

    name: str
    confirm_by_id: bool
    delta_sync: bool
    first_sync_accepted: bool
    relay_excludes_negative: bool
    auth_explicit_completion: bool


WIRE_VERSIONS: dict[str, WireVersion] = {
    "4.0": WireVersion("4.0", False, False, False, False, False),
    "4.1": WireVersion("4.1", False, True, False, False, False),
    "4.2": WireVersion("4.2", False, True, True, False, False),
    "4.3": WireVersion("4.3", True, True, True, True, True),
    "4.4": WireVersion("4.4", True, True, True, True, True),
    "4.5": WireVersion("4.5", True, True, True, True, True),
    "4.6": WireVersion("4.6", True, True, True, True, True),
}
LATEST = WIRE_VERSIONS["4.6"]


def wire_version(version: str | WireVersion) -> WireVersion:
    """The wire of an engine release: "4.6", "4.2.1" (the patch number is ignored)..."""
    if isinstance(version, WireVersion):
        return version
    key = ".".join(version.split(".")[:2])
    try:
        return WIRE_VERSIONS[key]
    except KeyError:
        known = ", ".join(WIRE_VERSIONS)
        raise ValueError(f"no SceneMultiplayer wire for {version!r} (known: {known})") from None
