"""The sans-I/O link: its statistics over many packets with fixed seeds (bounds from the
binomial distribution, six standard deviations wide, so a fixed seed is far inside them),
its ordering, the exact timing of its bandwidth cap, its holding limits, and determinism."""

from __future__ import annotations

import math
import random

import pytest

from gdvariant.netsim import Conditions, Link

N = 100_000
SEEDS = (1, 2, 3)


def within(count: int, n: int, p: float) -> bool:
    """Whether ``count`` successes in ``n`` trials fit probability ``p`` (six sigma)."""
    sigma = math.sqrt(n * p * (1 - p))
    return abs(count - n * p) <= 6 * sigma


def play(link: Link, sends: list[tuple[float, bytes]]) -> list[tuple[float, bytes]]:
    """Send each (time, data), taking what is due as time goes on; every delivery with the
    time it was due."""
    out: list[tuple[float, bytes]] = []

    def until(now: float) -> None:
        while (due := link.next_time()) is not None and due <= now:
            out.extend((due, data) for data in link.receive(due))

    for now, data in sends:
        until(now)
        link.send(data, now)
    until(math.inf)
    return out


def run(link: Link, sizes: list[int], gap: float) -> list[tuple[float, bytes]]:
    """Numbered packets of ``sizes`` bytes, ``gap`` seconds apart, through ``link``."""
    return play(
        link, [(i * gap, i.to_bytes(4, "big") + bytes(max(0, n - 4))) for i, n in enumerate(sizes)]
    )


def numbers(deliveries: list[tuple[float, bytes]]) -> list[int]:
    return [int.from_bytes(data[:4], "big") for _, data in deliveries]


@pytest.mark.parametrize("seed", SEEDS)
def test_independent_loss_duplication_and_reordering_rates(seed: int) -> None:
    link = Link(Conditions(loss=0.05, duplicate=0.01, reorder=0.02), seed=seed)
    got = numbers(run(link, [8] * N, 0.001))
    stats = link.stats
    assert within(stats.lost, N, 0.05)
    assert within(stats.duplicated, N - stats.lost, 0.01)
    assert within(stats.reordered, N - stats.lost, 0.02)
    assert len(set(got)) == N - stats.lost and len(got) == len(set(got)) + stats.duplicated
    assert stats.delivered == len(got) and stats.held_packets == stats.held_bytes == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_bursty_loss_keeps_its_rate_and_its_mean_run(seed: int) -> None:
    link = Link(Conditions(loss=0.1, burst=4.0), seed=seed)
    got = set(numbers(run(link, [8] * N, 0.001)))
    lost = [i not in got for i in range(N)]
    runs = [len(r) for r in "".join("x" if x else "." for x in lost).split(".") if r]
    # A run ends with probability 1/4 at each packet: the run count is binomial enough.
    assert abs(sum(lost) - 0.1 * N) <= 0.02 * N
    assert 3.6 <= sum(runs) / len(runs) <= 4.4
    independent = Link(Conditions(loss=0.1), seed=seed)
    got = set(numbers(run(independent, [8] * N, 0.001)))
    lost = [i not in got for i in range(N)]
    runs = [len(r) for r in "".join("x" if x else "." for x in lost).split(".") if r]
    assert sum(runs) / len(runs) < 1.2  # 1 / (1 - 0.1) for independent losses


def test_the_same_seed_gives_the_same_deliveries_and_another_seed_others() -> None:
    conditions = Conditions(
        latency=0.05, jitter=0.02, loss=0.05, burst=2, duplicate=0.02, reorder=0.05, rate=50_000
    )
    sizes = random.Random(9).choices(range(20, 1200), k=2000)
    first = run(Link(conditions, seed="a"), sizes, 0.003)
    assert run(Link(conditions, seed="a"), sizes, 0.003) == first
    assert run(Link(conditions, seed="b"), sizes, 0.003) != first


def test_one_effect_changed_leaves_the_others_draws_alone() -> None:
    """More loss takes packets away; the packets that survive keep their delays."""
    plain = dict(run(Link(Conditions(latency=0.1, jitter=0.05), seed=5), [8] * 500, 1.0))
    lossy = run(Link(Conditions(latency=0.1, jitter=0.05, loss=0.3), seed=5), [8] * 500, 1.0)
    assert 0 < len(lossy) < 500
    assert {data: due for due, data in lossy}.items() <= {d: t for t, d in plain.items()}.items()


