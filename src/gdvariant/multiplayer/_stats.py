"""What a SceneMultiplayer server spends and sends: the figures behind ``mp.stats()``.

Two recorders own every figure; the rest of the package only calls them:

* :class:`TrafficCounter` (one per transport server, always on) counts each packet at the one
  place the server hands it to its transport: bytes and messages per peer and per packet kind,
  O(1) per packet. With detail on it also times those hand-overs and the adapter's writes
  (thread CPU time), and walks each outgoing SYNC/delta packet's entries (``u32 id | u32 size |
  data``, delta ``u32 id | u64 mask | u32 size | data``) to credit their bytes to the class of
  their node; ``sync()`` itself does no extra work per node.
* :class:`TickRecorder` (one per :class:`~gdvariant.multiplayer.SceneMultiplayer`) times each
  ``sync()`` and keeps a snapshot of the counters at the start of each of the last ticks, so
  that per-tick figures are averages over a recent window.

What they count is what was handed to the transport, packet by packet, never an estimate per
node or per frame: a synchronizer with nothing to send adds nothing (Godot 4's network
profiler counts a sync for an ON_CHANGE synchronizer every frame whether or not it sent one,
godot#121800). :class:`NetStats` is the frozen answer; docs/multiplayer.md ("What the server
spends and sends") has the whole of it.
"""

from __future__ import annotations

import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from struct import Struct
from types import MappingProxyType
from typing import Literal

from . import _frame
from ._pysync import KINDS, Counts
from .wire._version import CMD_MASK, SYNC_DELTA_FLAG, Command

__all__ = [
    "ClassStats",
    "CpuTime",
    "NetStats",
    "PeerStats",
    "StatsLevel",
    "Traffic",
    "TrafficRate",
]

#: ``"basic"``: counts, and the CPU of ``sync()`` and of the rest; ``"detail"``: also the
#: transport's CPU and the bytes of each synced class.
StatsLevel = Literal["basic", "detail"]
#: Ticks the per-tick figures average by default (one second at 30 Hz), and the most kept
#: (each tick keeps a copy of the counts: 4 KB by kind, and per 100 peers about 6 KB, their
#: cells and the dict of where they are).
DEFAULT_WINDOW = 30
MAX_WINDOW = 300
#: The class a SYNC/delta entry is credited to when its net id names no spawned node.
UNKNOWN_CLASS = "?"
_SYNC_HEAD = 3  # 0x06 | u16 time
_DELTA_HEAD = 1  # 0x16
_U32 = Struct("<I")
_ENTRY = Struct("<II")  # a SYNC entry's net id and size
_KINDS = {
    Command.REMOTE_CALL: "rpc",
    Command.SIMPLIFY_PATH: "path",
    Command.CONFIRM_PATH: "path",
    Command.RAW: "raw",
    Command.SPAWN: "spawn",
    Command.DESPAWN: "despawn",
    Command.SYNC: "sync",
    Command.SYS: "sys",
}


def packet_kind(first: int) -> str:
    """The kind of a packet from its first byte: ``sync``, ``delta``, ``spawn``, ``despawn``,
    ``rpc``, ``path`` (SIMPLIFY/CONFIRM_PATH), ``raw`` or ``sys`` (auth, peers, relays)."""
    if first & CMD_MASK == Command.SYNC and first & SYNC_DELTA_FLAG:
        return "delta"
    return _KINDS[Command(first & CMD_MASK)]


def packet_header_size(first: int) -> int:
    """Bytes of a SYNC (3) or delta (1) packet before its first entry."""
    return _DELTA_HEAD if first & SYNC_DELTA_FLAG else _SYNC_HEAD


@dataclass(frozen=True)
class Traffic:
    """A total: bytes and messages (for a class: SYNC/delta entries)."""

    bytes: int = 0
    messages: int = 0

    def __str__(self) -> str:
        return f"{_size(self.bytes)} in {self.messages:,}"


