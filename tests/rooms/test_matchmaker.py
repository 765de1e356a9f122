"""The matchmaker on both directories, through its HTTP API: the join storm across two
matchmakers (exactly the seats get a token, and those clients get in), join-or-create
filling rooms and making new ones, the process pick, listing, and clear JSON errors for
every bad request."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from gdvariant.rooms import (
    JoinError,
    Matchmaker,
    ProcessInfo,
    ProcessLoad,
    Room,
    RoomHost,
    least_loaded,
)
from tests.support.multiplayer_serving import run, until
from tests.support.rooms import DEADLINE, DirectoryMaker, http

mpws = pytest.importorskip(
    "gdvariant.multiplayer.websocket", reason="the websockets extra is missing"
)
httpapi = pytest.importorskip("gdvariant.rooms.httpapi", reason="the rooms extra is missing")

SEATS = 4


class Match(Room):
    seats = SEATS
    grace = 60.0


async def post(port: int, target: str, body: Any) -> tuple[int, dict[str, Any]]:
    status, _, content = await http(port, "POST", target, json.dumps(body).encode())
    return status, json.loads(content)


def test_a_join_storm_across_two_matchmakers_seats_exactly_the_seats(
    make_directory: DirectoryMaker,
) -> None:
    async def main() -> None:
        servers = [httpapi.MatchmakerServer(Matchmaker(make_directory())) for _ in range(2)]
        ports = [await server.listen("127.0.0.1", 0) for server in servers]
        directory = make_directory()
        async with RoomHost(directory, {"match": Match}) as host:
            room = await host.create_room("match")
            target = f"/rooms/{room.id}/join"
            storm = [post(ports[i % 2], target, {"user": f"u{i}"}) for i in range(40)]
            answers = await asyncio.gather(*storm)
            statuses = Counter(status for status, _ in answers)
            assert statuses == {200: SEATS, 409: 40 - SEATS}
            seated = [a for s, a in answers if s == 200]
            assert len({a["token"] for a in seated}) == SEATS
            assert {a["address"] for a in seated} == {room.address}
            refused = [a["error"]["code"] for s, a in answers if s == 409]
            assert set(refused) == {"room_full"}

            status, _, content = await http(ports[1], "GET", "/rooms?name=match")
            listed = json.loads(content)["rooms"]
            assert status == 200 and [(r["id"], r["reserved"]) for r in listed] == [
                (room.id, SEATS)
            ]
            clients = [mpws.MultiplayerClient(auth_callback=lambda data: None) for _ in seated]
            for client, answer in zip(clients, seated, strict=True):
                await client.connect(answer["address"])
                client.send_auth(answer["token"].encode())
                client.complete_auth()
            await until(lambda: len(room.clients) == SEATS)
            assert sorted(c.user for c in room.clients.values()) == sorted(
                a["user"] for a in seated
            )
            for client in clients:
                await client.close()
        for server in servers:
            await server.close()
            await server.matchmaker.directory.close()
        await directory.close()

    run(main())


def test_join_or_create_fills_rooms_then_makes_new_ones(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        servers = [httpapi.MatchmakerServer(Matchmaker(make_directory())) for _ in range(2)]
        ports = [await server.listen("127.0.0.1", 0) for server in servers]
        one, two = make_directory(), make_directory()
        async with RoomHost(one, {"match": Match}) as a, RoomHost(two, {"match": Match}) as b:
            body = {"name": "match", "options": {"map": "dunes"}}
            answers = await asyncio.gather(
                *(post(ports[i % 2], "/rooms/join-or-create", body) for i in range(18))
            )
            assert {status for status, _ in answers} == {200}
            per_room = Counter(answer["room"]["id"] for _, answer in answers)
            rooms = {**a.rooms, **b.rooms}
            assert set(per_room) == set(rooms)
            assert all(count <= SEATS for count in per_room.values())
            assert len(rooms) >= -(-18 // SEATS)
            status, again = await post(ports[0], "/rooms/create", {"name": "match"})
            assert status == 200 and again["room"]["id"] not in per_room
        for server in servers:
            await server.close()
            await server.matchmaker.directory.close()
        await one.close()
        await two.close()

    run(main())


def test_least_loaded_picks_the_fewest_seats_then_rooms() -> None:
    def load(pid: str, rooms: int, seats: int) -> ProcessLoad:
        return ProcessLoad(ProcessInfo(pid, "h", ("match",)), rooms, seats)

    loads: Sequence[ProcessLoad] = [load("a", 1, 5), load("b", 3, 2), load("c", 2, 2)]
    chosen = least_loaded("match", {}, loads)
    assert chosen is not None and chosen.process.id == "c"
    assert least_loaded("match", {}, []) is None


def test_least_loaded_spreads_ties() -> None:
    """A join storm's requests read the same loads at once: ties must not all go to one."""
    tied = [ProcessLoad(ProcessInfo(pid, "h", ("match",)), 0, 0) for pid in ("a", "b", "c")]
    chosen = Counter(least_loaded("match", {}, tied).process.id for _ in range(300))  # type: ignore[union-attr]
    assert set(chosen) == {"a", "b", "c"}  # each missed 300 times: odds of (2/3)^300


