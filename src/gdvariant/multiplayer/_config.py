"""SceneReplicationConfig as data: which properties a synchronizer spawns, syncs and watches.

A config is an ordered list of properties, each with a spawn flag and a replication mode.
Three positional lists follow, each in declaration order: ``spawn_props`` (the spawn state),
``sync_props`` (mode ALWAYS: the values of a full SYNC) and ``watch_props`` (mode ON_CHANGE:
bit i of a delta's mask is ``watch_props[i]``, so at most 64). The packets carry no names,
only these positions; both sides must hold the same config.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .wire import DeltaState, ProtocolError, SyncState
from .wire._spawn_sync import MAX_WATCHED

__all__ = ["ReplicatedProperty", "ReplicationConfig", "ReplicationMode"]


class ReplicationMode(enum.IntEnum):
    """``SceneReplicationConfig.ReplicationMode`` (the ``.tscn`` value)."""

    NEVER = 0
    ALWAYS = 1
    ON_CHANGE = 2


@dataclass(frozen=True)
class ReplicatedProperty:
    """One ``properties/<i>`` entry: a path such as ``".:position"``, relative to the
    synchronizer's root path."""

    path: str
    spawn: bool = True
    mode: ReplicationMode = ReplicationMode.ALWAYS


@dataclass(frozen=True)
class ReplicationConfig:
    """The properties of one synchronizer, in declaration order."""

    properties: tuple[ReplicatedProperty, ...]

    def __post_init__(self) -> None:
        paths = [p.path for p in self.properties]
        if len(set(paths)) != len(paths):
            raise ValueError("a property is listed twice")
        if len(self.watch_props) > MAX_WATCHED:
            raise ValueError(f"{len(self.watch_props)} ON_CHANGE properties; at most 64")

    @cached_property
    def spawn_props(self) -> tuple[str, ...]:
        return tuple(p.path for p in self.properties if p.spawn)

    @cached_property
    def sync_props(self) -> tuple[str, ...]:
        return tuple(p.path for p in self.properties if p.mode is ReplicationMode.ALWAYS)

    @cached_property
    def watch_props(self) -> tuple[str, ...]:
        return tuple(p.path for p in self.properties if p.mode is ReplicationMode.ON_CHANGE)

    def spawn_values(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """This synchronizer's part of a spawn state, from ``{path: value}``."""
        return tuple(values[path] for path in self.spawn_props)

    def sync_state(self, net_id: int, values: Mapping[str, Any]) -> SyncState:
        """A full SYNC entry from ``{path: value}``."""
        return SyncState(net_id, tuple(values[path] for path in self.sync_props))

    def delta_state(self, net_id: int, changed: Mapping[str, Any]) -> DeltaState:
        """A delta entry for the ``changed`` watched properties (any order)."""
        unknown = set(changed) - set(self.watch_props)
        if unknown:
            raise ValueError(f"not ON_CHANGE properties: {sorted(unknown)}")
        bits = [i for i, path in enumerate(self.watch_props) if path in changed]
        if not bits:
            raise ValueError("a delta needs at least one changed property")
        mask = sum(1 << i for i in bits)
        return DeltaState(net_id, mask, tuple(changed[self.watch_props[i]] for i in bits))

    def read_spawn(self, state: Sequence[Any], offset: int = 0) -> tuple[dict[str, Any], int]:
        """Take this synchronizer's values from a spawn state at ``offset``; return them by
        path and the offset of the next synchronizer's values."""
        end = offset + len(self.spawn_props)
        if end > len(state):
            raise ProtocolError(f"spawn state has {len(state)} values, {end} needed")
        return dict(zip(self.spawn_props, state[offset:end], strict=True)), end

    def read_sync(self, entry: SyncState) -> dict[str, Any]:
        """A full SYNC entry's values by path; a wrong count is refused."""
        return self._named(self.sync_props, entry.values, "SYNC")

    def read_delta(self, entry: DeltaState) -> dict[str, Any]:
        """A delta entry's values by path; bits past the watched list are refused."""
        if entry.mask >> len(self.watch_props):
            raise ProtocolError(f"delta mask {entry.mask:#x} names unwatched bits")
        paths = [p for i, p in enumerate(self.watch_props) if entry.mask >> i & 1]
        return self._named(paths, entry.values, "delta")

    @staticmethod
    def _named(paths: Iterable[str], values: Sequence[Any], what: str) -> dict[str, Any]:
        names = list(paths)
        if len(names) != len(values):
            raise ProtocolError(f"{what} has {len(values)} values, the config {len(names)}")
        return dict(zip(names, values, strict=True))