@dataclass(frozen=True)
class TrafficRate:
    """An average per tick over the window: bytes and messages (for a class: entries)."""

    bytes: float = 0.0
    messages: float = 0.0

    def __str__(self) -> str:
        return f"{_size(self.bytes)} in {self.messages:,.1f}"


@dataclass(frozen=True)
class CpuTime:
    """CPU milliseconds per tick, averaged over the window.

    ``sync`` is the thread CPU time inside ``SceneMultiplayer.sync()``: reading and
    encoding the synced state and handing the packets over. ``transport`` is the thread CPU
    time of the transport adapter's writes: each hand-over of a packet (ENet: the packet's
    send, and the host's one flush a turn; WebSocket: the frame written at once, or queued)
    and the WebSocket writer's frame writes. It is measured with detail on only (None
    otherwise), and then the writes made inside ``sync()`` count here, not in ``sync``.
    ``game`` is the process's CPU time from one ``sync()`` call to the next less the other
    two: everything else the process did, the game's own code first, then RPC handling,
    reading from the network and the event loop (and, without detail, the writes made
    outside ``sync()``).
    """

    game: float
    sync: float
    transport: float | None

    @property
    def total(self) -> float:
        """All the process's CPU per tick."""
        return self.game + self.sync + (self.transport or 0.0)

    def __str__(self) -> str:
        transport = "n/a" if self.transport is None else f"{self.transport:.2f}"
        return (
            f"cpu {self.total:.2f} ms = game {self.game:.2f} + sync {self.sync:.2f}"
            f" + transport {transport}"
        )


@dataclass(frozen=True)
class PeerStats:
    """One connected peer: what it was sent (since it connected, and per tick over the
    window) and what waits for it: ``queued`` bytes and messages handed to the transport
    and not yet written to the socket (WebSocket) or not yet acknowledged (ENet)."""

    sent: Traffic
    per_tick: TrafficRate
    queued: Traffic


@dataclass(frozen=True)
class ClassStats:
    """One synced class (by the NetClass's ``__name__``): the bytes and entries of its
    nodes' SYNC and delta entries, each entry whole (its 8- or 16-byte head included). A
    packet's own head (3 bytes a SYNC, 1 a delta) is in the kind's total only."""

    sync: Traffic
    delta: Traffic
    per_tick: TrafficRate

    @property
    def sent(self) -> Traffic:
        """Both kinds together."""
        return Traffic(self.sync.bytes + self.delta.bytes, self.sync.messages + self.delta.messages)


@dataclass(frozen=True)
class NetStats:
    """What a SceneMultiplayer server spent and sent, from ``mp.stats()``.

    ``ticks`` is the number of ``sync()`` calls so far; the per-tick figures (``cpu``,
    ``per_tick``, each peer's and class's ``per_tick``) average the last ``window`` full
    ticks (from one ``sync()`` call to the next; 0 until there are two calls, and then every
    figure per tick is 0). ``sent`` and ``kinds`` are totals since the server started, by
    packet kind (:func:`packet_kind`); ``peers`` the connected peers; ``classes`` the synced
    classes (None unless detail is on; since detail was turned on). Bytes are the packets as
    SceneMultiplayer encodes them, without the transport's framing (WebSocket frame heads,
    ENet headers) and without WebSocket's peer-id message. ``str()`` is one log line;
    :meth:`format` adds a line per peer and per class.
    """

    ticks: int
    window: int
    cpu: CpuTime
    sent: Traffic
    per_tick: TrafficRate
    kinds: Mapping[str, Traffic]
    peers: Mapping[int, PeerStats]
    classes: Mapping[str, ClassStats] | None

    def __str__(self) -> str:
        queued = [p.queued for p in self.peers.values()]
        most = max(queued, key=lambda q: q.bytes, default=Traffic())
        kinds = ", ".join(f"{name} {traffic}" for name, traffic in self.kinds.items())
        peers = f"{len(self.peers)} peer{'' if len(self.peers) == 1 else 's'}"
        return (
            f"tick {self.ticks} (avg of {self.window}): {self.cpu} | sent/tick {self.per_tick}"
            f" msg to {peers} | most queued {most} msg | total {self.sent}"
            f" msg ({kinds or 'nothing'})"
        )

    def format(self, *, peers: bool = True, classes: bool = True) -> str:
        """The log line, then a line per peer (``peers``) and per class (``classes``)."""
        lines = [str(self)]
        if peers:
            for peer, stats in sorted(self.peers.items()):
                lines.append(
                    f"  peer {peer}: sent {stats.sent} msg, {stats.per_tick} msg/tick,"
                    f" queued {stats.queued} msg"
                )
        if classes and self.classes is not None:
            for name, cls in sorted(self.classes.items()):
                lines.append(
                    f"  class {name}: sync {cls.sync} entries, delta {cls.delta} entries,"
                    f" {cls.per_tick} entries/tick"
                )
        return "\n".join(lines)


