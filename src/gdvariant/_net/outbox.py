"""What a peer has not taken yet, held to a limit, so a client that never reads cannot grow
a server.

Every server keeps, for each peer, the packets it queued and the bytes its transport buffers
(asyncio's write buffer, websockets' frames and pongs, ENet's unacknowledged packets) until
the peer takes them. A client that sends requests and never reads the replies would grow that
without end. :class:`Backlog` is the rule, without I/O; :class:`Outbox` runs it for one peer
in the event loop:

* past half of ``max_unsent`` bytes the peer is *full*: we stop reading from it, so its own
  requests (pings, echo requests, RPCs) stop adding replies;
* back at a quarter of it, reading resumes;
* a peer still full after ``stall_timeout`` seconds is dropped, and so is one that something
  else (broadcasts, other peers' relays) would take past ``max_unsent``: the most that ever
  waits for one peer is ``max_unsent``, or one larger packet alone.
"""

from __future__ import annotations

import asyncio
import enum
from collections import deque
from collections.abc import Callable

__all__ = ["DEFAULT_MAX_UNSENT", "DEFAULT_STALL_TIMEOUT", "Backlog", "Change", "Outbox"]

#: The default ``max_unsent``: 4 MiB, the most Linux lets one TCP socket buffer for sending
#: (``net.ipv4.tcp_wmem``), and 64 times what Godot's own WebSocket server holds per peer
#: (``WebSocketPeer.outbound_buffer_size``, 65,535 bytes, past which Godot refuses packets).
DEFAULT_MAX_UNSENT = 4 * 1024 * 1024
#: The default ``stall_timeout``: 10 s. Godot's ENet drops a peer whose acknowledgements stop
#: for 5 to 30 s (ENet's timeout bounds); a game client that takes nothing for 10 s is gone.
DEFAULT_STALL_TIMEOUT = 10.0
#: Seconds between two looks at a full peer's transport (it may drain without telling us).
_POLL = 0.05


class Change(enum.Enum):
    """What one look at a peer's unsent bytes asks the transport to do."""

    NONE = "none"
    PAUSE = "pause"  # stop reading from the peer
    RESUME = "resume"  # read from it again
    STALLED = "stalled"  # drop it


class Backlog:
    """The rule for one peer's unsent bytes, fed the count and the time (sans I/O).

    ``limit`` is ``max_unsent``; ``peak`` is the most it has seen waiting.
    """

    __slots__ = ("full", "half", "limit", "peak", "since", "timeout")

    def __init__(
        self, limit: int = DEFAULT_MAX_UNSENT, timeout: float = DEFAULT_STALL_TIMEOUT
    ) -> None:
        if limit < 1:
            raise ValueError(f"max_unsent must be at least 1 byte, not {limit}")
        if not timeout > 0:
            raise ValueError(f"stall_timeout must be positive, not {timeout}")
        self.limit = limit
        self.half = limit // 2  # past this many unsent bytes the peer is full
        self.timeout = timeout
        self.full = False
        self.since = 0.0
        self.peak = 0

    def update(self, unsent: int, now: float) -> Change:
        """``unsent`` bytes wait at time ``now`` (seconds): what to do about it."""
        self.peak = max(self.peak, unsent)
        if not self.full:
            if unsent > self.half:
                self.full, self.since = True, now
                return Change.PAUSE
            return Change.NONE
        if unsent <= self.limit // 4:
            self.full = False
            return Change.RESUME
        if now - self.since >= self.timeout:
            return Change.STALLED
        return Change.NONE

    def admits(self, unsent: int, size: int) -> bool:
        """Whether a ``size``-byte packet may join ``unsent`` waiting bytes: within the
        limit, or alone."""
        return unsent == 0 or unsent + size <= self.limit

    def stalled(self, unsent: int) -> str:
        """Why a STALLED peer is dropped, for the log."""
        return (
            f"{unsent:,} bytes unsent for {self.timeout:g} s "
            f"(over half of max_unsent {self.limit:,}; it does not read)"
        )

    def refused(self, unsent: int, size: int) -> str:
        """Why a peer a packet would take past the limit is dropped, for the log."""
        return f"{unsent + size:,} bytes would wait for it, over max_unsent {self.limit:,}"


def _none() -> int:
    return 0