def test_jitter_spreads_delays_without_reordering() -> None:
    link = Link(Conditions(latency=0.1, jitter=0.05), seed=1)
    got = run(link, [8] * 10_000, 0.001)
    assert numbers(got) == list(range(10_000))  # in order: a FIFO, however jittered
    spaced = run(Link(Conditions(latency=0.1, jitter=0.05), seed=1), [8] * 10_000, 1.0)
    delays = [due - i for i, (due, _) in enumerate(spaced)]
    assert 0.05 <= min(delays) < 0.051 and 0.149 < max(delays) <= 0.15


def test_reordered_packets_arrive_after_the_next_ones() -> None:
    link = Link(Conditions(latency=0.01, reorder=0.1, reorder_delay=0.05), seed=4)
    got = numbers(run(link, [8] * 1000, 0.01))
    held = {i for i in range(999) if got.index(i) > got.index(i + 1)}
    assert sorted(got) == list(range(1000))
    assert 0 < len(held) <= link.stats.reordered
    assert within(link.stats.reordered, 1000, 0.1)


def test_the_nth_byte_arrives_as_the_rate_says() -> None:
    """100 bytes at 1000 B/s: packet k's last byte leaves (k + 1) * 0.1 s after the burst
    began, and arrives the latency later; after an idle gap the bottleneck starts afresh."""
    link = Link(Conditions(latency=0.25, rate=1000), seed=0)
    times = [due for due, _ in play(link, [(0.0, bytes(100))] * 10 + [(5.0, bytes(100))])]
    assert times == pytest.approx([(k + 1) * 0.1 + 0.25 for k in range(10)] + [5.35], abs=1e-12)
    stream = Link(Conditions(latency=0.5, rate=1000, segment=1), stream=True)
    arrivals = play(stream, [(0.0, bytes(range(200)))])
    assert [data for _, data in arrivals] == [bytes([n]) for n in range(200)]
    assert [due for due, _ in arrivals] == pytest.approx(
        [(n + 1) / 1000 + 0.5 for n in range(200)], abs=1e-12
    )


def test_a_slow_link_drops_what_it_cannot_hold() -> None:
    link = Link(Conditions(rate=1000, max_packets=10, max_bytes=10**6))
    for _ in range(25):
        link.send(bytes(100), 0.0)
    assert (link.stats.held_packets, link.stats.overflowed, link.full) == (10, 15, True)
    bytes_capped = Link(Conditions(rate=1000, max_bytes=1000))
    taken = [bytes_capped.send(bytes(300), 0.0) for _ in range(5)]
    assert taken == [True, True, True, False, False] and bytes_capped.stats.held_bytes == 900
    bytes_capped.receive(0.3)  # the first has arrived: room for one more
    assert bytes_capped.send(bytes(300), 0.3) and not bytes_capped.send(bytes(300), 0.3)


def test_a_stream_arrives_whole_and_in_order_with_losses_as_delay() -> None:
    conditions = Conditions(latency=0.02, jitter=0.01, loss=0.1, duplicate=0.5, reorder=0.5)
    link = Link(conditions, seed=3, stream=True)
    sent = random.Random(3).randbytes(200_000)
    arrivals = play(link, [(i / 1e6, sent[i : i + 5000]) for i in range(0, len(sent), 5000)])
    assert b"".join(data for _, data in arrivals) == sent
    assert link.stats.lost == link.stats.duplicated == link.stats.reordered == 0
    assert within(link.stats.retransmitted, link.stats.sent, 0.1)
    times = [due for due, _ in arrivals]
    assert times == sorted(times) and max(times) >= 0.2  # a retransmission's wait


def test_a_stream_is_never_refused_but_says_when_it_is_full() -> None:
    link = Link(Conditions(rate=1000, max_bytes=3000), stream=True)
    assert link.send(bytes(10_000), 0.0) and link.full and link.stats.held_bytes == 10_000


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"loss": 1.5}, "loss must be a probability"),
        ({"duplicate": -0.1}, "duplicate must be a probability"),
        ({"latency": -1.0}, "latency must be a finite number"),
        ({"jitter": math.inf}, "jitter must be a finite number"),
        ({"rate": 0}, "rate must be"),
        ({"max_packets": 0}, "max_packets must be at least 1"),
        ({"burst": 0.5, "loss": 0.1}, "burst is a mean run"),
        ({"burst": 1.0, "loss": 0.6}, "cannot come in bursts"),
    ],
)
def test_bad_conditions_are_refused(options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Conditions(**options)  # type: ignore[arg-type]


def test_time_may_not_go_backwards() -> None:
    link = Link()
    link.send(b"x", 2.0)
    with pytest.raises(ValueError, match="time went backwards"):
        link.receive(1.0)
    with pytest.raises(ValueError, match="time went backwards"):
        link.send(b"x", math.nan)
