"""``gdvariant rooms dev``: one command starts Redis, matchmakers and room processes, says
where they serve, and stops them all on SIGTERM or Ctrl-C, leaving no process and no file
behind; a child that dies stops the cluster; what cannot start says why."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from gdvariant.rooms.cluster import ClusterPlan
from tests.support.multiplayer_serving import run
from tests.support.rooms import DEADLINE, Player, eventually, start_rooms, try_http

pytest.importorskip("gdvariant.multiplayer.websocket", reason="the websockets extra is missing")
pytest.importorskip("gdvariant.rooms.redis", reason="the rooms extra is missing")

TABLE = "table=tests.support.room_process:Table"


class Dev:
    """``gdvariant rooms dev ARGS`` in a session of its own (so a test can Ctrl-C its group),
    its temporary files under ``tmp``."""

    def __init__(self, proc: asyncio.subprocess.Process, lines: list[str]) -> None:
        self.proc = proc
        self.lines = lines

    @classmethod
    async def start(cls, tmp: Path, *args: str, path: str | None = None) -> Dev:
        env = dict(os.environ, TMPDIR=str(tmp), PATH=path or os.environ.get("PATH", ""))
        proc = await start_rooms(
            *["dev", "--port", "0", "--room-class", TABLE, *args],
            env=env,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        return cls(proc, [])

    async def ready(self) -> None:
        """Read its lines until it says the cluster is ready."""
        assert self.proc.stdout is not None
        while not self.lines or not self.lines[-1].startswith("cluster ready"):
            line = await asyncio.wait_for(self.proc.stdout.readline(), DEADLINE)
            assert line, f"it ended early: {self.lines}"
            self.lines.append(line.decode().strip())

    def matchmaker_ports(self) -> list[int]:
        return [int(line.rsplit(":", 1)[1]) for line in self.lines if line.startswith("matchmaker")]

    def descendants(self) -> set[int]:
        """Every process under it (read from /proc)."""
        found: set[int] = set()
        todo = [self.proc.pid]
        while todo:
            pid = todo.pop()
            for task in Path(f"/proc/{pid}/task").glob("*"):
                children = (task / "children").read_text().split()
                for child in map(int, children):
                    if child not in found:
                        found.add(child)
                        todo.append(child)
        return found

    async def stderr(self) -> str:
        assert self.proc.stderr is not None
        return (await asyncio.wait_for(self.proc.stderr.read(), DEADLINE)).decode()


def cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def all_gone(pids: set[int]) -> bool:
    return all(gone(pid) for pid in pids)


@pytest.mark.slow  # starts redis-server and four Python processes
@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C"])
def test_dev_starts_a_cluster_and_stops_it_all(how: str, tmp_path: Path, redis_url: str) -> None:
    async def main() -> None:
        dev = await Dev.start(tmp_path, "--processes", "2", "--matchmakers", "2")
        try:
            await dev.ready()
            assert dev.lines[0].startswith("redis redis://127.0.0.1:")
            assert sum(line.startswith("rooms process ") for line in dev.lines) == 2
            ports = dev.matchmaker_ports()
            assert len(ports) == 2
            players = []
            for port in ports:
                answer = await try_http(port, "POST", "/rooms/join-or-create", b'{"name":"table"}')
                assert not isinstance(answer, OSError) and answer[0] == 200, answer
                player = await Player.join(answer[1]["address"], answer[1]["token"])
                await asyncio.wait_for(player.admitted.wait(), DEADLINE)
                players.append(player)
            pids = dev.descendants()
            assert len(pids) == 5  # redis-server, two room processes, two matchmakers
            (folder,) = tmp_path.iterdir()  # redis-server's, under TMPDIR
            assert folder.name.startswith("gdvariant-rooms-")
            if how == "SIGTERM":
                dev.proc.send_signal(signal.SIGTERM)
            else:  # a terminal sends SIGINT to the whole foreground group
                os.killpg(dev.proc.pid, signal.SIGINT)
            assert await asyncio.wait_for(dev.proc.wait(), DEADLINE) == 0
            await eventually(lambda: all_gone(pids), "every process of the cluster ended")
            for player in players:
                await player.wait_closed()
            assert list(tmp_path.iterdir()) == []  # redis-server's folder removed
            assert "Traceback" not in await dev.stderr()
        finally:
            if dev.proc.returncode is None:
                os.killpg(dev.proc.pid, signal.SIGKILL)
                await dev.proc.wait()

    run(main())


@pytest.mark.slow
def test_a_child_that_dies_stops_the_cluster(tmp_path: Path, redis_url: str) -> None:
    async def main() -> None:
        dev = await Dev.start(tmp_path, "--processes", "2")
        try:
            await dev.ready()
            pids = dev.descendants()
            (victim,) = [pid for pid in pids if b"matchmaker" in cmdline(pid)]
            os.kill(victim, signal.SIGKILL)
            assert await asyncio.wait_for(dev.proc.wait(), DEADLINE) == 1
            await eventually(lambda: all_gone(pids), "the rest of the cluster ended")
        finally:
            if dev.proc.returncode is None:
                os.killpg(dev.proc.pid, signal.SIGKILL)
                await dev.proc.wait()

    run(main())


def test_no_redis_serves_one_process(tmp_path: Path) -> None:
    async def main() -> None:
        dev = await Dev.start(tmp_path, "--no-redis", "--processes", "1")
        try:
            assert dev.proc.stdout is not None
            while len(dev.lines) < 2:
                line = await asyncio.wait_for(dev.proc.stdout.readline(), DEADLINE)
                assert line, await dev.stderr()
                dev.lines.append(line.decode().strip())
            assert dev.descendants() == set()  # no child: no redis-server, no host process
            (port,) = dev.matchmaker_ports()
            answer = await try_http(port, "POST", "/rooms/join-or-create", b'{"name":"table"}')
            assert not isinstance(answer, OSError) and answer[0] == 200, answer
            dev.proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(dev.proc.wait(), DEADLINE) == 0
        finally:
            if dev.proc.returncode is None:
                dev.proc.kill()
                await dev.proc.wait()

    run(main())


def test_without_redis_server_it_says_what_to_do(tmp_path: Path) -> None:
    async def main() -> None:
        empty = tmp_path / "bin"
        empty.mkdir()
        dev = await Dev.start(tmp_path, path=str(empty))
        assert await asyncio.wait_for(dev.proc.wait(), DEADLINE) == 1
        message = await dev.stderr()
        assert message.startswith("gdvariant: redis-server is not on PATH"), message
        assert "--no-redis" in message and "Traceback" not in message

    run(main())


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (ClusterPlan((TABLE,), processes=0), "at least one room process"),
        (ClusterPlan((TABLE,), matchmakers=0), "at least one room process and one matchmaker"),
        (ClusterPlan((TABLE,), no_redis=True), "--no-redis serves one room process"),
        (ClusterPlan((TABLE,), processes=1, no_redis=True, redis="redis://x"), "--no-redis"),
        (ClusterPlan(("nope",)), "is \\[NAME=\\]module:Class"),
    ],
)
def test_a_plan_that_cannot_run_is_refused(plan: ClusterPlan, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        plan.check()