def _size(count: float) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count:.0f} B" if float(count).is_integer() else f"{count:.1f} B"


#: ``lookup()``: every synchronizer's net id -> its class name, for what is spawned now.
ClassLookup = Callable[[], Mapping[int, str]]


class _ClassTally:
    """Detail: the entries of outgoing SYNC/delta packets credited to their node's class."""

    def __init__(self, lookup: ClassLookup) -> None:
        self._lookup = lookup
        #: by class name: [sync bytes, sync entries, delta bytes, delta entries]
        self.tally: dict[str, list[int]] = {}
        #: each net id's row of :attr:`tally`
        self._rows: dict[int, list[int]] = {}

    def walk(self, data: bytes) -> None:
        """Credit each entry of one SYNC or delta packet (about 0.3 µs an entry)."""
        rows = self._rows
        end = len(data)
        row: list[int] | None = None
        if data[0] & SYNC_DELTA_FLAG:
            offset, column, u32 = _DELTA_HEAD, 2, _U32.unpack_from
            while offset + 16 <= end:
                net_id = u32(data, offset)[0]
                size = 16 + u32(data, offset + 12)[0]
                row = rows.get(net_id)
                if row is None:
                    row, rows = self._row(net_id), self._rows
                row[2] += size
                row[3] += 1
                offset += size
        else:
            offset, column, entry = _SYNC_HEAD, 0, _ENTRY.unpack_from
            while offset + 8 <= end:
                net_id, size = entry(data, offset)
                size += 8
                row = rows.get(net_id)
                if row is None:
                    row, rows = self._row(net_id), self._rows
                row[0] += size
                row[1] += 1
                offset += size
        if row is not None and offset > end:  # a last entry cut short: only its bytes
            row[column] -= offset - end
        elif offset < end:  # a tail too short for an entry head
            self._row(-1)[column] += end - offset

    def _row(self, net_id: int) -> list[int]:
        """The row of a net id not seen since the last look: look again at every spawned
        node (net ids are never reused; those of freed nodes are dropped)."""
        tally = self.tally
        rows: dict[int, list[int]] = {}
        for node_id, name in self._lookup().items():
            row = tally.get(name)
            rows[node_id] = row if row is not None else tally.setdefault(name, [0, 0, 0, 0])
        if net_id not in rows:
            rows[net_id] = tally.setdefault(UNKNOWN_CLASS, [0, 0, 0, 0])
        self._rows = rows
        return rows[net_id]


