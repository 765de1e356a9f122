"""SPAWN, DESPAWN, SYNC and delta SYNC (gdvariant.multiplayer.wire._spawn_sync); bytes by hand."""

from __future__ import annotations

import pytest

from gdvariant import DecodeError, Vector2
from gdvariant.multiplayer.wire import (
    CUSTOM_SCENE,
    DeltaState,
    DeltaSync,
    Despawn,
    Spawn,
    Sync,
    SyncState,
    decode_scene_packet,
    encode_scene_packet,
)

POSITION = "050000000000c84200004843"  # Vector2(100, 200)
SPAWN_HEX = (
    "04" "00" "01000000" "01000000" "01000000" "07000000" "02000000" + b"Player\0".hex()
    + POSITION + "0264"
)  # fmt: skip


def test_spawn_layout() -> None:
    spawn = Spawn(1, 1, "Player", (2,), (Vector2(100, 200), 100))
    assert encode_scene_packet(spawn).hex() == SPAWN_HEX
    assert decode_scene_packet(bytes.fromhex(SPAWN_HEX)) == spawn


def test_custom_spawn_carries_its_argument() -> None:
    spawn = Spawn(5, 3, "B", (), (), CUSTOM_SCENE, 7)
    hex_ = "04ff050000000300000000000000020000004200" + "02000000" + "0207"
    assert encode_scene_packet(spawn).hex() == hex_
    assert decode_scene_packet(bytes.fromhex(hex_)) == spawn
    nil = Spawn(5, 4, "C", scene_id=CUSTOM_SCENE)
    assert encode_scene_packet(nil).hex().endswith("0400000000000000")


@pytest.mark.parametrize(
    "hex_",
    [
        SPAWN_HEX[:34],  # shorter than 18 bytes
        "04000100000001000000ffffff0007000000",  # K too large
        "040001000000010000000000000000000000",  # empty name
        "04000100000001000000000000000100000000",  # name of only a NUL
        "0400010000000100000000000000050000004100",  # name past the end
        SPAWN_HEX[:-2],  # last value cut
        "04ff010000000100000000000000020000004200030000000207",  # arg size
        "04ff010000000100000000000000020000004200010000000207",  # arg cut
    ],
)
def test_malformed_spawn(hex_: str) -> None:
    with pytest.raises(DecodeError):
        decode_scene_packet(bytes.fromhex(hex_))


def test_despawn() -> None:
    assert encode_scene_packet(Despawn(1)).hex() == "0501000000"
    assert decode_scene_packet(bytes.fromhex("0501000000")) == Despawn(1)
    for hex_ in ("05010000", "050100000000"):
        with pytest.raises(DecodeError):
            decode_scene_packet(bytes.fromhex(hex_))


def test_sync_layout() -> None:
    sync = Sync(1, (SyncState(2, (Vector2(100, 200),)), SyncState(0x80000002, (0,))))
    hex_ = "060100020000000c000000" + POSITION + "02000080020000000200"
    assert encode_scene_packet(sync).hex() == hex_
    assert decode_scene_packet(bytes.fromhex(hex_)) == sync


def test_sync_state_may_be_empty() -> None:
    hex_ = "0602000200000000000000"
    assert decode_scene_packet(bytes.fromhex(hex_)) == Sync(2, (SyncState(2, ()),))


@pytest.mark.parametrize(
    "hex_",
    [
        "060100",  # no state
        "060100020000000d000000" + POSITION,  # size past the end
        "060100020000000b000000" + POSITION,  # size cuts the value
        "0601000200000002000000020001",  # trailing byte
        "26010002000000020000000200",  # unknown SYNC flag
    ],
)
def test_malformed_sync(hex_: str) -> None:
    with pytest.raises(DecodeError):
        decode_scene_packet(bytes.fromhex(hex_))


@pytest.mark.parametrize(
    ("hex_", "field", "offset"),
    [
        ("0601000200", "net id", 3),  # a net id cut short
        ("060100020000000c00", "state size", 7),  # a size cut short
        ("060100020000000c000000" + POSITION[:8], "state", 11),  # a state cut short
        ("0601000200000002000000020002000000", "state size", 17),  # the second state's
    ],
)
def test_malformed_sync_names_the_field(hex_: str, field: str, offset: int) -> None:
    """A SYNC's state heads are read in one call each; an error still names what is cut."""
    with pytest.raises(DecodeError, match=f"SYNC: truncated {field} ") as caught:
        decode_scene_packet(bytes.fromhex(hex_))
    assert caught.value.offset == offset


def test_delta_layout() -> None:
    delta = DeltaSync((DeltaState(2, 0b101, (90, "x")),))
    hex_ = "160200000005000000000000000e000000025a040000000100000078000000"
    assert encode_scene_packet(delta).hex() == hex_
    assert decode_scene_packet(bytes.fromhex(hex_)) == delta
    health = "160200000001000000000000000300000042e803"
    assert decode_scene_packet(bytes.fromhex(health)) == DeltaSync((DeltaState(2, 1, (1000,)),))


@pytest.mark.parametrize(
    "hex_",
    [
        "16",  # no state
        "16020000000000000000000000020000000200",  # empty mask
        "16020000000300000000000000020000000200",  # two bits, one value
        "1602000000010000000000000003000000020000",  # size too large
    ],
)
def test_malformed_delta(hex_: str) -> None:
    with pytest.raises(DecodeError):
        decode_scene_packet(bytes.fromhex(hex_))


def test_delta_needs_godot_41() -> None:
    hex_ = "16020000000100000000000000020000000200"
    with pytest.raises(DecodeError, match="no delta sync"):
        decode_scene_packet(bytes.fromhex(hex_), version="4.0")
    assert decode_scene_packet(bytes.fromhex(hex_), version="4.1")
    with pytest.raises(ValueError, match="no delta sync"):
        encode_scene_packet(DeltaSync((DeltaState(2, 1, (0,)),)), version="4.0")


def test_encode_checks() -> None:
    with pytest.raises(ValueError, match="does not match"):
        encode_scene_packet(DeltaSync((DeltaState(2, 0b11, (1,)),)))
    with pytest.raises(ValueError, match="does not match"):
        encode_scene_packet(DeltaSync((DeltaState(2, 1 << 64, (1,)),)))
    with pytest.raises(ValueError, match="at least one"):
        encode_scene_packet(DeltaSync(()))
    with pytest.raises(ValueError, match="at least one"):
        encode_scene_packet(Sync(1, ()))
    with pytest.raises(ValueError, match="byte"):
        encode_scene_packet(Spawn(1, 1, "A", scene_id=256))
