"""The processes of a deployment, in this process: room classes named on the command line,
a room process and a matchmaker that say where they serve and leave cleanly when stopped,
and a room process's Agones hooks (Ready, Health, Allocate with its first room, Shutdown)
against a stand-in sidecar."""

from __future__ import annotations

import asyncio
import secrets
import signal

import pytest

from gdvariant.rooms import MemoryDirectory
from gdvariant.rooms.serve import load_room_types, serve_host, serve_matchmaker
from tests.support.agones_sidecar import Sidecar
from tests.support.multiplayer_serving import run
from tests.support.room_process import Table
from tests.support.rooms import DEADLINE, eventually, spawn_rooms, stop_process, try_http

pytest.importorskip("gdvariant.multiplayer.websocket", reason="the websockets extra is missing")
agones = pytest.importorskip("gdvariant.rooms.agones", reason="the rooms extra is missing")


def test_room_classes_are_named_module_colon_class() -> None:
    spec = "tests.support.room_process:Table"
    assert load_room_types([spec]) == {"table": Table}
    assert load_room_types([f"duel={spec}", spec]) == {"duel": Table, "table": Table}


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        ([], "at least one room class"),
        (["Table"], "is \\[NAME=\\]module:Class"),
        (["no_such_module_here:Table"], "cannot import"),
        (["tests.support.room_process:Missing"], "names no subclass"),
        (["tests.support.room_process:serve"], "names no subclass"),
        (["tests.support.room_process:Table"] * 2, "two room classes are named 'table'"),
    ],
)
def test_bad_room_classes_are_refused_in_words(specs: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_room_types(specs)


def test_a_host_and_a_matchmaker_serve_until_stopped() -> None:
    async def main() -> None:
        directory = MemoryDirectory()
        stop = asyncio.Event()
        lines: list[str] = []
        served = asyncio.gather(
            serve_host(directory, {"table": Table}, stop, announce=lines.append),
            serve_matchmaker(directory, stop, port=0, announce=lines.append),
        )

        async def announced() -> bool:
            return len(lines) == 2

        await eventually(announced, "both said where they serve")
        (process,) = await directory.processes()
        assert f"rooms process {process.id} serving table on 127.0.0.1" in lines
        (matchmaker,) = [line for line in lines if line.startswith("matchmaker ")]
        port = int(matchmaker.rsplit(":", 1)[1])
        answer = await try_http(port, "POST", "/rooms/join-or-create", b'{"name": "table"}')
        assert not isinstance(answer, OSError) and answer[0] == 200, answer
        stop.set()
        await asyncio.wait_for(served, DEADLINE)
        assert await directory.processes() == [] and await directory.rooms() == []

    run(main())


def test_a_host_on_agones_tells_the_sidecar() -> None:
    async def main() -> None:
        directory = MemoryDirectory()
        stop = asyncio.Event()
        async with Sidecar() as sidecar:
            hooks = agones.AgonesHooks(sidecar.url, health_interval=0.01)
            host_lines: list[str] = []
            serving = asyncio.create_task(
                serve_host(
                    directory, {"table": Table}, stop, announce=host_lines.append, agones=hooks
                )
            )

            async def ready() -> bool:
                return "/health" in sidecar.paths()

            await eventually(ready, "ready, then health pings")
            assert sidecar.paths()[0] == "/ready" and "/allocate" not in sidecar.paths()
            (process,) = await directory.processes()
            await directory.request_room(process.id, "table", {}, DEADLINE)

            async def allocated() -> bool:
                return "/allocate" in sidecar.paths()

            await eventually(allocated, "allocated with its first room")
            stop.set()
            await asyncio.wait_for(serving, DEADLINE)
            assert sidecar.paths()[-1] == "/shutdown"
            assert sidecar.paths().count("/allocate") == 1
            assert all(body == b"{}" and method == "POST" for method, _, body in sidecar.calls)

    run(main())


@pytest.mark.slow  # a process of its own
def test_a_host_process_leaves_the_directory_on_sigterm(redis_url: str) -> None:
    redis = pytest.importorskip("gdvariant.rooms.redis")

    async def main() -> None:
        ns = "s" + secrets.token_hex(6)
        args = ["host", "--redis", redis_url, "--namespace", ns, "--ttl", "600"]
        proc, line = await spawn_rooms(*args, "--room-class", "tests.support.room_process:Table")
        directory = redis.RedisDirectory.from_url(redis_url, namespace=ns)
        try:
            assert [p.id for p in await directory.processes()] == [line.split()[2]]
            proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(proc.wait(), DEADLINE) == 0
            assert await directory.processes() == []  # at once, not after its 600 s lease
        finally:
            await stop_process(proc)
            await directory.close()

    run(main())
