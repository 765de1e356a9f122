"""Live: record a fresh SceneMultiplayer session from real Godot 4.6 peers (server and two
clients, tests/live/multiplayer/game) and check that our codec reads every packet and writes it
back byte for byte. The committed recording (tests/multiplayer/wire/test_golden.py) is checked
in depth; this run shows the engine still writes what that recording holds. Skipped without
engines; required in ``.ci/run``.
"""

from __future__ import annotations

import pytest

from gdvariant.multiplayer.wire import (
    AddPeer,
    Auth,
    DelPeer,
    DeltaSync,
    Despawn,
    Relay,
    RemoteCall,
    SimplifyPath,
    Spawn,
    Sync,
    decode_scene_packet,
    encode_scene_packet,
)
from tests.support.engines import Engine
from tests.support.multiplayer_recorder import record_session

pytestmark = [pytest.mark.engine, pytest.mark.slow]


def test_fresh_session_round_trips(godot4: Engine) -> None:
    session = record_session(godot4)
    assert session["godot"].startswith("4.6")
    seen_id: set[str] = set()
    kinds = set()
    for record in session["packets"]:
        data = bytes.fromhex(record["hex"])
        if record["dir"] == "s2c" and record["client"] not in seen_id:
            seen_id.add(record["client"])
            assert len(data) == 4
            continue
        packet = decode_scene_packet(data)
        assert encode_scene_packet(packet) == data, (
            f"{record['client']} {record['dir']} {data.hex()}"
        )
        kinds.add(type(packet))
    assert seen_id == {"A", "B"}
    assert kinds >= {RemoteCall, SimplifyPath, Spawn, Despawn, Sync, DeltaSync}
    assert kinds >= {Auth, AddPeer, DelPeer, Relay}
    assert any(line.startswith("READY ") for line in session["logs"]["A"])
