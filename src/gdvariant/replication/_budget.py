"""Packets within an MTU, under a bandwidth budget, by priority (``SnapshotEncoder(mtu=...,
budget=...)``; docs/replication-budget.md).

A client's packet stays one packet per tick (the wire format's invariant: a decoder stores
one state per tick), at most ``mtu`` bytes, and within the client's share of ``budget`` bytes a
second (a token bucket refilled each tick, holding at most one MTU). When the records it
needs do not fit, the assembler ranks them (``rank``) and this module picks the ones that
go: an entity left out keeps, for this client, the state it already held, and waits with a
priority that grows with the ticks it has waited times its importance, so that none starves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ABSENT",
    "DEFAULT_MTU",
    "MAX_MTU",
    "Behind",
    "Limits",
    "Near",
    "choose",
    "near_factor",
    "priority",
]

#: The MTU when only a budget is given: 1,200 bytes of payload fit every path in practice.
DEFAULT_MTU = 1200
#: The largest UDP payload over IPv4.
MAX_MTU = 65_507
#: In a :data:`Behind` entry: the client holds nothing under this id.
ABSENT = -1
#: What a client holds after a packet, for the entities that packet left out: id -> (the tick
#: whose state of the entity it holds, or :data:`ABSENT`; the tick the entity began to wait).
Behind = dict[int, tuple[int, int]]
#: The farthest an entity counts as, in cells from the client's centre (its importance is
#: never less than 1/64 of a near one's, so it cannot starve).
FAR_CELLS = 63.0
#: What the ranking weighs distance by, for one client: its view centre (None: it has none),
#: the entities' positions by id, and the grid's cell size (``Interest.nearness``).
Near = tuple[tuple[float, ...] | None, dict[int, Any], float]


def _positive(name: str, value: object) -> float:
    """``value`` as a positive finite number (a ValueError naming ``name`` if it is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be positive and finite, not {value!r}")
    return float(value)


@dataclass(frozen=True)
class Limits:
    """An encoder's packet size limit and per-client budget. ``header`` is the bytes of a
    packet without records; ``share`` the bytes a client earns a tick (None: no budget)."""

    mtu: int
    header: int
    share: float | None

    @classmethod
    def make(
        cls, mtu: int | None, budget: float | None, tick_rate: float | None, header: int
    ) -> Limits:
        """Check the encoder's arguments and make its limits."""
        if mtu is None:
            mtu = DEFAULT_MTU
        if isinstance(mtu, bool) or not isinstance(mtu, int):
            raise ValueError(f"mtu must be a whole number of bytes, not {mtu!r}")
        if not header < mtu <= MAX_MTU:
            raise ValueError(f"mtu must be over the {header}-byte header and at most {MAX_MTU}")
        share = None
        if budget is not None:
            if tick_rate is None:
                raise ValueError("a budget in bytes a second needs the tick_rate (ticks a second)")
            share = _positive("budget", budget) / _positive("tick_rate", tick_rate)
            if share <= header:
                raise ValueError(
                    f"a budget of {budget} bytes/s at {tick_rate} ticks/s is {share:.1f} bytes "
                    f"a tick, not more than the {header}-byte header of a packet"
                )
        elif tick_rate is not None:
            _positive("tick_rate", tick_rate)
        return cls(mtu, header, share)

    def room(self, allowance: float) -> int:
        """The bytes of records a packet may carry with ``allowance`` bytes in the bucket."""
        return max(0, int(min(self.mtu, allowance)) - self.header)

    def refill(self, allowance: float) -> float:
        """The bucket after a tick's share (it holds at most one MTU)."""
        return self.mtu if self.share is None else min(allowance + self.share, self.mtu)


def priority(importance: float, waited: int) -> float:
    """How urgent a record is: its importance times the ticks it has waited, plus one."""
    return importance * (1 + waited)


def distance_factor(distance: float | None, cell: float) -> float:
    """The importance of an entity ``distance`` from the client's centre: 1 at the centre,
    1/2 one cell away, never below 1/64 (None: it has no position, 1)."""
    if distance is None:
        return 1.0
    cells = distance / cell if math.isfinite(distance) else FAR_CELLS
    return 1.0 / (1.0 + min(cells, FAR_CELLS))


def near_factor(near: Near, net_id: int) -> float:
    """:func:`distance_factor` of entity ``net_id``'s distance from the client's centre (1
    when either has no position)."""
    centre, positions, cell = near
    point = positions.get(net_id)
    if centre is None or point is None:
        return 1.0
    return distance_factor(math.dist(point, centre), cell)


Section = tuple[int, bytes]


#: The records :func:`choose` sizes at a time at first (doubling after each batch): enough for
#: most packets in one call, few enough that a full packet sizes little it will not send.
FIRST_BATCH = 64


def choose(
    order: list[int],
    sizes: Callable[[list[int]], list[int]],
    assemble: Callable[[list[int]], Section],
    room: int,
    most: int,
) -> tuple[Section, list[int], list[int]]:
    """Fill a section of at most ``room`` bytes with the ids of ``order`` (most urgent
    first), stopping at the first that does not fit, so that a big record is not passed
    over for ever by small ones. ``sizes(ids)`` is the bytes of each id's record alone (an
    upper bound of its size among others: its id gap can only shrink; 0 = no record), asked
    in batches down the order; ``assemble(ids)`` the section of ascending ``ids``. A record
    over ``most`` bytes (the room of an empty packet of one MTU) could never go: a
    ValueError. Returns the section, the ids chosen, and the ids not reached (those that
    wait)."""
    chosen: list[int] = []
    section: Section = (0, b"")
    known: list[int] = []
    batch = FIRST_BATCH
    used = 0
    k = 0
    while k < len(order):
        grew = False
        while k < len(order):
            if k == len(known):
                known += sizes(order[k : k + batch])
                batch *= 2
            size = known[k]
            if size > most:
                raise ValueError(
                    f"entity {order[k]}'s record is {size} bytes, over the {most} bytes an "
                    "MTU-sized packet has for records: raise the mtu"
                )
            if used + size > room:
                break
            if size:
                chosen.append(order[k])
                used += size
                grew = True
            k += 1
        if not grew:
            break
        section = assemble(sorted(chosen))
        used = len(section[1])
    return section, chosen, order[k:]
