"""What both ends of every transport share (``gdvariant.multiplayer._endpoint``), on the
endpoint's own code over lists (``MemoryServer``); each transport's tests cover the rest."""

from __future__ import annotations

import asyncio
import logging

import pytest

from gdvariant.multiplayer._endpoint import RAW_OVERHEAD, RAW_QUEUE_SENDERS
from gdvariant.multiplayer.wire import Command
from tests.support.multiplayer_fake import MemoryServer

RAW = bytes([Command.RAW])


def test_raw_nobody_reads_is_held_to_max_raw_queued_per_peer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A peer flooding RAW at a game that neither reads ``receive_raw`` nor set ``on_raw``
    fills only its own share of the queue; the rest is dropped with a few log lines, and
    another peer's RAW still gets in."""

    async def main() -> None:
        server = MemoryServer(max_raw_queued=10_000)
        server.join(7)
        server.join(8)
        with caplog.at_level(logging.WARNING, logger="tests.memory_server"):
            for _ in range(5000):
                server.receive(7, RAW + bytes(100))
        cost = 100 + RAW_OVERHEAD
        assert server._raw.qsize() == 10_000 // cost
        assert 1 <= len(caplog.records) <= 30
        assert "read them, or set on_raw" in caplog.records[0].getMessage()
        server.receive(8, RAW + b"hi")
        assert server._raw.qsize() == 10_000 // cost + 1
        for _ in range(10_000 // cost):
            assert await server.receive_raw() == (7, bytes(100))
        assert await server.receive_raw() == (8, b"hi")
        server.receive(7, RAW + b"again")  # read: room again
        assert await server.receive_raw() == (7, b"again")

    asyncio.run(main())


def test_many_peers_together_are_held_too() -> None:
    async def main() -> None:
        server = MemoryServer(max_raw_queued=1_000)
        for peer in range(2, 100):
            server.join(peer)
            for _ in range(50):
                server.receive(peer, RAW + bytes(10))
        assert server._raw_total <= 1_000 * RAW_QUEUE_SENDERS
        assert server._raw.qsize() < 98 * 50

    asyncio.run(main())


def test_one_payload_over_the_limit_is_taken_alone() -> None:
    async def main() -> None:
        server = MemoryServer(max_raw_queued=100)
        server.join(3)
        server.receive(3, RAW + bytes(500))
        server.receive(3, RAW + b"x")
        assert await server.receive_raw() == (3, bytes(500))
        assert server._raw.qsize() == 0

    asyncio.run(main())


def test_a_bad_max_raw_queued_is_refused() -> None:
    with pytest.raises(ValueError, match="max_raw_queued"):
        MemoryServer(max_raw_queued=0)
