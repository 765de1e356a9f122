"""What waits for one peer (``gdvariant._net.outbox``): the rule without I/O, then the outbox
in an event loop with a transport stand-in."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from typing import Any

import pytest

from gdvariant._net.outbox import Backlog, Change, Outbox


def test_full_past_half_back_at_a_quarter_stalled_after_the_timeout() -> None:
    rule = Backlog(1000, 5.0)
    assert rule.update(500, 0.0) is Change.NONE  # half is not past half
    assert rule.update(501, 1.0) is Change.PAUSE
    assert rule.full and rule.since == 1.0
    assert rule.update(900, 2.0) is Change.NONE
    assert rule.update(251, 3.0) is Change.NONE  # not yet down to a quarter
    assert rule.update(250, 4.0) is Change.RESUME
    assert not rule.full
    assert rule.update(600, 10.0) is Change.PAUSE
    assert rule.update(600, 14.9) is Change.NONE
    assert rule.update(600, 15.0) is Change.STALLED
    assert rule.peak == 900


def test_a_packet_is_admitted_within_the_limit_or_alone() -> None:
    rule = Backlog(1000, 5.0)
    assert rule.admits(0, 10_000)  # alone: whatever its size
    assert rule.admits(400, 600)
    assert not rule.admits(401, 600)
    assert "1,001 bytes would wait" in rule.refused(401, 600)
    assert "600 bytes unsent for 5 s" in rule.stalled(600)


@pytest.mark.parametrize(("limit", "timeout"), [(0, 1.0), (100, 0.0), (100, -1.0)])
def test_bad_limits_are_refused(limit: int, timeout: float) -> None:
    with pytest.raises(ValueError, match=r"max_unsent|stall_timeout"):
        Backlog(limit, timeout)


class Transport:
    """What an outbox drives: reading paused or not, a write buffer, a drop."""

    def __init__(self) -> None:
        self.buffer = 0
        self.reading = True
        self.dropped: list[str] = []

    def pause(self) -> None:
        self.reading = False

    def resume(self) -> None:
        self.reading = True

    def outbox(self, limit: int = 1000, timeout: float = 0.3) -> Outbox:
        return Outbox(
            limit,
            timeout,
            pause=self.pause,
            resume=self.resume,
            drop=self.dropped.append,
            buffered=lambda: self.buffer,
        )


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))


def test_queued_packets_and_the_transport_buffer_count_together() -> None:
    async def main() -> None:
        transport = Transport()
        outbox = transport.outbox()
        assert outbox.put(b"x" * 300)
        transport.buffer = 201
        outbox.check()
        assert outbox.unsent == 501 and outbox.full and not transport.reading
        assert await outbox.get() == b"x" * 300
        transport.buffer = 0  # sent, and the peer took it all
        outbox.check()
        assert not outbox.full and transport.reading
        outbox.finish()
        assert await outbox.get() is None
        assert not outbox.put(b"late")

    run(main())


def test_a_packet_past_the_limit_drops_the_peer_at_once() -> None:
    async def main() -> None:
        transport = Transport()
        outbox = transport.outbox()
        assert outbox.put(b"a" * 2000)  # alone: taken
        assert not outbox.put(b"b")
        assert outbox.closed and transport.dropped == [
            "2,001 bytes would wait for it, over max_unsent 1,000"
        ]
        assert await outbox.get() is None
        await outbox.room()  # never blocks once closed

    run(main())


def test_a_full_peer_that_drains_by_itself_resumes_and_one_that_stays_is_dropped() -> None:
    async def main() -> None:
        transport = Transport()
        outbox = transport.outbox()
        transport.buffer = 900  # e.g. pongs written by the transport itself
        outbox.check()
        assert outbox.full
        waiter = asyncio.create_task(outbox.room())
        transport.buffer = 100  # the peer read; nobody tells the outbox
        async with asyncio.timeout(10):
            await waiter
        assert transport.reading and transport.dropped == []
        transport.buffer = 900
        outbox.check()
        async with asyncio.timeout(10):
            while not transport.dropped:
                await asyncio.sleep(0.01)
        assert transport.dropped[0].startswith("900 bytes unsent for 0.3 s")
        assert outbox.backlog.peak == 900

    run(main())


def test_write_through_writes_and_looks_only_when_the_transport_keeps_bytes() -> None:
    """A frame past the queue: written at once; the peer turns full only when the
    transport kept part of it, and a frame that would pass the limit drops the peer."""

    async def main() -> None:
        transport = Transport()
        outbox = transport.outbox()
        written: list[bytes] = []

        def write(frame: bytes) -> None:
            written.append(frame)
            transport.buffer += keep

        keep = 0
        outbox.write_through(b"a" * 10, b"F" + b"a" * 10, write)
        assert written == [b"F" + b"a" * 10] and not outbox.full and transport.reading
        keep = 600  # the socket took only part of the next one
        outbox.write_through(b"b" * 700, b"F" + b"b" * 700, write)
        assert outbox.full and not transport.reading and outbox.backlog.peak == 600
        keep = 0
        outbox.write_through(b"c" * 500, b"F" + b"c" * 500, write)  # 600 + 500 > 1,000
        assert len(written) == 2 and outbox.closed
        assert transport.dropped == ["1,100 bytes would wait for it, over max_unsent 1,000"]

    run(main())


def test_held_bytes_count_until_released_and_release_looks_later() -> None:
    async def main() -> None:
        transport = Transport()
        outbox = transport.outbox()
        assert outbox.hold(600)
        assert outbox.full and outbox.held == 600
        outbox.release(600)  # as ENet's free callback calls it, inside the transport
        assert outbox.full  # the look waits for the loop
        await asyncio.sleep(0)
        assert not outbox.full and transport.reading
        outbox.close()
        outbox.release(10)  # a late free after the peer left is only counted
        assert outbox.held == -10

    run(main())


@pytest.mark.parametrize("seed", range(8))
def test_held_and_released_bytes_follow_the_rule_at_every_step(seed: int) -> None:
    """Random holds and releases (ENet's way), each followed by a turn of the loop: the peer
    is full, read from and at its peak exactly when the rule fed every count says so (holds
    under half the limit skip the look, releases of a peer that is not full schedule none)."""

    async def main() -> None:
        rng = random.Random(seed)
        transport = Transport()
        outbox = transport.outbox(limit=1000, timeout=30.0)
        rule = Backlog(1000, 30.0)
        held: list[int] = []
        for _ in range(400):
            if held and rng.random() < 0.5:
                size = held.pop(rng.randrange(len(held)))
                outbox.release(size)
                await asyncio.sleep(0)
                if rule.full:  # the rule is looked at again only to resume
                    rule.update(sum(held), 0.0)
            else:
                size = rng.choice((1, 40, 90, 200))
                if not rule.admits(sum(held), size):
                    continue
                assert outbox.hold(size)
                held.append(size)
                rule.update(sum(held), 0.0)
            assert outbox.held == sum(held) and outbox.held_packets == len(held)
            assert (outbox.full, transport.reading) == (rule.full, not rule.full)
            assert outbox.backlog.peak == rule.peak
        assert not transport.dropped

    run(main())
