"""The UDP proxy on loopback: datagrams both ways through each client's own seeded links,
what a client may cost, and our ENet server and client talking through it with loss (ENet's
reliable channel recovers every packet)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from gdvariant.multiplayer.enet import MultiplayerClient, MultiplayerServer
from gdvariant.netsim import Conditions, UdpProxy


class Echo(asyncio.DatagramProtocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: Any = transport

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.transport.sendto(data, addr)


class Inbox(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.got: list[bytes] = []

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.got.append(data)


async def until(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), seconds)


async def echo_server() -> tuple[asyncio.DatagramTransport, int]:
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(Echo, local_addr=("127.0.0.1", 0))
    return transport, int(transport.get_extra_info("sockname")[1])


async def client_of(port: int) -> tuple[asyncio.DatagramTransport, Inbox]:
    loop = asyncio.get_running_loop()
    transport, inbox = await loop.create_datagram_endpoint(Inbox, remote_addr=("127.0.0.1", port))
    return transport, inbox


def offered(proxy: UdpProxy, count: int) -> bool:
    return proxy.stats().sent >= count


def met(proxy: UdpProxy, clients: int) -> bool:
    """Whether the proxy has served or turned away ``clients`` clients."""
    return proxy.flows + proxy.refused >= clients


async def send_paced(client: asyncio.DatagramTransport, sent: list[bytes], proxy: UdpProxy) -> None:
    """Send, waiting every 20 datagrams for the proxy to have read them: a burst could
    overflow the kernel's socket buffer, a loss that is no part of the simulation."""
    first = proxy.stats().sent
    for i, data in enumerate(sent):
        client.sendto(data)
        if i % 20 == 19:
            await until(partial(offered, proxy, first + i))


def test_datagrams_go_both_ways_in_order_when_nothing_is_lost() -> None:
    async def main() -> None:
        server, port = await echo_server()
        async with UdpProxy(("127.0.0.1", port), Conditions(latency=0.005, jitter=0.002)) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            client, inbox = await client_of(proxy_port)
            sent = [b"%d" % i for i in range(200)]
            await send_paced(client, sent, proxy)
            await until(lambda: len(inbox.got) == len(sent))
            assert inbox.got == sent
            assert (proxy.flows, proxy.stats().delivered) == (1, 400)
            client.close()
        server.close()

    asyncio.run(main())


def test_what_is_lost_is_counted_and_the_rest_arrives() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        sink, inbox = await loop.create_datagram_endpoint(Inbox, local_addr=("127.0.0.1", 0))
        port = sink.get_extra_info("sockname")[1]
        conditions = Conditions(loss=0.2, duplicate=0.1)
        async with UdpProxy(("127.0.0.1", port), conditions, seed=7) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            client, _ = await client_of(proxy_port)
            sent = [b"%d" % i for i in range(500)]
            await send_paced(client, sent, proxy)
            stats = proxy.stats
            await until(lambda: stats().sent == 500 and stats().delivered == len(inbox.got))
            s = stats()
            assert 50 < s.lost < 150 and 20 < s.duplicated < 80
            assert len(inbox.got) == 500 - s.lost + s.duplicated
            assert set(inbox.got) <= set(sent) and len(set(inbox.got)) == 500 - s.lost
            client.close()
        sink.close()

    asyncio.run(main())


def test_each_client_gets_its_own_flow_and_the_number_of_flows_is_capped() -> None:
    async def main() -> None:
        server, port = await echo_server()
        async with UdpProxy(("127.0.0.1", port), max_flows=2) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            clients = [await client_of(proxy_port) for _ in range(3)]
            for i, (client, _) in enumerate(clients):
                client.sendto(b"client %d" % i)
                await until(partial(met, proxy, i + 1))
            await until(lambda: all(inbox.got for _, inbox in clients[:2]))
            assert [inbox.got for _, inbox in clients] == [[b"client 0"], [b"client 1"], []]
            assert (proxy.flows, proxy.refused) == (2, 1)
            for client, _ in clients:
                client.close()
        server.close()

    asyncio.run(main())


def test_an_idle_flow_is_forgotten_and_a_new_one_made_when_it_comes_back() -> None:
    async def main() -> None:
        server, port = await echo_server()
        async with UdpProxy(("127.0.0.1", port), idle_timeout=0.5) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            client, inbox = await client_of(proxy_port)
            client.sendto(b"first")
            await until(lambda: inbox.got == [b"first"])
            await until(lambda: proxy.flows == 0)
            client.sendto(b"again")
            await until(lambda: inbox.got == [b"first", b"again"])
            assert proxy.stats().delivered == 4  # the forgotten flow's counts are kept
            client.close()
        server.close()

    asyncio.run(main())


def test_a_flow_holds_no_more_than_its_link_may() -> None:
    async def main() -> None:
        server, port = await echo_server()
        conditions = Conditions(rate=1000, max_packets=5)
        async with UdpProxy(("127.0.0.1", port), conditions) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            client, _ = await client_of(proxy_port)
            await send_paced(client, [bytes(100)] * 50, proxy)
            await until(lambda: proxy.stats().sent == 50)
            stats = proxy.stats()
            assert (stats.held_packets, stats.overflowed) == (5, 45)
            client.close()
        server.close()

    asyncio.run(main())


def test_a_target_that_is_not_there_is_quietly_unreachable(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        nobody, port = await echo_server()
        nobody.close()  # its port now answers with ICMP "port unreachable"
        async with UdpProxy(("127.0.0.1", port)) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            client, inbox = await client_of(proxy_port)
            await send_paced(client, [b"anyone?"] * 5, proxy)
            await until(lambda: proxy.stats().delivered == 5)
            await asyncio.sleep(0.05)  # time for the unreachable errors to come back
            assert inbox.got == [] and proxy.flows == 1
            client.close()

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        asyncio.run(main())
    assert [r.getMessage() for r in caplog.records] == []


def test_bad_proxy_options_are_refused() -> None:
    with pytest.raises(ValueError, match="max_flows"):
        UdpProxy(("127.0.0.1", 1), max_flows=0)
    with pytest.raises(ValueError, match="idle_timeout"):
        UdpProxy(("127.0.0.1", 1), idle_timeout=0)


def test_our_enet_client_and_server_through_a_lossy_proxy() -> None:
    """5% loss and 20 ms each way between our ENet server and client: every reliable RAW
    packet arrives, in order, both ways; the proxy did lose packets."""
    got_by_server: list[bytes] = []
    got_by_client: list[bytes] = []
    conditions = Conditions(latency=0.02, jitter=0.005, loss=0.05)

    async def main() -> None:
        server = MultiplayerServer(on_raw=lambda peer, data: got_by_server.append(data))
        async with server:
            port = await server.listen("127.0.0.1", 0)
            async with UdpProxy(("127.0.0.1", port), conditions, seed=25) as proxy:
                _, proxy_port = await proxy.listen("127.0.0.1", 0)
                client = MultiplayerClient(on_raw=lambda peer, data: got_by_client.append(data))
                await client.connect("127.0.0.1", proxy_port, timeout=30)
                await until(lambda: len(server.peers) == 1)
                peer = next(iter(server.peers))
                for i in range(100):
                    server.send_raw(peer, b"down %d" % i)
                    client.send_raw(b"up %d" % i)
                    await asyncio.sleep(0.005)
                await until(lambda: len(got_by_server) == len(got_by_client) == 100, 60)
                assert proxy.stats().lost > 0
                await client.close()

    asyncio.run(main())
    assert got_by_client == [b"down %d" % i for i in range(100)]
    assert got_by_server == [b"up %d" % i for i in range(100)]