def test_a_user_pick_chooses_the_process(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        def last(name: str, options: dict[str, Any], loads: Sequence[ProcessLoad]) -> Any:
            return max(loads, key=lambda load: load.process.id)

        matchmaker = Matchmaker(make_directory(), pick=last)
        one, two = make_directory(), make_directory()
        async with (
            RoomHost(one, {"match": Match}, process_id="p1"),
            RoomHost(two, {"match": Match}, process_id="p2"),
        ):
            for _ in range(3):
                seat = await matchmaker.create("match")
                assert seat.room.process == "p2"
        await matchmaker.directory.close()
        await one.close()
        await two.close()

    run(main())


@pytest.mark.parametrize(
    ("method", "target", "body", "status", "code"),
    [
        ("POST", "/rooms/join-or-create", b"{not json", 400, "bad_json"),
        ("POST", "/rooms/join-or-create", b"[1]", 400, "bad_json"),
        ("POST", "/rooms/join-or-create", b'{"name": 5}', 400, "bad_request"),
        ("POST", "/rooms/join-or-create", b'{"name": ""}', 400, "bad_request"),
        ("POST", "/rooms/join-or-create", b'{"name": "' + b"n" * 65 + b'"}', 400, "bad_request"),
        ("POST", "/rooms/create", b'{"name": "match", "options": [1]}', 400, "bad_request"),
        ("POST", "/rooms/create", b'{"name": "match", "user": 7}', 400, "bad_request"),
        ("POST", "/rooms/join-or-create", b'{"name": "lobby"}', 404, "unknown_room_name"),
        ("POST", "/rooms/0123abcd/join", b"{}", 404, "room_not_found"),
        ("POST", "/rooms/not-hex!/join", b"", 404, "room_not_found"),
        ("GET", "/rooms/join-or-create", None, 405, "method_not_allowed"),
        ("POST", "/rooms", b"{}", 405, "method_not_allowed"),
        ("GET", "/nowhere", None, 404, "not_found"),
        ("GET", "/rooms?name=" + "x" * 70, None, 400, "bad_request"),
    ],
)
def test_a_bad_request_gets_a_clear_json_error(
    make_directory: DirectoryMaker,
    method: str,
    target: str,
    body: bytes | None,
    status: int,
    code: str,
) -> None:
    async def main() -> None:
        directory = make_directory()
        server = httpapi.MatchmakerServer(Matchmaker(directory))
        port = await server.listen("127.0.0.1", 0)
        async with RoomHost(make_directory(), {"match": Match}):
            got, headers, content = await http(port, method, target, body)
        answer = json.loads(content)
        assert (got, answer["error"]["code"]) == (status, code)
        assert answer["error"]["message"]
        assert headers["content-type"] == "application/json"
        await server.close()
        await directory.close()

    run(main())


def test_a_process_that_does_not_answer_is_passed_over(make_directory: DirectoryMaker) -> None:
    """A process killed a moment ago is still listed until its lease ends; asked for a room it
    says nothing, and the matchmaker asks the next one instead of failing the client."""

    async def main() -> None:
        directory = make_directory(ttl=DEADLINE)  # the dead one stays listed meanwhile
        dead = ProcessInfo("0dead", "127.0.0.1", ("match",))  # picked first (by id)
        await directory.register(dead)
        first = lambda name, options, loads: min(loads, key=lambda load: load.process.id)  # noqa: E731
        matchmaker = Matchmaker(make_directory(ttl=DEADLINE), create_timeout=0.2, pick=first)
        async with RoomHost(directory, {"match": Match}, process_id="zlive") as host:
            seat = await matchmaker.join_or_create("match", {}, "ann")
            assert seat.room.process == "zlive" and seat.room.id in host.rooms
        with pytest.raises(JoinError) as silent:  # only the dead one left
            await matchmaker.create("match", {}, "bob")
        assert silent.value.code == "process_timeout"
        await directory.close()
        await matchmaker.directory.close()

    run(main())
