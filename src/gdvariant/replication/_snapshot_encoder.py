"""Snapshots and deltas, server side: each client's packet for a tick.

Server side, per tick: :meth:`SnapshotEncoder.snapshot` closes the tick (each changed property
was encoded once, when it was written). :meth:`SnapshotEncoder.packet_for` then assembles a
client's packet from those pieces: every entity that entered, changed or left since the tick
the client acknowledged. An ack older than the history ring (or none) gets a full update,
which is the same code path: a delta from each class's baseline. The shared part of a packet
is built once per acked tick, so 64 clients with acks lagging 0-8 ticks cost about nine
assemblies (and clients with the same base and nothing private get the same bytes object).

With value deltas (flag bit 2, the default; wire doc ``docs/replication-wire.md`` §5.1) a
numeric value in an update record is its difference from the client's baseline value; with
``value_deltas=False`` values are sent whole and a record depends only on its change mask.

The shared sections are built by the live assembler (``_assembler`` picks one, as
``_binary.core`` picks the codec core): the compiled ``_cassemble`` when it is built, else
the pure-Python ``_pyassemble``, the reference; both take the same arguments and make the same
bytes. ``GDVARIANT_PURE_PYTHON=1`` forces the pure one. With ``mtu``/``budget``, a packet that
cannot carry everything is assembled per client from the most urgent records (``_budget``),
and what it leaves out is remembered per client and packet. In the benchmark
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
from ._budget import ABSENT, Behind, Limits
from ._history import changed_since
from ._interest import Interest
from ._packet_format import (
    FLAG_DELTAS,
    FLAG_FULL,
    FLAG_PARTIAL,
    FLAG_STAMP,
    HEADER,
    OP_UPDATE,
    VERSION,
    set_indices,
)
from ._schema import ClassLayout
from ._snapshot_decoder import EntityState
from ._world import World

__all__ = ["AckError", "Client", "SnapshotEncoder"]


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
    #: with ``mtu``/``budget``: per tick sent, the entities its packet left out (``_budget``)
    behind: dict[int, Behind] = field(default_factory=dict, repr=False, compare=False)
    allowance: float = field(default=0.0, repr=False, compare=False)
    made: tuple[int, bytes] = field(default=(-1, b""), repr=False, compare=False)


AudienceTest = Callable[[Any, Client], bool]
Weight = Callable[[Any, Client], float]
#: A despawn span that holds every base: the delete of an entity a client still holds.
_GONE = [(0, 1 << 62)]
#: what the assemblers' ``relevance`` finds for a client: the relevant ids ascending, the
#: ids to visit, those entering, those leaving (with their despawn spans), and what the
#: client held at its base of each id whose relevance changed since (relevant or not)
_Relevance = tuple[
    list[int], list[int], set[int], dict[int, list[tuple[int, int]]], dict[int, bool]
]


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
    ``interest`` (an :class:`Interest` over this world) sends each client only the entities
    relevant to it: one becoming relevant is an enter, one ceasing to be a delete. Each
    client then gets a section of its own instead of the shared one.

    ``mtu`` (bytes, 1,200 when only a budget is given) caps every packet, and ``budget``
    (bytes a second per client, with ``tick_rate`` ticks a second) caps what a client gets
    over time. What does not fit waits, by priority: the ticks waited times an importance
    (``weight(entity, client)``, 1 by default; twice for an enter, a delete or a change of a
    hot property; with an interest, less the farther from the client's centre). An entity
    left out keeps for that client the state it held (docs/replication-budget.md).
    ``longest_wait`` is the most ticks a record has waited so far. Restricted properties
    are not supported with these limits yet.
    """

    def __init__(
        self,
        world: World,
        *,
        history: int = 32,
        audiences: Mapping[str, AudienceTest] | None = None,
        stamp: bool = True,
        value_deltas: bool = True,
        interest: Interest | None = None,
        mtu: int | None = None,
        budget: float | None = None,
        tick_rate: float | None = None,
        weight: Weight | None = None,
    ) -> None:
        if history < 1:
            raise ValueError("history must be at least 1 tick")
        if interest is not None and interest.world is not world:
            raise ValueError("the interest was made for another world")
        self.interest = interest
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
        #: no client's ``sent`` holds a tick before this one (``_forget_sent``)
        self._pruned = 0
        self._shared: dict[int, tuple[int, bytes]] = {}
        self._plain: dict[int, bytes] = {}
        self._restricted: list[Any] = []
        self._plans: tuple[Any, ...] | None = None  # the class plans (_assembler.plans)
        self._any_restricted = any(lay.restricted for lay in self.schema.classes)
        self.limits: Limits | None = None
        if mtu is not None or budget is not None:
            if self._any_restricted:
                raise ValueError("mtu and budget do not support restricted properties yet")
            self.limits = Limits.make(mtu, budget, tick_rate, HEADER.size + 8 * stamp)
        elif tick_rate is not None or weight is not None:
            raise ValueError("tick_rate and weight go with a budget or an mtu")
        self.weight = weight
        #: the most ticks a record waited before it went, so far (with ``mtu``/``budget``)
        self.longest_wait = 0
        self._hot: dict[Any, int] = {
            lay: sum(1 << p.index for p in lay.props if p.hot) for lay in self.schema.classes
        }

    def add_client(self, client_id: Any, *, team: Any = None) -> Client:
        """Start sending to ``client_id`` (its first packet is a full update); an id added
        or removed before starts again, and its late acks of earlier ticks are ignored."""
        tick = self.world.tick
        client = Client(client_id, team, joined=tick, team_seen=team)
        if self.limits is not None:
            client.allowance = self.limits.mtu
        if self._removed.pop(client_id, None) is not None or client_id in self.clients:
            client.late_before = tick + 1  # acks of these ticks are its previous connection's
        self.clients[client_id] = client
        if self.interest is not None:
            self.interest.add_client(client)
        return client

    def remove_client(self, client_id: Any) -> None:
        """Stop sending to ``client_id``; its acks that arrive later are ignored (for
        ``history`` ticks; after that the id is unknown again)."""
        del self.clients[client_id]
        self._removed[client_id] = self.world.tick
        if self.interest is not None:
            self.interest.remove_client(client_id)

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
        """Close the world's tick (and bring the interest's views up to it); return its
        number."""
        if self.interest is not None:
            self.interest.update(self.world.tick + 1, self.history)
        tick = self.world.commit(self.history)
        oldest = tick - self.history
        self._forget_sent(oldest)
        for client in self.clients.values():
            if client.behind:
                client.behind = {t: b for t, b in client.behind.items() if t >= oldest}
        for client_id, gone in list(self._removed.items()):
            if gone < oldest:
                del self._removed[client_id]
        self._shared = {}
        self._plain = {}
        if self.interest is None and self._any_restricted:
            self._restricted = sorted(
                (e for e in self.world.entities.values() if e._net_layout.restricted),
                key=lambda e: e.net_id,
            )
        return tick

    def _forget_sent(self, oldest: int) -> None:
        """Drop the ticks before ``oldest`` from every client's ``sent``. Each holds none before
        the last call's ``oldest`` (and gets only ticks made since), so when that is at most
        a few ticks back, only those ticks are dropped, not every tick of every set looked
        at (a quarter of the snapshot's Python with 256 clients)."""
        since, self._pruned = self._pruned, oldest
        # in place: a new set per client and tick would be 256 more objects a tick for the
        # cyclic collector's oldest generation, and so its full collections
        if 0 <= oldest - since <= 4:
            gone = range(since, oldest)
            for client in self.clients.values():
                for t in gone:
                    client.sent.discard(t)
        else:
            for client in self.clients.values():
                client.sent -= {t for t in client.sent if t < oldest}

    def base_for(self, client: Client) -> int:
        """The tick ``client``'s next packet is a delta from (0: a full update)."""
        acked = client.acked
        return acked if acked and acked >= self.world.tick - self.history else 0

    def packet_for(self, client_id: Any) -> bytes:
        """``client_id``'s packet for the current tick. Call it after :meth:`snapshot` and
        before the next property writes, which belong to the next tick."""
        client = self.clients[client_id]
        tick = self.world.tick
        if self.limits is not None and client.made[0] == tick:
            return client.made[1]  # made already: the same packet, paid for once
        base = self._begin(client)
        if self.limits is not None:
            return self._limited_packet(client, base)
        if self.interest is not None:
            own, entering, relevant = self._own_section(client, base)
            return self._packet(base, own, *self._private_section(client, base, entering, relevant))
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

    def _begin(self, client: Client) -> int:
        """Note that ``client``'s packet of the tick is made (its acks of it are then
        valid; a change of its team seen): the tick its packet is a delta from."""
        tick = self.world.tick
        client.sent.add(tick)
        if client.team != client.team_seen:
            client.team_seen = client.team
            client.regrouped = tick
        return self.base_for(client)

    def _packet(
        self,
        base: int,
        shared: tuple[int, bytes],
        private_count: int,
        private: bytes,
        partial: int = 0,
    ) -> bytes:
        flags = (
            partial
            | (FLAG_FULL if not base else 0)
            | (FLAG_STAMP if self.stamp else 0)
            | (FLAG_DELTAS if self.value_deltas else 0)
        )
        header = HEADER.pack(VERSION, flags, self.world.tick, base, shared[0], private_count)
        if self.stamp:
            header += self.schema.fingerprint
        return b"".join((header, shared[1], private))

    def packets(self) -> dict[Any, bytes]:
        """Every client's packet for the current tick (shared sections built in one pass),
        in the clients' order. With an interest they are made in the order of the clients'
        areas (``Interest.nearby_order``): neighbours see mostly the same
        entities, so one's walk leaves their memory in the cache for the next (the 256
        packets of the interest benchmark 49 -> 36 ms a tick)."""
        needed = {self.base_for(c) for c in self.clients.values()} - self._shared.keys()
        if needed and self.interest is None:
            self._build_shared(list(needed))
        if self.interest is None:
            return {cid: self.packet_for(cid) for cid in self.clients}
        order = self.interest.nearby_order(self.clients)
        if self.limits is None:
            made = self._own_packets(order)
        else:
            made = {cid: self.packet_for(cid) for cid in order}
        return {cid: made[cid] for cid in self.clients}

    def _own_packets(self, order: list[Any]) -> dict[Any, bytes]:
        """With an interest and no limits, the packets of the clients in ``order``: what
        :meth:`packet_for` makes of each, their own sections made in one call of the live
        assembler's ``assemble_clients``, so that the compiled one looks an entity seen by
        several clients up once (docs/replication-interest.md). With restricted properties
        (a private section per client, from its relevance) each is made by ``packet_for``."""
        if self._any_restricted:
            return {cid: self.packet_for(cid) for cid in order}
        clients, bases, jobs = [], [], []
        for cid in order:
            client = self.clients[cid]
            base = self._begin(client)
            jobs.append(self._relevance_job(client, base)[1])
            clients.append(client)
            bases.append(base)
        if self._plans is None:
            self._plans = _assembler.plans(self.schema)
        sections = _assembler.live().assemble_clients(
            self.value_deltas, self.world.tick, jobs, self._plans, self.schema.class_bits
        )
        return {
            client.client_id: self._packet(base, own, 0, b"")
            for client, base, own in zip(clients, bases, sections, strict=True)
        }

    def _build_shared(self, bases: list[int]) -> None:
        """The shared sections for ``bases``, made by the live assembler in one walk: the
        bases newest first (cumulative masks only grow), the oldest one (-1 for a full
        update, which needs everything), and every id to visit (live or recently deleted),
        ascending."""
        if self._plans is None:
            self._plans = _assembler.plans(self.schema)
        world = self.world
        order = sorted(bases, reverse=True)
        oldest = order[-1] if order[-1] else -1
        entities, deleted = world.entities, world.deleted
        ids = sorted(entities.keys() | deleted.keys()) if deleted else sorted(entities)
        sections = _assembler.live().assemble(
            self.value_deltas,
            world.tick,
            order,
            oldest,
            ids,
            entities,
            deleted,
            self._plans,
            self.schema.class_bits,
            None,
            None,
        )
        for base, section in zip(order, sections, strict=True):
            self._shared[base] = section

    def _own_section(
        self, client: Client, base: int
    ) -> tuple[tuple[int, bytes], set[int], list[int]]:
        """``client``'s section with an interest: the relevant entities' records, made by the
        live assembler as a shared section for one base over the ids the client holds or
        should hold. One relevant now but not at ``base`` is named in the assembler's
        ``entering`` (an enter), one relevant at ``base`` but not now is handed over as a
        despawn (a delete). Also returns the ids entering, and the relevant ids ascending.
        Which ids those are comes from the live assembler's ``relevance`` (compiled: it was
        most of the Python around each client's compiled walk)."""
        view, (ids, held, entering, leaving, _) = self._relevance(client, base)
        return self._assemble(base, held, view.relevant, leaving, entering), entering, ids

    def _relevance(self, client: Client, base: int) -> tuple[Any, _Relevance]:
        """``client``'s view with an interest, and what its section is made from since
        ``base``, by the live assembler's ``relevance`` (the relevant ids, the ids to visit,
        those entering, those leaving with their despawn spans, and what it held at
        ``base`` of each id whose relevance changed since)."""
        view, job = self._relevance_job(client, base)
        found: _Relevance = _assembler.live().relevance(*job)
        return view, found

    def _relevance_job(self, client: Client, base: int) -> tuple[Any, tuple[Any, ...]]:
        """``client``'s view with an interest, and the arguments of the assembler's
        ``relevance`` for its section since ``base`` (a job of ``assemble_clients``)."""
        assert self.interest is not None
        view = self.interest.views[client.client_id]
        gone = [(0, self.world.tick + 1)]
        return view, (view.relevant, view.order, view.log_ticks, view.log, base, gone)

    def _assemble(
        self,
        base: int,
        ids: list[int],
        entities: Mapping[int, Any],
        deleted: Mapping[int, list[tuple[int, int]]],
        entering: set[int] | None = None,
        since: dict[int, int] | None = None,
    ) -> tuple[int, bytes]:
        """One section for ``base`` over ``ids`` (ascending), by the live assembler; the ids
        in ``entering`` get enter records, those in ``since`` an update of all since the
        (older) tick given."""
        if self._plans is None:
            self._plans = _assembler.plans(self.schema)
        (section,) = _assembler.live().assemble(
            self.value_deltas,
            self.world.tick,
            [base],
            base or -1,
            ids,
            entities,
            deleted,
            self._plans,
            self.schema.class_bits,
            entering or None,
            since or None,
        )
        return section  # type: ignore[no-any-return]

    # -- within an MTU and a budget (docs/replication-budget.md) --------------------------

    def _limited_packet(self, client: Client, base: int) -> bytes:
        """``client``'s packet under the encoder's :class:`Limits`: every record it needs if
        they fit, else the most urgent that fit; what is left out is remembered (the
        client's ``behind`` for this tick) with what the client holds of it."""
        assert self.limits is not None
        tick = self.world.tick
        prior = client.behind.get(base, {}) if base else {}
        client.allowance = self.limits.refill(client.allowance)
        room = self.limits.room(client.allowance)
        section = None
        if not prior and self.interest is None:
            section = self._shared.get(base)  # what every client with this base needs
            if section is None:
                self._build_shared([base])
                section = self._shared[base]
        waiting: Behind = {}
        if section is None or len(section[1]) > room:
            section, waiting = self._fit(client, base, prior, room, section)
        for net_id, (_, since) in prior.items():
            if net_id not in waiting and tick - since > self.longest_wait:
                self.longest_wait = tick - since
        if waiting:
            client.behind[tick] = waiting
        packet = self._packet(base, section, 0, b"", FLAG_PARTIAL if waiting else 0)
        client.allowance -= len(packet)
        client.made = (tick, packet)
        return packet

    def _fit(
        self, client: Client, base: int, prior: Behind, room: int, whole: tuple[int, bytes] | None
    ) -> tuple[tuple[int, bytes], Behind]:
        """``client``'s section within ``room`` bytes (``whole``: every record it needs, if
        made already, else made by ``fit``, which ranks them only when they do not all fit),
        and what it leaves out: id -> (what the client holds, waiting since)."""
        assert self.limits is not None
        tick = self.world.tick
        entities, deleted, ids, held, since, entering = self._wants(client, base, prior)
        if self._plans is None:
            self._plans = _assembler.plans(self.schema)

        def ranked() -> list[int]:
            return self._ranked(client, base, prior, ids, entities, deleted, since, entering)

        section, rest = _assembler.live().fit(
            self.value_deltas,
            tick,
            base,
            ids if whole is None else ranked(),
            entities,
            deleted,
            self._plans,
            self.schema.class_bits,
            entering,
            since or None,
            room,
            self.limits.mtu - self.limits.header,
            ranked if whole is None else None,
        )
        return section, {
            net_id: (held(net_id), prior[net_id][1] if net_id in prior else tick) for net_id in rest
        }

    def _wants(
        self, client: Client, base: int, prior: Behind
    ) -> tuple[
        Mapping[int, Any],
        dict[int, list[tuple[int, int]]],
        list[int],
        Callable[[int], int],
        dict[int, int],
        set[int] | None,
    ]:
        """What ``client`` should get, from what it holds at ``base`` (the entities by id,
        the despawn spans, every id to visit ascending) with the entities its earlier packets
        left out (``prior``) made up for, ``held(id)``: what it holds of an id at ``base`` (a
        tick, or ABSENT), for the entities left out again, the ids it holds as of an older
        tick than ``base``, with that tick (the assemblers' ``held``), and the ids that get
        an enter though spawned before (the assemblers' ``entering``, or None)."""
        world = self.world
        entities: Mapping[int, Any]
        deleted: dict[int, list[tuple[int, int]]]
        entering: set[int] | None = None
        visit: list[int] | None = None
        if self.interest is None:
            entities, deleted = world.entities, world.deleted
            log: dict[int, bool] = {}
        else:
            view, (_, visit, entering, deleted, log) = self._relevance(client, base)
            entities = view.relevant
        since: dict[int, int] = {}
        if prior:
            deleted, entering, visit = dict(deleted), set(entering or ()), None
            for net_id, (was, _) in prior.items():
                ent = entities.get(net_id)
                if ent is not None:
                    if self._enters(ent, was, base, since):
                        entering.add(net_id)
                    else:
                        entering.discard(net_id)
                    deleted.pop(net_id, None)
                elif was == ABSENT:
                    deleted.pop(net_id, None)
                else:
                    deleted[net_id] = _GONE
        if visit is None:
            visit = sorted(entities.keys() | deleted.keys()) if deleted else sorted(entities)

        def held(net_id: int) -> int:
            if net_id in prior:
                return prior[net_id][0]
            if not base:
                return ABSENT
            if self.interest is not None:
                return base if log.get(net_id, net_id in entities) else ABSENT
            ent = world.entities.get(net_id)
            if ent is not None and ent._net_spawn <= base:
                return base
            spans = world.deleted.get(net_id, ())
            return base if any(born <= base < gone for born, gone in spans) else ABSENT

        return entities, deleted, visit, held, since, entering or None

    def _enters(self, ent: Any, held: int, base: int, since: dict[int, int]) -> bool:
        """Whether a client that holds ``ent`` as of tick ``held`` (ABSENT: not at all) needs
        an enter: it does not hold this entity, or its changes since are out of the history
        ring. Else it gets an update of all since ``held`` (noted in ``since`` when ``held``
        is older than the base)."""
        if held == ABSENT or ent._net_spawn > held or held < self.world.tick - self.history:
            return True
        if held < base:
            since[ent.net_id] = held
        return False

    def _ranked(
        self,
        client: Client,
        base: int,
        prior: Behind,
        ids: list[int],
        entities: Mapping[int, Any],
        deleted: Mapping[int, list[tuple[int, int]]],
        since: dict[int, int],
        entering: set[int] | None,
    ) -> list[int]:
        """The ids that may need a record, most urgent first (ties: the lower id), by the live
        assembler's ``rank``; an id in ``since`` is held as of that tick instead of ``base``,
        one in ``entering`` gets an enter."""
        weigh = None
        if self.weight is not None:

            def weigh(ent: Any) -> float:
                return self._weigh(ent, client)

        interest = self.interest
        return _assembler.live().rank(  # type: ignore[no-any-return]
            self.world.tick,
            base,
            ids,
            entities,
            deleted,
            prior,
            since,
            self._hot,
            entering,
            weigh,
            None if interest is None else interest.nearness(client.client_id),
        )

    def _weigh(self, ent: Any, client: Client) -> float:
        """The user's weight of ``ent`` for ``client``: a positive finite number."""
        assert self.weight is not None
        value = self.weight(ent, client)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"weight gave {value!r} for entity {ent.net_id}: not a number")
        if not (value > 0 and value < float("inf")):
            raise ValueError(f"weight gave {value!r} for entity {ent.net_id}: not positive")
        return float(value)

    def _record(self, ent: Any, op: int, gap: int, mask: int) -> bytes:
        """A private update record with whole values, cached on the entity."""
        key = ("P", gap, mask)
        record: bytes | None = ent._net_cache.get(key)
        if record is None:
            record = ent._net_cache[key] = _assembler.live().encode_record(
                ent._net_layout,
                self.schema.class_bits,
                op,
                gap,
                mask,
                ent._net_bits,
                ent._net_widths,
            )
        return record

    def _private_section(
        self,
        client: Client,
        base: int,
        entering: set[int] | None = None,
        relevant: list[int] | None = None,
    ) -> tuple[int, bytes]:
        """The update records of the restricted properties ``client`` may see. Normally
        what changed since ``base``; but if the entity or the client changed audiences
        after ``base`` (``_net_moved``, ``regrouped``), the client may hold values of
        sections it has just left or lack those it has just joined: then every property
        it may hold otherwise than now (changed since ``base``, or not at its baseline) is
        sent, at its value where it may see it, at its baseline where it may not. With an
        interest, only the ``relevant`` ids are visited, and those ``entering`` are new."""
        parts: list[bytes] = []
        prev = -1
        count = 0
        regrouped = client.regrouped > base
        restricted = self._restricted
        if relevant is not None:
            if not self._any_restricted:
                return 0, b""
            assert self.interest is not None
            view = self.interest.views[client.client_id].relevant
            restricted = [view[i] for i in relevant if view[i]._net_layout.restricted]
        for ent in restricted:
            lay = ent._net_layout
            moved = 0 < ent._net_spawn <= base and (regrouped or ent._net_moved > base)
            allowed = 0
            for name, mask in lay.restricted.items():
                if self.audiences[name](ent, client):
                    allowed |= mask
            if not allowed and not moved:
                continue
            if not base or ent._net_spawn > base or (entering and ent.net_id in entering):
                mask, reset = self.world.nondefault(ent) & allowed, 0
            else:
                changed = changed_since(ent, base)
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
            record = ent._net_cache[key] = _assembler.live().encode_record(
                lay, self.schema.class_bits, OP_UPDATE, gap, mask | reset, bits, widths
            )
        return record

    def expected_state(self, client_id: Any) -> dict[int, EntityState]:
        """What ``client_id``'s decoder holds after applying the current tick's packet:
        every live entity (relevant to it, with an interest), with the properties it may
        not see at their baselines. With ``mtu``/``budget``, what it holds once nothing
        waits (a packet may leave entities as the client held them at its base)."""
        client = self.clients[client_id]
        out = {}
        shown = self.world.entities
        if self.interest is not None:
            shown = self.interest.views[client_id].relevant
        for net_id, ent in sorted(shown.items()):
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
