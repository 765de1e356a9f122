"""Synchronized properties from ``gdvariant.replication`` schema classes, and the ``.tscn``
text of the client's matching synchronizer, so that both sides agree by construction.

A :class:`~gdvariant.replication.NetClass` flattens into one ordered property list. That order
is the synchronizer's config order: every property is a spawn property (its value is in the
spawn state, set before the client's ``_ready``), ``hot`` properties are synced ALWAYS (in
every full SYNC) and the others ON_CHANGE (in deltas), unless ``modes`` says otherwise. From
those three positional lists :class:`~gdvariant.multiplayer.ReplicationConfig` names the
values of SPAWN, SYNC and delta packets, and :func:`scene_tscn` writes the
``SceneReplicationConfig`` the client's scene must hold (docs/multiplayer.md, "The server
API").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..replication import ClassLayout, NetClass, Schema, World, godot_value
from ..replication.gdscript import changes_values
from ._config import ReplicatedProperty, ReplicationConfig, ReplicationMode
from ._owned import Check, value_check

__all__ = ["SpawnableScene", "SyncedClass", "scene_tscn", "synced_class"]

#: ``(raw index of each ALWAYS property, of each ON_CHANGE property, the codec of each raw
#: index whose value goes through godot_value, or None when none does)``
SyncPlan = tuple[tuple[int, ...], tuple[int, ...], tuple[Any, ...] | None]

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _godot_path(flat: str) -> str:
    """A flat path (``hp``, ``stats.hp``) as a synchronizer property path (``.:stats:hp``)."""
    parts = flat.split(".")
    if not all(_NAME.fullmatch(part) for part in parts):
        raise ValueError(
            f"property {flat!r} has no Godot property path (per-element arrays are not "
            "synchronizable; use a whole-array property)"
        )
    return ".:" + ":".join(parts)


@dataclass(frozen=True)
class SyncedClass:
    """A NetClass as one synchronizer: its config, and entities whose writes are checked."""

    cls: type[NetClass]
    layout: ClassLayout
    config: ReplicationConfig
    #: flat path of each config property, in config order
    flat_paths: tuple[str, ...]
    _world: World = field(repr=False, compare=False)

    def new_state(self, values: Mapping[str, Any]) -> Any:
        """An entity of the class with ``values`` set (each checked by its codec, as every
        later write is), detached from the private world (``World.detached``): multiplayer
        reads the values, never replication's dirty marks or history, so a server that spawns
        and frees nodes for days keeps nothing of them in that world."""
        return self._world.detached(self.cls, **values)

    def checked(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``{godot property path: value}``, as a client's SYNC or delta names them, by flat
        name, each value checked against its property's type (``_owned.value_check``: the
        value to keep, converted as Godot converts it); ProtocolError for one that is not."""
        checks = self.checks
        out = {}
        for path, value in values.items():
            name, check = checks[path]
            out[name] = check(value)
        return out

    @cached_property
    def checks(self) -> dict[str, tuple[str, Check]]:
        """Each property's flat name and value check, by Godot property path."""
        return {
            prop.path: (name, value_check(flat.codec))
            for prop, name, flat in zip(
                self.config.properties, self.flat_paths, self.layout.props, strict=True
            )
        }

    @cached_property
    def plan(self) -> SyncPlan:
        """Where a frame reads each synced value in an entity's raw values (``_net_vals``),
        and which need converting: read once per class, not per node and frame."""
        pairs = list(zip(self.config.properties, self.layout.props, strict=True))
        sync = tuple(flat.index for prop, flat in pairs if prop.mode is ReplicationMode.ALWAYS)
        watch = tuple(flat.index for prop, flat in pairs if prop.mode is ReplicationMode.ON_CHANGE)
        convert: list[Any] = [None] * (
            max((flat.index for flat in self.layout.props), default=-1) + 1
        )
        for flat in self.layout.props:
            if changes_values(flat.codec):
                convert[flat.index] = flat.codec
        return sync, watch, tuple(convert) if any(c is not None for c in convert) else None

    def values(self, entity: Any) -> dict[str, Any]:
        """``{godot property path: value as Godot holds it}`` of every property."""
        raw = entity._net_vals
        return {
            prop.path: godot_value(flat.codec, raw[flat.index])
            for prop, flat in zip(self.config.properties, self.layout.props, strict=True)
        }


