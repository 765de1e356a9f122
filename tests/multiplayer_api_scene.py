"""The Python side of tests/engine/multiplayer_client/api.tscn: the entity's schema class
and the scene its spawner lists. ``api_entity.tscn`` is ``scene_tscn(ENTITY)``, written by
``python tests/multiplayer_api_scene.py`` (tests/test_multiplayer_synced.py checks that the
file is current)."""

from __future__ import annotations

from engines import ENGINE_SCRIPTS

from gdvariant.multiplayer import SpawnableScene, scene_tscn, synced_class
from gdvariant.replication import Float32, Float64, Int, NetClass, Prop, Str, Vec2

PROJECT = ENGINE_SCRIPTS / "multiplayer_client"
ENTITY_TSCN = PROJECT / "api_entity.tscn"


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


def entity_tscn() -> str:
    return scene_tscn(ENTITY, ROOT_NAME)


if __name__ == "__main__":
    ENTITY_TSCN.write_text(entity_tscn())
