"""Lag compensation: the world as of an earlier tick, as its clients decoded it.

Nothing is recorded per tick that the world does not already keep. Every committed change of
an entity is an entry of its history (``_history.entries``: the tick and the bits each changed
property had *before* it), so its bits at tick ``t`` are its committed bits with every entry
after ``t`` undone, newest first. ``World(rewind=K)`` keeps those entries for ``K`` ticks (at
least) and keeps each entity despawned within them (its committed bits and history, copied
at the despawn). The work is done when asked: :class:`Rewound` walks the histories of the
entities a hit test reads and decodes their bits with the codecs, so a value is exactly what
a client decoded at that tick; a fractional tick blends two ticks by the client's own rule
(``_interpolation``, the decoders' blends). See ``docs/replication-lag-compensation.md``.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any

from ._bits import BitReader
from ._codecs import Codec
from ._history import entries
from ._interpolation import blend
from ._packet_format import set_indices
from ._schema import ClassLayout
from ._snapshot_decoder import EntityState

__all__ = ["Gone", "Rewind", "Rewound"]

#: A despawned entity: ``(net id, spawn tick, first tick without it, layout, committed bits,
#: history)``.
Gone = tuple[int, int, int, ClassLayout, tuple[int, ...], tuple[Any, ...]]

#: An entity at one tick: ``(spawn tick, layout, bits)`` (the spawn tick tells a reused id's
#: entities apart).
Held = tuple[int, ClassLayout, list[int]]


class Rewind:
    """A world's despawned entities of the last ``keep`` ticks (the live ones keep their
    own histories)."""

    def __init__(self, keep: int) -> None:
        if isinstance(keep, bool) or not isinstance(keep, int):
            raise TypeError(f"rewind must be a number of ticks (an int), not {keep!r}")
        if keep < 0:
            raise ValueError(f"rewind must be 0 or more ticks, not {keep}")
        self.keep = keep
        self.gone: deque[Gone] = deque()
        self.by_id: dict[int, list[Gone]] = {}

    def despawned(self, entity: Any, tick: int) -> None:
        """Keep ``entity``, gone from ``tick`` on, as it was last committed."""
        if not self.keep:
            return
        d = entity.__dict__
        record = (d["net_id"], d["_net_spawn"], tick, d["_net_layout"], committed(entity),
                  tuple(d["_net_hist"]))  # fmt: skip
        self.gone.append(record)
        self.by_id.setdefault(record[0], []).append(record)

    def prune(self, lowest: int) -> None:
        """Forget the entities despawned at or before ``lowest`` (no kept tick holds them)."""
        gone = self.gone
        while gone and gone[0][2] <= lowest:
            record = gone.popleft()
            spans = self.by_id[record[0]]
            spans.remove(record)
            if not spans:
                del self.by_id[record[0]]


def committed(entity: Any) -> tuple[int, ...]:
    """``entity``'s bits at its last commit: its bits with this tick's writes undone."""
    d = entity.__dict__
    bits = list(d["_net_bits"])
    if d["_net_dirty"]:
        for i, old in d["_net_before"].items():
            bits[i] = old
    return tuple(bits)


def _undo(bits: tuple[int, ...], hist: Any, tick: int) -> list[int]:
    """``bits`` with every history entry after ``tick`` undone (newest first, so the oldest
    such entry, which holds the value at ``tick``, is applied last)."""
    out = list(bits)
    for change in reversed(hist):
        if change[0] <= tick:
            break
        for i, old in zip(set_indices(change[1]), change[2], strict=True):
            out[i] = old
    return out


class _ZeroTail(BitReader):
    """A stored value's bits read with zeros past their end. The history keeps a value's
    bits, not its width (its high zero bits), and every codec knows where its value ends."""

    def read_bytes(self, count: int) -> bytes:
        return super().read_bytes(count).ljust(count, b"\0")


def decode_one(codec: Any, bits: int) -> Any:
    """One value from its stored bits, as a client decodes it."""
    data = bits.to_bytes((bits.bit_length() + 7) >> 3, "little")
    return codec.decode(_ZeroTail(data, 0, len(data) + (1 << 40)))


def decode(layout: ClassLayout, bits: list[int]) -> dict[str, Any]:
    """``{path: value}`` of one entity's bits, as a client decodes them."""
    return {p.path: decode_one(p.codec, b) for p, b in zip(layout.props, bits, strict=True)}


def window(world: Any) -> tuple[int, int]:
    """The ticks ``world.at`` answers for: ``(lowest, newest)``."""
    keep = world.rewind
    return max(0, world.tick - keep), world.tick