class TrafficCounter:
    """Every packet a server hands to its transport, counted (one per server, always on).

    :attr:`sent` is called once per packet, at the one place the server hands packets over;
    :meth:`add_transport` by the adapter with the thread CPU nanoseconds of a write when
    :attr:`timing` is on. Peers are forgotten when they leave (:meth:`forget`); the totals
    by kind keep what they were sent.

    The counts are int64 cells (:attr:`cells`, ``_pysync.Counts``), which the compiled tally
    adds to without making a Python int; :attr:`bytes`, :attr:`messages`, :attr:`kind_bytes`
    and :attr:`kind_messages` read them as plain ints. A cell past 2**63 - 1 raises
    OverflowError, never wraps: at a gigabyte a second that is 292 years of traffic.
    """

    #: ``sent(peer, data)``: ``data`` was handed to the transport for ``peer``. Without
    #: detail it is the live frame's ``tally`` bound to this counter's :attr:`counts` (the
    #: compiled one counts a packet without a Python frame or a Python int: about 500
    #: instructions through the partial, docs/multiplayer-performance.md "The twenty-second
    #: round: a packet's count in int64 cells"); with detail, that count and then the
    #: SYNC/delta entries credited to their class. Bound when made and when :meth:`detail`
    #: changes, to the frame live then.
    sent: Callable[[int, bytes], None]

    def __init__(self) -> None:
        #: every count: by first byte the bytes at ``[0, KINDS)`` and the messages at
        #: ``[KINDS, 2 * KINDS)``, then a connected peer's bytes and messages at
        #: ``slots[peer]`` and the cell after (cells of peers that left are used again)
        self.cells = array("q", bytes(16 * KINDS))
        self.slots: dict[int, int] = {}
        self._free: list[int] = []
        #: thread CPU nanoseconds of the transport's writes (while :attr:`timing` is on)
        self.transport_ns = 0
        #: whether the transport's writes are timed (detail on)
        self.timing = False
        self._classes: _ClassTally | None = None
        #: what :attr:`sent` counts into (``_pysync.Counts``): a transport that counts its
        #: packets itself (the ENet adapter's ``hand_over``) counts into these
        self.counts: Counts = (self.slots, self.cells, self._place)
        self.sent = self._counter()

    def _place(self, peer: int) -> int:
        """A peer's first packet: its two cells, zero (those of a peer that left, or new)."""
        if self._free:
            at = self._free.pop()
        else:
            at = len(self.cells)
            self.cells.extend((0, 0))
        self.slots[peer] = at
        return at

    def _counter(self) -> Callable[[int, bytes], None]:
        """What :attr:`sent` is: the live frame's count, then with detail the packet's
        SYNC/delta entries credited to their classes."""
        tally = partial(_frame.live().tally, self.counts)
        if self._classes is None:
            return tally
        walk = self._classes.walk

        def walked(peer: int, data: bytes) -> None:
            tally(peer, data)
            if data[0] & CMD_MASK == Command.SYNC:
                walk(data)

        return walked

    def add_transport(self, nanoseconds: int) -> None:
        """The adapter spent this much thread CPU writing (called only while timing)."""
        self.transport_ns += nanoseconds

    def forget(self, peer: int) -> None:
        """``peer`` left: drop its own counts (its cells are zeroed, for the next new peer)."""
        at = self.slots.pop(peer, None)
        if at is not None:
            self.cells[at] = self.cells[at + 1] = 0
            self._free.append(at)

    def detail(self, lookup: ClassLookup | None) -> None:
        """Turn detail on (time the writes, credit SYNC/delta entries to classes named by
        ``lookup``) or off (None)."""
        self.timing = lookup is not None
        self._classes = None if lookup is None else _ClassTally(lookup)
        self.sent = self._counter()

    @property
    def classes(self) -> Mapping[str, list[int]] | None:
        """Detail's tally by class: ``[sync bytes, sync entries, delta bytes, delta entries]``."""
        return None if self._classes is None else self._classes.tally

    def peer(self, peer: int) -> tuple[int, int]:
        """Bytes and messages sent to ``peer`` (0 and 0 when not connected)."""
        return _peer_cells(self.slots, self.cells, peer)

    @property
    def bytes(self) -> dict[int, int]:
        """Bytes sent to each connected peer."""
        cells = self.cells
        return {peer: cells[at] for peer, at in self.slots.items()}

    @property
    def messages(self) -> dict[int, int]:
        """Messages sent to each connected peer."""
        cells = self.cells
        return {peer: cells[at + 1] for peer, at in self.slots.items()}

    @property
    def kind_bytes(self) -> list[int]:
        """Bytes sent by a packet's first byte (256 items)."""
        return self.cells[:KINDS].tolist()

    @property
    def kind_messages(self) -> list[int]:
        """Messages sent by a packet's first byte (256 items)."""
        return self.cells[KINDS : 2 * KINDS].tolist()

    def kinds(self) -> dict[str, Traffic]:
        """The totals by kind, in a fixed order."""
        found: dict[str, list[int]] = {}
        cells = self.cells
        for first in range(KINDS):
            size, count = cells[first], cells[KINDS + first]
            if size or count:
                row = found.setdefault(packet_kind(first), [0, 0])
                row[0] += size
                row[1] += count
        return {name: Traffic(*found[name]) for name in _KIND_ORDER if name in found}


