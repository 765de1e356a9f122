"""Which packet assembler is live: the compiled one when it imports, else the pure-Python one.

As the codec core does (``gdvariant._binary.core``), the choice is made once, at import:
``gdvariant.replication._cassemble`` (C, built by ``setup.py`` when a compiler is there) if it
imports, else ``_pyassemble``, the pure-Python reference. Both are modules of the same
functions with the same arguments, and make the same bytes for the same world:

* ``assemble(deltas, tick, order, oldest, ids, entities, deleted, plans, class_bits,
  entering)``: every shared section of a tick in one walk (for ``SnapshotEncoder``), or a
  client's own section, with the ids entering its view as enters;
* ``assemble_clients(deltas, tick, jobs, plans, class_bits)``: each client's own section of
  a tick, a job (the arguments of its ``relevance``) each, as ``assemble`` makes it for its
  base from what ``relevance`` finds: the compiled one walks them in one call and looks each
  entity's attributes up for the first client that sees it only
  (docs/replication-interest.md);
* ``encode_record(layout, class_bits, op, gap, mask, bits, widths)``: one record with whole
  values;
* ``commit(world, dirty, tick, oldest)``: the loop of ``World.commit`` over the dirty entities;
* ``aim(view, watched, grid, pos, centre, radius, size, always, own, entities, rule, memo)``:
  ``Interest``'s test of a view against every entity it watches, and the record of what that
  changed (the compiled one keeps in ``memo``, for the views of one update, what it read of
  each cell's positions); ``view`` is the view's record, ``(relevant, order, changes,
  seen_by, client)`` (``_pyassemble.View``), as for the one below;
* ``retest(view, watched, grid, touched, rank, pos, cell_of, always, own, world, centre,
  radius, memo)``: the entities touched since the last update that a view without a
  predicate watches or sees, tested again (against its cells, or with a radius, its
  ``centre``; the compiled one keeps in ``memo``, for the retests of one update, what it
  read of each cell's touched entities);
* ``moves(world, dirty, where, grid, cell_of, pos, touched, size, flat, rule, cell)``:
  ``Interest``'s update of its grid from the entities whose position was written;
* ``rank(tick, base, ids, entities, deleted, prior, since, hot, arrival, weigh, near)``: a
  budget's ranking of the records a client's packet may carry, most urgent first;
* ``fit(deltas, tick, base, order, entities, deleted, plans, class_bits, held, room, most)``:
  the section of the records down that ranking that fit ``room`` bytes, by
  ``_budget.choose``'s rule, and how far down it got (the compiled one sizes each record once
  and keeps the section's exact bytes as records go in; the pure one assembles again);
* ``relevance(relevant, order, ticks, log, base, gone)``: from an interest's view of a client
  (its relevant ids kept ascending in ``order``), the ids its own section visits, those
  entering and leaving its view since its base, and what it held of each id whose relevance
  changed since then.

``GDVARIANT_PURE_PYTHON=1`` forces the pure one (the compiled module is then not even
imported). ``IMPLEMENTATION`` names the live one, ``"c"`` or ``"python"``. The compiled module
reads a per-class plan made here by :func:`plans`: the layout, its property count, index width,
public mask, for each property how its value is delta-coded (:data:`K_WHOLE` ...
:data:`K_VARINT`), and the class id and baseline bits and widths (for enter records).

For tests: :func:`implementations` gives every assembler that imports, and :func:`use` makes
one live inside a block; for benchmarks, :func:`use_build` makes another build of the compiled
one live (``benchmarks/bench_replication_interest.py --against``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from types import ModuleType
from typing import Any

from .._compiled import COMPILED, PYTHON, Compiled, Switch
from . import _pyassemble
from ._delta import DeltaCoder, ScalarDelta, VarIntDelta
from ._float_codecs import Coord
from ._schema import Schema

__all__ = [
    "COMPILED",
    "IMPLEMENTATION",
    "PYTHON",
    "assembler",
    "compiled_error",
    "history_table",
    "implementations",
    "live",
    "plans",
    "use",
    "use_build",
]

#: How one property's value is coded in a value-delta record (the numbers _cassemble.c uses):
#: whole; a scalar whose bits are its ordinal; a zigzag Int; a Coord; a vector of
#: fixed-width ordinals; a vector of Coords; anything else, through the coder's ``fragment``;
#: a VarInt.
K_WHOLE, K_PLAIN, K_ZIGZAG, K_COORD, K_VEC_PLAIN, K_VEC_COORD, K_PYTHON, K_VARINT = range(8)

PropPlan = tuple[int, int, int, int, int, Any]


_SWITCH = Switch(Compiled("gdvariant.replication._cassemble", "assembler"), _pyassemble)
#: The live assembler: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _SWITCH.implementation


def assembler() -> str:
    """The live packet assembler: ``"c"`` (compiled) or ``"python"``."""
    return _SWITCH.implementation


def live() -> ModuleType:
    """The live assembler's module (``_cassemble`` or ``_pyassemble``)."""
    return _SWITCH.module


