"""The matchmaker's HTTP server: limits checked before the body is read, malformed HTTP,
slow requests, keep-alive, CORS preflight, and a failing matchmaker, each answered with a
JSON error (or a clean close), never a crash."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from gdvariant.rooms import Matchmaker, MemoryDirectory
from tests.support.multiplayer_serving import run
from tests.support.rooms import DEADLINE, http

httpapi = pytest.importorskip("gdvariant.rooms.httpapi", reason="the rooms extra is missing")


def serving(**options: Any) -> Callable[[Callable[[int], Awaitable[None]]], Callable[[], None]]:
    def wrap(body: Callable[[int], Awaitable[None]]) -> Callable[[], None]:
        async def main() -> None:
            async with httpapi.MatchmakerServer(Matchmaker(MemoryDirectory()), **options) as s:
                await body(await s.listen("127.0.0.1", 0))

        return lambda: run(main())

    return wrap


def code(content: bytes) -> str:
    return str(json.loads(content)["error"]["code"])


@serving(max_body=100)
async def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(port: int) -> None:
    head = b"POST /rooms/create HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n"
    status, headers, content = await http(port, "", "", raw=head)  # no body sent at all
    assert (status, code(content)) == (413, "body_too_large")
    assert headers["connection"] == "close"


@serving(max_body=100)
async def test_a_chunked_body_over_the_limit_is_refused(port: int) -> None:
    chunk = b"80\r\n" + b"x" * 128 + b"\r\n"
    head = b"POST /rooms/create HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
    status, _, content = await http(port, "", "", raw=head + chunk + b"0\r\n\r\n")
    assert (status, code(content)) == (413, "body_too_large")


@serving()
async def test_malformed_http_gets_a_400(port: int) -> None:
    status, _, content = await http(port, "", "", raw=b"NOT HTTP AT ALL\r\n\r\n")
    assert (status, code(content)) == (400, "bad_http")
    long_header = b"GET /rooms HTTP/1.1\r\nX: " + b"a" * 20000 + b"\r\n\r\n"
    status, _, content = await http(port, "", "", raw=long_header)
    assert (status, code(content)) == (431, "bad_http")


@serving(request_timeout=0.2)
async def test_a_request_too_slow_to_arrive_gets_a_408(port: int) -> None:
    head = b"POST /rooms/create HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n{"
    status, _, content = await http(port, "", "", raw=head)
    assert (status, code(content)) == (408, "timeout")


@serving()
async def test_keep_alive_and_the_cors_preflight(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"OPTIONS /rooms/create HTTP/1.1\r\nHost: t\r\n\r\n")
    writer.write(b"GET /rooms HTTP/1.1\r\nHost: t\r\n\r\n")
    await writer.drain()
    first = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
    assert first.startswith(b"HTTP/1.1 204 ")
    assert b"access-control-allow-origin: *" in first.lower()
    second = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
    assert second.startswith(b"HTTP/1.1 200 ")
    length = int(second.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    assert json.loads(await reader.readexactly(length)) == {"rooms": []}
    writer.close()


def test_a_failing_matchmaker_answers_500() -> None:
    class Broken(Matchmaker):
        async def list_rooms(self, name: str | None = None) -> Any:
            raise RuntimeError("the store is on fire")

    async def main() -> None:
        async with httpapi.MatchmakerServer(Broken(MemoryDirectory())) as server:
            port = await server.listen("127.0.0.1", 0)
            status, _, content = await http(port, "GET", "/rooms")
            assert (status, code(content)) == (500, "internal")
            with pytest.raises(RuntimeError, match="already listening"):
                await server.listen("127.0.0.1", 0)

    run(main())
