"""The Python side of tests/live/multiplayer/client/api.tscn: the entity's schema class, the
scene its spawner lists, and the golden script a Godot server plays (api.gd).
``api_entity.tscn`` and ``api_player.tscn`` are ``scene_tscn`` of ENTITY and PLAYER, written by
``python tests/support/multiplayer_api_scene.py`` (tests/multiplayer/test_synced.py checks)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from gdvariant import Vector2
from gdvariant.multiplayer import (
    SceneMultiplayer,
    SpawnableScene,
    Spawner,
    scene_tscn,
    synced_class,
)
from gdvariant.multiplayer.wire import Command
from gdvariant.replication import Float32, Float64, Int, NetClass, Prop, Str, Vec2
from tests.support.paths import LIVE

PROJECT = LIVE / "multiplayer" / "client"
ENTITY_TSCN = PROJECT / "api_entity.tscn"
PLAYER_TSCN = PROJECT / "api_player.tscn"


class EntityState(NetClass):
    """position and spin hot (synced ALWAYS), hp and label ON_CHANGE."""

    position = Prop(Vec2(Float32()), hot=True)
    spin = Prop(Float64(), hot=True)
    hp = Int(32)
    label = Str()


ENTITY = SpawnableScene(
    "res://api_entity.tscn",
    synced_class(EntityState),
    script="res://api_entity.gd",
    root_type="Node2D",
)
ROOT_NAME = "Entity"


class PlayerInput(NetClass):
    """What a client sends for its own player: aim ALWAYS, presses ON_CHANGE."""

    aim = Prop(Vec2(Float32()), hot=True)
    presses = Int(32)


PLAYER = SpawnableScene(
    "res://api_player.tscn",
    script="res://api_player.gd",
    root_type="Node2D",
    owned=synced_class(PlayerInput, spawn=()),  # the owner's: never in the server's spawns
)
#: the last values api_player.gd gives its owned synchronizer (STEPS = 40)
PLAYER_FINAL = {"aim": Vector2(39, -39), "presses": 14}


def entity_tscn() -> str:
    return scene_tscn(ENTITY, ROOT_NAME)


def player_tscn() -> str:
    return scene_tscn(PLAYER, "Player")


if __name__ == "__main__":
    ENTITY_TSCN.write_text(entity_tscn())
    PLAYER_TSCN.write_text(player_tscn())


RPC = "Api/Rpc"
SPAWNER = "Api/Spawner"
SPAWN_PATH = "Api/Entities"


async def golden_script(
    mp: SceneMultiplayer, spawner: Spawner, peer: int, wait: Callable[[str], Awaitable[None]]
) -> None:
    """What api.gd's ``_play`` does on a Godot server, through our API: three calls before
    the client confirmed the RPC node's path, one after, a spawn, a call on the spawned
    node, two changes (a frame of sync each), a despawn and ``finish``. ``wait(step)``
    returns once the client did what the Godot server leaves it frames for: ``"confirmed"``
    the RPC node's path, ``"poked"`` answered the call on the spawned node."""
    mp.rpc(peer, RPC, "r0")
    mp.rpc(peer, RPC, "r2", 7, "seven")
    mp.rpc(peer, RPC, "u1", b"\1\2\3")
    await wait("confirmed")
    mp.rpc(peer, RPC, "r3", True, -70000, Vector2(0.5, 2))
    values = {"position": Vector2(1.5, -2), "spin": 0.25, "hp": 100, "label": "hello"}
    node = spawner.spawn(0, "E1", values)
    mp.sync()
    mp.rpc(peer, node.path, "poke", 41)
    await wait("poked")
    node.state.hp = 90
    mp.sync()
    node.state.label = "bye"
    node.state.position = Vector2(3, 4)
    mp.sync()
    spawner.despawn(node)
    mp.rpc(0, RPC, "finish")


#: the ``spawn(data)`` value of the visibility script's custom spawn: [name, hp, label]
CUSTOM_DATA = ["C1", 7, "made"]


def visibility_script(mp: SceneMultiplayer, spawner: Spawner, peer: int) -> None:
    """What api.gd's ``_play_visibility`` does on a Godot server, through our API (one
    ``mp.sync()`` where Godot leaves frames): an entity made invisible, changed, shown to
    ``peer`` alone, hidden, made public again; a filter that says no to ``peer`` but yes to
    peer 0 (Godot asks about 0 first, so the node stays), a change; a filter that says no
    to all, then yes; a despawn; a custom spawn (``spawn_function``) and its despawn.
    Godot's script ends with ``finish``; the caller sends it."""
    values = {"position": Vector2(0.5, 1), "spin": 2.0, "hp": 1, "label": "seen"}
    node = spawner.spawn(0, "V1", values)
    mp.sync()
    node.public_visibility = False
    mp.sync()
    node.state.hp = 2
    mp.sync()
    node.set_visibility_for(peer, True)
    mp.sync()
    node.set_visibility_for(peer, False)
    mp.sync()
    node.public_visibility = True
    mp.sync()

    def not_you(other: int) -> bool:
        return other != peer

    node.add_visibility_filter(not_you)
    mp.sync()
    node.state.hp = 3
    mp.sync()
    node.remove_visibility_filter(not_you)
    shown = [False]
    node.add_visibility_filter(lambda other: shown[0])
    mp.sync()
    shown[0] = True
    mp.sync()
    spawner.despawn(node)
    name, hp, label = CUSTOM_DATA
    custom = spawner.spawn_custom(CUSTOM_DATA, str(name), ENTITY, {"hp": hp, "label": label})
    mp.sync()
    spawner.despawn(custom)


def golden_view(packets: list[dict[str, Any]]) -> dict[str, Any]:
    """What must be equal between a Godot server's packets and ours, from a recording's
    server-to-client messages: everything but the peer id, full SYNCs and CONFIRM_PATHs in
    order; the confirmations as a multiset (the client's own calls race with the server's);
    and the full SYNC states with the time cut out, repeats dropped (Godot syncs every
    frame, we once per change), plus the first time."""
    s2c = [bytes.fromhex(p["hex"]) for p in packets if p["dir"] == "s2c"][1:]
    ordered = [d.hex() for d in s2c if d[0] not in (Command.SYNC, Command.CONFIRM_PATH)]
    confirms = sorted(d.hex() for d in s2c if d[0] == Command.CONFIRM_PATH)
    syncs = [d for d in s2c if d[0] == Command.SYNC]
    states: list[str] = []
    for data in syncs:
        state = data[3:].hex()
        if not states or states[-1] != state:
            states.append(state)
    first_time = int.from_bytes(syncs[0][1:3], "little") if syncs else None
    return {"ordered": ordered, "confirms": confirms, "syncs": states, "first_time": first_time}
