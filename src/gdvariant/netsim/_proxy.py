"""What the asyncio proxies (``_udp``, ``_tcp``) share: a timer that hands a link's packets on
when due, and the proxy's flows, seeds and counts.

A proxy listens on a local port and forwards every client's traffic to one target, through two
links per client (client to target, target to client), so every flow sees its own seeded
conditions. What one client may cost is bounded: its links hold at most ``max_packets`` and
``max_bytes`` each (a UDP datagram past that is dropped; a TCP client is not read until its
link has room again), and at most ``max_flows`` clients are served at once (a UDP flow idle
for ``idle_timeout`` seconds is forgotten; a TCP connection past the limit is closed).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from functools import reduce

from .._closing import AsyncClosing
from ._link import Conditions, Link, LinkStats

#: Clients served at once by one proxy.
DEFAULT_MAX_FLOWS = 256


def link_seeds(seed: int | str, flow: int) -> tuple[str, str]:
    """The seeds of a proxy's ``flow``-th flow's two links (up, down): each flow draws its
    own fates, and the same proxy seed gives the same fates run after run."""
    return f"{seed}/{flow}/up", f"{seed}/{flow}/down"


class _Pump:
    """Hands a link's packets to ``deliver`` when they are due, on the event loop's clock."""

    def __init__(
        self,
        link: Link,
        deliver: Callable[[bytes], None],
        after: Callable[[], None] | None = None,
    ) -> None:
        self.link = link
        self._deliver = deliver
        self._after = after
        self._loop = asyncio.get_running_loop()
        self._handle: asyncio.TimerHandle | None = None
        self._now = self._loop.time()

    def send(self, data: bytes) -> bool:
        taken = self.link.send(data, self._time())
        self._arm()
        return taken

    def _time(self, at_least: float = -math.inf) -> float:
        """The loop's time, never before a time already given to the link: the loop runs a
        timer up to its clock's resolution early, and the timer's packets are due all the
        same, so the link may have been told a time the loop has not quite reached."""
        self._now = max(self._loop.time(), self._now, at_least)
        return self._now

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _arm(self) -> None:
        due = self.link.next_time()
        if due is None:
            return
        if self._handle is not None:
            if self._handle.when() <= due:
                return
            self._handle.cancel()
        self._handle = self._loop.call_at(due, self._fire, due)

    def _fire(self, due: float) -> None:
        self._handle = None
        for data in self.link.receive(self._time(due)):
            self._deliver(data)
        self._arm()
        if self._after is not None:
            self._after()


class _Proxy(AsyncClosing):
    """What both proxies share: the conditions, the seeds of each flow's links, the counts."""

    def __init__(
        self,
        target: tuple[str, int],
        conditions: Conditions | None,
        *,
        seed: int | str,
        max_flows: int,
    ) -> None:
        if max_flows < 1:
            raise ValueError(f"max_flows must be at least 1, not {max_flows!r}")
        self.target = target
        self.conditions = conditions if conditions is not None else Conditions()
        self.seed = seed
        self.max_flows = max_flows
        # Clients turned away (max_flows were being served, or no socket could be opened);
        # the UDP proxy counts each datagram it turns away.
        self.refused = 0
        self._flows_made = 0
        self._closed_stats = LinkStats()
        self._pumps: list[_Pump] = []

    def _links(self, *, stream: bool) -> tuple[Link, Link]:
        """The next flow's two links: client to target ("up"), target to client ("down")."""
        up_seed, down_seed = link_seeds(self.seed, self._flows_made)
        self._flows_made += 1
        up = Link(self.conditions, seed=up_seed, stream=stream)
        return up, Link(self.conditions, seed=down_seed, stream=stream)

    def _retire(self, *pumps: _Pump) -> None:
        for pump in pumps:
            pump.close()
            if pump in self._pumps:
                self._pumps.remove(pump)
                self._closed_stats += pump.link.stats

    def stats(self) -> LinkStats:
        """Every link's counts, of the flows served so far, summed."""
        return reduce(lambda a, b: a + b, (p.link.stats for p in self._pumps), self._closed_stats)