def _totals(cells: array[int]) -> tuple[int, int]:
    """Bytes and messages sent in all: the sums of the cells by kind."""
    return sum(cells[:KINDS]), sum(cells[KINDS : 2 * KINDS])


def _peer_cells(slots: Mapping[int, int], cells: array[int], peer: int) -> tuple[int, int]:
    """A peer's bytes and messages in ``cells`` (0 and 0 when it has no place in ``slots``)."""
    at = slots.get(peer)
    return (0, 0) if at is None else (cells[at], cells[at + 1])


_KIND_ORDER = ("sync", "delta", "spawn", "despawn", "rpc", "path", "raw", "sys")


@dataclass(slots=True)
class _Snapshot:
    """The counters at the start of one ``sync()`` call (never changed once made; not a
    frozen dataclass, whose ``__init__`` sets each field through ``object.__setattr__``, a
    tick's worth of work for nothing). The counts are a copy of the counter's cells and of
    where each peer's are, summed only when :meth:`TickRecorder.stats` reads this snapshot,
    not every tick."""

    process_ns: int
    sync_ns: int
    transport_ns: int
    timing: bool
    slots: dict[int, int]
    cells: array[int]
    classes: dict[str, tuple[int, ...]] | None

    @property
    def total(self) -> tuple[int, int]:
        """Bytes and messages sent in all, then."""
        return _totals(self.cells)


#: ``queue_depth(peer)``: bytes and messages waiting for ``peer`` in its transport.
QueueDepth = Callable[[int], tuple[int, int]]


