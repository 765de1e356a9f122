"""What the proxies share: the pump hands a link's packets on at their time on the loop's
clock, and a proxy's counts keep the flows it has retired."""

from __future__ import annotations

import asyncio

import pytest

from gdvariant.netsim import Conditions, Link, LinkStats, TcpProxy, UdpProxy
from gdvariant.netsim._proxy import _Proxy, _Pump


def test_the_pump_delivers_each_packet_no_sooner_than_due() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        got: list[tuple[float, bytes]] = []
        done = asyncio.Event()
        pump = _Pump(
            Link(Conditions(latency=0.03, rate=10_000)),
            lambda data: got.append((loop.time(), data)),
            after=lambda: done.set() if len(got) == 3 else None,
        )
        start = loop.time()
        for data in (b"a" * 100, b"b" * 100, b"c" * 100):
            pump.send(data)
        await asyncio.wait_for(done.wait(), 30)
        assert [data[:1] for _, data in got] == [b"a", b"b", b"c"]
        resolution = loop._clock_resolution  # type: ignore[attr-defined]
        for k, (when, _) in enumerate(got):
            assert when >= start + 0.03 + (k + 1) * 0.01 - resolution
        pump.close()

    asyncio.run(main())


def test_a_timer_run_early_does_not_turn_the_links_clock_back() -> None:
    """asyncio may run a timer up to its clock's resolution before it is due; the pump
    delivers its packets at the due time all the same, and a packet sent right after (at the
    loop's earlier time) must not meet a link whose time went backwards."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        got: list[bytes] = []
        pump = _Pump(Link(Conditions(latency=0.5)), got.append)
        pump.send(b"early")
        due = pump.link.next_time()
        assert due is not None and due > loop.time()
        pump._fire(due)  # as if the loop ran it now, a little early
        assert got == [b"early"]
        assert pump.send(b"next")  # at the loop's time, still before ``due``
        pump.close()

    asyncio.run(main())


def test_a_proxy_counts_its_retired_flows_too() -> None:
    async def main() -> None:
        proxy = _Proxy(("127.0.0.1", 1), None, seed=0, max_flows=4)
        up, down = proxy._links(stream=False)
        pumps = [_Pump(link, lambda data: None) for link in (up, down)]
        proxy._pumps += pumps
        pumps[0].send(b"xyz")
        assert proxy.stats() == LinkStats(sent=1, sent_bytes=3, held_packets=1, held_bytes=3)
        proxy._retire(*pumps)
        assert proxy.stats().sent == 1 and proxy._pumps == []
        assert proxy._links(stream=True)[0].stream  # the next flow, seeded apart

    asyncio.run(main())


@pytest.mark.parametrize("kind", [UdpProxy, TcpProxy])
def test_a_proxy_listens_once(kind: type[UdpProxy] | type[TcpProxy]) -> None:
    async def main() -> None:
        async with kind(("127.0.0.1", 1)) as proxy:
            await proxy.listen("127.0.0.1", 0)
            with pytest.raises(RuntimeError, match="already listening"):
                await proxy.listen("127.0.0.1", 0)

    asyncio.run(main())


def test_max_flows_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_flows must be at least 1"):
        _Proxy(("127.0.0.1", 1), None, seed=0, max_flows=0)
