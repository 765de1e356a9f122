"""One direction of a simulated link, sans I/O: packets in with a time, packets out when due.

The link has no clock and no socket (as h11 and wsproto have none): the caller passes "now"
to every call and asks :meth:`Link.next_time` when to come back. A packet offered to the link
goes through, in this order: the holding limits (``max_packets``, ``max_bytes``: the link's
whole memory, queue and flight together), loss, the bandwidth cap (a FIFO bottleneck that sends
``rate`` bytes a second), then the delay (``latency`` plus a uniform draw in
``±jitter``), with reordering and duplication. docs/netsim.md has the model in full.

Every effect draws from its own seeded generator, exactly once per packet whatever happens to
the packet, so the same seed and the same calls give the same deliveries, and changing one
effect (more loss, say) leaves the draws of the others where they were.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field, fields

__all__ = ["Conditions", "Link", "LinkStats"]

#: netem's default queue limit (``limit 1000``): a link holds at most this many packets.
DEFAULT_MAX_PACKETS = 1000
#: The bytes a link may hold (256 KiB): four 64 KiB datagrams, or 2 s of a 1 Mbit/s link.
DEFAULT_MAX_BYTES = 256 * 1024
#: Linux's minimum TCP retransmission timeout (TCP_RTO_MIN, 200 ms): a segment "lost" on a
#: stream link arrives this much later, and everything behind it waits.
DEFAULT_RETRANSMIT = 0.2
#: A stream link's segment: the bytes that arrive together (a 1,500-byte MTU less IP and TCP).
DEFAULT_SEGMENT = 1460
#: How long a reordered packet is held back beyond its own delay.
DEFAULT_REORDER_DELAY = 0.02

_EFFECTS = ("loss", "duplicate", "reorder", "jitter")


def _check_probability(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability between 0 and 1, not {value!r}")


def _check_seconds(name: str, value: float) -> None:
    if not (math.isfinite(value) and value >= 0.0):
        raise ValueError(f"{name} must be a finite number of seconds >= 0, not {value!r}")


@dataclass(frozen=True)
class Conditions:
    """What one direction of a link does to what crosses it (times in seconds, ``rate`` in
    bytes per second, probabilities between 0 and 1).

    ``burst`` turns independent losses into bursts (the Gilbert model: a good state that loses
    nothing and a bad one that loses everything), with ``loss`` still the long-run rate and
    ``burst`` the mean length of a run of lost packets. On a stream link (TCP) nothing is lost,
    duplicated or reordered: a "lost" segment arrives ``retransmit`` seconds late instead, and
    the bytes behind it wait (head-of-line blocking).
    """

    latency: float = 0.0
    jitter: float = 0.0
    loss: float = 0.0
    burst: float | None = None
    duplicate: float = 0.0
    reorder: float = 0.0
    reorder_delay: float = DEFAULT_REORDER_DELAY
    rate: float | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    max_packets: int = DEFAULT_MAX_PACKETS
    segment: int = DEFAULT_SEGMENT
    retransmit: float = DEFAULT_RETRANSMIT

    def __post_init__(self) -> None:
        for name in ("latency", "jitter", "reorder_delay", "retransmit"):
            _check_seconds(name, getattr(self, name))
        for name in ("loss", "duplicate", "reorder"):
            _check_probability(name, getattr(self, name))
        if self.rate is not None and not (math.isfinite(self.rate) and self.rate > 0):
            raise ValueError(
                f"rate must be a finite number of bytes a second > 0, not {self.rate!r}"
            )
        for name in ("max_bytes", "max_packets", "segment"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)!r}")
        if self.burst is not None:
            if not (math.isfinite(self.burst) and self.burst >= 1.0):
                raise ValueError(f"burst is a mean run of lost packets, >= 1, not {self.burst!r}")
            if self.loss >= 1.0 or self._enter_bad() > 1.0:
                raise ValueError(
                    f"a loss of {self.loss:g} cannot come in bursts of {self.burst:g} packets "
                    f"(at most {self.burst / (1 + self.burst):g} can)"
                )

    def _enter_bad(self) -> float:
        """The Gilbert model's chance to go from good to bad, for the long-run ``loss``."""
        assert self.burst is not None
        return self.loss / (self.burst * (1.0 - self.loss))


