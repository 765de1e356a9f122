"""SIMPLIFY_PATH, CONFIRM_PATH and the path caches (gdvariant.multiplayer.wire._paths)."""

from __future__ import annotations

import pytest

from gdvariant import DecodeError
from gdvariant.multiplayer import ProtocolError
from gdvariant.multiplayer.wire import (
    EMPTY_CHECKSUM,
    ConfirmPath,
    ReceiveCache,
    SendCache,
    SimplifyPath,
    decode_scene_packet,
    encode_scene_packet,
)
from gdvariant.multiplayer.wire._paths import MAX_PATHS

MD5 = EMPTY_CHECKSUM.encode().hex()


def test_simplify_layout() -> None:
    packet = SimplifyPath(1, "Main/MultiplayerSpawner")
    hex_ = "01" + MD5 + "00" + "01000000" + b"Main/MultiplayerSpawner\0".hex()
    assert encode_scene_packet(packet).hex() == hex_
    assert decode_scene_packet(bytes.fromhex(hex_)) == packet


def test_confirm_forms_by_version() -> None:
    assert encode_scene_packet(ConfirmPath(True, 1)).hex() == "020101000000"
    assert encode_scene_packet(ConfirmPath(False, 258), version="4.3").hex() == "020002010000"
    old = ConfirmPath(True, path="Main")
    assert encode_scene_packet(old, version="4.2").hex() == "0201" + b"Main\0".hex()
    assert decode_scene_packet(bytes.fromhex("0201" + b"Main\0".hex()), version="4.2") == old
    assert decode_scene_packet(bytes.fromhex("020101000000")) == ConfirmPath(True, 1)
    with pytest.raises(ValueError, match="carries the path"):
        encode_scene_packet(ConfirmPath(True, 1), version="4.1")


@pytest.mark.parametrize(
    ("hex_", "version"),
    [
        ("01" + MD5 + "00" + "010000", "4.6"),  # shorter than 38 bytes
        ("01" + MD5 + "00" + "01000000", "4.6"),  # no path
        ("01" + MD5 + "00" + "01000000" + "ff00", "4.6"),  # path not UTF-8
        ("0201010000", "4.6"),  # 5 bytes
        ("02010100000000", "4.6"),  # 7 bytes
        ("020201000000", "4.6"),  # valid flag 2
        ("0201", "4.2"),  # no path
    ],
)
def test_malformed(hex_: str, version: str) -> None:
    with pytest.raises(DecodeError):
        decode_scene_packet(bytes.fromhex(hex_), version=version)


def test_send_cache_ids_and_confirmation() -> None:
    cache = SendCache()
    first = cache.simplify(7, "Main/A", "a" * 32)
    assert first == SimplifyPath(1, "Main/A", "a" * 32)
    assert cache.simplify(7, "Main/A") is None  # once per peer
    assert cache.simplify(8, "Main/A") == SimplifyPath(1, "Main/A")  # same id for every peer
    assert cache.simplify(7, "Main/B") == SimplifyPath(2, "Main/B")
    assert cache.cache_id("Main/C") == 3
    assert not cache.is_confirmed(7, "Main/A")
    assert cache.checksum_valid(7, "Main/A") is None
    assert cache.confirm(7, ConfirmPath(False, 1))
    assert cache.is_confirmed(7, "Main/A") and not cache.is_confirmed(8, "Main/A")
    assert cache.checksum_valid(7, "Main/A") is False
    assert not cache.confirm(7, ConfirmPath(True, 3))  # never sent to 7: ignored
    assert cache.confirm(8, ConfirmPath(True, path="Main/A"))  # the 4.0-4.2 form
    assert cache.path(2) == "Main/B"
    cache.remove_peer(7)
    assert not cache.is_confirmed(7, "Main/A")
    assert cache.simplify(7, "Main/A") is not None


def test_receive_cache_per_peer() -> None:
    cache = ReceiveCache()
    cache.add(5, SimplifyPath(1, "Main/P", "b" * 32))
    cache.add(6, SimplifyPath(1, "Main/Q"))
    assert cache.path(5, 1) == "Main/P"
    assert cache.path(6, 1) == "Main/Q"
    assert cache.checksum(5, 1) == "b" * 32
    with pytest.raises(ProtocolError, match="reused"):
        cache.add(5, SimplifyPath(1, "Main/R"))
    with pytest.raises(DecodeError, match="before simplifying"):
        cache.path(5, 2)
    cache.remove_peer(5)
    with pytest.raises(ProtocolError):
        cache.path(5, 1)


def test_receive_cache_forgets_the_oldest_past_its_bound() -> None:
    """Found by fuzz/fuzz_server.py's rules: a client that sent SIMPLIFY_PATH for a path the
    server has, with a new id each time, grew the server's cache by ~250 bytes a packet with
    no end. Past ``max_paths`` a peer's oldest id is forgotten, the others' untouched."""
    cache = ReceiveCache(max_paths=3)
    cache.add(6, SimplifyPath(9, "Main/Q"))
    for cache_id in range(1, 6):
        cache.add(5, SimplifyPath(cache_id, f"Main/P{cache_id}"))
    assert [cache.path(5, i) for i in (3, 4, 5)] == ["Main/P3", "Main/P4", "Main/P5"]
    for forgotten in (1, 2):
        with pytest.raises(ProtocolError, match="before simplifying"):
            cache.path(5, forgotten)
    assert cache.path(6, 9) == "Main/Q"
    assert ReceiveCache().max_paths == MAX_PATHS
    with pytest.raises(ValueError, match="at least 1"):
        ReceiveCache(max_paths=0)


def test_receive_cache_keeps_the_paths_still_called_on() -> None:
    """The bound forgets the id least recently named or called on: a client's player node,
    simplified first and called on since, outlives the thousands of paths named after it
    (ids of nodes the client freed, which it names no more)."""
    cache = ReceiveCache(max_paths=3)
    cache.add(5, SimplifyPath(1, "Main/Player"))
    for cache_id in range(2, 40):
        cache.add(5, SimplifyPath(cache_id, f"Main/Shot{cache_id}"))
        assert cache.path(5, 1) == "Main/Player"  # an RPC on the player between two shots
    assert [cache.path(5, i) for i in (38, 39)] == ["Main/Shot38", "Main/Shot39"]
    with pytest.raises(ProtocolError, match="before simplifying"):
        cache.path(5, 37)


def test_checksum_is_32_bytes_and_a_skipped_33rd() -> None:
    # Godot reads the checksum as 32 bytes and skips the next one unread (found by fuzzing).
    hex_ = "01" + MD5 + "54" + "01000000" + b"Main\0".hex()
    assert decode_scene_packet(bytes.fromhex(hex_)) == SimplifyPath(1, "Main")
    short = SimplifyPath(1, "Main", "abc")
    data = encode_scene_packet(short)
    assert data.hex() == "01" + b"abc".hex() + "00" * 30 + "01000000" + b"Main\0".hex()
    assert decode_scene_packet(data) == short
    with pytest.raises(ValueError, match="longer than 32"):
        encode_scene_packet(SimplifyPath(1, "Main", "a" * 33))


def test_nul_inside_a_path_is_refused() -> None:
    with pytest.raises(ValueError, match="NUL"):
        encode_scene_packet(SimplifyPath(1, "Main\0x"))
