"""Interest management: which entities each client is sent (relevancy).

An :class:`Interest` keeps, for every client of a :class:`SnapshotEncoder`, the set of
entities relevant to it now, and a log of the ids whose relevance changed in each tick of the
history ring. The encoder turns that into records with the machinery it already has for
spawns and despawns (``docs/replication-interest.md``): an entity that became
relevant to a client since the client's base tick goes out as an enter (its full state), one
that stopped being relevant as a delete, and the others as updates of what changed since the
base. Acks and loss work as for spawns, because the base is the acked tick and the log says
what the client held at it.

What is relevant to a client: an entity made always relevant (:meth:`Interest.add_always`,
for everyone or for one client, e.g. its own pawn); else an entity in the client's area that
the game's ``predicate(entity, client)`` accepts (no predicate accepts all). The area is a
radius or a block of grid cells around the client's view centre (:meth:`set_centre` each tick,
or :meth:`follow` an entity). Entities of a class without a position (``positions``) are in
every area.

The cost of a tick grows with what changed, never with entities x clients: the grid (a
uniform hash grid, ``cell`` units a side, 2D or 3D) is updated from the world's spawns,
despawns and dirty entities; an entity that moved is tested against the clients watching its
cells (and those that see it); a client whose centre or area changed is tested against the
entities of its cells.
:attr:`Interest.work` counts those steps.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Mapping, Sequence
from math import floor, isfinite
from typing import Any

from . import _assembler
from ._budget import Near
from ._declarations import NetClass
from ._float_codecs import Vec2, Vec3
from ._schema import ClassLayout
from ._world import World

__all__ = ["Interest", "Predicate"]

#: ``predicate(entity, client)``: a game rule on top of the area (``client`` is the
#: encoder's :class:`~gdvariant.replication.Client`).
Predicate = Callable[[Any, Any], bool]
Cell = tuple[int, ...]
#: A block of cells: its lowest and highest cell, or None for none.
Box = tuple[Cell, Cell] | None
#: The bucket of entities without a position: every client watches it.
EVERYWHERE: Cell = ()
#: The most cells one client's area may cover (a radius: its bounding box), checked when the
#: area is set: an area's cells are walked when it moves, so a radius of a million cells
#: would hang the server's tick instead of failing where it was asked for.
MAX_AREA_CELLS = 1 << 16
#: the position types whose two coordinates ``_test`` reads by index
_PAIRS = (tuple, list)


class _View:
    """One client's area and what it sees."""

    __slots__ = (
        "always",
        "box",
        "cells",
        "centre",
        "changes",
        "client",
        "follow",
        "log",
        "log_ticks",
        "order",
        "radius",
        "relevant",
        "retest",
        "watched",
    )

    def __init__(self, client: Any) -> None:
        self.client = client
        self.centre: tuple[float, ...] | None = None
        self.radius: float | None = None
        self.cells: int | None = None
        self.follow: Any = None
        self.always: set[int] = set()
        self.relevant: dict[int, Any] = {}
        #: the ids of ``relevant`` ascending, kept as they enter and leave (a client's
        #: section visits them in that order every tick)
        self.order: list[int] = []
        self.watched: set[Cell] = set()
        #: the block of cells ``watched`` holds (None: only the bucket of no position)
        self.box: Box = None
        #: ids whose relevance changed this tick -> whether they were relevant before it
        self.changes: dict[int, bool] = {}
        #: the changes of each tick of the history ring that had some, oldest first, and
        #: those ticks: two lists rather than one of (tick, changes) pairs, since a pair holding
        #: a dict stays tracked by the cyclic collector, 256 more a tick for its full collections
        self.log: list[dict[int, bool]] = []
        self.log_ticks: list[int] = []
        self.retest = True


