"""``async with`` for the objects whose ``close()`` is a coroutine (servers, peers, proxies).

One base instead of the same two methods in every class: entered, it is itself; left, however
the block ends, it is closed.
"""

from __future__ import annotations

from typing import Self

__all__ = ["AsyncClosing"]


class AsyncClosing:
    """A base for an object closed by ``await close()``, usable as ``async with obj:``."""

    async def close(self) -> None:
        """Stop and release everything (each subclass says what)."""
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