class TickRecorder:
    """The ticks of one SceneMultiplayer: :meth:`started` and :meth:`finished` around each
    ``sync()``, and :meth:`stats` to read them with the server's :class:`TrafficCounter`."""

    def __init__(self, traffic: TrafficCounter) -> None:
        self.traffic = traffic
        self.ticks = 0
        self.sync_ns = 0
        self._transport_at_start = 0
        self._snapshots: deque[_Snapshot] = deque(maxlen=MAX_WINDOW + 1)

    def started(self) -> int:
        """A ``sync()`` starts: snapshot the counters; the thread CPU clock to hand back."""
        traffic = self.traffic
        classes = traffic.classes
        self._snapshots.append(
            _Snapshot(
                time.process_time_ns(),
                self.sync_ns,
                traffic.transport_ns,
                traffic.timing,
                traffic.slots.copy(),
                traffic.cells[:],
                None if classes is None else {k: tuple(v) for k, v in classes.items()},
            )
        )
        self._transport_at_start = traffic.transport_ns
        return time.thread_time_ns()

    def finished(self, started: int) -> None:
        """The ``sync()`` that :meth:`started` returned ``started`` is done. The transport's
        writes made inside it (a packet handed over at once) are its own figure, not sync's."""
        during = self.traffic.transport_ns - self._transport_at_start
        self.sync_ns += max(0, time.thread_time_ns() - started - during)
        self.ticks += 1

    def stats(
        self, peers: Iterable[int], queue_depth: QueueDepth | None, window: int = DEFAULT_WINDOW
    ) -> NetStats:
        """The figures now, per tick over the last ``window`` ticks (at most
        :data:`MAX_WINDOW`), for the connected ``peers``."""
        if not 1 <= window <= MAX_WINDOW:
            raise ValueError(f"window must be 1 to {MAX_WINDOW} ticks, not {window}")
        snaps = self._snapshots
        span = max(0, min(window, len(snaps) - 1))
        first, last = (snaps[-1 - span], snaps[-1]) if span > 0 else (None, None)
        traffic = self.traffic
        kinds = traffic.kinds()
        total = Traffic(*_totals(traffic.cells))
        return NetStats(
            ticks=self.ticks,
            window=span,
            cpu=_cpu(first, last, span, traffic.timing),
            sent=total,
            per_tick=_rate(first, last, span, lambda s: s.total),
            kinds=MappingProxyType(kinds),
            peers=MappingProxyType(
                {
                    peer: _peer(traffic, peer, first, last, span, queue_depth)
                    for peer in sorted(peers)
                }
            ),
            classes=_classes(traffic.classes, first, last, span),
        )


def _cpu(first: _Snapshot | None, last: _Snapshot | None, span: int, timing: bool) -> CpuTime:
    if first is None or last is None:
        return CpuTime(0.0, 0.0, 0.0 if timing else None)
    per_tick = 1e6 * span  # nanoseconds -> milliseconds per tick
    sync = (last.sync_ns - first.sync_ns) / per_tick
    timed = first.timing and last.timing
    transport = (last.transport_ns - first.transport_ns) / per_tick if timed else None
    spent = (last.process_ns - first.process_ns) / per_tick
    return CpuTime(max(0.0, spent - sync - (transport or 0.0)), sync, transport)


def _rate(
    first: _Snapshot | None,
    last: _Snapshot | None,
    span: int,
    read: Callable[[_Snapshot], tuple[int, int]],
) -> TrafficRate:
    if first is None or last is None:
        return TrafficRate()
    (b0, m0), (b1, m1) = read(first), read(last)
    return TrafficRate((b1 - b0) / span, (m1 - m0) / span)


def _peer(
    traffic: TrafficCounter,
    peer: int,
    first: _Snapshot | None,
    last: _Snapshot | None,
    span: int,
    queue_depth: QueueDepth | None,
) -> PeerStats:
    queued = Traffic(*queue_depth(peer)) if queue_depth is not None else Traffic()
    return PeerStats(
        sent=Traffic(*traffic.peer(peer)),
        per_tick=_rate(first, last, span, lambda s: _peer_cells(s.slots, s.cells, peer)),
        queued=queued,
    )


def _classes(
    tally: Mapping[str, list[int]] | None,
    first: _Snapshot | None,
    last: _Snapshot | None,
    span: int,
) -> Mapping[str, ClassStats] | None:
    if tally is None:
        return None
    found: dict[str, ClassStats] = {}
    for name, row in tally.items():
        if first is None or last is None or first.classes is None or last.classes is None:
            rate = TrafficRate()
        else:
            then = first.classes.get(name, (0, 0, 0, 0))
            now = last.classes.get(name, (0, 0, 0, 0))
            rate = TrafficRate(
                (now[0] + now[2] - then[0] - then[2]) / span,
                (now[1] + now[3] - then[1] - then[3]) / span,
            )
        found[name] = ClassStats(Traffic(row[0], row[1]), Traffic(row[2], row[3]), rate)
    return MappingProxyType(found)
