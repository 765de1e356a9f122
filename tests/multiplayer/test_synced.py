"""Synchronizer configs from schema classes and the .tscn they need
(gdvariant.multiplayer._synced). The engine loads and syncs the generated scene in
tests/live/multiplayer/test_api.py."""

from __future__ import annotations

import pytest

from gdvariant import EncodeError, Vector2
from gdvariant.multiplayer import (
    ReplicatedProperty,
    ReplicationMode,
    SpawnableScene,
    scene_tscn,
    synced_class,
)
from gdvariant.replication import Array, Embed, Float32, Int, NetClass, Prop, Str, Vec2
from tests.support.multiplayer_api_scene import ENTITY_TSCN, PLAYER_TSCN, entity_tscn, player_tscn

ALWAYS, ON_CHANGE = ReplicationMode.ALWAYS, ReplicationMode.ON_CHANGE


class Stats(NetClass, abstract=True):
    hp = Int(16)


class Unit(NetClass):
    name = Str()
    position = Prop(Vec2(Float32()), hot=True)
    stats = Embed(Stats)


def test_flat_order_is_the_config_order() -> None:
    synced = synced_class(Unit)
    assert synced.config.properties == (
        ReplicatedProperty(".:position", True, ALWAYS),  # hot first, as the flattening puts it
        ReplicatedProperty(".:name", True, ON_CHANGE),
        ReplicatedProperty(".:stats:hp", True, ON_CHANGE),  # an embed is a sub-property path
    )
    assert synced.flat_paths == ("position", "name", "stats.hp")
    entity = synced.new_state({"name": "x", "stats": {"hp": 5}})
    entity.position = Vector2(1, 2)
    assert synced.values(entity) == {
        ".:position": Vector2(1, 2),
        ".:name": "x",
        ".:stats:hp": 5,
    }


def test_modes_and_spawn_overrides() -> None:
    synced = synced_class(Unit, modes={"name": ReplicationMode.NEVER}, spawn={"position"})
    assert [(p.spawn, p.mode) for p in synced.config.properties] == [
        (True, ALWAYS),
        (False, ReplicationMode.NEVER),
        (False, ON_CHANGE),
    ]
    with pytest.raises(ValueError, match=r"modes names properties Unit lacks: \['nope'\]"):
        synced_class(Unit, modes={"nope": ALWAYS})
    with pytest.raises(ValueError, match="spawn names"):
        synced_class(Unit, spawn={"stats"})


def test_values_are_checked_by_the_codec() -> None:
    synced = synced_class(Unit)
    with pytest.raises(EncodeError, match=r"stats\.hp"):
        synced.new_state({"stats": {"hp": 1 << 20}})


def test_states_leave_nothing_behind_in_the_private_world() -> None:
    """A long-running server spawns and frees nodes for days: the world the states are
    checked in must not keep them (it held every state ever made, dirty list included)."""
    synced = synced_class(Unit)
    states = [synced.new_state({"name": f"u{i}", "stats": {"hp": i}}) for i in range(500)]
    for i, state in enumerate(states):
        state.position = Vector2(i, -i)
        state.stats.hp = i + 1
    world = synced._world
    assert not world.entities and not world.dirty and not world.deleted
    assert states[7].position == Vector2(7, -7) and states[7].stats.hp == 8
    with pytest.raises(EncodeError, match=r"stats\.hp"):
        states[7].stats.hp = 1 << 20  # a later write is still checked


def test_per_element_arrays_have_no_godot_path() -> None:
    class Ammo(NetClass):
        slots = Array(Int(8), size=2, per_element=True)

    with pytest.raises(ValueError, match="per-element arrays are not synchronizable"):
        synced_class(Ammo)


def test_scene_text() -> None:
    scene = SpawnableScene("res://unit.tscn", synced_class(Unit), script="res://u.gd")
    assert scene_tscn(scene).splitlines()[:9] == [
        "[gd_scene load_steps=3 format=3]",
        "",
        '[ext_resource type="Script" path="res://u.gd" id="1_script"]',
        "",
        '[sub_resource type="SceneReplicationConfig" id="SceneReplicationConfig_1"]',
        'properties/0/path = NodePath(".:position")',
        "properties/0/spawn = true",
        "properties/0/replication_mode = 1",
        'properties/1/path = NodePath(".:name")',
    ]
    bare = scene_tscn(SpawnableScene("res://bare.tscn"))
    assert bare == '[gd_scene load_steps=1 format=3]\n\n[node name="Bare" type="Node"]\n'


def test_the_test_project_scenes_are_generated() -> None:
    """api_entity.tscn and api_player.tscn are the generator's (python
    tests/support/multiplayer_api_scene.py)."""
    assert ENTITY_TSCN.read_text() == entity_tscn()
    assert PLAYER_TSCN.read_text() == player_tscn()
