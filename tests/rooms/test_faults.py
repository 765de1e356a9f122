"""Faults, measured (issue 26, item 4): a room process killed, Redis killed and started again,
a matchmaker killed during a join storm. Each test asserts what clients see (a clear error or
a connection that ends, never a hang) and what the directory holds afterwards (no ghost room,
no lost seat: every room's seats are its clients plus what can still be reserved). The times
to recover are printed (``-s``; docs/rooms.md, "Faults", has the figures); nothing is timed
against a limit: every wait polls up to a generous deadline."""

from __future__ import annotations

import asyncio
import logging
import secrets
import signal
import time
from asyncio.subprocess import Process
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from gdvariant.rooms import JoinError, Matchmaker, Room, RoomHost
from tests.support.multiplayer_serving import run
from tests.support.redis_server import RedisProcess, find_redis
from tests.support.rooms import (
    DEADLINE,
    Player,
    eventually,
    spawn_rooms,
    stop_process,
    try_http,
)

pytest.importorskip("gdvariant.multiplayer.websocket", reason="the websockets extra is missing")
redis_module = pytest.importorskip("gdvariant.rooms.redis", reason="the rooms extra is missing")
httpapi = pytest.importorskip("gdvariant.rooms.httpapi", reason="the rooms extra is missing")
RedisDirectory = redis_module.RedisDirectory

pytestmark = pytest.mark.slow  # each waits out a lease or a reservation

#: The processes' lease in these tests (seconds): short, so recovery is quick to see.
TTL = 2.0
#: A room class the room processes of these tests serve (four seats, never idle-disposed).
TABLE = "table=tests.support.room_process:Table"
QUIET = logging.getLogger("tests.rooms.faults.quiet")
QUIET.disabled = True


def report(what: str, seconds: float) -> None:
    print(f"\n[fault] {what}: {seconds:.2f} s")


async def free_seats(directory: Any, room_id: str) -> int:
    """Reserve seats in ``room_id`` until it is full: how many it still had."""
    taken = 0
    while True:
        try:
            await directory.reserve(room_id, "probe", 1.0)
        except JoinError as exc:
            assert exc.code == "room_full", exc
            return taken
        taken += 1


async def settled(directory: Any, expected: Mapping[str, int]) -> bool:
    """The directory lists exactly the rooms of ``expected`` (id -> seated clients), none
    with a reservation outstanding."""
    rooms = await directory.rooms()
    return {r.id: r.clients for r in rooms} == dict(expected) and not any(r.reserved for r in rooms)