@dataclass
class LinkStats:
    """What a link did, counted in packets (a stream link's packets are its segments)."""

    sent: int = 0  # offered to the link
    sent_bytes: int = 0
    delivered: int = 0  # handed out by receive, duplicates included
    delivered_bytes: int = 0
    lost: int = 0
    overflowed: int = 0  # refused: the link held max_packets or max_bytes already
    duplicated: int = 0
    reordered: int = 0  # held back reorder_delay so that later packets overtake it
    retransmitted: int = 0  # stream links: segments that arrived a retransmission late
    held_packets: int = 0  # in the link now: waiting for the bottleneck or in flight
    held_bytes: int = 0

    def __add__(self, other: LinkStats) -> LinkStats:
        return LinkStats(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


@dataclass(order=True)
class _Flight:
    due: float
    order: int
    data: bytes = field(compare=False)


class Link:
    """One direction of a link: :meth:`send` packets (or a stream's bytes) into it, and
    :meth:`receive` what is due. ``stream=True`` makes it TCP-like: the bytes are cut into
    ``segment``-byte segments, delayed and rate-limited but never lost, duplicated or
    reordered, and never refused: a stream's writer stops reading while :attr:`full` says so.
    """

    def __init__(
        self, conditions: Conditions | None = None, *, seed: int | str = 0, stream: bool = False
    ) -> None:
        self.conditions = conditions if conditions is not None else Conditions()
        self.stream = stream
        self.stats = LinkStats()
        self._draws = {name: random.Random(f"gdvariant.netsim/{seed}/{name}") for name in _EFFECTS}
        self._bad = False  # the Gilbert model's state
        self._now = -math.inf
        self._busy_since = -math.inf  # the bottleneck's current busy period
        self._busy_bytes = 0
        self._busy_until = -math.inf
        self._in_order = -math.inf  # no packet in order arrives before this
        self._flights: list[_Flight] = []
        self._count = 0

    @property
    def full(self) -> bool:
        """Whether the link holds its ``max_packets`` or ``max_bytes`` (a stream's writer then
        stops reading until :meth:`receive` has made room)."""
        c = self.conditions
        return self.stats.held_packets >= c.max_packets or self.stats.held_bytes >= c.max_bytes

    def next_time(self) -> float | None:
        """When the next packet is due (None: the link is empty)."""
        return self._flights[0].due if self._flights else None

    def send(self, data: bytes, now: float) -> bool:
        """Offer one datagram (or a stream's next bytes) at time ``now``; whether the link took
        it (a datagram may be lost or refused; a stream's bytes are always taken)."""
        self._advance(now)
        if not self.stream:
            return self._send_datagram(data, now)
        for start in range(0, len(data), self.conditions.segment):
            self._send_segment(data[start : start + self.conditions.segment], now)
        return True

    def receive(self, now: float) -> list[bytes]:
        """The packets due by ``now``, in the order they arrive."""
        self._advance(now)
        out = []
        while self._flights and self._flights[0].due <= now:
            data = heapq.heappop(self._flights).data
            self.stats.held_packets -= 1
            self.stats.held_bytes -= len(data)
            self.stats.delivered += 1
            self.stats.delivered_bytes += len(data)
            out.append(data)
        return out

    def _advance(self, now: float) -> None:
        if not now >= self._now:  # NaN too
            raise ValueError(f"time went backwards: {now!r} after {self._now!r}")
        self._now = now

    def _draw(self) -> tuple[bool, bool, bool, float]:
        """This packet's fate: lost, duplicated, reordered, and its delay; one draw per effect."""
        c = self.conditions
        u = self._draws["loss"].random()
        if c.burst is None:
            lost = u < c.loss
        elif self._bad:
            lost = self._bad = u >= 1.0 / c.burst
        else:
            lost = self._bad = u < c._enter_bad()
        duplicated = self._draws["duplicate"].random() < c.duplicate
        reordered = self._draws["reorder"].random() < c.reorder
        offset = (2.0 * self._draws["jitter"].random() - 1.0) * c.jitter
        return lost, duplicated, reordered, max(0.0, c.latency + offset)

    def _room(self, size: int) -> bool:
        c = self.conditions
        held = self.stats
        return held.held_packets < c.max_packets and held.held_bytes + size <= c.max_bytes

    def _send_datagram(self, data: bytes, now: float) -> bool:
        lost, duplicated, reordered, delay = self._draw()
        self.stats.sent += 1
        self.stats.sent_bytes += len(data)
        if not self._room(len(data)):
            self.stats.overflowed += 1
            return False
        if lost:
            self.stats.lost += 1
            return False
        due = self._transmit(len(data), now) + delay
        if reordered:
            due += self.conditions.reorder_delay
            self.stats.reordered += 1
        else:
            due = self._in_order = max(due, self._in_order)
        self._hold(data, due)
        if duplicated and self._room(len(data)):
            self.stats.duplicated += 1
            self._hold(data, due)
        return True

    def _send_segment(self, data: bytes, now: float) -> None:
        lost, _, _, delay = self._draw()
        self.stats.sent += 1
        self.stats.sent_bytes += len(data)
        due = self._transmit(len(data), now) + delay
        if lost:
            due += self.conditions.retransmit
            self.stats.retransmitted += 1
        self._in_order = max(due, self._in_order)
        self._hold(data, self._in_order)

    def _transmit(self, size: int, now: float) -> float:
        """When the bottleneck has sent the packet's last byte: a busy period's k-th byte
        leaves k / rate seconds after the period began (one division, no drift)."""
        rate = self.conditions.rate
        if rate is None:
            return now
        if now >= self._busy_until:
            self._busy_since, self._busy_bytes = now, 0
        self._busy_bytes += size
        self._busy_until = self._busy_since + self._busy_bytes / rate
        return self._busy_until

    def _hold(self, data: bytes, due: float) -> None:
        self._count += 1
        heapq.heappush(self._flights, _Flight(due, self._count, bytes(data)))
        self.stats.held_packets += 1
        self.stats.held_bytes += len(data)