def check_tick(world: Any, tick: Any) -> float:
    """``tick`` as a number inside the kept window, or a clear TypeError/ValueError."""
    if isinstance(tick, bool) or not isinstance(tick, int | float):
        raise TypeError(f"a tick is a number, not {tick!r}")
    if not math.isfinite(tick):
        raise ValueError(f"a tick is a finite number, not {tick!r}")
    low, high = window(world)
    if not low <= tick <= high:
        raise ValueError(
            f"tick {tick} is outside the kept window {low}..{high}: World(rewind="
            f"{world.rewind}) keeps the current tick and the {world.rewind} before it"
        )
    return tick


class Rewound(Mapping[int, EntityState]):
    """The entities of a world at one tick (a fractional one blends two ticks): ``{net id:
    EntityState}``, each made when first read. It stays right after later commits while its
    tick is in the kept window; reading it later is a ValueError."""

    def __init__(self, world: Any, tick: float) -> None:
        check_tick(world, tick)
        self.world, self.tick = world, tick
        self.floor = math.floor(tick)
        self.weight = tick - self.floor
        self._states: dict[int, EntityState] = {}
        self._ids: list[int] | None = None

    def __repr__(self) -> str:
        return f"<Rewound tick={self.tick} of a world at tick {self.world.tick}>"

    def _held(self, net_id: int, tick: int) -> Held | None:
        """The entity ``net_id`` was at ``tick`` (None: there was none)."""
        ent = self.world.entities.get(net_id)
        if ent is not None and ent._net_spawn <= tick:
            bits = _undo(committed(ent), entries(ent), tick)
            return ent._net_spawn, ent._net_layout, bits
        for _, spawn, gone, layout, kept, hist in self.world._rewind.by_id.get(net_id, ()):
            if spawn <= tick < gone:
                return spawn, layout, _undo(kept, hist, tick)
        return None

    def __getitem__(self, net_id: int) -> EntityState:
        check_tick(self.world, self.tick)
        state = self._states.get(net_id)
        if state is not None:
            return state
        held, later = self._pair(net_id)
        _, layout, bits = held
        values = decode(layout, bits)
        if later is not None:
            after = decode(layout, later[2])
            for p in layout.props:
                values[p.path] = _between(p.codec, values[p.path], after[p.path], self.weight)
        state = self._states[net_id] = EntityState(layout.name, values)
        return state

    def value(self, net_id: int, path: str) -> Any:
        """One property of one entity at this tick, decoding only it: for a hit test that
        reads the positions of many entities (``self[net_id].values[path]`` decodes all)."""
        check_tick(self.world, self.tick)
        state = self._states.get(net_id)
        if state is not None:
            return state.values[path]
        held, later = self._pair(net_id)
        layout = held[1]
        i = layout.index.get(path)
        if i is None:
            raise KeyError(f"{layout.name} has no networked property {path!r}")
        codec = layout.codecs[i]
        value = decode_one(codec, held[2][i])
        if later is not None:
            value = _between(codec, value, decode_one(codec, later[2][i]), self.weight)
        return value

    def entity(self, net_id: int) -> Any:
        """The live entity that was ``net_id`` at this tick, or None if it has been despawned
        since (its id may now be another entity's): where a hit found at this tick lands."""
        check_tick(self.world, self.tick)
        held = self._held(net_id, self.floor)
        if held is None:
            raise KeyError(net_id)
        ent = self.world.entities.get(net_id)
        return ent if ent is not None and ent._net_spawn == held[0] else None

    def _pair(self, net_id: int) -> tuple[Held, Held | None]:
        """The entity ``net_id`` at the floor tick, and at the next one when it is the same
        entity there and the tick is fractional (else None: nothing to blend)."""
        held = self._held(net_id, self.floor)
        if held is None:
            raise KeyError(net_id)
        later = self._held(net_id, self.floor + 1) if self.weight else None
        if later is not None and later[0] != held[0]:
            later = None
        return held, later

    def _all_ids(self) -> list[int]:
        if self._ids is None:
            check_tick(self.world, self.tick)
            t = self.floor
            ids = {i for i, e in self.world.entities.items() if e._net_spawn <= t}
            for net_id, spans in self.world._rewind.by_id.items():
                if any(spawn <= t < gone for _, spawn, gone, *_ in spans):
                    ids.add(net_id)
            self._ids = sorted(ids)
        return self._ids

    def __iter__(self) -> Iterator[int]:
        return iter(self._all_ids())

    def __len__(self) -> int:
        return len(self._all_ids())

    def __contains__(self, net_id: object) -> bool:
        if not isinstance(net_id, int):
            return False
        check_tick(self.world, self.tick)
        return self._held(net_id, self.floor) is not None


def _between(codec: Codec, a: Any, b: Any, weight: float) -> Any:
    """``a`` (the earlier tick's value) blended toward ``b`` as a client interpolates:
    ``a`` itself for a stepwise codec."""
    fn = blend(codec)
    return a if fn is None else fn(a, b, weight)
