"""One network frame as bytes (gdvariant.multiplayer._pysync, the reference of the compiled
frame): what is encoded how often, how watched values are judged, how packets are cut. Which
packets a sync sends, and to whom, are in tests/multiplayer/test_scene.py and
tests/multiplayer/test_replicator.py; the compiled frame is compared with this one in
tests/multiplayer/test_csync.py."""

from __future__ import annotations

from typing import Any

import pytest

from gdvariant import Color, dumps
from gdvariant._binary import core
from gdvariant.multiplayer import SceneMultiplayer, SpawnableScene, _frame, synced_class
from gdvariant.multiplayer._pysync import frame, new_record
from gdvariant.multiplayer.wire import SyncClock, encode_compressed
from gdvariant.replication import NetClass, Prop, Variant
from tests.support.multiplayer_fake import FakeServer

ENCODER = _frame.encoder()


class Lamp(NetClass):
    """Values no frame encodes inline: every encoding of them is a call of the codec core."""

    colour = Prop(Variant(), hot=True)
    glow = Prop(Variant())


LAMP = SpawnableScene("res://lamp.tscn", synced_class(Lamp))


def test_a_frame_encodes_each_node_once_and_nothing_that_did_not_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """However many peers hold a node, its state is encoded once per frame; a frame where
    no value changed (ALWAYS or ON_CHANGE) encodes nothing at all."""
    server = FakeServer()
    mp = SceneMultiplayer(server)
    spawner = mp.add_spawner("Main/Spawner", "Main/Lamps", [LAMP])
    for peer in (5, 6, 7):
        server.join(peer)
    lamps = [
        spawner.spawn(0, f"L{i}", {"colour": Color(i, 0, 0), "glow": Color(0, i, 0)})
        for i in range(4)
    ]
    calls: list[Any] = []
    live = core.encode_value

    def counting(value: Any, profile: Any, full_objects: bool) -> bytes:
        calls.append(value)
        return live(value, profile, full_objects)

    monkeypatch.setattr(core, "encode_value", counting)
    mp.sync()
    assert len(calls) == 8  # 4 nodes x (colour + glow), for 3 peers
    calls.clear()
    for _ in range(3):
        mp.sync()
    assert calls == []  # nothing changed: nothing encoded
    lamps[1].state.colour = Color(1, 0, 0)  # an equal value, but another object
    lamps[2].state.glow = Color(0, 9, 0)
    server.join(8)  # a new peer: its spawns aside, it shares the frame's bytes
    server.take()
    server.encoded.clear()
    calls.clear()
    mp.sync()
    assert calls == [Color(1, 0, 0), Color(0, 9, 0)]
    syncs = [data for peer, data in server.encoded if data[0] == 6]
    assert len(syncs) == 4 and len({data[3:] for data in syncs}) == 1  # the same entries


def _record(raw: list[Any], holders: tuple[int, ...]) -> list[Any]:
    return new_record(7, raw, (), tuple(range(len(raw))), None, holders, {})


def _deltas(record: list[Any], peers: list[int]) -> dict[int, list[bytes]]:
    """The delta packets of one frame of ``record``, by peer (those with any)."""
    sends, _ = frame(
        [record], {p: i for i, p in enumerate(peers)}, [SyncClock()] * len(peers), ENCODER
    )
    return {peers[slot]: deltas for slot, syncs, deltas in sends if deltas}


def test_watched_values_are_judged_by_their_bytes() -> None:
    """The shortcuts for unchanged values never hide a change of bytes: 1 then True, 0.0
    then -0.0 are changes; an equal int or str, or the same float object, is not."""
    raw: list[Any] = [1, "é", 0.0]
    record = _record(raw, (5,))
    values = encode_compressed(1) + encode_compressed("é") + encode_compressed(0.0)
    head = b"\x16" + (7).to_bytes(4, "little") + bytes([7]) + bytes(7)
    assert _deltas(record, [5]) == {5: [head + len(values).to_bytes(4, "little") + values]}
    raw[1] = "".join(["é"])  # equal, another object
    assert _deltas(record, [5]) == {}
    raw[0], raw[2] = True, -0.0
    changed = encode_compressed(True) + dumps(-0.0)
    (delta,) = _deltas(record, [5])[5]
    assert delta.endswith(bytes([5]) + bytes(7) + len(changed).to_bytes(4, "little") + changed)


def test_peers_with_the_same_changes_share_one_delta_entry() -> None:
    raw: list[Any] = [1, 2]
    record = _record(raw, (5, 6, 9))
    _deltas(record, [5, 6, 9])
    record[6][9][1] = None  # as if peer 9 had never been sent the second value
    raw[0] = 3
    deltas = _deltas(record, [5, 6, 9])
    assert deltas[5] == deltas[6] != deltas[9]
    assert [deltas[p][0][5:13] for p in (5, 6, 9)] == [bytes([m]) + bytes(7) for m in (1, 1, 3)]


def test_packets_are_cut_as_godot_cuts_them_and_oversized_states_left_out() -> None:
    """A new SYNC packet starts when offset + 8 + size would pass 1350; a state over 1350
    bytes on its own is reported and never sent; every packet has the clock's next time."""
    sizes = [600, 600, 1332, 1352, 8, 1348]  # of each state's values
    roster = []
    for i, size in enumerate(sizes):
        text = "x" * (size - 8)  # a String: 4-byte type, 4-byte length, the text
        roster.append(new_record(i + 1, [text], (0,), (), None, (5,), {}))
    clock = SyncClock()
    clock.last = 512
    sends, left_out = frame(roster, {5: 0}, [clock], ENCODER)
    assert left_out == [(4, 8 + 1352, "state")] and clock.last == 512
    ((slot, syncs, deltas),) = sends
    # 3 + 608 + 608; 3 + 1340 (1219 + 1340 > 1350); 3 + 16; 3 + 1356, over 1350 as in Godot,
    # which checks a state alone against the limit and starts a packet for it
    assert slot == 0 and deltas == [] and [len(p) for p in syncs] == [1219, 1343, 19, 1359]
    assert all(p[:3] == b"\x06\x01\x02" for p in syncs)
