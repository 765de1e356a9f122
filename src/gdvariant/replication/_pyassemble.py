"""The pure-Python packet assembler: the reference that the compiled one (``_cassemble.c``) matches.

Its functions take the compiled module's arguments and give its results, so
``_assembler`` hands either module to the encoder and the world:

* :func:`assemble`: every shared section of a tick, one per base tick, in one walk over the
  entities (``SnapshotEncoder`` caches them per base), or a client's own section, with the
  enter records of the ids entering its view and the updates of ids it holds as of an older
  tick than its base;
* :func:`assemble_clients`: every client's own section of a tick (an :func:`assemble` each);
* :func:`encode_record`: one record with whole values (the record format's own);
* :func:`commit`: ``World.commit``'s loop over the dirty entities;
* :func:`aim`: the interest's test of a view against every entity it watches, and the record
  of what that changed (each view given as its record, a :data:`View`);
* :func:`retest`: the same for the entities touched since the last update (a view without
  a predicate);
* :func:`moves`: the interest's placing in its grid of the entities whose position was
  written;
* :func:`sizes`: the bytes of each of some records alone, for a budget filling a packet;
* :func:`relevance`: what a client's own section is made from with an interest (the ids it
  should hold, those entering and leaving its view since its base);
* :func:`rank`: a budget's ranking of the records a client's packet may carry, most urgent
  first.

An update record for base ``b`` carries what changed in the history entries after ``b``.
Walking each entity's entries newest first, the bases newest first too (a cumulative mask
only grows), gives every base's record in one pass. Records are cached per entity (its
``_net_cache``, emptied when it changes) under keys the compiled assembler uses too, so the two
can take turns on one world. With value deltas (wire doc ``docs/replication-wire.md`` §5.1) a
value is coded against its bits at the base: each history entry keeps the fragments of the
values it changed, made when a packet first needs them and dated by the tick, so a value is
coded again only if it changed since (the compiled assembler codes them afresh instead, which
costs it less than a lookup). For an entity whose history a C ring holds the compiled one keeps
no records in ``_net_cache``: it keeps the bodies of its records (what follows the head with
its id gap) in the ring, emptied with each entry the ring gets, and puts a body behind each
section's head. For any other entity, in the section of a single base (a client's own, with an
interest), it codes each value-delta update straight into the section behind its gap and keeps
nothing.
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Callable, Mapping
from typing import Any

from ._budget import Near, choose, near_factor, priority
from ._history import entries, owned
from ._packet_format import (
    OP_DELETE,
    OP_ENTER,
    OP_UPDATE,
    change_list,
    encode_record,
    set_indices,
    update_head,
)

__all__ = [
    "aim",
    "assemble",
    "assemble_clients",
    "commit",
    "encode_record",
    "moves",
    "rank",
    "relevance",
    "retest",
    "sizes",
]

Sections = list[tuple[int, bytes]]
Enter = Callable[[Any, int], bytes]
#: The ids entering a section though spawned before its bases (an interest's arrivals), or None.
Entering = set[int] | frozenset[int] | None
#: In a section of one base: ids the client holds as of an older tick than the base (a packet
#: left them out), with that tick; or None.
Held = dict[int, int] | None
#: A history entry, as ``_world.Change`` describes it.
Entry = tuple[int, int, tuple[int, ...], list[Any] | None]
#: An interest's view as ``aim`` and ``retest`` take it, its record: ``(relevant,
#: order, changes, seen_by, client)``, the view's relevant entities by id, their ids
#: ascending, its changes of the tick (id -> whether it was relevant before), the interest's
#: viewers (id -> the set of client ids it is relevant to), and the view's client.
View = tuple[dict[int, Any], list[int], dict[int, bool], dict[int, set[Any]], Any]
#: The same with the client's id in place of the client: what :func:`_put` records into.
Record = tuple[dict[int, Any], list[int], dict[int, bool], dict[int, set[Any]], Any]

# An update record's head for an id gap (op and gap code), by gap: the same few gaps recur.
_HEADS: dict[int, tuple[int, int]] = {}
_HEADS_KEPT = 4096


def assemble(
    deltas: bool,
    tick: int,
    order: list[int],
    oldest: int,
    ids: list[int],
    entities: dict[int, Any],
    deleted: dict[int, list[tuple[int, int]]],
    plans: Any,
    class_bits: int,
    entering: Entering,
    held: Held,
) -> Sections:
    """The shared section of each base in ``order`` (newest first) as ``(record count,
    bytes)``, for the world's tick ``tick``. ``oldest`` is the oldest base (-1 for a full
    update), ``ids`` every live or recently deleted id ascending, ``deleted`` the spans of
    the deleted ones, ``entering`` the ids (if any) that get an enter record for every base
    as if spawned at ``tick``: entities that became relevant to the section's client.
    ``held`` (a section of one base only) maps ids to an older tick than the base, the one
    whose state of the entity the client holds: those get an update of all since then.
    ``plans`` is the compiled assembler's view of the layouts (``_assembler.plans``); this
    one reads the layouts themselves."""
    if held and len(order) != 1:
        raise ValueError("held ticks go with a section of one base")

    def enter(ent: Any, gap: int) -> bytes:
        return _enter(ent, gap, class_bits)

    if deltas:
        return _value_delta_sections(
            tick, order, oldest, ids, entities, deleted, enter, entering, held
        )
    return _whole_sections(
        tick, order, oldest, ids, entities, deleted, class_bits, enter, entering, held
    )


#: One client's own section of a tick, as :func:`assemble_clients` takes it: the arguments of
#: its :func:`relevance`, ``(relevant, order, ticks, log, base, gone)``.
Job = tuple[dict[int, Any], list[int], list[int], list[dict[int, bool]], int, Any]


def assemble_clients(
    deltas: bool, tick: int, jobs: list[Job], plans: Any, class_bits: int
) -> Sections:
    """Each job's section (a client's own, with an interest): from its :func:`relevance`, what
    :func:`assemble` gives for its base alone over the ids it visits (``oldest`` the base, or
    -1 for a full update), with the ids entering as enters and those leaving as deletes. The
    compiled one walks them in one call, so that an entity several clients see is looked up
    once a tick."""
    out = []
    for job in jobs:
        if not isinstance(job, tuple) or len(job) != 6:
            raise TypeError("a job is (relevant, order, ticks, log, base, gone)")
        _, held, entering, leaving, _ = relevance(*job)
        relevant, base = job[0], job[4]
        out.append(
            assemble(
                deltas,
                tick,
                [base],
                base or -1,
                held,
                relevant,
                leaving,
                plans,
                class_bits,
                entering or None,
                None,
            )[0]
        )
    return out


def sizes(
    deltas: bool,
    tick: int,
    base: int,
    ids: list[int],
    entities: dict[int, Any],
    deleted: dict[int, list[tuple[int, int]]],
    plans: Any,
    class_bits: int,
    entering: Entering,
    held: Held,
) -> list[int]:
    """The bytes of each id's record in a section of that id alone for ``base`` (what
    :func:`assemble` gives for ``[id]``): an upper bound of its size among others, which a
    budget fills a packet by."""
    return [
        len(
            assemble(
                deltas,
                tick,
                [base],
                base or -1,
                [net_id],
                entities,
                deleted,
                plans,
                class_bits,
                entering,
                held,
            )[0][1]
        )
        for net_id in ids
    ]


def fit(
    deltas: bool,
    tick: int,
    base: int,
    order: list[int],
    entities: dict[int, Any],
    deleted: dict[int, list[tuple[int, int]]],
    plans: Any,
    class_bits: int,
    entering: Entering,
    held: Held,
    room: int,
    most: int,
    ranked: Callable[[], list[int]] | None,
) -> tuple[tuple[int, bytes], list[int]]:
    """A client's section for ``base`` within ``room`` bytes, and the ids left waiting. Its
    records are those of ``order`` (a ranking, most urgent first) that
    :func:`~gdvariant.replication._budget.choose` picks, sized by :func:`sizes` and assembled
    by :func:`assemble` (those in ``entering`` as enters); a record over ``most`` bytes
    alone is a ValueError. With ``ranked``, ``order`` is every id ascending: their section
    when it fits room (no record then checked against ``most``), else the pick down the
    ranking ``ranked()`` gives."""

    def size_of(chunk: list[int]) -> list[int]:
        return sizes(
            deltas, tick, base, chunk, entities, deleted, plans, class_bits, entering, held
        )

    def section_of(chosen: list[int]) -> tuple[int, bytes]:
        args = (tick, [base], base or -1, chosen, entities, deleted, plans, class_bits)
        return assemble(deltas, *args, entering, held)[0]

    if ranked is not None:
        section = section_of(order)
        if len(section[1]) <= room:
            return section, []
        order = ranked()
    section, _, rest = choose(order, size_of, section_of, room, most)
    return section, rest


def _enter(ent: Any, gap: int, class_bits: int) -> bytes:
    """The enter record of ``ent`` after an id gap of ``gap``: its public properties not at
    their class baselines (``World.nondefault``), whole. Cached on the entity by the gap: what
    it carries changes only when the entity does, and a change empties the cache."""
    key = ("E", gap)
    cache = ent._net_cache
    record: bytes | None = cache.get(key)
    if record is None:
        lay = ent._net_layout
        bits, widths = ent._net_bits, ent._net_widths
        mask = 0
        for i, (b, w, base_b, base_w) in enumerate(
            zip(bits, widths, lay.base_bits, lay.base_widths, strict=True)
        ):
            if b != base_b or w != base_w:
                mask |= 1 << i
        mask &= lay.public_mask
        record = cache[key] = encode_record(lay, class_bits, OP_ENTER, gap, mask, bits, widths)
    return record


def commit(world: Any, dirty: list[Any], tick: int, oldest: int) -> None:
    """Close ``tick`` for the ``dirty`` entities of ``world``: each one still in it that
    changed gets ``(tick, changed mask, bits before, None)`` in its history, loses the entries
    at or before ``oldest``, and its record cache is emptied. The bits before are a tuple, one
    item per set bit of the mask, ascending (:func:`before_tuple`)."""
    for ent in dirty:
        d = ent.__dict__
        if d["_net_world"] is not world:
            continue  # despawned since it was written
        mask = d["_net_dirty"]
        d["_net_dirty"] = 0
        if not mask:
            continue
        hist = d["_net_hist"]
        if hist is None:  # the compiled commit's table holds it
            hist = owned(ent)
        hist.append((tick, mask, before_tuple(d["_net_before"], mask), None))
        while hist[0][0] <= oldest:
            del hist[0]
        d["_net_cache"] = {}


def before_tuple(before: dict[int, int], mask: int) -> tuple[int, ...]:
    """A dirty entity's bits before (its write path's ``{index: bits}``) as its history entry
    keeps them: the bits of each set bit of ``mask``, ascending. A flat tuple of ints, which
    the collector leaves alone, and where the compiled walk finds a baseline by its rank among
    the set bits instead of a lookup in a dict made tens of ticks before."""
    order = set_indices(mask)
    if len(order) != len(before):
        raise RuntimeError("the bits before do not match the changed mask")
    return tuple([before[i] for i in order])


def _sweep(
    buckets: list[dict[int, Any]],
    pos: dict[int, Any],
    centre: tuple[float, ...],
    r2: float,
    found: dict[int, Any],
) -> None:
    """Put into ``found`` each entity of the cells ``buckets`` (``{net id: entity}``) whose
    position in ``pos`` (2 or 3 numbers, as the ``centre``) is within a squared distance
    ``r2`` of ``centre``: :func:`aim`'s sweep of a cell a radius covers in part."""
    if len(centre) == 2:
        cx, cy = centre
        for bucket in buckets:
            for net_id, ent in bucket.items():
                x, y = pos[net_id]
                if (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r2:
                    found[net_id] = ent
        return
    cx, cy, cz = centre
    for bucket in buckets:
        for net_id, ent in bucket.items():
            x, y, z = pos[net_id]
            if (x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) <= r2:
                found[net_id] = ent


def aim(
    view: View,
    watched: set[tuple[int, ...]],
    grid: dict[tuple[int, ...], dict[int, Any]],
    pos: dict[int, Any],
    centre: tuple[float, ...] | None,
    radius: float | None,
    size: float,
    always: set[int],
    own: set[int],
    entities: dict[int, Any],
    rule: Callable[[Any, Any], bool] | None,
    memo: dict[tuple[int, ...], Any],
) -> int:
    """Test an interest's ``view`` (its record) against every entity it watches and record
    what that changes: ``Interest``'s aim of a view whose area moved, for each client every
    tick.

    What is relevant: the entities without a position (``grid[()]``); with a ``centre``, those
    of the ``watched`` cells (each a bucket of ``grid``, ``size`` units a side) within
    ``radius`` of it (a cell wholly inside taken whole; :func:`sweep` for the others), or all
    of them for a block of cells (``radius`` None); of those, the ones ``rule(entity,
    client)`` accepts (None accepts all); and the ids in ``always`` and ``own`` still in
    ``entities``. The ids that became relevant are added to the view's ``relevant`` (in that
    order), then those no longer relevant leave it (in its order), its ``order`` kept alike;
    each one's first change of the tick goes into its ``changes`` (whether it was relevant
    before) and the client's id into (or out of) its set of ``seen_by``, a set emptied being
    dropped. Returns how many entities were tested: those without a position and those of
    the watched cells."""
    record = _record(view)
    relevant = record[0]
    found = dict(grid[()])
    tests = len(found)
    if centre is not None:
        r2 = None if radius is None else radius * radius
        for cell in watched:
            bucket = grid.get(cell) if cell else None
            if not bucket:
                continue
            tests += len(bucket)
            if r2 is None:
                found.update(bucket)
                continue
            far = 0.0  # the squared distance of the cell's farthest corner
            for c, k in zip(centre, cell, strict=True):
                low = k * size - c
                far += max(low * low, (low + size) * (low + size))
            if far <= r2:
                found.update(bucket)
            else:
                _sweep([bucket], pos, centre, r2, found)
    if rule is not None:
        client = view[4]
        found = {i: e for i, e in found.items() if rule(e, client)}
    for ids in (always, own):
        for net_id in ids:
            ent = entities.get(net_id)
            if ent is not None:
                found[net_id] = ent
    for net_id, ent in found.items():
        if net_id not in relevant:
            _put(record, net_id, ent, True)
    if len(relevant) > len(found):  # every id found is relevant now: some others leave
        for net_id in [i for i in relevant if i not in found]:
            _put(record, net_id, None, False)
    return tests


def retest(
    view: View,
    watched: set[tuple[int, ...]],
    grid: dict[tuple[int, ...], dict[int, Any]],
    touched: dict[int, Any],
    rank: dict[int, int],
    pos: dict[int, Any],
    cell_of: dict[int, tuple[int, ...]],
    always: set[int],
    own: set[int],
    world: Any,
    centre: tuple[float, ...] | None,
    radius: float | None,
    memo: dict[tuple[int, ...], Any] | None,
) -> int:
    """Test the ``touched`` entities that an interest's ``view`` (its record) without a
    predicate watches or sees, and record what that changes: ``Interest``'s retest of such
    a view that was not tested whole. The touched ids of the ``watched`` cells' buckets and
    of the view's relevant ones, in the order they were touched (``rank``: each one's
    place), those still in ``world`` each tested (an id of ``always`` or ``own`` is
    relevant, one with a position (``pos``) if its cell (``cell_of``) is ``watched`` or,
    with a ``radius``, if it is within it of ``centre`` as ``Interest._test`` measures it,
    one without a position always) and recorded. Returns how many entities were tested.
    ``memo`` (a dict the retests of one update share, or None) is where the compiled one
    keeps what it read of each cell's touched entities; this one keeps nothing."""
    record = _record(view)
    r2 = None if radius is None else radius * radius
    if r2 is not None and centre is not None and len(centre) not in (2, 3):
        raise ValueError(f"a centre has 2 or 3 coordinates, not {len(centre)}")
    ids = {i for cell in watched for i in grid.get(cell, ()) if i in rank}
    ids.update(i for i in record[0] if i in rank)
    tests = 0
    for net_id in sorted(ids, key=rank.__getitem__):
        ent = touched[net_id]
        if ent._net_world is world:
            tests += 1
            if r2 is None or net_id in always or net_id in own:
                now = _in_block(net_id, watched, pos, cell_of, always, own)
            else:
                now = _within(pos.get(net_id), centre, r2)
            _put(record, net_id, ent, now)
    return tests


def _within(point: Any, centre: tuple[float, ...] | None, r2: float) -> bool:
    """Whether ``point`` (None: no position) is within a squared distance ``r2`` of
    ``centre`` (None: nothing with a position is), summed left to right as ``Interest._test``
    sums it (not ``sum``, which compensates on newer Pythons): a point that is not finite is
    not beyond."""
    if point is None:
        return True
    if centre is None:
        return False
    apart = 0.0
    for a, b in zip(point, centre, strict=True):
        apart += (a - b) * (a - b)
    return not apart > r2


def _in_block(
    net_id: int,
    watched: set[tuple[int, ...]],
    pos: dict[int, Any],
    cell_of: dict[int, tuple[int, ...]],
    always: set[int],
    own: set[int],
) -> bool:
    """Whether ``net_id`` is relevant to a view of a block of cells: always relevant, without
    a position, or in a cell it watches."""
    if net_id in always or net_id in own:
        return True
    return pos.get(net_id) is None or cell_of[net_id] in watched


def _record(view: View) -> Record:
    """``view``'s record with its client's id in place of its client; a TypeError naming what
    is wrong if it is no such record (as the compiled one checks it)."""
    if type(view) is not tuple or len(view) != 5:
        raise TypeError("a view's record is a tuple (relevant, order, changes, seen_by, client)")
    relevant, order, changes, seen_by, client = view
    for value, kind, what in [
        (relevant, dict, "a view's relevant entities must be a dict"),
        (order, list, "a view's order must be a list"),
        (changes, dict, "a view's changes must be a dict"),
        (seen_by, dict, "an interest's viewers must be a dict"),
    ]:
        if not isinstance(value, kind):
            raise TypeError(what)
    return relevant, order, changes, seen_by, client.client_id


def _put(record: Record, net_id: int, ent: Any, now: bool) -> None:
    """Record in a view's ``record`` (from :func:`_record`) that ``net_id`` is relevant
    ``now`` or not, when that changed: its first change of the tick into ``changes`` (whether
    it was relevant before), the id into or out of ``relevant`` and ``order``, the client's
    id into or out of its set of ``seen_by`` (a set emptied dropped)."""
    relevant, order, changes, seen_by, client_id = record
    if (net_id in relevant) == now:
        return
    changes.setdefault(net_id, not now)
    if now:
        relevant[net_id] = ent
        insort(order, net_id)
        seen_by.setdefault(net_id, set()).add(client_id)
        return
    del relevant[net_id]
    _unorder(order, net_id)
    seen = seen_by[net_id]
    seen.discard(client_id)
    if not seen:
        del seen_by[net_id]


def _unorder(order: list[int], net_id: int) -> None:
    """Take ``net_id`` out of the ascending ``order``."""
    k = bisect_left(order, net_id)
    if k == len(order) or order[k] != net_id:
        raise RuntimeError(f"id {net_id} is missing from its view's order")
    del order[k]


def moves(
    world: Any,
    dirty: list[Any],
    where: Mapping[Any, int],
    grid: dict[tuple[int, ...], dict[int, Any]],
    cell_of: dict[int, tuple[int, ...]],
    pos: dict[int, Any],
    touched: dict[int, Any],
    size: float,
    flat: bool,
    rule: bool,
    cell: Callable[[tuple[Any, ...]], tuple[int, ...]],
) -> int:
    """Place ``world``'s ``dirty`` entities whose position property (``where``: its flat index
    by layout) was written in the grid of cells ``size`` a side (2D if ``flat``, else 3D):
    ``pos`` and ``touched`` get them, and one that left its cell moves from its bucket of
    ``grid`` to its new one (``cell_of``); with a predicate (``rule``), the other dirty
    entities are ``touched`` too. A position that is not finite is placed by ``cell``. Returns
    how many changed cells: ``Interest``'s update, for each entity that moved."""
    floor = math.floor
    moved = 0
    for ent in dirty:
        if ent._net_world is not world:
            continue
        index = where.get(ent._net_layout)
        if index is None or not ent._net_dirty >> index & 1:
            if rule:
                touched[ent.net_id] = ent
            continue
        net_id = ent.net_id
        point = ent._net_vals[index]
        try:
            if flat:
                at: tuple[int, ...] = (floor(point[0] / size), floor(point[1] / size))
            else:
                at = (floor(point[0] / size), floor(point[1] / size), floor(point[2] / size))
        except (ValueError, OverflowError):  # not finite: the cell of 0
            at = cell(tuple(point))
        pos[net_id] = point
        touched[net_id] = ent
        old = cell_of.get(net_id)
        if old != at:
            if old is not None:
                bucket = grid[old]
                del bucket[net_id]
                if not bucket:
                    del grid[old]
            grid.setdefault(at, {})[net_id] = ent
            cell_of[net_id] = at
            moved += 1
    return moved


def relevance(
    relevant: dict[int, Any],
    order: list[int],
    ticks: list[int],
    log: list[dict[int, bool]],
    base: int,
    gone: Any,
) -> tuple[list[int], list[int], set[int], dict[int, Any], dict[int, bool]]:
    """What a client's own section is made from, by an interest's view of it: ``relevant``
    (the entities relevant now, by id), ``order`` (their ids ascending, which the view keeps
    as they enter and leave) and its log (``ticks``, oldest first, and the ids whose
    relevance changed in each, with whether they were relevant before it). Returns the
    relevant ids ascending (a copy of ``order``); the ids the section visits ascending
    (those and the ones leaving; the same list when none leave); the ids entering its view
    since ``base`` (not relevant at ``base``, relevant now); those leaving, each mapped to
    ``gone`` (their despawn spans); and the ids whose relevance changed since ``base``, each
    with whether it was relevant then. With no ``base`` (a full update) nothing enters,
    leaves or changed."""
    if len(ticks) != len(log):
        raise ValueError("a relevance log needs one tick per change set")
    if len(order) != len(relevant):
        raise ValueError("the ordered ids are not the relevant ones")
    was: dict[int, bool] = {}
    if base:
        for k in range(len(ticks) - 1, -1, -1):  # newest first: the oldest change wins
            if ticks[k] <= base:
                break
            was.update(log[k])
    entering: set[int] = set()
    leaving: dict[int, Any] = {}
    for net_id, before in was.items():
        if net_id in relevant:
            if not before:
                entering.add(net_id)
        elif before:
            leaving[net_id] = gone
    ids = list(order)
    return ids, sorted(ids + list(leaving)) if leaving else ids, entering, leaving, was


def rank(
    tick: int,
    base: int,
    ids: list[int],
    entities: Mapping[int, Any],
    deleted: Mapping[int, list[tuple[int, int]]],
    prior: Mapping[int, tuple[int, int]],
    since: Mapping[int, int],
    hot: Mapping[Any, int],
    entering: Entering,
    weigh: Callable[[Any], float] | None,
    near: Near | None,
) -> list[int]:
    """The ``ids`` (ascending) whose record a budget's packet for a client holding ``base``
    may carry, most urgent first (ties: the lower id); those with no record are left out.
    Urgency is :func:`~._budget.priority` of the importance (2 for an enter, a delete or a
    change of a ``hot`` property of its layout, else 1; times ``weigh(entity)`` and the
    :func:`~._budget.near_factor`) and the ticks waited since ``prior[id][1]``. An id in
    ``since`` is held as of that tick instead of ``base``; one in ``entering`` is an
    enter."""
    ranked: list[tuple[float, int]] = []
    for net_id in ids:
        ent = entities.get(net_id)
        if ent is None:
            if net_id not in prior and not any(a <= base < b for a, b in deleted[net_id]):
                continue  # a despawn the client never held
            importance = 2.0
        else:
            if (entering and net_id in entering) or ent._net_spawn > base:
                importance = 2.0
            else:
                hist = entries(ent)
                if not hist or hist[-1][0] <= since.get(net_id, base):
                    continue  # nothing changed since what the client holds
                importance = 2.0 if hist[-1][1] & hot[ent._net_layout] else 1.0
            if weigh is not None:
                importance *= weigh(ent)
            if near is not None:
                importance *= near_factor(near, net_id)
        waited = tick - prior[net_id][1] if net_id in prior else 0
        ranked.append((-priority(importance, waited), net_id))
    ranked.sort()
    return [net_id for _, net_id in ranked]


def _deletes(
    net_id: int,
    spans: list[tuple[int, int]],
    order: list[int],
    parts: list[list[bytes]],
    prev: list[int],
) -> None:
    """Delete records of a despawned id for the bases (in ``order``) that still hold it: it
    was despawned after the base and its id not reused since (a reused id is an entity
    spawned after the base, whose enter replaces the old one)."""
    for j, base in enumerate(order):
        if base and any(spawned <= base < gone for spawned, gone in spans):
            parts[j].append(encode_record(None, 0, OP_DELETE, net_id - prev[j] - 1, 0, [], []))
            prev[j] = net_id


def _head(gap: int) -> tuple[int, int]:
    """An update record's head for a nonzero id gap, from a small cache."""
    head = _HEADS.get(gap)
    if head is None:
        if len(_HEADS) >= _HEADS_KEPT:
            _HEADS.clear()
        head = _HEADS[gap] = update_head(gap)
    return head


def _fragments(ent: Any, change: Entry, stale: int, tick: int) -> None:
    """Bring the values of a history entry up to date for the ``stale`` indices: each
    value as ``(bits, width)`` coded against the bits it had before that entry's tick (a
    value delta where the codec allows one, else the whole value)."""
    before, made = dict(zip(set_indices(change[1]), change[2], strict=True)), change[3]
    assert made is not None
    fragments = made[0]
    bits, widths = ent._net_bits, ent._net_widths
    deltas = ent._net_layout.deltas
    for i in set_indices(stale):
        coder = deltas[i]
        if coder is None:
            fragments[i] = (bits[i], widths[i])
        elif coder.plain:
            # ScalarDelta.code for a value whose bits are its ordinal, inlined
            part = coder.parts[0]
            new = bits[i]
            half = part.half
            d = ((new - before[i] + half) & part.mask) - half
            if -part.b1 <= d < part.b1:
                fragments[i] = ((d + part.b1) << 1, part.w1)
            elif -part.b2 <= d < part.b2:
                fragments[i] = (1 | (d + part.b2) << 2, part.w2)
            elif -part.b3 <= d < part.b3:
                fragments[i] = (3 | (d + part.b3) << 3, part.w3)
            else:
                fragments[i] = (7 | new << 3, 3 + widths[i])
        else:
            fragments[i] = coder.fragment(bits[i], widths[i], before[i])
    made[1] = tick


def _merge(
    ent: Any, unmerged: list[int], merged: dict[int, tuple[int, int]], fresh: int, tick: int
) -> None:
    """Merge the values of the history entries ``unmerged`` (walked newest first) over
    ``merged``, each entry's fragments made or brought up to date first: those made before
    a later change of their property (``fresh``: what changed this tick) are stale."""
    hist = entries(ent)
    for k in unmerged:
        change = hist[k]
        when, changed_here, _, made = change
        if made is None:
            made = [{}, 0]
            change = hist[k] = (when, changed_here, change[2], made)
        stamp = made[1]
        if stamp != tick:
            if stamp == tick - 1:
                stale = changed_here & fresh
            elif stamp:
                since = 0  # what changed after the values were made
                for later in reversed(hist):
                    if later[0] <= stamp:
                        break
                    since |= later[1]
                stale = changed_here & since
            else:
                stale = changed_here
            if stale:
                _fragments(ent, change, stale, tick)
            else:
                made[1] = tick
        merged.update(made[0])
    unmerged.clear()


def _value_delta_sections(
    tick: int,
    order: list[int],
    oldest: int,
    ids: list[int],
    entities: dict[int, Any],
    deleted: dict[int, list[tuple[int, int]]],
    enter: Enter,
    entering: Entering,
    held: Held,
) -> Sections:
    """:func:`assemble` with value deltas. An update record for base ``b`` has each value
    coded against its bits at ``b``: the bits before the oldest entry after ``b`` that changed
    it. Merging each entry's values over the newer ones' leaves exactly those. Records are
    cached per entity by the tick of their oldest entry (and the id gap)."""
    parts: list[list[bytes]] = [[] for _ in order]
    prev = [-1] * len(order)
    appenders = [chunks.append for chunks in parts]
    for net_id in ids:
        ent = entities.get(net_id)
        if ent is None:
            _deletes(net_id, deleted[net_id], order, parts, prev)
            continue
        own = held.get(net_id) if held else None
        low, bases = (oldest, order) if own is None else (own, [own])
        spawn = tick if entering and net_id in entering else ent._net_spawn
        hist = entries(ent)
        if spawn <= low and (not hist or hist[-1][0] <= low):
            continue  # nothing new for any of the bases
        lay = ent._net_layout
        public = lay.public_mask
        count, step = lay.count, 1 + lay.index_bits
        cache = ent._net_cache
        h = len(hist) - 1
        mask = 0
        merged: dict[int, tuple[int, int]] = {}
        # what changed this tick: the values of older entries made before it are stale
        fresh = hist[-1][1] if hist and hist[-1][0] == tick else 0
        first = 0  # tick of the oldest entry walked so far
        unmerged: list[int] = []  # entries walked, not yet merged (newest first)
        record = b""
        reusable = False
        new = spawn > low  # entered after some base: enters for those
        t, m, _, _ = hist[h] if hist else (-1, 0, None, None)  # the next entry to walk
        for j, base in enumerate(bases):
            gap = net_id - prev[j] - 1
            if new and (spawn > base or not base):
                record = enter(ent, gap)
                reusable = False
            else:
                if t > base:
                    reusable = False
                    while t > base:
                        unmerged.append(h)
                        mask |= m
                        first = t
                        h -= 1
                        if h < 0:
                            t = -1
                            break
                        t, m, _, _ = hist[h]
                elif reusable and not gap:
                    # No change between this base and the newer one: the same record.
                    appenders[j](record)
                    prev[j] = net_id
                    continue
                changed = mask & public
                if not changed:
                    continue
                # negative: apart from the masks keying records of value_deltas=False
                key = -first if not gap else (-first, gap)
                cached = cache.get(key)
                if cached is None:
                    if unmerged:
                        _merge(ent, unmerged, merged, fresh, tick)
                    # as encode_record, with the merged values
                    acc, n = _head(gap) if gap else (0, 3)
                    acc, n, idx = change_list(acc, n, changed, count, step)
                    for i in idx:
                        code, width = merged[i]
                        acc |= code << n
                        n += width
                    cached = cache[key] = acc.to_bytes((n + 7) >> 3, "little")
                record = cached
                reusable = not gap
            appenders[j](record)
            prev[j] = net_id
    return [(len(chunks), b"".join(chunks)) for chunks in parts]


def _whole_sections(
    tick: int,
    order: list[int],
    oldest: int,
    ids: list[int],
    entities: dict[int, Any],
    deleted: dict[int, list[tuple[int, int]]],
    class_bits: int,
    enter: Enter,
    entering: Entering,
    held: Held,
) -> Sections:
    """:func:`assemble` with whole values (``value_deltas=False``): an update record depends
    only on the mask of what changed since its base, and is cached by it (the mask alone for
    the common record, right after the previous id)."""
    parts: list[list[bytes]] = [[] for _ in order]
    prev = [-1] * len(order)
    appenders = [chunks.append for chunks in parts]
    for net_id in ids:
        ent = entities.get(net_id)
        if ent is None:
            _deletes(net_id, deleted[net_id], order, parts, prev)
            continue
        own = held.get(net_id) if held else None
        low, bases = (oldest, order) if own is None else (own, [own])
        spawn = tick if entering and net_id in entering else ent._net_spawn
        hist = entries(ent)
        if spawn <= low:
            # The usual case: the entity is older than every base, so each base gets an
            # update of what changed since it (or nothing), newest base first.
            if not hist:
                continue
            h = len(hist) - 1
            t, m, _, _ = hist[h]
            if t <= low:
                continue  # nothing new for any of the bases
            lay = ent._net_layout
            public = lay.public_mask
            cache = ent._net_cache
            bits, widths = ent._net_bits, ent._net_widths
            mask = 0
            last = -1
            record = b""
            for j, base in enumerate(bases):
                while t > base:
                    mask |= m
                    h -= 1
                    if h < 0:
                        t = -1
                        break
                    t, m, _, _ = hist[h]
                gap = net_id - prev[j] - 1
                if mask == last and not gap:
                    # No change between this base and the newer one: the same record.
                    appenders[j](record)
                    prev[j] = net_id
                    continue
                changed = mask & public
                if changed:
                    # An update right after the previous id (the common record) is
                    # keyed by its mask alone: an int hashes faster than a tuple.
                    key = (OP_UPDATE, gap, changed) if gap else changed
                    record = cache.get(key)
                    if record is None:
                        record = cache[key] = encode_record(
                            lay, class_bits, OP_UPDATE, gap, changed, bits, widths
                        )
                    appenders[j](record)
                    prev[j] = net_id
                    last = -1 if gap else mask
            continue
        _entered_records(ent, net_id, spawn, bases, parts, prev, class_bits, enter)
    return [(len(chunks), b"".join(chunks)) for chunks in parts]


def _entered_records(
    ent: Any,
    net_id: int,
    spawn: int,
    order: list[int],
    parts: list[list[bytes]],
    prev: list[int],
    class_bits: int,
    enter: Enter,
) -> None:
    """The whole-value records of an entity that entered after some base: an enter for
    those bases (and a full update), an update of what changed since the others."""
    hist = entries(ent)
    lay = ent._net_layout
    public = lay.public_mask
    h = len(hist) - 1
    mask = 0
    cache = ent._net_cache
    for j, base in enumerate(order):
        gap = net_id - prev[j] - 1
        if spawn > base or not base:
            record = enter(ent, gap)
        else:
            while h >= 0 and hist[h][0] > base:
                mask |= hist[h][1]
                h -= 1
            changed = mask & public
            if not changed:
                continue
            key = changed if not gap else (OP_UPDATE, gap, changed)
            record = cache.get(key)
            if record is None:
                record = cache[key] = encode_record(
                    lay, class_bits, OP_UPDATE, gap, changed, ent._net_bits, ent._net_widths
                )
        parts[j].append(record)
        prev[j] = net_id
