"""The directory's promises, on both directories (``make_directory``: embedded and Redis):
atomic seats, expiring reservations and leases, room requests, pub/sub and presence."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence

import pytest

from gdvariant.rooms import Directory, JoinError, MemoryDirectory, ProcessInfo, RoomInfo
from tests.support.multiplayer_serving import run
from tests.support.rooms import DEADLINE, DirectoryMaker, eventually

PROCESS = ProcessInfo("p1", "127.0.0.1", ("arena",), 10)


def room(room_id: str = "a1", seats: int = 3, *, locked: bool = False) -> RoomInfo:
    return RoomInfo(room_id, "arena", PROCESS.id, "ws://127.0.0.1:1", seats, {}, locked)


async def add(directory: Directory, process: ProcessInfo, rooms: Sequence[RoomInfo]) -> None:
    for info in rooms:
        assert await directory.add_room(process, info)


async def codes(attempts: Sequence[Awaitable[object]]) -> list[str]:
    results = await asyncio.gather(*attempts, return_exceptions=True)
    found = []
    for result in results:
        if isinstance(result, JoinError):
            found.append(result.code)
        elif isinstance(result, BaseException):
            raise result
        else:
            found.append("ok")
    return found


def test_no_seat_is_given_twice(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        one, two = make_directory(), make_directory()
        await one.register(PROCESS)
        await add(one, PROCESS, [room(seats=5)])
        storm = [d.reserve("a1", f"u{i}", 30) for i in range(30) for d in (one, two)]
        found = await codes(storm)
        assert found.count("ok") == 5
        assert set(found) == {"ok", "room_full"}
        listed = await two.room("a1")
        assert listed is not None and (listed.reserved, listed.free) == (5, 0)
        await one.close()
        await two.close()

    run(main())


def test_a_token_is_claimed_once_and_a_released_seat_is_free(
    make_directory: DirectoryMaker,
) -> None:
    async def main() -> None:
        directory = make_directory()
        await directory.register(PROCESS)
        await add(directory, PROCESS, [room(seats=1)])
        seat = await directory.reserve("a1", "ann", 30)
        assert seat.room.id == "a1" and seat.user == "ann" and len(seat.token) >= 20
        with pytest.raises(JoinError) as full:
            await directory.reserve("a1", "bob", 30)
        assert (full.value.code, full.value.status) == ("room_full", 409)
        assert await directory.claim("a1", "not-a-token") is None
        assert await directory.claim("other", seat.token) is None
        assert await directory.claim("a1", seat.token) == "ann"
        assert await directory.claim("a1", seat.token) is None
        assert await directory.presence() == {"a1": ["ann"]}
        listed = await directory.room("a1")
        assert listed is not None and (listed.clients, listed.reserved) == (1, 0)
        await directory.release("a1", seat.token)
        again = await directory.reserve("a1", "bob", 30)
        assert await directory.claim("a1", again.token) == "bob"
        await directory.close()

    run(main())


def test_an_unused_reservation_is_released(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        directory = make_directory()
        await directory.register(PROCESS)
        await add(directory, PROCESS, [room(seats=1)])
        stale = await directory.reserve("a1", "late", 0.2)
        fresh: list[str] = []

        async def reserved() -> bool:
            try:
                fresh.append((await directory.reserve("a1", "next", 30)).token)
            except JoinError as exc:
                assert exc.code == "room_full"
                return False
            return True

        await eventually(reserved, "the unused reservation was released")
        assert await directory.claim("a1", stale.token) is None
        assert await directory.claim("a1", fresh[0]) == "next"
        await directory.close()

    run(main())


def test_a_locked_or_unknown_room_takes_no_one(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        directory = make_directory()
        await directory.register(PROCESS)
        await add(directory, PROCESS, [room(locked=True), room("b2")])
        found = await codes([directory.reserve("a1", "", 30), directory.reserve("zz", "", 30)])
        assert found == ["room_locked", "room_not_found"]
        assert {r.id: r.free for r in await directory.rooms("arena")} == {"a1": 0, "b2": 3}
        assert await directory.rooms("lobby") == []
        await directory.close()

    run(main())


@pytest.mark.slow  # waits out a lease
def test_a_process_that_stops_beating_vanishes_with_its_rooms(
    make_directory: DirectoryMaker,
) -> None:
    async def main() -> None:
        directory = make_directory(ttl=2.0)  # long enough for the checks before it lapses
        await directory.register(PROCESS)
        await add(directory, PROCESS, [room(), room("b2")])
        seat = await directory.reserve("a1", "ann", 30)
        assert await directory.claim("a1", seat.token) == "ann"
        assert [p.id for p in await directory.processes()] == ["p1"]

        async def gone() -> bool:
            return not await directory.rooms() and not await directory.processes()

        await eventually(gone, "the rooms of a process that stopped beating vanished")
        assert await directory.presence() == {}
        assert not await directory.heartbeat(PROCESS, [room()])
        assert not await directory.add_room(PROCESS, room())
        assert await directory.rooms() == []
        with pytest.raises(JoinError) as gone_room:
            await directory.reserve("a1", "bob", 30)
        assert gone_room.value.code == "room_not_found"
        await directory.register(PROCESS)
        assert await directory.heartbeat(PROCESS, [])
        await directory.close()

    run(main())


def test_unregister_drops_the_process_and_its_rooms(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        directory = make_directory()
        await directory.register(PROCESS)
        other = ProcessInfo("p2", "127.0.0.1", ("arena",), 10)
        await directory.register(other)
        await add(directory, PROCESS, [room()])
        await add(directory, other, [RoomInfo("c3", "arena", "p2", "ws://h:2", 2)])
        await directory.unregister("p1")
        assert [p.id for p in await directory.processes()] == ["p2"]
        assert [r.id for r in await directory.rooms()] == ["c3"]
        await directory.close()

    run(main())


def test_an_empty_room_is_disposed_only_when_no_seat_is_held_or_promised(
    make_directory: DirectoryMaker,
) -> None:
    async def main() -> None:
        directory = make_directory()
        await directory.register(PROCESS)
        await add(directory, PROCESS, [room()])
        seat = await directory.reserve("a1", "ann", 30)
        assert not await directory.dispose_if_empty("a1")
        await directory.claim("a1", seat.token)
        assert not await directory.dispose_if_empty("a1")
        await directory.release("a1", seat.token)
        assert await directory.dispose_if_empty("a1")
        assert await directory.room("a1") is None
        with pytest.raises(JoinError):
            await directory.reserve("a1", "bob", 30)
        await directory.close()

    run(main())


def test_a_room_request_is_answered_by_its_process_or_times_out(
    make_directory: DirectoryMaker,
) -> None:
    async def main() -> None:
        matchmaker, process = make_directory(), make_directory()

        async def serve_one() -> None:
            request = await process.next_request("p1", DEADLINE)
            assert request is not None and request.options == {"map": "x"}
            await process.answer(request.id, room("new"))
            refused = await process.next_request("p1", DEADLINE)
            assert refused is not None
            await process.answer(refused.id, None, "process_full")

        serving = asyncio.create_task(serve_one())
        made = await matchmaker.request_room("p1", "arena", {"map": "x"}, DEADLINE)
        assert (made.id, made.seats) == ("new", 3)
        with pytest.raises(JoinError) as full:
            await matchmaker.request_room("p1", "arena", {}, DEADLINE)
        assert (full.value.code, full.value.status) == ("process_full", 503)
        await serving
        with pytest.raises(JoinError) as late:
            await matchmaker.request_room("p9", "arena", {}, 0.2)
        assert late.value.code == "process_timeout"
        await matchmaker.close()
        await process.close()

    run(main())


def test_messages_reach_every_subscriber_of_their_channel(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        one, two = make_directory(), make_directory()
        async with one.subscribe("lobby") as first, two.subscribe("lobby", "other") as second:
            await one.publish("nobody", {"lost": True})
            await two.publish("lobby", {"text": "hi", "n": [1, 2]})
            await one.publish("other", {"text": "only second"})
            assert await first.get(DEADLINE) == ("lobby", {"text": "hi", "n": [1, 2]})
            assert await second.get(DEADLINE) == ("lobby", {"text": "hi", "n": [1, 2]})
            assert await second.get(DEADLINE) == ("other", {"text": "only second"})
            assert await first.get(0.1) is None
        with pytest.raises(ValueError, match="at least one channel"):
            one.subscribe()
        await one.close()
        await two.close()

    run(main())


def test_a_heartbeat_renews_rooms_but_never_brings_one_back(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        directory = make_directory()
        await directory.register(PROCESS)
        await add(directory, PROCESS, [room(), room("b2")])
        assert await directory.dispose_if_empty("b2")
        # a heartbeat built before b2 was disposed, arriving after: b2 stays gone
        assert await directory.heartbeat(PROCESS, [room(locked=True), room("b2")])
        listed = {r.id: r.locked for r in await directory.rooms()}
        assert listed == {"a1": True}
        await directory.close()

    run(main())


def test_the_embedded_directory_runs_on_the_clock_it_is_given() -> None:
    """Without I/O: the lease and the reservation end exactly when the clock says so."""
    now = [100.0]
    directory = MemoryDirectory(ttl=10.0, clock=lambda: now[0])

    async def main() -> None:
        await directory.register(PROCESS)
        await add(directory, PROCESS, [room(seats=1)])
        seat = await directory.reserve("a1", "ann", 5.0)
        now[0] = 104.999
        with pytest.raises(JoinError):
            await directory.reserve("a1", "bob", 5.0)
        now[0] = 105.0  # the reservation's end: released
        late = await directory.reserve("a1", "bob", 5.0)
        assert await directory.claim("a1", seat.token) is None
        assert await directory.claim("a1", late.token) == "bob"
        now[0] = 109.999
        assert [r.id for r in await directory.rooms()] == ["a1"]
        now[0] = 110.0  # the lease's end, ten seconds after the last heartbeat
        assert await directory.rooms() == [] and await directory.processes() == []
        assert not await directory.heartbeat(PROCESS, [])
        with pytest.raises(ValueError, match="ttl must be positive"):
            MemoryDirectory(ttl=0)

    run(main())
