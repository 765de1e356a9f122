"""SceneReplicationConfig lists (gdvariant.multiplayer._config), against the recorded session:
the configs below are the ones in tests/live/multiplayer/game/player.tscn and main.tscn."""

from __future__ import annotations

import json

import pytest

from gdvariant import Vector2
from gdvariant.multiplayer import (
    ProtocolError,
    ReplicatedProperty,
    ReplicationConfig,
    ReplicationMode,
)
from gdvariant.multiplayer.wire import (
    DeltaState,
    DeltaSync,
    Packet,
    Spawn,
    Sync,
    SyncState,
    decode_scene_packet,
    is_path_net_id,
)
from tests.support.paths import VECTORS

M = ReplicationMode
PLAYER = ReplicationConfig(
    (
        ReplicatedProperty(".:position", True, M.ALWAYS),
        ReplicatedProperty(".:health", True, M.ON_CHANGE),
        ReplicatedProperty(".:label", True, M.NEVER),
        ReplicatedProperty(".:speed", False, M.ON_CHANGE),
    )
)
STATE = ReplicationConfig(
    (
        ReplicatedProperty(".:tick", False, M.ALWAYS),
        ReplicatedProperty(".:score", False, M.ON_CHANGE),
    )
)
INPUT = ReplicationConfig(
    (
        ReplicatedProperty(".:direction", False, M.ALWAYS),
        ReplicatedProperty(".:jumps", False, M.ON_CHANGE),
    )
)
SESSION = json.loads((VECTORS / "multiplayer/session.json").read_text(encoding="utf-8"))


def _packets(client: str, direction: str) -> list[Packet]:
    out = []
    first = direction == "s2c"
    for record in SESSION["packets"]:
        if (record["client"], record["dir"]) != (client, direction):
            continue
        if first:
            first = False  # the peer id message
            continue
        out.append(decode_scene_packet(bytes.fromhex(record["hex"])))
    return out


def test_derived_lists() -> None:
    assert PLAYER.spawn_props == (".:position", ".:health", ".:label")
    assert PLAYER.sync_props == (".:position",)
    assert PLAYER.watch_props == (".:health", ".:speed")


def test_recorded_packets_read_through_the_configs() -> None:
    packets = _packets("A", "s2c")
    spawn = next(p for p in packets if isinstance(p, Spawn) and p.sync_ids)
    values, end = PLAYER.read_spawn(spawn.state)
    assert end == len(spawn.state)
    assert values == {".:position": Vector2(100, 200), ".:health": 100, ".:label": f"P{spawn.name}"}
    deltas = [s for p in packets if isinstance(p, DeltaSync) for s in p.states]
    player_deltas = [PLAYER.read_delta(s) for s in deltas if s.net_id == spawn.sync_ids[0]]
    assert player_deltas[0] == {".:health": 100, ".:speed": 1.5}
    assert {".:speed": 2.25} in player_deltas
    static = [STATE.read_delta(s) for s in deltas if is_path_net_id(s.net_id)]
    assert static[0] == {".:score": 0} and {".:score": 5} in static
    syncs = [s for p in packets if isinstance(p, Sync) for s in p.states]
    positions = [PLAYER.read_sync(s)[".:position"] for s in syncs if s.net_id == spawn.sync_ids[0]]
    assert positions[0] == Vector2(100, 200) and Vector2(136, 200) in positions
    inputs = [s for p in _packets("A", "c2s") if isinstance(p, Sync) for s in p.states]
    assert all(set(INPUT.read_sync(s)) == {".:direction"} for s in inputs)


def test_building_states() -> None:
    values = {".:position": Vector2(1, 2), ".:health": 7, ".:label": "x", ".:speed": 0.5}
    assert PLAYER.spawn_values(values) == (Vector2(1, 2), 7, "x")
    assert PLAYER.sync_state(2, values) == SyncState(2, (Vector2(1, 2),))
    assert PLAYER.delta_state(2, {".:speed": 0.5, ".:health": 7}) == DeltaState(2, 0b11, (7, 0.5))
    assert PLAYER.delta_state(2, {".:speed": 0.5}) == DeltaState(2, 0b10, (0.5,))
    with pytest.raises(ValueError, match="not ON_CHANGE"):
        PLAYER.delta_state(2, {".:position": Vector2(0, 0)})
    with pytest.raises(ValueError, match="at least one"):
        PLAYER.delta_state(2, {})


def test_mismatches_are_protocol_errors() -> None:
    with pytest.raises(ProtocolError, match="values"):
        PLAYER.read_sync(SyncState(2, ()))
    with pytest.raises(ProtocolError, match="unwatched"):
        PLAYER.read_delta(DeltaState(2, 0b100, (1,)))
    with pytest.raises(ProtocolError, match="values"):
        PLAYER.read_delta(DeltaState(2, 0b11, (1,)))
    with pytest.raises(ProtocolError, match="needed"):
        PLAYER.read_spawn((Vector2(0, 0),))


def test_config_checks() -> None:
    with pytest.raises(ValueError, match="twice"):
        ReplicationConfig((ReplicatedProperty(".:a"), ReplicatedProperty(".:a")))
    many = tuple(ReplicatedProperty(f".:p{i}", mode=M.ON_CHANGE) for i in range(65))
    with pytest.raises(ValueError, match="at most 64"):
        ReplicationConfig(many)
