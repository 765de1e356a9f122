"""Snapshots and deltas, server side: each client's packet for a tick.

Server side, per tick: :meth:`SnapshotEncoder.snapshot` closes the tick (each changed property
was encoded once, when it was written). :meth:`SnapshotEncoder.packet_for` then assembles a
client's packet from those pieces: every entity that entered, changed or left since the tick
the client acknowledged. An ack older than the history ring (or none) gets a full update,
which is the same code path: a delta from each class's baseline. The shared part of a packet
is built once per acked tick, so 64 clients with acks lagging 0-8 ticks cost about nine
assemblies (and clients with the same base and nothing private get the same bytes object).

With value deltas (flag bit 2, the default; wire doc §5.1) a numeric value in an update record
is its difference from the client's baseline value. Each history entry keeps the bits its
properties had before it, and the value of each property it changed, coded against those
bits, is made once when a packet first needs it (again only if the property changes later).
A record for base ``b`` merges the entries after ``b``, newest first, so each value ends up
coded against its bits at ``b``; records are cached per entity by their oldest entry until
the entity changes. With ``value_deltas=False`` values are sent whole and a record depends
only on its change mask, which keys the cache.

Two assemblers build the shared sections, with the same bytes (``_assembler`` picks one, as
``gdvariant._core`` picks the codec core): the compiled ``_cassemble`` when it is built (one C
walk over the entities for every base, records into the same per-entity cache; in C a value
delta costs less to code again than to look up, so it codes each value once per entity,
baseline and tick instead of keeping fragments in the history), else the pure-Python
:meth:`SnapshotEncoder._shared_sections` and :meth:`SnapshotEncoder._shared_whole` below,
which are the reference. ``GDVARIANT_PURE_PYTHON=1`` forces the pure one. In the benchmark
(``benchmarks/bench_replication.py``: 1,000 entities, 1,500 changes a tick, 64 clients) the
compiled one makes snapshot and packets in 4.7-7.7 ms a tick (median, both value modes
and models), against 13-26 ms in pure Python.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gdvariant import VariantError

from . import _assembler
from ._packet_format import (
    FLAG_DELTAS,
    FLAG_FULL,
    FLAG_STAMP,
    HEADER,
    OP_DELETE,
    OP_ENTER,
    OP_UPDATE,
    VERSION,
    change_list,
    encode_record,
    set_indices,
    update_head,
)
from ._schema import ClassLayout
from ._snapshot_decoder import EntityState
from ._world import Change, World

__all__ = ["AckError", "Client", "SnapshotEncoder"]


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


class AckError(VariantError, ValueError):
    """An acknowledgement no client of this encoder can have sent: from a client id never
    added, or for a tick whose packet was never made for that client. Acks come from the
    network, so a server catches this where it reads them (a buggy or hostile client)."""

    def __init__(self, reason: str, client_id: Any, tick: int) -> None:
        self.reason, self.client_id, self.tick = reason, client_id, tick
        super().__init__(reason)


@dataclass
class Client:
    """One receiver: its id, team, and the newest tick it acknowledged (0 = none). The
    other fields are the encoder's bookkeeping: the ticks in the history ring whose packet
    was made for it, the tick it was added at, and the tick its team last changed at."""

    client_id: Any
    team: Any = None
    acked: int = 0
    sent: set[int] = field(default_factory=set, repr=False, compare=False)
    joined: int = field(default=0, repr=False, compare=False)
    late_before: int = field(default=0, repr=False, compare=False)
    regrouped: int = field(default=0, repr=False, compare=False)
    team_seen: Any = field(default=None, repr=False, compare=False)


AudienceTest = Callable[[Any, Client], bool]


class SnapshotEncoder:
    """Builds each client's packet for the world's current tick (sans-I/O: returns bytes).

    ``history`` is K, the ring of ticks a delta can start from. ``audiences`` maps custom
    audience names to ``predicate(entity, client)``; ``"owner"`` (``entity.net_owner ==
    client_id``) and ``"team"`` (``entity.net_team == client.team``) are built in;
    assigning ``entity.net_owner``/``net_team`` or ``client.team`` moves an entity or a
    client between audiences (wire doc §6). ``stamp`` (on by default, 8 bytes a packet) puts
    the schema fingerprint in every packet, so that a client built from another schema
    refuses the packet instead of decoding garbage. ``value_deltas`` (flag bit 2) sends
    numeric values in update records as differences from the client's baseline (wire doc
    §5.1): fewer bytes when values move in steps, more server time (each value is coded
    once per baseline it is measured from, not once); ``False`` sends every value whole.
    """

    def __init__(
        self,
        world: World,
        *,
        history: int = 32,
        audiences: Mapping[str, AudienceTest] | None = None,
        stamp: bool = True,
        value_deltas: bool = True,
    ) -> None:
        if history < 1:
            raise ValueError("history must be at least 1 tick")
        self.world, self.schema, self.history, self.stamp = world, world.schema, history, stamp
        self.value_deltas = value_deltas
        self.audiences: dict[str, AudienceTest] = {
            "owner": lambda e, c: e.net_owner is not None and e.net_owner == c.client_id,
            "team": lambda e, c: e.net_team is not None and e.net_team == c.team,
            **(audiences or {}),
        }
        for lay in self.schema.classes:
            for name in lay.restricted:
                if name not in self.audiences:
                    raise ValueError(f"{lay.name} uses audience {name!r}: give its predicate")
        self.clients: dict[Any, Client] = {}
        self._removed: dict[Any, int] = {}  # client id -> tick it was removed at
        self._shared: dict[int, tuple[int, bytes]] = {}
        self._plain: dict[int, bytes] = {}
        self._restricted: list[Any] = []
        self._heads: dict[int, tuple[int, int]] = {}
        self._plans: tuple[Any, ...] | None = None  # the compiled assembler's class plans

    def add_client(self, client_id: Any, *, team: Any = None) -> Client:
        """Start sending to ``client_id`` (its first packet is a full update); an id added
        or removed before starts again, and its late acks of earlier ticks are ignored."""
        tick = self.world.tick
        client = Client(client_id, team, joined=tick, team_seen=team)
        if self._removed.pop(client_id, None) is not None or client_id in self.clients:
            client.late_before = tick + 1  # acks of these ticks are its previous connection's
        self.clients[client_id] = client
        return client

    def remove_client(self, client_id: Any) -> None:
        """Stop sending to ``client_id``; its acks that arrive later are ignored (for
        ``history`` ticks; after that the id is unknown again)."""
        del self.clients[client_id]
        self._removed[client_id] = self.world.tick

    def ack(self, client_id: Any, tick: int) -> None:
        """``client_id`` holds the state of ``tick``. Ignored: an ack of 0 (nothing held),
        one older than the newest ack or than the history ring, and one from a client
        removed in the last ``history`` ticks. :class:`AckError`: a client never added, or
        a tick whose packet was never made for this client."""
        client = self.clients.get(client_id)
        if client is None:
            if client_id in self._removed:
                return
            raise AckError(
                f"ack of tick {tick} from client {client_id!r}, which was never added",
                client_id,
                tick,
            )
        if tick in client.sent:
            if tick > client.acked:
                client.acked = tick
            return
        if not tick or 0 < tick < client.late_before:
            return  # nothing held, or a late ack of a previous connection
        if tick < client.joined or tick >= self.world.tick - self.history:
            raise AckError(
                f"client {client_id!r} acked tick {tick}, whose packet was never made for it",
                client_id,
                tick,
            )

    def snapshot(self) -> int:
        """Close the world's tick; return its number."""
        tick = self.world.commit(self.history)
        oldest = tick - self.history
        for client in self.clients.values():
            client.sent = {t for t in client.sent if t >= oldest}
        for client_id, gone in list(self._removed.items()):
            if gone < oldest:
                del self._removed[client_id]
        self._shared = {}
        self._plain = {}
        if any(lay.restricted for lay in self.schema.classes):
            self._restricted = sorted(
                (e for e in self.world.entities.values() if e._net_layout.restricted),
                key=lambda e: e.net_id,
            )
        return tick

    def base_for(self, client: Client) -> int:
        """The tick ``client``'s next packet is a delta from (0: a full update)."""
        acked = client.acked
        return acked if acked and acked >= self.world.tick - self.history else 0

    def packet_for(self, client_id: Any) -> bytes:
        """``client_id``'s packet for the current tick. Call it after :meth:`snapshot` and
        before the next property writes, which belong to the next tick."""
        client = self.clients[client_id]
        tick = self.world.tick
        client.sent.add(tick)
        if client.team != client.team_seen:
            client.team_seen = client.team
            client.regrouped = tick
        base = self.base_for(client)
        shared = self._shared.get(base)
        if shared is None:
            self._build_shared([base])
            shared = self._shared[base]
        private_count, private = self._private_section(client, base)
        if not private_count:
            # Clients with the same base and nothing private get the same (immutable) bytes.
            packet = self._plain.get(base)
            if packet is None:
                packet = self._plain[base] = self._packet(base, shared, 0, b"")
            return packet
        return self._packet(base, shared, private_count, private)

    def _packet(
        self, base: int, shared: tuple[int, bytes], private_count: int, private: bytes
    ) -> bytes:
        flags = (
            (FLAG_FULL if not base else 0)
            | (FLAG_STAMP if self.stamp else 0)
            | (FLAG_DELTAS if self.value_deltas else 0)
        )
        header = HEADER.pack(VERSION, flags, self.world.tick, base, shared[0], private_count)
        if self.stamp:
            header += self.schema.fingerprint
        return b"".join((header, shared[1], private))

    def packets(self) -> dict[Any, bytes]:
        """Every client's packet for the current tick (shared sections built in one pass)."""
        needed = {self.base_for(c) for c in self.clients.values()} - self._shared.keys()
        if needed:
            self._build_shared(list(needed))
        return {cid: self.packet_for(cid) for cid in self.clients}

    def _walk_setup(
        self, bases: list[int]
    ) -> tuple[list[int], int, list[list[bytes]], list[int], list[int]]:
        """For an assembler: the bases newest first (cumulative masks only grow), the
        oldest one (-1 for a full update, which needs everything), an empty record list and
        previous id per base, and every id to visit (live or recently deleted), ascending."""
        order = sorted(bases, reverse=True)
        oldest = order[-1] if order[-1] else -1
        entities, deleted = self.world.entities, self.world.deleted
        ids = sorted(entities.keys() | deleted.keys()) if deleted else sorted(entities)
        return order, oldest, [[] for _ in order], [-1] * len(order), ids

    def _build_shared(self, bases: list[int]) -> None:
        compiled = _assembler.live()
        if compiled is None:
            if self.value_deltas:
                self._shared_sections(bases)
            else:
                self._shared_whole(bases)
            return
        if self._plans is None:
            self._plans = _assembler.plans(self.schema)
        world = self.world
        order, oldest, _, _, ids = self._walk_setup(bases)
        sections = compiled.assemble(
            self.value_deltas,
            order,
            oldest,
            ids,
            world.entities,
            world.deleted,
            self._plans,
            self.schema.class_bits,
            self._enter,
        )
        for base, section in zip(order, sections, strict=True):
            self._shared[base] = section

    def _enter(self, ent: Any, gap: int) -> bytes:
        """The enter record of ``ent`` after an id gap of ``gap`` (for the compiled walk)."""
        public = ent._net_layout.public_mask
        return self._record(ent, OP_ENTER, gap, self.world.nondefault(ent) & public)

    def _record(self, ent: Any, op: int, gap: int, mask: int) -> bytes:
        """A record with whole values (private updates, enters), cached on the entity."""
        key = ("P" if op == OP_UPDATE else "E", gap, mask)
        record: bytes | None = ent._net_cache.get(key)
        if record is None:
            compiled = _assembler.live()
            encode = encode_record if compiled is None else compiled.encode_record
            record = ent._net_cache[key] = encode(
                ent._net_layout,
                self.schema.class_bits,
                op,
                gap,
                mask,
                ent._net_bits,
                ent._net_widths,
            )
        return record

    @staticmethod
    def _fragments(ent: Any, change: Change, stale: int, tick: int) -> None:
        """Bring the values of a history entry up to date for the ``stale`` indices: each
        value as ``(bits, width)`` coded against the bits it had before that entry's tick (a
        value delta where the codec allows one, else the whole value)."""
        before, made = change[2], change[3]
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

    def _shared_sections(self, bases: list[int]) -> None:
        """Build the shared section for each base tick in one pass over the entities.

        An update record for base ``b`` carries what changed in the history entries after
        ``b``, each value coded against its bits at ``b``: the bits before the oldest of
        those entries that changed it. Walking the entries newest first and merging each
        entry's values over the previous ones leaves exactly those, so the records for all
        bases come from one walk. Records are cached per entity by their oldest entry (and
        id gap) until the entity changes."""
        world = self.world
        tick = world.tick
        entities, deleted = world.entities, world.deleted
        order, oldest, parts, prev, ids = self._walk_setup(bases)
        appenders = [chunks.append for chunks in parts]
        heads = self._heads
        fragments = self._fragments
        for net_id in ids:
            ent = entities.get(net_id)
            if ent is None:
                _deletes(net_id, deleted[net_id], order, parts, prev)
                continue
            spawn = ent._net_spawn
            hist = ent._net_hist
            if spawn <= oldest and (not hist or hist[-1][0] <= oldest):
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
            entering = spawn > oldest  # entered after some base: enters for those
            t, m, _, _ = hist[h] if hist else (-1, 0, None, None)  # the next entry to walk
            for j, base in enumerate(order):
                gap = net_id - prev[j] - 1
                if entering and (spawn > base or not base):
                    record = self._record(ent, OP_ENTER, gap, world.nondefault(ent) & public)
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
                        # Merge the entries walked since the last record built (their values
                        # made or brought up to date first), newest first.
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
                                    fragments(ent, change, stale, tick)
                                else:
                                    made[1] = tick
                            merged.update(made[0])
                        unmerged.clear()
                        # as encode_record, with the merged values
                        if gap:
                            head = heads.get(gap)
                            if head is None:
                                head = heads[gap] = update_head(gap)
                            acc, n = head
                        else:
                            acc, n = 0, 3
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
        for base, chunks in zip(order, parts, strict=True):
            self._shared[base] = (len(chunks), b"".join(chunks))

    def _shared_whole(self, bases: list[int]) -> None:
        """:meth:`_shared_sections` with whole values (``value_deltas=False``): an update
        record depends only on the mask of what changed since its base, and is cached by
        it (the mask alone for the common record, right after the previous id)."""
        world = self.world
        entities, deleted = world.entities, world.deleted
        order, oldest, parts, prev, ids = self._walk_setup(bases)
        appenders = [chunks.append for chunks in parts]
        class_bits = self.schema.class_bits
        for net_id in ids:
            ent = entities.get(net_id)
            if ent is None:
                _deletes(net_id, deleted[net_id], order, parts, prev)
                continue
            spawn = ent._net_spawn
            hist = ent._net_hist
            if spawn <= oldest:
                # The usual case: the entity is older than every base, so each base gets an
                # update of what changed since it (or nothing), newest base first.
                if not hist:
                    continue
                h = len(hist) - 1
                t, m, _, _ = hist[h]
                if t <= oldest:
                    continue  # nothing new for any of the bases
                lay = ent._net_layout
                public = lay.public_mask
                cache = ent._net_cache
                bits, widths = ent._net_bits, ent._net_widths
                mask = 0
                last = -1
                record = b""
                for j, base in enumerate(order):
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
            # Entered after some base (or a full update): an enter record for those bases.
            lay = ent._net_layout
            public = lay.public_mask
            h = len(hist) - 1
            mask = 0
            cache = ent._net_cache
            get = cache.get
            j = 0
            for base in order:
                if spawn > base or not base:
                    op, changed = OP_ENTER, world.nondefault(ent) & public
                else:
                    while h >= 0 and hist[h][0] > base:
                        mask |= hist[h][1]
                        h -= 1
                    changed = mask & public
                    if not changed:
                        j += 1
                        continue
                    op = OP_UPDATE
                gap = net_id - prev[j] - 1
                key = changed if op == OP_UPDATE and not gap else (op, gap, changed)
                record = get(key)
                if record is None:
                    record = cache[key] = encode_record(
                        lay, class_bits, op, gap, changed, ent._net_bits, ent._net_widths
                    )
                appenders[j](record)
                prev[j] = net_id
                j += 1
        for base, chunks in zip(order, parts, strict=True):
            self._shared[base] = (len(chunks), b"".join(chunks))

    def _private_section(self, client: Client, base: int) -> tuple[int, bytes]:
        """The update records of the restricted properties ``client`` may see. Normally
        what changed since ``base``; but if the entity or the client changed audiences
        after ``base`` (``_net_moved``, ``regrouped``), the client may hold values of
        sections it has just left or lack those it has just joined: then every property
        it may hold otherwise than now (changed since ``base``, or not at its baseline) is
        sent, at its value where it may see it, at its baseline where it may not."""
        parts: list[bytes] = []
        prev = -1
        count = 0
        regrouped = client.regrouped > base
        for ent in self._restricted:
            lay = ent._net_layout
            moved = 0 < ent._net_spawn <= base and (regrouped or ent._net_moved > base)
            allowed = 0
            for name, mask in lay.restricted.items():
                if self.audiences[name](ent, client):
                    allowed |= mask
            if not allowed and not moved:
                continue
            if not base or ent._net_spawn > base:
                mask, reset = self.world.nondefault(ent) & allowed, 0
            else:
                changed = 0
                for change in reversed(ent._net_hist):
                    if change[0] <= base:
                        break
                    changed |= change[1]
                if moved:
                    held = (changed | self.world.nondefault(ent)) & ~lay.public_mask
                    mask, reset = held & allowed, held & ~allowed
                else:
                    mask, reset = changed & allowed, 0
            if not mask and not reset:
                continue
            gap = ent.net_id - prev - 1
            if reset:
                parts.append(self._reset_record(ent, gap, mask, reset))
            else:
                parts.append(self._record(ent, OP_UPDATE, gap, mask))
            prev = ent.net_id
            count += 1
        return count, b"".join(parts)

    def _reset_record(self, ent: Any, gap: int, mask: int, reset: int) -> bytes:
        """A private update with the values of ``mask`` and the baselines of ``reset``
        (what a client that left an audience must forget), cached on the entity."""
        key = ("R", gap, mask, reset)
        record: bytes | None = ent._net_cache.get(key)
        if record is None:
            lay: ClassLayout = ent._net_layout
            bits, widths = list(ent._net_bits), list(ent._net_widths)
            for i in set_indices(reset):
                bits[i], widths[i] = lay.base_bits[i], lay.base_widths[i]
            compiled = _assembler.live()
            encode = encode_record if compiled is None else compiled.encode_record
            record = ent._net_cache[key] = encode(
                lay, self.schema.class_bits, OP_UPDATE, gap, mask | reset, bits, widths
            )
        return record

    def expected_state(self, client_id: Any) -> dict[int, EntityState]:
        """What ``client_id``'s decoder holds after applying the current tick's packet:
        every live entity, with the properties it may not see at their baselines."""
        client = self.clients[client_id]
        out = {}
        for net_id, ent in sorted(self.world.entities.items()):
            lay: ClassLayout = ent._net_layout
            allowed = lay.public_mask
            for name, mask in lay.restricted.items():
                if self.audiences[name](ent, client):
                    allowed |= mask
            values = self.world.quantized(ent)
            for p in lay.props:
                if not allowed >> p.index & 1:
                    values[p.path] = p.default
            out[net_id] = EntityState(lay.name, values)
        return out