async def seat(matchmaker: Matchmaker, user: str) -> Player:
    """Ask ``matchmaker`` for a seat in a ``table`` and take it, again until a room lets the
    player in. Until a dead process's lease ends, the matchmaker may still name its room (the
    connection is refused) or ask it for a new room (``503 process_timeout``): what a client
    sees then, and retries on."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while loop.time() < end:
        try:
            reservation = await matchmaker.join_or_create("table", {}, user)
            player = await Player.join(reservation.room.address, reservation.token)
        except JoinError as exc:
            assert exc.code == "process_timeout", exc
            continue
        except OSError:
            await asyncio.sleep(0.1)
            continue
        await asyncio.wait_for(player.admitted.wait(), DEADLINE)
        return player
    raise AssertionError(f"{user} found no room in time")


async def spawn_host(args: list[str]) -> tuple[str, Process]:
    """A room process serving tables: its process id (from the line it printed) and itself."""
    proc, line = await spawn_rooms(*args, "--room-class", TABLE)
    assert line.startswith("rooms process "), line
    return line.split()[2], proc


def test_a_killed_room_process(redis_url: str) -> None:
    """Its clients' connections close; the matchmaker stops naming its rooms within the TTL
    and the clients, asking again, land in a room of the process left; no seat is lost."""

    async def main() -> None:
        ns = "f" + secrets.token_hex(6)
        host = ["host", "--redis", redis_url, "--namespace", ns, "--ttl", str(TTL)]
        children = dict([await spawn_host(host) for _ in range(2)])
        directory = RedisDirectory.from_url(redis_url, namespace=ns, ttl=TTL)
        matchmaker = Matchmaker(directory, create_timeout=1.0)
        try:
            players = {f"p{i}": await seat(matchmaker, f"p{i}") for i in range(6)}
            rooms = {r.id: r for r in await directory.rooms()}
            assert sorted(r.clients for r in rooms.values()) == [2, 4]
            victim_room = next(r for r in rooms.values() if r.clients == 4)
            survivor_room = next(r for r in rooms.values() if r.clients == 2)
            by_room = await directory.presence()
            children[victim_room.process].send_signal(signal.SIGKILL)
            started = time.monotonic()
            leaving = [players[user] for user in by_room[victim_room.id]]
            for player in leaving:
                await player.wait_closed()
            report(
                "room process SIGKILLed -> its clients' connections closed",
                time.monotonic() - started,
            )

            async def forgotten() -> bool:
                listed = {r.id for r in await directory.rooms()}
                alive = {p.id for p in await directory.processes()}
                return victim_room.id not in listed and victim_room.process not in alive

            rejoined = await asyncio.gather(
                *(seat(matchmaker, user) for user in by_room[victim_room.id])
            )
            report(
                "... its clients seated again through the matchmaker", time.monotonic() - started
            )
            await eventually(forgotten, "the dead process and its rooms left the directory")
            report("... the directory forgot it", time.monotonic() - started)
            for player in rejoined:
                assert not player.closed
            listed = {r.id: r for r in await directory.rooms()}
            assert {r.process for r in listed.values()} == {survivor_room.process}
            expected = {r.id: r.clients for r in listed.values()}
            assert sum(expected.values()) == 6
            await eventually(lambda: settled(directory, expected), "no reservation left over")
            presence = await directory.presence()
            assert sorted(u for users in presence.values() for u in users) == sorted(players)
            for room in listed.values():
                assert await free_seats(directory, room.id) == room.seats - room.clients
        finally:
            for proc in children.values():
                await stop_process(proc)
            await directory.close()

    run(main())


class Duel(Room):
    seats = 3
    grace = 600.0


def test_redis_killed_and_started_again(redis_url: str, tmp_path: Path) -> None:
    """While Redis is down the matchmaker answers ``503 directory_unavailable`` at once and
    the room keeps its clients; when a Redis comes back (empty: same port and folder, no
    snapshot), the room process lists its room again with its clients' seats."""
    program, _ = find_redis()
    assert program is not None  # redis_url skipped the test otherwise
    server = RedisProcess(program, tmp_path / "redis")

    async def main() -> None:
        url = server.start()
        directory = RedisDirectory.from_url(url, ttl=TTL, timeout=1.0)
        host = RoomHost(directory, {"duel": Duel}, logger=QUIET, auth_timeout=DEADLINE)
        api = httpapi.MatchmakerServer(Matchmaker(directory), logger=QUIET)
        async with host, api:
            port = await api.listen("127.0.0.1", 0)
            join = b'{"name": "duel", "user": "cy"}'
            players = []
            for user in ("ann", "bob"):
                body = b'{"name": "duel", "user": "%s"}' % user.encode()
                answer = await try_http(port, "POST", "/rooms/join-or-create", body)
                assert not isinstance(answer, OSError) and answer[0] == 200, answer
                player = await Player.join(answer[1]["address"], answer[1]["token"])
                await asyncio.wait_for(player.admitted.wait(), DEADLINE)
                players.append(player)
            (room,) = host.rooms.values()

            server.kill()
            started = time.monotonic()
            asks: list[tuple[str, str, bytes | None]] = [
                ("POST", "/rooms/join-or-create", join),
                ("GET", "/rooms", None),
            ]
            for method, target, ask in asks:
                answer = await try_http(port, method, target, ask)
                assert not isinstance(answer, OSError), answer
                assert answer[0] == 503, answer
                assert answer[1]["error"]["code"] == "directory_unavailable"
            report("Redis SIGKILLed -> the matchmaker's 503", time.monotonic() - started)
            await asyncio.sleep(TTL * 2)  # past the lease: the host's heartbeats fail meanwhile
            assert len(room.clients) == 2 and not any(p.closed for p in players)

            server.start()
            restarted = time.monotonic()

            async def back() -> bool:
                listed = await directory.room(room.id)
                return listed is not None and listed.clients == 2

            await eventually(back, "the room was listed again with its two clients")
            report(
                "Redis started again (empty) -> the room listed again", time.monotonic() - restarted
            )
            answer = await try_http(port, "POST", "/rooms/join-or-create", join)
            assert not isinstance(answer, OSError) and answer[0] == 200, answer
            assert answer[1]["room"]["id"] == room.id  # its third seat, not a new room
            report("... the matchmaker seating players again", time.monotonic() - restarted)
            assert await free_seats(directory, room.id) == 0  # 2 seated + 1 reserved = 3
            assert await directory.presence() == {room.id: ["ann", "bob"]}
            for player in players:
                await player.close()
        await directory.close()

    try:
        run(main())
    finally:
        server.stop()


