"""Entities and dirty tracking (the role of Source's ``NetworkStateChanged``).

An entity is an instance of its NetClass. Writing a networked property encodes the value at
once (so a bad value fails where it is written, naming entity and property) and, if its bits
differ from what was there, marks the property dirty, keeping the bits it had at the last
commit. :meth:`World.commit` turns the dirty marks into one history entry per changed
entity: a :class:`Change` ``(tick, mask of changed flat indices, bits before, ...)``.
The snapshot encoder reads those histories; nothing here knows about clients. With
``rewind=K`` they are kept for ``K`` ticks and :meth:`World.at` reads them back (``_rewind``).
"""

from __future__ import annotations

import heapq
from typing import Any

from . import _assembler, _rewind, _write_path
from ._bits import BitReader
from ._declarations import Embed, NetClass, unknown_name
from ._schema import ClassLayout, Schema

__all__ = ["Change", "World"]

#: A history entry: ``(tick, changed mask, bits at the previous commit, None or
#: [{index: value-delta fragment}, tick the fragments were made])``: the bits are a tuple, one
#: item per set bit of the mask, ascending (a flat tuple of ints, which the collector leaves
#: alone). The last belongs to the snapshot encoder, which codes each changed value against
#: the bits before.
Change = tuple[int, int, tuple[int, ...], list[Any] | None]


