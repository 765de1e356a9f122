"""What the transport tests (tests/multiplayer/test_websocket.py,
tests/multiplayer/test_enet.py) share: a test body run against a listening server, and waiting
for a condition."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any


def run(coro: Awaitable[None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.005)


def serving(
    server_class: Callable[..., Any], **options: Any
) -> Callable[[Callable[..., Awaitable[None]]], Callable[[], None]]:
    """Run the test body as ``body(server, port)`` against a ``server_class(**options)``
    listening on a free loopback port."""

    def wrap(body: Callable[..., Awaitable[None]]) -> Callable[[], None]:
        async def main() -> None:
            async with server_class(**options) as server:
                port = await server.listen("127.0.0.1", 0)
                await body(server, port)

        return lambda: run(main())

    return wrap
