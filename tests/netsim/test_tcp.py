"""The TCP proxy on loopback: a stream through lossy, slow links arrives whole, in order and
at the rate; a sender is held back by a full link rather than buffered without bound; ends
of stream pass through; the number of connections is capped."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Callable

from gdvariant.netsim import Conditions, TcpProxy


async def until(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), seconds)


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65536):
        writer.write(data)
        await writer.drain()
    writer.write_eof()
    await writer.drain()
    writer.close()


def test_a_stream_arrives_whole_and_in_order_through_lossy_slow_links() -> None:
    sent = random.Random(1).randbytes(300_000)

    async def main() -> None:
        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        conditions = Conditions(latency=0.005, jitter=0.003, loss=0.05, rate=2_000_000)
        async with TcpProxy(("127.0.0.1", port), conditions, seed=2) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
            writer.write(sent)
            writer.write_eof()  # passed on once every byte before it has arrived
            assert await reader.read() == sent
            writer.close()
            await until(lambda: proxy.flows == 0)
            stats = proxy.stats()
            assert stats.sent_bytes == stats.delivered_bytes == 2 * len(sent)
            assert stats.retransmitted > 0 and stats.lost == 0
        server.close()
        await server.wait_closed()

    asyncio.run(main())


def test_a_full_link_stops_reading_the_sender() -> None:
    """1 KB a second into a link that holds 4 KB: of the sender's megabyte the proxy takes
    (and holds) at most the link's 4 KB plus one read; the rest waits in the sockets."""

    async def main() -> None:
        got = bytearray()

        async def slow_sink(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            while data := await reader.read(1024):
                got.extend(data)
            writer.close()  # Python 3.12's wait_closed() waits for every connection to close

        server = await asyncio.start_server(slow_sink, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        conditions = Conditions(rate=1000, max_bytes=4096, segment=100)
        async with TcpProxy(("127.0.0.1", port), conditions) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            _, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
            writer.write(bytes(1_000_000))
            await until(lambda: proxy.stats().held_bytes >= 4096)
            for _ in range(20):
                await asyncio.sleep(0.01)
                stats = proxy.stats()
                assert stats.held_bytes <= 4096 + 256 * 1024  # asyncio reads 256 KiB at most
                assert stats.sent_bytes <= stats.delivered_bytes + 4096 + 256 * 1024
            await until(lambda: len(got) >= 100)  # and it does trickle out
            writer.transport.abort()
        server.close()
        await server.wait_closed()

    asyncio.run(main())


def test_connections_past_the_cap_are_closed_and_a_missing_target_ends_the_client() -> None:
    async def main() -> None:
        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with TcpProxy(("127.0.0.1", port), max_flows=1) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            first = await asyncio.open_connection("127.0.0.1", proxy_port)
            first[1].write(b"hello")
            assert await first[0].readexactly(5) == b"hello"
            second = await asyncio.open_connection("127.0.0.1", proxy_port)
            assert await second[0].read() == b""
            assert (proxy.flows, proxy.refused) == (1, 1)
            for _, writer in (first, second):
                writer.close()
        server.close()
        await server.wait_closed()
        async with TcpProxy(("127.0.0.1", port)) as proxy:  # nobody listens there now
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy_port)
            assert await reader.read() == b""
            writer.close()
            await until(lambda: proxy.flows == 0)

    asyncio.run(main())


def test_an_end_of_stream_before_the_target_answers_still_reaches_it() -> None:
    """The client sends and half-closes at once; the target, connected a moment later, gets
    the bytes and then the end of stream, and answers through the other way."""

    async def main() -> None:
        server = await asyncio.start_server(echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with TcpProxy(("127.0.0.1", port)) as proxy:
            _, proxy_port = await proxy.listen("127.0.0.1", 0)
            with socket.create_connection(("127.0.0.1", proxy_port)) as sock:
                sock.sendall(b"bye")
                sock.shutdown(socket.SHUT_WR)  # before the loop has run the proxy's accept
                sock.setblocking(False)
                loop = asyncio.get_running_loop()
                got = b""
                while chunk := await asyncio.wait_for(loop.sock_recv(sock, 100), 30):
                    got += chunk
            assert got == b"bye"
        server.close()
        await server.wait_closed()

    asyncio.run(main())
