"""Log lines a client cannot flood: warnings rate-limited per peer, and its data clipped.

A server logs what a client did wrong (a malformed packet, a node path it never declared, a
frame that does not decode), and the client picks how often that happens and what its data
holds. :class:`PeerLog` lets at most ``per_peer`` lines a second through for each peer and
``per_second`` for all of them together, and when the second is over reports what it held
back as one line per peer ("... and 4,211 more from peer 12 in the last second"). :func:`clip`
cuts a client's text or bytes to :data:`MAX_CLIENT_TEXT` characters, with control characters
escaped, so a client can neither fill a log line nor forge one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Hashable

__all__ = ["MAX_CLIENT_TEXT", "PER_PEER", "PER_SECOND", "PeerLog", "clip"]

#: The most characters of a client's data one log line holds.
MAX_CLIENT_TEXT = 100
#: Lines a second logged for one peer; the rest are counted.
PER_PEER = 3
#: Lines a second logged for all peers together; at most as many again report the counts.
PER_SECOND = 30
_WINDOW = 1.0


def clip(value: object, limit: int = MAX_CLIENT_TEXT) -> str:
    """``value`` as log text: bytes as their escaped ``repr``, anything else as ``str``;
    control characters escaped, cut to ``limit`` characters and saying how long it was.

    Only the first ``limit`` characters (or bytes) are looked at, so a 1 MB path costs no
    more than a short one.
    """
    if isinstance(value, bytes | bytearray | memoryview):
        data = memoryview(value).cast("B")
        total = data.nbytes
        text = repr(bytes(data[:limit]))[2:-1]
        unit = "bytes"
    else:
        whole = value if isinstance(value, str) else str(value)
        total = len(whole)
        text = repr(whole[:limit])[1:-1]
        unit = "characters"
    if len(text) > limit:  # escapes made it longer
        text = text[:limit]
    elif total <= limit:
        return text
    return f"{text}... ({total:,} {unit})"


def _name(peer: Hashable) -> str:
    if isinstance(peer, int):
        return f"peer {peer}"
    if isinstance(peer, tuple) and len(peer) >= 2:
        return f"{peer[0]}:{peer[1]}"
    return clip(peer)


class PeerLog:
    """A logger's warnings about peers, at most ``per_peer`` lines a second for each peer
    and ``per_second`` for all, the rest counted and reported once the second is over.

    ``peer`` is any hashable key (a peer id, an address): an ``int`` is named "peer N" in
    the counts, a ``(host, port)`` pair "host:port". The caller clips the client's data in
    the arguments (:func:`clip`). In a running event loop a timer reports the counts when
    their second ends; without one they are reported with the next line (or by
    :meth:`flush`). ``clock`` is for tests. ``share``: count against that other PeerLog's
    budgets instead of new ones (its numbers, its counts reported to its logger), so that
    two layers of one server that log about the same peers, each to its own logger, give a
    peer one budget between them.
    """

    def __init__(
        self,
        logger: logging.Logger,
        *,
        per_peer: int = PER_PEER,
        per_second: int = PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
        share: PeerLog | None = None,
    ) -> None:
        if per_peer < 1 or per_second < 1:
            raise ValueError("per_peer and per_second must be at least 1")
        self.logger = logger
        #: the PeerLog whose budgets this one's lines count against (itself, unless shared)
        self._budget: PeerLog = self if share is None else share._budget
        self.per_peer = per_peer
        self.per_second = per_second
        self._clock = clock
        self._start = -_WINDOW
        self._logged: dict[Hashable, int] = {}
        self._held: dict[Hashable, int] = {}
        self._total = 0
        self._timer: asyncio.TimerHandle | None = None

    def warning(self, peer: Hashable, msg: str, *args: object) -> None:
        self.log(logging.WARNING, peer, msg, *args)

    def error(self, peer: Hashable, msg: str, *args: object) -> None:
        self.log(logging.ERROR, peer, msg, *args)

    def exception(self, peer: Hashable, msg: str, *args: object) -> None:
        """An error with the current exception's traceback (inside ``except``)."""
        self.log(logging.ERROR, peer, msg, *args, exc_info=True)

    def log(
        self,
        level: int,
        peer: Hashable,
        msg: str,
        *args: object,
        exc_info: bool = False,
        final: bool = False,
    ) -> None:
        """Log ``msg % args`` about ``peer`` if its budget and the total allow, else count it.
        ``final``: the last line about a peer that is being closed, held back only by the
        total."""
        if not self.logger.isEnabledFor(level):
            return
        if self._budget._admit(peer, final):
            self.logger.log(level, msg, *args, exc_info=exc_info)

    def _admit(self, peer: Hashable, final: bool) -> bool:
        """Whether a line about ``peer`` fits this second's budgets (counted if it does,
        held back if not)."""
        now = self._clock()
        if now - self._start >= _WINDOW:
            self._report(now)
        logged = self._logged.get(peer, 0)
        if (logged >= self.per_peer and not final) or self._total >= self.per_second:
            self._held[peer] = self._held.get(peer, 0) + 1
            self._arm(now)
            return False
        self._logged[peer] = logged + 1
        self._total += 1
        return True

    def flush(self) -> None:
        """Report what was held back now, and start a new second."""
        budget = self._budget
        budget._report(budget._clock())

    def _arm(self, now: float) -> None:
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(max(0.0, self._start + _WINDOW - now), self.flush)

    def _report(self, now: float) -> None:
        """Log the counts held back in the second that ends, then start the next at ``now``."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        held = sorted(self._held.items(), key=lambda item: -item[1])
        shown, rest = held[: self.per_second], held[self.per_second :]
        for peer, count in shown:
            self.logger.warning("... and %d more from %s in the last second", count, _name(peer))
        if rest:
            self.logger.warning(
                "... and %d more from %d other peers in the last second",
                sum(count for _, count in rest),
                len(rest),
            )
        self._start = now
        self._logged.clear()
        self._held.clear()
        self._total = 0
