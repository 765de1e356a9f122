"""Dispatch, wire versions and hostile input (gdvariant.multiplayer.wire: _packets, _version)."""

from __future__ import annotations

import contextlib
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdvariant as gd
import gdvariant.multiplayer as mp
from gdvariant.multiplayer.wire import (
    WIRE_VERSIONS,
    Command,
    ConfirmPath,
    DeltaState,
    DeltaSync,
    Packet,
    RemoteCall,
    Spawn,
    Sync,
    SyncState,
    decode_scene_packet,
    encode_scene_packet,
    wire_version,
)
from tests.support.paths import VECTORS
from tests.support.random_values import random_value

SESSION = VECTORS / "multiplayer/session.json"
GOLDEN = [
    bytes.fromhex(p["hex"])
    for p in json.loads(SESSION.read_text(encoding="utf-8"))["packets"]
    if len(p["hex"]) != 8 or p["dir"] != "s2c"
]


def test_wire_version_table() -> None:
    assert wire_version("4.6.3") is WIRE_VERSIONS["4.6"]
    assert wire_version(WIRE_VERSIONS["4.2"]).confirm_by_id is False
    assert [p.confirm_by_id for p in WIRE_VERSIONS.values()] == [False] * 3 + [True] * 4
    with pytest.raises(ValueError, match="known"):
        wire_version("3.6")


def test_every_command_has_a_codec() -> None:
    assert {Command(b & 7) for b in range(8)} == set(Command)
    for command in Command:
        with pytest.raises(gd.DecodeError):
            decode_scene_packet(bytes([command]))


def test_exports() -> None:
    assert sorted(mp.__all__) == sorted(set(mp.__all__))
    assert all(hasattr(mp, name) for name in mp.__all__)


def test_protocol_errors_are_decode_errors() -> None:
    assert issubclass(mp.ProtocolError, gd.DecodeError)


def test_objects_only_when_allowed() -> None:
    obj = gd.GodotObject("Node", {})
    data = encode_scene_packet(RemoteCall(0, (obj, 1), node_id=1), full_objects=True)
    with pytest.raises(gd.DecodeError):
        decode_scene_packet(data)
    assert decode_scene_packet(data, allow_objects=True).args[0].class_name == "Node"  # type: ignore[union-attr]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(GOLDEN), st.data())
def test_cut_golden_packets_raise_only_decode_errors(packet: bytes, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(packet) - 1))
    with contextlib.suppress(gd.DecodeError):
        decode_scene_packet(packet[:cut])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=96))
def test_random_bytes_raise_only_decode_errors(data: bytes) -> None:
    for version in ("4.0", "4.2", "4.6"):
        with contextlib.suppress(gd.DecodeError):
            decode_scene_packet(data, version=version)


def _values(seed: int, count: int) -> tuple[object, ...]:
    rng = random.Random(seed)
    return tuple(random_value(rng) for _ in range(count))


ids = st.integers(0, 2**31 - 1)
packets = st.one_of(
    st.builds(
        lambda m, seed, n, node, path: RemoteCall(m, _values(seed, n), node, path),
        st.integers(0, 0xFFFF),
        st.integers(0, 2**32),
        st.integers(0, 8),
        ids,
        st.one_of(st.none(), st.text(min_size=1).filter(lambda s: "\0" not in s)),
    ),
    st.builds(ConfirmPath, st.booleans(), st.integers(0, 2**32 - 1)),
    st.builds(
        lambda seed, n, name, k: Spawn(1, 2, name, tuple(range(3, 3 + k)), _values(seed, n)),
        st.integers(0, 2**32),
        st.integers(0, 5),
        st.text(min_size=1).filter(lambda s: "\0" not in s),
        st.integers(0, 4),
    ),
    st.builds(
        lambda t, seed, n: Sync(t, (SyncState(2, _values(seed, n)), SyncState(3, ()))),
        st.integers(0, 0xFFFF),
        st.integers(0, 2**32),
        st.integers(0, 5),
    ),
    st.builds(
        lambda mask, seed: DeltaSync((DeltaState(9, mask, _values(seed, mask.bit_count())),)),
        st.integers(1, 2**64 - 1),
        st.integers(0, 2**32),
    ),
)


@settings(max_examples=150, deadline=None)
@given(packets)
def test_packets_round_trip(packet: Packet) -> None:
    data = encode_scene_packet(packet)
    again = decode_scene_packet(data)
    assert encode_scene_packet(again) == data
    assert type(again) is type(packet)
