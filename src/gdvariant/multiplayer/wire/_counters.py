"""Net ids and sync time counters: the numbers a replicating side hands out and checks.

Spawn-based net ids come from one counter per sender, starting at 1, shared by nodes and
synchronizers (the node first, then its synchronizers). A static synchronizer that nobody
spawned is named by path instead: ``0x80000000 | its path cache id``. Full SYNC packets carry
a u16 time per receiving peer, starting at 1 and wrapping; a receiver drops stale ones.
"""

from __future__ import annotations

__all__ = ["InboundSyncTime", "NetIds", "SyncClock", "is_path_net_id", "path_net_id"]

PATH_NET_ID = 0x80000000
MAX_NET_ID = PATH_NET_ID - 1
TIME_MODULUS = 1 << 16
#: A time this far behind the last one is taken as a wrapped-around newer one.
STALE_WINDOW = 32767


def path_net_id(cache_id: int) -> int:
    """The net id of a static synchronizer whose node has path cache id ``cache_id``."""
    if not 0 < cache_id <= MAX_NET_ID:
        raise ValueError(f"path cache id {cache_id} out of range")
    return PATH_NET_ID | cache_id


def is_path_net_id(net_id: int) -> bool:
    """True for a path-based net id, whose low 31 bits are a path cache id."""
    return bool(net_id & PATH_NET_ID)


class NetIds:
    """One sender's spawn-based net ids: 1, 2, 3... never reused in a session."""

    def __init__(self) -> None:
        self.last = 0

    def next(self) -> int:
        if self.last >= MAX_NET_ID:
            raise OverflowError("net ids exhausted (2**31 - 1 allocated)")
        self.last += 1
        return self.last

    def spawn(self, synchronizers: int) -> tuple[int, tuple[int, ...]]:
        """Ids for a node and its ``synchronizers``: the node's first, as Godot allocates."""
        node = self.next()
        return node, tuple(self.next() for _ in range(synchronizers))


class SyncClock:
    """The u16 time of full SYNC packets to one peer: 1 first, advanced once per network frame
    that has anything to sync for that peer, wrapping after 65535."""

    def __init__(self) -> None:
        self.last = 0

    def tick(self) -> int:
        self.last = (self.last + 1) % TIME_MODULUS
        return self.last


class InboundSyncTime:
    """A receiving synchronizer's staleness check on full SYNC times.

    The first time is always taken (4.2+; ``first_accepted=False`` gives 4.0/4.1, which
    compared it with 0). After that a time is stale when it is not newer, unless it is so far
    behind that it must have wrapped.
    """

    def __init__(self, *, first_accepted: bool = True) -> None:
        self.last = 0
        self.seen = not first_accepted

    def accept(self, time: int) -> bool:
        """True (and remembered) if ``time`` is fresh; False for a stale SYNC to drop."""
        if self.seen and time <= self.last and self.last - time < STALE_WINDOW:
            return False
        self.last, self.seen = time, True
        return True