def history_table() -> Any:
    """A new world's history table: the compiled assembler's ``Table``, where its commit
    keeps each entity's history and its walk reads it (_table.h, ``_history.py``), or None
    with the pure one."""
    table = getattr(_SWITCH.module, "Table", None)
    return None if table is None else table()


def implementations() -> dict[str, ModuleType]:
    """Every assembler that imports, by name (the compiled one even under
    ``GDVARIANT_PURE_PYTHON``, for tests)."""
    return _SWITCH.implementations()


def compiled_error() -> str | None:
    """Why the compiled assembler cannot be imported (None when it can)."""
    return _SWITCH.error()


@contextmanager
def use(name: str) -> Iterator[None]:
    """Make the assembler ``name`` (``"python"`` or ``"c"``) live inside the block (for
    tests)."""
    global IMPLEMENTATION
    with _SWITCH.use(name):
        saved, IMPLEMENTATION = IMPLEMENTATION, name
        try:
            yield
        finally:
            IMPLEMENTATION = saved


def use_build(module: ModuleType) -> AbstractContextManager[None]:
    """Make ``module``, another build of the compiled assembler
    (``gdvariant._compiled.load_build``), live inside the block: a world made inside keeps
    that build's history table, so it must only be used inside such a block."""
    return _SWITCH.use_build(module)


def _prop_plan(coder: DeltaCoder | None) -> PropPlan:
    """How the compiled assembler codes one property's value in a value-delta record."""
    if coder is None:
        return (K_WHOLE, 0, 1, 0, 0, None)
    part = coder.parts[0]
    if isinstance(part, VarIntDelta) and coder.vector is None:
        return (K_VARINT, 0, 1, 0, 0, coder)
    if not isinstance(part, ScalarDelta) or any(p is not part for p in coder.parts):
        return (K_PYTHON, 0, 1, 0, 0, coder)
    comps = len(coder.parts)
    vector = coder.vector is not None
    if part.kind == "coord":
        codec = part.codec
        assert isinstance(codec, Coord)
        kind = K_VEC_COORD if vector else K_COORD
        return (kind, part.width, comps, codec.int_bits, codec.frac_bits, coder)
    if part.plain:
        return (K_VEC_PLAIN if vector else K_PLAIN, part.width, comps, 0, 0, coder)
    if not vector:
        return (K_ZIGZAG, part.width, 1, 0, 0, coder)
    return (K_PYTHON, 0, 1, 0, 0, coder)


def plans(schema: Schema) -> tuple[Any, ...]:
    """Per class: ``(layout, count, index bits, public mask, property plans, class id,
    baseline bits, baseline widths)``."""
    return tuple(
        (
            lay,
            lay.count,
            lay.index_bits,
            lay.public_mask,
            tuple(map(_prop_plan, lay.deltas)),
            lay.class_id,
            tuple(lay.base_bits),
            tuple(lay.base_widths),
        )
        for lay in schema.classes
    )