class Interest:
    """Per-client relevancy over a uniform grid of ``cell`` units a side.

    ``positions`` maps a NetClass (or its table name) to the path of its position property,
    a ``Vec2`` or ``Vec3`` (all of one dimension); ``predicate(entity, client)`` is an
    optional game rule, tested when an entity or a client moves or an entity changes (call
    :meth:`refresh` when a rule's answer changes for another reason). Give it to
    ``SnapshotEncoder(world, interest=...)``, which adds and removes its clients and updates
    it in ``snapshot()``.
    """

    def __init__(
        self,
        world: World,
        *,
        cell: float,
        positions: Mapping[type[NetClass] | str, str],
        predicate: Predicate | None = None,
    ) -> None:
        if not (isinstance(cell, int | float) and math.isfinite(cell) and cell > 0):
            raise ValueError(f"cell must be a positive finite size, not {cell!r}")
        if world.lifecycle is not None:
            raise ValueError("this world already feeds an Interest")
        self.world, self.cell, self.predicate = world, float(cell), predicate
        self._where: dict[ClassLayout, int] = {}
        dims = set()
        for cls, path in positions.items():
            lay = world.schema.layout(cls)
            index = lay.index.get(path)
            if index is None:
                raise ValueError(f"{lay.name} has no networked property {path!r}")
            codec = lay.codecs[index]
            if not isinstance(codec, Vec2 | Vec3):
                raise ValueError(f"{lay.name}.{path} is not a Vec2 or Vec3 position")
            dims.add(2 if isinstance(codec, Vec2) else 3)
            self._where[lay] = index
        if len(dims) > 1:
            raise ValueError("positions mix 2D and 3D vectors: one grid has one dimension")
        self.dims = dims.pop() if dims else 2
        self._grid: dict[Cell, dict[int, Any]] = {EVERYWHERE: {}}
        self._cell_of: dict[int, Cell] = {}
        self._pos: dict[int, tuple[float, ...]] = {}
        self._watchers: dict[Cell, set[Any]] = {EVERYWHERE: set()}
        self._seen_by: dict[int, set[Any]] = {}
        self._always: set[int] = set()
        self._touched: dict[int, Any] = {}  # entities to test again at the next update
        self.views: dict[Any, _View] = {}
        #: steps done so far: ``"tests"`` (an entity tested against a client) and
        #: ``"cells"`` (an entity placed in or taken out of a cell, a cell watched or not)
        self.work = {"tests": 0, "cells": 0}
        world.lifecycle = [(True, ent) for ent in world.entities.values()]

    # -- the game's side ---------------------------------------------------------------

    def set_area(
        self, client_id: Any, *, radius: float | None = None, cells: int | None = None
    ) -> None:
        """``client_id`` sees the entities within ``radius`` of its centre, or those in the
        block of ``2 * cells + 1`` cells a side around its centre's cell."""
        if (radius is None) == (cells is None):
            raise ValueError("give a radius or a number of cells, not both or neither")
        if radius is not None:
            if not (isinstance(radius, int | float) and math.isfinite(radius) and radius >= 0):
                raise ValueError(f"radius must be a finite size >= 0, not {radius!r}")
            side = math.floor(2 * radius / self.cell) + 2  # the most cells its box spans
        else:
            if not (isinstance(cells, int) and not isinstance(cells, bool) and cells >= 0):
                raise ValueError(f"cells must be an int >= 0, not {cells!r}")
            side = 2 * cells + 1
        if side**self.dims > MAX_AREA_CELLS:
            raise ValueError(
                f"an area of up to {side}^{self.dims} cells is over the limit of "
                f"{MAX_AREA_CELLS:,}: use larger cells or a smaller area"
            )
        view = self._view(client_id)
        # a float radius: its square is the same number in the pure and the compiled aim
        view.radius = None if radius is None else float(radius)
        view.cells, view.retest = cells, True

    def set_centre(self, client_id: Any, centre: Iterable[float] | None) -> None:
        """Centre ``client_id``'s area at ``centre`` (None: no area, only what is always
        relevant and what has no position); stops following an entity."""
        view = self._view(client_id)
        view.follow = None
        view.centre = None if centre is None else self._point(centre)
        view.retest = True

    def follow(self, client_id: Any, entity: Any) -> None:
        """Centre ``client_id``'s area on ``entity``'s position at every update."""
        view = self._view(client_id)
        if entity._net_world is not self.world:
            raise ValueError(f"entity {entity.net_id} is not in this interest's world")
        if self._where.get(entity._net_layout) is None:
            raise ValueError(f"{entity._net_layout.name} has no position in this grid")
        view.follow, view.retest = entity, True

    def add_always(self, entity: Any, client_id: Any = None) -> None:
        """``entity`` is relevant to every client (or to ``client_id``) until removed or
        despawned."""
        if entity._net_world is not self.world:
            raise ValueError(f"entity {entity.net_id} is not in this interest's world")
        views = self.views.values() if client_id is None else [self._view(client_id)]
        (self._always if client_id is None else self._view(client_id).always).add(entity.net_id)
        for view in views:
            self._set(view, entity, True)

    def remove_always(self, entity: Any, client_id: Any = None) -> None:
        """Undo :meth:`add_always`."""
        target = self._always if client_id is None else self._view(client_id).always
        target.discard(entity.net_id)
        self._touch(entity)

    def refresh(self, client_id: Any = None) -> None:
        """Test the predicate again at the next update, for ``client_id`` (or all)."""
        views = self.views.values() if client_id is None else [self._view(client_id)]
        for view in views:
            view.retest = True

    def relevant(self, client_id: Any) -> set[int]:
        """The ids relevant to ``client_id`` as of the last update."""
        return set(self._view(client_id).relevant)

    # -- the encoder's side ------------------------------------------------------------

    def add_client(self, client: Any) -> None:
        """Start a view for the encoder's ``client`` (no area yet)."""
        self.remove_client(client.client_id)
        view = self.views[client.client_id] = _View(client)
        self._watch(view, {EVERYWHERE})

    def remove_client(self, client_id: Any) -> None:
        """Forget ``client_id``'s view."""
        view = self.views.pop(client_id, None)
        if view is None:
            return
        self._watch(view, set())
        for net_id in view.relevant:
            self._seen_by[net_id].discard(client_id)

    def update(self, tick: int, history: int) -> None:
        """Bring every view up to date for ``tick`` (the one the world is about to close),
        from what spawned, despawned and changed since the last update."""
        world = self.world
        lifecycle = world.lifecycle
        assert lifecycle is not None
        world.lifecycle = []
        for born, ent in lifecycle:
            if born:
                if ent._net_world is world:
                    self._place(ent)
            else:
                self._unplace(ent)
        self._moves(world.dirty)
        # the views in the order of their areas: a sweep finds the cells and positions the
        # one before read still in the cache
        views = self.views
        # what the live assembler read of each cell in this update (the grid and the positions
        # stay as they are until the next one)
        memo: dict[Cell, Any] = {}
        pending = [views[c] for c in self.nearby_order(views) if not self._aim(views[c], memo)]
        if pending and self._touched:
            # from whichever side walks less: the views' entities, or the touched entities'
            # watchers (about ten candidate views each; both test the same pairs, and record
            # each view's changes in the order touched); without a predicate the compiled
            # retest walks the views' cells faster than Python tests the touched entities
            by_views = self.predicate is None and _assembler.assembler() == _assembler.COMPILED
            if by_views or sum(len(view.relevant) for view in pending) < 5 * len(self._touched):
                self._retest_from_views(pending)
            else:
                self._retest_from_entities(pending)
        self._touched = {}
        oldest = tick - history
        for view in self.views.values():
            if view.changes:
                view.log.append(view.changes)
                view.log_ticks.append(tick)
                view.changes = {}
                while view.log_ticks[0] <= oldest:
                    del view.log[0], view.log_ticks[0]

    def _retest_from_entities(self, pending: list[_View]) -> None:
        """Test each entity touched since the last update against the ``pending`` views (those
        :meth:`_aim` did not test whole) that watch its cell or see it, entity by entity."""
        world, waiting = self.world, {view.client.client_id for view in pending}
        for net_id, ent in self._touched.items():
            if ent._net_world is not world:
                continue
            cell = self._cell_of.get(net_id, EVERYWHERE)
            for client_id in self._watchers.get(cell, set()) | self._seen_by.get(net_id, set()):
                if client_id in waiting:
                    view = self.views[client_id]
                    now = self._test(view, ent)
                    if (net_id in view.relevant) != now:  # else _set has nothing to do
                        self._set(view, ent, now)

    def _retest_from_views(self, pending: list[_View]) -> None:
        """What :meth:`_retest_from_entities` does, view by view: each view's cells' entities
        and what it sees that were touched, in the order they were touched (cheaper when few
        views were not tested whole, and whenever there is no predicate: the live
        assembler's retest then tests a view's entities in one call)."""
        world, grid, touched = self.world, self._grid, self._touched
        order = {net_id: k for k, net_id in enumerate(touched)}
        # without a predicate, what each retest reads of a view's cells is their touched
        # entities: sorted by cell once an update, not found among all of a cell's entities
        # by each view that watches it (about 14 a cell in the benchmark); when most entities
        # were touched, the grid holds little else, and sorting them would cost more
        few = 2 * len(touched) <= len(world.entities)
        moved = self._touched_by_cell() if self.predicate is None and few else grid
        # what the live assembler's retest read of each cell's touched entities (their
        # ranks, entities, worlds and positions), for the other views watching it
        memo: dict[Cell, Any] = {}
        for view in pending:
            if self.predicate is None:  # the live assembler's retest
                self.work["tests"] += _assembler.live().retest(
                    self._record(view),
                    view.watched,
                    moved,
                    touched,
                    order,
                    self._pos,
                    self._cell_of,
                    self._always,
                    view.always,
                    world,
                    view.centre,
                    view.radius,
                    memo,
                )
                continue
            ids = {i for cell in view.watched for i in grid.get(cell, ()) if i in order}
            ids.update(i for i in view.relevant if i in order)
            for net_id in sorted(ids, key=order.__getitem__):
                ent = touched[net_id]
                if ent._net_world is world:
                    self._set(view, ent, self._test(view, ent))

    def _touched_by_cell(self) -> dict[Cell, dict[int, Any]]:
        """The entities touched since the last update by the cell each is in (the bucket of
        no position for those without one): of every cell of the grid, its touched ones."""
        cells: dict[Cell, dict[int, Any]] = {}
        cell_of = self._cell_of
        for net_id, ent in self._touched.items():
            cells.setdefault(cell_of.get(net_id, EVERYWHERE), {})[net_id] = ent
        return cells

    def distance(self, client_id: Any, net_id: int) -> float | None:
        """How far entity ``net_id``'s position is from ``client_id``'s view centre (None
        when either has none): the encoder's budget sends the nearer entities first."""
        centre = self._view(client_id).centre
        point = self._pos.get(net_id)
        if centre is None or point is None:
            return None
        return math.dist(point, centre)

    def nearness(self, client_id: Any) -> Near:
        """What the budget's ranking weighs an entity's distance from ``client_id``'s view
        centre by (``_budget.near_factor``): the centre, the positions by id, the cell size."""
        return self._view(client_id).centre, self._pos, self.cell

    def held_since(self, client_id: Any, base: int) -> dict[int, bool]:
        """The ids whose relevance to ``client_id`` changed after tick ``base``, each with
        whether it was relevant at ``base`` (what a client that holds ``base`` holds; none
        with no base, 0, as a client that holds nothing gets a full update): what the live
        assembler's ``relevance`` gives the encoder, the one owner of that merge."""
        view = self._view(client_id)
        was: dict[int, bool]
        *_, was = _assembler.live().relevance(
            view.relevant, view.order, view.log_ticks, view.log, base, None
        )
        return was

    # -- the grid ----------------------------------------------------------------------

    def nearby_order(self, client_ids: Iterable[Any]) -> list[Any]:
        """``client_ids`` in an order that puts clients whose areas are near each other next
        to each other: by the row of their centre's cell, each row walked the other way from
        the last, those without a centre last."""
        views, cell_at = self.views, self._cell
        keyed: list[tuple[Any, ...]] = []
        last: list[Any] = []
        for k, client_id in enumerate(client_ids):
            view = views.get(client_id)
            centre = None if view is None else view.centre
            if centre is None:
                last.append(client_id)
                continue
            first, *row = cell_at(centre)
            # the same number of coordinates in every key, and k unique: a plain sort
            # compares the row, then x, then k, and never reaches the client id
            keyed.append((*row, first if sum(row) % 2 == 0 else -first, k, client_id))
        keyed.sort()
        return [item[-1] for item in keyed] + last

    def _view(self, client_id: Any) -> _View:
        view = self.views.get(client_id)
        if view is None:
            raise KeyError(f"client {client_id!r} is not a client of this interest's encoder")
        return view

    def _point(self, value: Iterable[float]) -> tuple[float, ...]:
        """``value`` as a tuple of ``dims`` floats (a clear error if it is not one)."""
        try:
            point = tuple(float(x) for x in value)
        except (TypeError, ValueError):
            raise ValueError(f"a position is {self.dims} numbers, not {value!r}") from None
        if len(point) != self.dims:
            raise ValueError(f"a position here has {self.dims} coordinates, not {len(point)}")
        return point

    def _cell(self, point: Sequence[float]) -> Cell:
        size = self.cell
        try:  # floor raises for an infinite or NaN quotient: the slow way for those
            if len(point) == 2:  # unpacked: less than half the time of the loop below
                x, y = point
                return (floor(x / size), floor(y / size))
            return tuple([floor(x / size) for x in point])
        except (OverflowError, ValueError):
            return tuple([floor(x / size) if isfinite(x) else 0 for x in point])

    def _touch(self, ent: Any) -> None:
        """Test ``ent`` again at the next update (against who watches it or sees it)."""
        if ent._net_world is self.world:
            self._touched[ent.net_id] = ent

    def _place(self, ent: Any) -> None:
        """A spawned entity: into its cell (or the bucket of entities without a place)."""
        index = self._where.get(ent._net_layout)
        if index is None:
            self._grid[EVERYWHERE][ent.net_id] = ent
            self.work["cells"] += 1
            self._touched[ent.net_id] = ent
        else:
            self._move(ent, index)

    def _unplace(self, ent: Any) -> None:
        """A despawned entity: out of its cell and of every view that held it."""
        net_id = ent.net_id
        cell = self._cell_of.pop(net_id, EVERYWHERE)
        self._pos.pop(net_id, None)
        bucket = self._grid.get(cell)
        if bucket is not None and bucket.get(net_id) is ent:
            del bucket[net_id]
            if not bucket and cell != EVERYWHERE:
                del self._grid[cell]
            self.work["cells"] += 1
        for client_id in self._seen_by.pop(net_id, set()):
            view = self.views[client_id]
            if view.relevant.get(net_id) is ent:
                view.changes.setdefault(net_id, True)
                del view.relevant[net_id]
                _unorder(view.order, net_id)
        self._always.discard(net_id)
        for view in self.views.values():
            view.always.discard(net_id)
        self._touched.pop(net_id, None)

    def _moves(self, dirty: list[Any]) -> None:
        """The world's dirty entities: those whose position was written move in the grid (the
        live assembler's ``moves``, :meth:`_move` for a tick in which everything moves); with
        a predicate, the others are tested again too."""
        self.work["cells"] += _assembler.live().moves(
            self.world,
            dirty,
            self._where,
            self._grid,
            self._cell_of,
            self._pos,
            self._touched,
            self.cell,
            self.dims == 2,
            self.predicate is not None,
            self._cell,
        )

    def _move(self, ent: Any, index: int) -> None:
        """``ent`` is at a new position: move it between cells if it left its own."""
        net_id = ent.net_id
        point = self._point(ent._net_vals[index])
        cell = self._cell(point)
        old = self._cell_of.get(net_id)
        self._pos[net_id] = point
        if old != cell:
            if old is not None:
                bucket = self._grid[old]
                del bucket[net_id]
                if not bucket:
                    del self._grid[old]
            self._grid.setdefault(cell, {})[net_id] = ent
            self._cell_of[net_id] = cell
            self.work["cells"] += 1
        self._touched[net_id] = ent

    def _watch(self, view: _View, cells: set[Cell]) -> None:
        """Make ``view`` watch ``cells``."""
        client_id = view.client.client_id
        gained, lost = cells - view.watched, view.watched - cells
        if not gained and not lost:
            # keep the set watched: a new one per moving view and tick would be 256 more
            # objects a tick for the cyclic collector's oldest generation in the benchmark
            return
        for cell in lost:
            watchers = self._watchers[cell]
            watchers.discard(client_id)
            if not watchers:
                del self._watchers[cell]
        for cell in gained:
            self._watchers.setdefault(cell, set()).add(client_id)
        self.work["cells"] += len(gained) + len(lost)
        view.watched = cells

    def _box(self, view: _View, centre: tuple[float, ...] | None) -> Box:
        """The lowest and the highest cell of the block an area at ``centre`` covers (a
        radius: its bounding box's); None for no area."""
        if centre is None or (view.radius is None and view.cells is None):
            return None
        if view.radius is not None:
            r = view.radius
            return self._cell([x - r for x in centre]), self._cell([x + r for x in centre])
        mid, n = self._cell(centre), view.cells
        assert n is not None
        return tuple([c - n for c in mid]), tuple([c + n for c in mid])

    @staticmethod
    def _area(box: Box) -> set[Cell]:
        """The cells of a block (and the bucket of entities without a position)."""
        if box is None:
            return {EVERYWHERE}
        lo, hi = box
        if len(lo) == 2:  # the loop below, unrolled: two thirds of its time
            (ax, ay), (bx, by) = lo, hi
            ys = range(ay, by + 1)
            return {EVERYWHERE, *[(x, y) for x in range(ax, bx + 1) for y in ys]}
        cells: list[Cell] = [()]
        for a, b in zip(*box, strict=True):
            cells = [(*c, k) for c in cells for k in range(a, b + 1)]
        return {EVERYWHERE, *cells}

    def _aim(self, view: _View, memo: dict[Cell, Any]) -> bool:
        """Move ``view``'s area to where its centre is now and test what that changes.
        Returns whether every entity it watches was tested."""
        centre = view.centre
        if view.follow is not None:
            if view.follow._net_world is self.world:
                centre = self._pos.get(view.follow.net_id)
            else:  # despawned: no area until the game gives another
                view.follow = centre = None
            if centre != view.centre:
                view.centre, view.retest = centre, True
        if not view.retest:
            return False
        view.retest = False
        box = self._box(view, centre)
        if box != view.box:  # else the same cells: no new set of them
            view.box = box
            self._watch(view, self._area(box))
        # every entity it watches tested, what changed recorded: the live assembler's aim (a
        # block of cells that moved too: testing only the cells it gained and lost, then the
        # entities that moved as the touched ones, cost a third of the update when all moved)
        self.work["tests"] += _assembler.live().aim(
            self._record(view),
            view.watched,
            self._grid,
            self._pos,
            centre,
            view.radius,
            self.cell,
            self._always,
            view.always,
            self.world.entities,
            self.predicate,
            memo,
        )
        return True

    def _record(self, view: _View) -> tuple[Any, ...]:
        """``view`` as the live assembler's ``aim`` and ``retest`` take it: what
        they test it by and record into (``_pyassemble.View``)."""
        return view.relevant, view.order, view.changes, self._seen_by, view.client

    def _test(self, view: _View, ent: Any) -> bool:
        """Is ``ent`` relevant to ``view``'s client now?"""
        self.work["tests"] += 1
        net_id = ent.net_id
        if net_id in self._always or net_id in view.always:
            return True
        point = self._pos.get(net_id)
        if point is not None:
            if view.radius is not None:
                centre = view.centre
                if centre is None:
                    return False
                if type(point) in _PAIRS and len(point) == len(centre) == 2:
                    # what the loop below gives for two terms (the same additions), without
                    # it: the test of each moved entity against each view
                    dx, dy = point[0] - centre[0], point[1] - centre[1]
                    apart = dx * dx + dy * dy
                else:  # left to right, as the assemblers' retest (not sum(), which
                    # compensates on newer Pythons)
                    apart = 0.0
                    for a, b in zip(point, centre, strict=True):
                        apart += (a - b) * (a - b)
                if apart > view.radius * view.radius:
                    return False
            elif self._cell_of[net_id] not in view.watched:
                return False
        return self.predicate is None or bool(self.predicate(ent, view.client))

    def _set(self, view: _View, ent: Any, now: bool) -> None:
        """Record that ``ent`` is (or is not) relevant to ``view``'s client."""
        net_id = ent.net_id
        if (net_id in view.relevant) == now:
            return
        client_id = view.client.client_id
        view.changes.setdefault(net_id, not now)
        if now:
            view.relevant[net_id] = ent
            insort(view.order, net_id)
            self._seen_by.setdefault(net_id, set()).add(client_id)
        else:
            del view.relevant[net_id]
            _unorder(view.order, net_id)
            seen = self._seen_by[net_id]
            seen.discard(client_id)
            if not seen:
                del self._seen_by[net_id]


def _unorder(order: list[int], net_id: int) -> None:
    """Take ``net_id`` out of the ascending ``order``."""
    k = bisect_left(order, net_id)
    if k == len(order) or order[k] != net_id:
        raise RuntimeError(f"id {net_id} is missing from its view's order")
    del order[k]