class Outbox:
    """One peer's packets and unsent bytes in the running event loop, under a :class:`Backlog`.

    A transport whose writer task sends packets in order queues them with :meth:`put` and
    takes them with :meth:`get`; one that hands packets over at once and hears when they are
    delivered (ENet) counts them with :meth:`hold` and :meth:`release`. ``buffered()`` is
    what the transport holds besides (asyncio's write buffer). ``pause()`` and ``resume()``
    stop and restart reading from the peer; ``drop(reason)`` closes it (and logs the reason).
    Call :meth:`check` whenever the transport may have drained; while full, the outbox also
    looks every 50 ms by itself.
    """

    # slots: a server touches every peer's outbox for every packet; keep each one compact
    __slots__ = (
        "_buffered",
        "_drop",
        "_look_soon",
        "_loop",
        "_packets",
        "_pause",
        "_poll",
        "_resume",
        "_room",
        "_wake",
        "backlog",
        "closed",
        "finished",
        "held",
        "held_packets",
        "queued",
    )

    def __init__(
        self,
        limit: int,
        timeout: float,
        *,
        pause: Callable[[], None],
        resume: Callable[[], None],
        drop: Callable[[str], None],
        buffered: Callable[[], int] = _none,
    ) -> None:
        self.backlog = Backlog(limit, timeout)
        self.queued = 0
        self.held = 0
        self.held_packets = 0
        self.finished = False
        self.closed = False
        self._packets: deque[bytes] = deque()
        self._buffered = buffered
        self._pause, self._resume, self._drop = pause, resume, drop
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._poll: asyncio.TimerHandle | None = None
        self._look_soon = False

    @property
    def unsent(self) -> int:
        """Bytes queued here, held by the transport and buffered by it."""
        return self.queued + self.held + self._buffered()

    @property
    def messages(self) -> int:
        """Packets queued here or held by the transport (not those it buffers besides)."""
        return len(self._packets) + self.held_packets

    @property
    def full(self) -> bool:
        """Whether reading from the peer is paused."""
        return self.backlog.full

    @property
    def empty(self) -> bool:
        """Whether no packet waits in the queue: the writer has handed every packet it took
        to the transport, so bytes written to the transport now come after all of them."""
        return not self._packets

    def admit(self, size: int) -> bool:
        """Whether a ``size``-byte packet the transport takes at once, past the queue, keeps
        the peer within the limit; False (and the peer dropped) when not, or once closed."""
        return not self.closed and self._admits(size)

    def write_through(self, data: bytes, frame: bytes, write: Callable[[bytes], object]) -> None:
        """Give ``frame`` (``data`` as the transport frames it) to the transport's ``write``
        at once, past the queue (only while :attr:`empty`): admitted and looked at as
        :meth:`admit` and :meth:`check` do. When nothing waits anywhere, the common case, the
        look is only whether the transport kept some of the frame."""
        if not (self.queued or self.held or self.closed or self.backlog.full or self._buffered()):
            write(frame)
            if self._buffered():
                self.check()
        elif self.admit(len(data)):
            write(frame)
            self.check()

    def put(self, data: bytes) -> bool:
        """Queue a packet for the writer; False once finished or closed, or when it would take
        the peer past the limit (then the peer is dropped)."""
        if self.closed or self.finished or not self._admits(len(data)):
            return False
        self._packets.append(data)
        self.queued += len(data)
        self._wake.set()
        self.check()
        return True

    def hold(self, size: int) -> bool:
        """The transport took ``size`` bytes to deliver; False (and the peer dropped) when
        they would take it past the limit: then do not send them."""
        backlog = self.backlog
        unsent = self.queued + self.held + size + self._buffered()
        if unsent <= backlog.half and not (self.closed or backlog.full):
            # within half the limit and not full: admitted, and a look would change nothing
            self.held += size
            self.held_packets += 1
            if unsent > backlog.peak:
                backlog.peak = unsent
            return True
        if self.closed or not self._admits(size):
            return False
        self.held += size
        self.held_packets += 1
        self.check()
        return True

    def release(self, size: int) -> None:
        """The transport delivered (or discarded) ``size`` bytes it held. Safe to call from
        inside the transport (ENet frees packets inside ``service``): the look that may
        resume a full peer waits for the next turn of the loop (releasing only lowers what
        waits, so a peer that is not full needs no look)."""
        self.held -= size
        self.held_packets -= 1
        if not self.backlog.full or self.closed or self._look_soon or self._loop.is_closed():
            return
        self._look_soon = True
        self._loop.call_soon(self._look_now)

    async def get(self) -> bytes | None:
        """The next queued packet, waiting for one; None once :meth:`finish` was called and
        the queue is empty, or once closed."""
        while not self._packets and not (self.finished or self.closed):
            self._wake.clear()
            await self._wake.wait()
        if self.closed or not self._packets:
            return None
        data = self._packets.popleft()
        self.queued -= len(data)
        return data

    def finish(self) -> None:
        """No more packets: :meth:`get` returns None once the queue is sent."""
        self.finished = True
        self._wake.set()

    async def room(self) -> None:
        """Wait while the peer is full (returns at once when closed)."""
        await self._room.wait()

    def check(self) -> None:
        """Look at the unsent bytes now: pause, resume or drop the peer."""
        if self.closed:
            return
        unsent = self.unsent
        change = self.backlog.update(unsent, self._loop.time())
        if change is Change.PAUSE:
            self._room.clear()
            self._pause()
            self._poll = self._loop.call_later(_POLL, self._look)
        elif change is Change.RESUME:
            self._stop_polling()
            self._room.set()
            self._resume()
        elif change is Change.STALLED:
            self._fail(self.backlog.stalled(unsent))

    def close(self) -> None:
        """The peer is gone: forget its queue and let every waiter go."""
        self.closed = True
        self._packets.clear()
        self.queued = 0
        self._stop_polling()
        self._room.set()
        self._wake.set()

    def _admits(self, size: int) -> bool:
        unsent = self.unsent
        if self.backlog.admits(unsent, size):
            return True
        self._fail(self.backlog.refused(unsent, size))
        return False

    def _fail(self, reason: str) -> None:
        self.close()
        self._drop(reason)

    def _look_now(self) -> None:
        self._look_soon = False
        self.check()

    def _look(self) -> None:
        self._poll = None
        self.check()
        if self.full and not self.closed and self._poll is None:
            self._poll = self._loop.call_later(_POLL, self._look)

    def _stop_polling(self) -> None:
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None
