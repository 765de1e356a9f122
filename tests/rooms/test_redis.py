"""The Redis directory on its own (the shared promises are tests/rooms/test_directory.py's,
run on it too): a room process killed with SIGKILL vanishes with its rooms and seats within
its TTL, and the directory's options are checked."""

from __future__ import annotations

import asyncio
import secrets
import signal
import sys

import pytest

from gdvariant.rooms import JoinError
from tests.support import processes
from tests.support.multiplayer_serving import run
from tests.support.paths import ROOT
from tests.support.rooms import DEADLINE, eventually

redis_module = pytest.importorskip("gdvariant.rooms.redis", reason="the rooms extra is missing")
RedisDirectory = redis_module.RedisDirectory

#: The killed process's lease (seconds): short, so the test is quick.
TTL = 2.0


@pytest.mark.slow  # waits out a lease
def test_a_sigkilled_room_process_vanishes_within_its_ttl(redis_url: str) -> None:
    async def main() -> None:
        namespace = "k" + secrets.token_hex(6)
        directory = RedisDirectory.from_url(redis_url, namespace=namespace, ttl=TTL)
        proc = processes.watch(
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.support.room_process",
                redis_url,
                namespace,
                str(TTL),
                cwd=ROOT,
                stdout=asyncio.subprocess.PIPE,
            )
        )
        try:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), DEADLINE)
            assert line.startswith(b"READY "), line
            room_id = line.split()[1].decode()
            seat = await directory.reserve(room_id, "ann", DEADLINE)
            assert [r.id for r in await directory.rooms()] == [room_id]
        finally:
            proc.send_signal(signal.SIGKILL)
            await proc.wait()

        async def vanished() -> bool:
            return not await directory.rooms() and not await directory.processes()

        await eventually(vanished, "the killed process's rooms vanished")
        assert await directory.presence() == {}
        assert await directory.claim(room_id, seat.token) is None
        with pytest.raises(JoinError) as gone:
            await directory.reserve(room_id, "bob", DEADLINE)
        assert gone.value.code == "room_not_found"
        leftovers = [k async for k in directory.client.scan_iter(f"{namespace}:room:*")]
        assert leftovers == []
        await directory.close()

    run(main())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ttl": 0}, "ttl must be positive"),
        ({"namespace": ""}, "namespace must be"),
        ({"namespace": "a:b"}, "namespace must be"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RedisDirectory.from_url("redis://127.0.0.1:1/0", **options)