def synced_class(
    cls: type[NetClass],
    *,
    modes: Mapping[str, ReplicationMode] | None = None,
    spawn: Collection[str] | None = None,
) -> SyncedClass:
    """The synchronizer of ``cls``: hot properties ALWAYS, the rest ON_CHANGE (``modes``
    overrides by flat path), all in the spawn state unless ``spawn`` lists which."""
    schema = Schema.build([cls])
    layout = schema.layout(cls)
    flat_names = {p.path for p in layout.props}
    for given, what in ((modes or {}, "modes"), (spawn or (), "spawn")):
        unknown = set(given) - flat_names
        if unknown:
            raise ValueError(f"{what} names properties {cls.__name__} lacks: {sorted(unknown)}")
    props = []
    for flat in layout.props:
        default = ReplicationMode.ALWAYS if flat.hot else ReplicationMode.ON_CHANGE
        mode = (modes or {}).get(flat.path, default)
        in_spawn = spawn is None or flat.path in spawn
        props.append(ReplicatedProperty(_godot_path(flat.path), in_spawn, mode))
    config = ReplicationConfig(tuple(props))
    world = World(schema)
    return SyncedClass(cls, layout, config, tuple(p.path for p in layout.props), world)


@dataclass(frozen=True)
class SpawnableScene:
    """A scene the client's MultiplayerSpawner lists: its ``res://`` path, the root's type and
    script (whose ``@rpc`` functions the spawned node has), and up to two synchronizers,
    children of the root with ``root_path = ".."``: ``synced``, the server's (its values go
    out in spawns, syncs and deltas), and ``owned``, the owner's: the client whose peer id
    :meth:`Spawner.spawn` names as ``owner``, which the scene's script must make the
    synchronizer's authority in ``_enter_tree`` (for example
    ``$OwnerSynchronizer.set_multiplayer_authority(str(name).to_int())``). Its values
    come from that client only."""

    path: str
    synced: SyncedClass | None = None
    script: str | None = None
    root_type: str = "Node"
    synchronizer: str = "MultiplayerSynchronizer"
    owned: SyncedClass | None = None
    owned_synchronizer: str = "OwnerSynchronizer"

    def __post_init__(self) -> None:
        if self.owned is not None:
            _ = self.owned.checks  # a property no check knows is refused now, not per packet


def _tscn_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def scene_tscn(scene: SpawnableScene, root_name: str | None = None) -> str:
    """The ``.tscn`` text of ``scene``: root node (with its script) and the synchronizers
    with the configs the server uses. Godot 4.6 loads it as is; keep it next to the script."""
    name = root_name or scene.path.rsplit("/", 1)[-1].removesuffix(".tscn").title()
    ext = [] if scene.script is None else [("Script", scene.script, "1_script")]
    syncs = [
        (node_name, synced, f"SceneReplicationConfig_{i + 1}")
        for i, (node_name, synced) in enumerate(
            (n, c)
            for n, c in (
                (scene.synchronizer, scene.synced),
                (scene.owned_synchronizer, scene.owned),
            )
            if c is not None
        )
    ]
    lines = [f"[gd_scene load_steps={1 + len(ext) + len(syncs)} format=3]", ""]
    for kind, path, rid in ext:
        attrs = f"type={_tscn_string(kind)} path={_tscn_string(path)} id={_tscn_string(rid)}"
        lines += [f"[ext_resource {attrs}]", ""]
    for _, synced, rid in syncs:
        lines += _config_lines(synced.config.properties, rid)
    lines.append(f"[node name={_tscn_string(name)} type={_tscn_string(scene.root_type)}]")
    if scene.script is not None:
        lines.append('script = ExtResource("1_script")')
    lines.append("")
    for node_name, _, rid in syncs:
        lines += [
            f'[node name={_tscn_string(node_name)} type="MultiplayerSynchronizer" parent="."]',
            'root_path = NodePath("..")',
            f"replication_config = SubResource({_tscn_string(rid)})",
            "",
        ]
    return "\n".join(lines)


def _config_lines(props: Iterable[ReplicatedProperty], rid: str) -> list[str]:
    lines = [f'[sub_resource type="SceneReplicationConfig" id={_tscn_string(rid)}]']
    for i, prop in enumerate(props):
        lines += [
            f"properties/{i}/path = NodePath({_tscn_string(prop.path)})",
            f"properties/{i}/spawn = {'true' if prop.spawn else 'false'}",
            f"properties/{i}/replication_mode = {int(prop.mode)}",
        ]
    return [*lines, ""]
