"""``gdvariant._closing``: ``async with`` closes, however the block ends."""

from __future__ import annotations

import asyncio

import pytest

from gdvariant._closing import AsyncClosing


class Door(AsyncClosing):
    def __init__(self) -> None:
        self.closed = 0

    async def close(self) -> None:
        self.closed += 1


def test_the_block_gets_the_object_and_closes_it_on_exit_and_on_error() -> None:
    async def main() -> None:
        door = Door()
        async with door as entered:
            assert entered is door and door.closed == 0
        assert door.closed == 1
        with pytest.raises(KeyError):
            async with door:
                raise KeyError("x")
        assert door.closed == 2

    asyncio.run(main())


def test_a_subclass_without_close_says_so() -> None:
    async def main() -> None:
        async with AsyncClosing():
            pass

    with pytest.raises(NotImplementedError):
        asyncio.run(main())