def test_a_frozen_redis_gets_a_503_in_bounded_time(redis_url: str, tmp_path: Path) -> None:
    """A Redis that accepts no more (SIGSTOP: the connection stays open, nothing answers) is
    the case a timeout is for: the matchmaker answers 503 once its bound passes."""
    program, _ = find_redis()
    assert program is not None
    server = RedisProcess(program, tmp_path / "redis")

    async def main() -> None:
        directory = RedisDirectory.from_url(server.start(), ttl=TTL, timeout=1.0)
        async with httpapi.MatchmakerServer(Matchmaker(directory), logger=QUIET) as api:
            port = await api.listen("127.0.0.1", 0)
            answer = await try_http(port, "GET", "/rooms")
            assert not isinstance(answer, OSError) and answer[0] == 200, answer
            assert server.proc is not None
            server.proc.send_signal(signal.SIGSTOP)
            try:
                started = time.monotonic()
                answer = await try_http(port, "GET", "/rooms")
                report("Redis frozen -> the matchmaker's 503", time.monotonic() - started)
            finally:
                server.proc.send_signal(signal.SIGCONT)
            assert not isinstance(answer, OSError), answer
            assert answer[0] == 503 and answer[1]["error"]["code"] == "directory_unavailable"
        await directory.close()

    try:
        run(main())
    finally:
        server.stop()


class Gated(Room):
    """A room whose creation waits for the test's gate: requests stay in flight on it."""

    seats = 4
    grace = 600.0
    gate: ClassVar[asyncio.Event]
    waiting: ClassVar[int] = 0

    async def on_create(self, options: Mapping[str, Any]) -> None:
        type(self).waiting += 1
        await self.gate.wait()


def test_a_matchmaker_killed_during_a_join_storm(redis_url: str) -> None:
    """Requests in flight on the killed matchmaker end with a connection error (none hangs);
    the seats it reserved that no client uses (two taken before the storm, and any whose
    answer died with it) expire; the other matchmaker serves on."""

    async def main() -> None:
        ns = "m" + secrets.token_hex(6)
        directory = RedisDirectory.from_url(redis_url, namespace=ns, ttl=TTL)
        Gated.gate, Gated.waiting = asyncio.Event(), 0
        args = ["matchmaker", "--redis", redis_url, "--namespace", ns, "--ttl", str(TTL)]
        args += ["--port", "0", "--reservation-ttl", "2", "--create-timeout", str(DEADLINE)]
        host = RoomHost(directory, {"gated": Gated}, logger=QUIET, auth_timeout=DEADLINE)
        children = [await spawn_rooms(*args) for _ in range(2)]
        doomed, spared = (int(line.rsplit(":", 1)[1]) for _, line in children)
        try:
            async with host:
                Gated.gate.set()
                await host.create_room("gated")
                Gated.gate.clear()
                for user in ("lost1", "lost2"):  # seats it handed out that no one will use
                    body = b'{"name": "gated", "user": "%s"}' % user.encode()
                    lost = await try_http(doomed, "POST", "/rooms/join-or-create", body)
                    assert not isinstance(lost, OSError) and lost[0] == 200, lost
                storm = [(doomed, f"d{i}") for i in range(24)] + [
                    (spared, f"s{i}") for i in range(8)
                ]
                requests = [
                    asyncio.create_task(
                        try_http(
                            port,
                            "POST",
                            "/rooms/join-or-create",
                            b'{"name": "gated", "user": "%s"}' % user.encode(),
                        )
                    )
                    for port, user in storm
                ]

                async def in_flight() -> bool:
                    return Gated.waiting >= 1

                await eventually(in_flight, "a join waits for a room being created")
                children[0][0].send_signal(signal.SIGKILL)
                started = time.monotonic()
                doomed_answers = await asyncio.gather(*requests[:24])
                report(
                    "matchmaker SIGKILLed -> its requests in flight failed",
                    time.monotonic() - started,
                )
                errors = [a for a in doomed_answers if isinstance(a, OSError)]
                assert errors, doomed_answers  # the ones waiting for a room, at least
                for answer in doomed_answers:
                    assert isinstance(answer, OSError) or answer[0] == 200, answer
                Gated.gate.set()
                spared_answers = await asyncio.gather(*requests[24:])
                for answer in spared_answers:
                    assert not isinstance(answer, OSError) and answer[0] == 200, answer
                seated = [
                    a[1] for a in [*doomed_answers, *spared_answers] if not isinstance(a, OSError)
                ]
                players = []
                for seat in seated:
                    player = await Player.join(seat["address"], seat["token"])
                    await asyncio.wait_for(player.admitted.wait(), DEADLINE)
                    players.append(player)
                expected = {room_id: len(room.clients) for room_id, room in host.rooms.items()}
                assert sum(expected.values()) == len(seated)
                await eventually(lambda: settled(directory, expected), "its reservations expired")
                report("... the seats it reserved free again", time.monotonic() - started)
                for room in await directory.rooms():
                    assert await free_seats(directory, room.id) == room.seats - room.clients
                after = await try_http(
                    spared, "POST", "/rooms/join-or-create", b'{"name": "gated", "user": "late"}'
                )
                assert not isinstance(after, OSError) and after[0] == 200, after
                for player in players:
                    await player.close()
        finally:
            for proc, _ in children:
                await stop_process(proc)
            await directory.close()

    run(main())
