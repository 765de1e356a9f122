"""benchmarks/bench_links.py's own WebSocket client (``--light-clients``) against a
``websockets`` server: the handshake, the peer id, messages whole and fragmented, masked
sends the server accepts, a ping answered and a close both ways."""

from __future__ import annotations

import asyncio
import struct

import pytest
from websockets.asyncio.server import ServerConnection, serve

from benchmarks import bench_links


def test_the_light_websocket_link_speaks_what_a_server_expects() -> None:
    got: list[bytes] = []
    heard: list[bytes] = []
    ponged = asyncio.Event()

    async def handler(connection: ServerConnection) -> None:
        await connection.send(struct.pack("<i", 1234))
        await connection.send(b"\x00" * 70_000)  # a 64-bit length
        await connection.send([b"frag", b"ment", b"ed"])  # one message in three frames
        await (await connection.ping(b"are you there"))
        ponged.set()
        message = await connection.recv()
        heard.append(message.encode() if isinstance(message, str) else message)  # masked
        await connection.wait_closed()

    async def main() -> int:
        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            link = await bench_links.open_link(f"ws://127.0.0.1:{port}", got.append, 0.05, True)
            assert isinstance(link, bench_links.LightWebSocketLink)
            async with asyncio.timeout(10):
                await ponged.wait()
                link.send(b"\x01hello" * 30)  # over 125 bytes: a 16-bit length
                while not heard:
                    await asyncio.sleep(0.01)
                await link.close()
            return link.unique_id

    assert asyncio.run(main()) == 1234
    assert got == [b"\x00" * 70_000, b"fragmented"]
    assert heard == [b"\x01hello" * 30]


def test_a_client_frame_is_masked_and_unmasks_to_its_payload() -> None:
    for size in (0, 5, 125, 126, 65535, 65536):
        payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
        frame = bench_links.ws_frame(bench_links.WS_BINARY, payload)
        assert frame[0] == 0x82 and frame[1] & 0x80
        head = {125: 2, 126: 4, 65535: 4, 65536: 10}.get(size, 2)
        mask, body = frame[head : head + 4], frame[head + 4 :]
        assert bytes(b ^ mask[i % 4] for i, b in enumerate(body)) == payload


def test_a_server_that_does_not_upgrade_is_a_failed_join() -> None:
    async def main() -> None:
        async def http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            writer.close()  # from 3.12 the server's close waits for every connection
            await writer.wait_closed()

        server = await asyncio.start_server(http, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            link = bench_links.LightWebSocketLink(lambda data: None)
            with pytest.raises(ConnectionError, match="no WebSocket upgrade"):
                await link.connect(f"ws://127.0.0.1:{port}")

    asyncio.run(main())