class World:
    """The server's entities, numbered by network id (lowest free id first). ``rewind``: how
    many ticks before the current one :meth:`at` can read (0: only the current one)."""

    def __init__(self, schema: Schema, *, rewind: int = 0) -> None:
        self.schema = schema
        self._rewind = _rewind.Rewind(rewind)
        self.tick = 0
        self.entities: dict[int, Any] = {}
        self.dirty: list[Any] = []
        #: id -> [(spawn tick, delete tick), ...]: despawned entities a client may still hold
        #: (an id can be reused, so one id can have several).
        self.deleted: dict[int, list[tuple[int, int]]] = {}
        self._free: list[int] = []
        self._next = 0
        #: the entities' histories the compiled commit holds in C rings (their ``_net_hist``
        #: then None; ``_history.py``), None with the pure assembler
        self.history_table: Any = _assembler.history_table()
        #: ``[(spawned, entity)]`` since the last update of the world's Interest (None: no
        #: Interest watches this world), the spawns and despawns it places in its grid.
        self.lifecycle: list[tuple[bool, Any]] | None = None

    def spawn(
        self, cls: type[NetClass], *, net_owner: Any = None, net_team: Any = None, **values: Any
    ) -> Any:
        """A new entity of ``cls``; keyword arguments set properties (an embedded table takes
        a dict of its properties). ``net_owner``/``net_team`` place it in the restricted
        audiences; assigning them later moves it (see ``SnapshotEncoder``). A name ``cls``
        does not know is a TypeError and a bad value an EncodeError, and either leaves the
        world as it was."""
        lay = self.schema.layout(cls)
        for name, value in values.items():
            _check_keyword(cls, name, value)
        ent: Any = cls.__new__(cls)
        net_id = heapq.heappop(self._free) if self._free else self._next
        state = {
            "net_id": net_id,
            "net_owner": net_owner,
            "net_team": net_team,
            "_net_root": ent,
            "_net_prefix": "",
            "_net_layout": lay,
            "_net_index": lay.index,
            "_net_vals": list(lay.baseline),
            "_net_bits": list(lay.base_bits),
            "_net_widths": list(lay.base_widths),
            "_net_dirty": 0,
            "_net_before": {},
            "_net_world": self,
            "_net_spawn": self.tick + 1,
            "_net_hist": [],
            "_net_nondefault": (-1, 0),
            "_net_cache": {},
            "_net_moved": 0,
        }
        # one by one, in the same order for every entity: CPython then keeps the names once
        # per class and each entity only its values (a split dict), so the compiled walk's
        # dozen lookups per entity and tick read one shared table of names, not one each
        for key, value in state.items():
            object.__setattr__(ent, key, value)
        try:
            for name, value in values.items():
                if isinstance(getattr(cls, name, None), Embed):
                    view = getattr(ent, name)
                    for sub, item in value.items():
                        setattr(view, sub, item)
                else:
                    setattr(ent, name, value)
        except BaseException:
            ent._net_world = None  # World.commit skips it if it was marked dirty
            heapq.heappush(self._free, net_id)
            raise
        self._next = max(self._next, net_id + 1)
        self.entities[net_id] = ent
        if self.lifecycle is not None:
            self.lifecycle.append((True, ent))
        return ent

    def detached(self, cls: type[NetClass], **values: Any) -> Any:
        """An entity of ``cls`` with ``values`` set (checked as :meth:`spawn` checks them)
        that is in no world: its later writes are checked by the codecs and kept, but never
        encoded again nor marked dirty, and the world keeps nothing of it. A multiplayer
        node's state is one (it reads the values only); with the compiled write path its
        writes cost about half a spawned entity's (``_write_path.detached_class``)."""
        entity = self.spawn(cls, **values)
        self.despawn(entity)
        if self.dirty and self.dirty[-1] is entity:  # marked by the values just set
            self.dirty.pop()
        return _write_path.detach(entity)

    def despawn(self, entity: Any) -> None:
        """Remove ``entity``; clients that knew it get a delete record."""
        if entity.net_id not in self.entities or self.entities[entity.net_id] is not entity:
            raise KeyError(f"entity {entity.net_id} is not in this world")
        del self.entities[entity.net_id]
        if self.history_table is not None:  # its history a list again, its ring freed
            taken = self.history_table.take(entity.net_id)
            if taken is not None:
                vars(entity)["_net_hist"] = taken
            self.history_table.forget(entity.net_id)
        vars(entity)["_net_world"] = None
        if entity._net_spawn <= self.tick:
            self.deleted.setdefault(entity.net_id, []).append((entity._net_spawn, self.tick + 1))
            self._rewind.despawned(entity, self.tick + 1)
        heapq.heappush(self._free, entity.net_id)
        if self.lifecycle is not None:
            self.lifecycle.append((False, entity))

    def commit(self, history: int) -> int:
        """Close the current tick: every dirty entity gets ``(tick, changed mask)`` in its
        history (entries older than ``history`` ticks, or than ``rewind`` if more, dropped).
        Returns the new tick."""
        tick = self.tick + 1
        oldest = tick - history
        _assembler.live().commit(self, self.dirty, tick, min(oldest, tick - self.rewind))
        self.dirty = []
        for net_id, spans in list(self.deleted.items()):
            kept = [span for span in spans if span[1] > oldest]
            if kept:
                self.deleted[net_id] = kept
            else:
                del self.deleted[net_id]
        self.tick = tick
        self._rewind.prune(tick - self.rewind)
        return tick

    @property
    def rewind(self) -> int:
        """How many ticks before the current one :meth:`at` can read (set when made)."""
        return self._rewind.keep

    def at(self, tick: float) -> _rewind.Rewound:
        """The entities as of ``tick`` (``self.tick - rewind`` to ``self.tick``): ``{net id:
        EntityState}`` with the values clients decoded then, for hit tests against what a
        player saw. A fractional tick blends the two around it as a client interpolates
        (``_interpolation``, the client's rule). A tick outside the window is a ValueError
        naming it."""
        return _rewind.Rewound(self, tick)

    def nondefault(self, entity: Any) -> int:
        """The mask of ``entity``'s properties whose bits differ from the class baseline:
        what an enter record carries. Computed when asked (enters are rare), once a tick."""
        tick, mask = entity._net_nondefault
        mask = int(mask)
        if tick != self.tick:
            lay: ClassLayout = entity._net_layout
            mask = 0
            for i, (bits, width, base_bits, base_width) in enumerate(
                zip(
                    entity._net_bits,
                    entity._net_widths,
                    lay.base_bits,
                    lay.base_widths,
                    strict=True,
                )
            ):
                if bits != base_bits or width != base_width:
                    mask |= 1 << i
            vars(entity)["_net_nondefault"] = (self.tick, mask)
        return mask

    def quantized(self, entity: Any) -> dict[str, Any]:
        """``{path: value}`` of ``entity`` as a client decodes it (every property)."""
        lay: ClassLayout = entity._net_layout
        out = {}
        for p, bits, width in zip(lay.props, entity._net_bits, entity._net_widths, strict=True):
            out[p.path] = p.codec.decode(BitReader(bits.to_bytes((width + 7) >> 3, "little")))
        return out


def _check_keyword(cls: type[NetClass], name: str, value: Any) -> None:
    """A keyword of ``spawn`` must name something ``cls`` knows; an embedded table's
    keyword takes a dict of that table's properties."""
    decl = getattr(cls, name, None)
    if isinstance(decl, Embed):
        if not isinstance(value, dict):
            raise TypeError(f"spawn(): {name} is an embedded table: give a dict of its properties")
        for sub in value:
            if sub not in decl.table.net_plain and sub not in decl.table.net_names:
                message = unknown_name(decl.table, sub, cls.__name__, f"{name}.")
                raise TypeError(f"spawn(): {message}")
        return
    if name in cls.net_plain or name in cls.net_names or hasattr(cls, name):
        return
    raise TypeError(f"spawn(): {unknown_name(cls, name)}")
