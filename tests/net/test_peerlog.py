"""Log lines a client cannot flood (``gdvariant._net.peerlog``): the per-peer and total budgets,
the counts of what was held back, and clipping of the client's data."""

from __future__ import annotations

import asyncio
import logging

import pytest

from gdvariant._net.peerlog import MAX_CLIENT_TEXT, PeerLog, clip


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def test_each_peer_gets_a_few_lines_a_second_and_a_count_of_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    log = PeerLog(logging.getLogger("t.peerlog"), per_peer=3, clock=clock)
    with caplog.at_level(logging.WARNING, "t.peerlog"):
        for i in range(1000):
            log.warning(7, "bad packet %d from peer %d", i, 7)
            log.warning(9, "bad packet %d from peer %d", i, 9)
        assert messages(caplog) == [
            "bad packet 0 from peer 7",
            "bad packet 0 from peer 9",
            "bad packet 1 from peer 7",
            "bad packet 1 from peer 9",
            "bad packet 2 from peer 7",
            "bad packet 2 from peer 9",
        ]
        caplog.clear()
        clock.now += 1.0
        log.warning(9, "later")
        assert messages(caplog) == [
            "... and 997 more from peer 7 in the last second",
            "... and 997 more from peer 9 in the last second",
            "later",
        ]


def test_the_total_holds_for_many_peers_and_their_counts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    log = PeerLog(logging.getLogger("t.peerlog"), per_peer=3, per_second=10, clock=clock)
    with caplog.at_level(logging.WARNING, "t.peerlog"):
        for peer in range(5000):  # one line each, as a flood of new connections sends
            log.warning(("10.0.0.1", peer), "refused %d", peer)
        log.flush()
    lines = messages(caplog)
    assert lines[:10] == [f"refused {peer}" for peer in range(10)]
    # At most as many count lines again, the rest summed up.
    assert len(lines) == 10 + 10 + 1
    assert lines[10] == "... and 1 more from 10.0.0.1:10 in the last second"
    assert lines[-1] == "... and 4980 more from 4980 other peers in the last second"


def test_a_shared_log_counts_against_the_others_budgets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two layers logging about one peer, each to its own logger, give it one budget: the
    lines go to each one's logger, the count of the rest to the owner's."""
    clock = Clock()
    transport = PeerLog(logging.getLogger("t.peerlog.transport"), per_peer=3, clock=clock)
    scene = PeerLog(logging.getLogger("t.peerlog.scene"), clock=clock, share=transport)
    again = PeerLog(logging.getLogger("t.peerlog.scene"), clock=clock, share=scene)
    with caplog.at_level(logging.WARNING, "t.peerlog"):
        for i in range(100):
            transport.warning(7, "malformed %d", i)
            scene.error(7, "refused %d", i)
            again.warning(7, "again %d", i)
        clock.now += 1.0
        scene.flush()
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("t.peerlog.transport", "malformed 0"),
        ("t.peerlog.scene", "refused 0"),
        ("t.peerlog.scene", "again 0"),
        ("t.peerlog.transport", "... and 297 more from peer 7 in the last second"),
    ]


def test_a_closing_line_passes_a_spent_peer_budget(caplog: pytest.LogCaptureFixture) -> None:
    log = PeerLog(logging.getLogger("t.peerlog"), per_peer=1, clock=Clock())
    with caplog.at_level(logging.WARNING, "t.peerlog"):
        log.warning(3, "one")
        log.warning(3, "two")
        log.log(logging.WARNING, 3, "closing peer 3", final=True)
    assert messages(caplog) == ["one", "closing peer 3"]


@pytest.mark.slow
def test_a_timer_reports_the_counts_when_the_second_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        log = PeerLog(logging.getLogger("t.peerlog"), per_peer=1)
        for _ in range(50):
            log.warning(4, "flood")
        async with asyncio.timeout(10):
            while "... and 49 more from peer 4 in the last second" not in messages(caplog):
                await asyncio.sleep(0.02)

    with caplog.at_level(logging.WARNING, "t.peerlog"):
        asyncio.run(main())
    assert messages(caplog).count("flood") == 1


def test_disabled_levels_cost_nothing(caplog: pytest.LogCaptureFixture) -> None:
    log = PeerLog(logging.getLogger("t.peerlog.quiet"), clock=Clock())
    with caplog.at_level(logging.ERROR, "t.peerlog.quiet"):
        for _ in range(10):
            log.warning(1, "not shown")
        log.flush()
    assert messages(caplog) == []


def test_budgets_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        PeerLog(logging.getLogger("t"), per_peer=0)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Main/Players", "Main/Players"),
        ("line\nbreak\x1b[31m", "line\\nbreak\\x1b[31m"),
        (b"\x00\x01ab", "\\x00\\x01ab"),
        (memoryview(b"xyz"), "xyz"),
        (ValueError("it's bad"), "it's bad"),
        ("x" * 150, "x" * 100 + "... (150 characters)"),
        (b"y" * 4096, "y" * 100 + "... (4,096 bytes)"),
        ("\x00" * 101, "\\x00" * 25 + "... (101 characters)"),
    ],
)
def test_clip_escapes_and_cuts(value: object, expected: str) -> None:
    assert clip(value) == expected
    assert len(clip(value)) <= MAX_CLIENT_TEXT + len("... (4,096 characters)")


def test_clip_reads_only_the_head_of_a_huge_value() -> None:
    huge = "é" * 10_000_000
    assert clip(huge, 5) == "ééééé... (10,000,000 characters)"
