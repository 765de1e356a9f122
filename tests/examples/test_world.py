"""The open world example (examples/world/): its rules (a shot tested where the target was
at the shooter's view tick; each client given only its area), its server and bots on ENet,
and a real headless Godot 4.6 client that joins, walks, sees entities come and go, fires
and gets its hit confirmed."""

from __future__ import annotations

import asyncio
import math
import shutil
import struct
import sys
from typing import Any

import pytest

import gdvariant as gd
from examples.world import bots
from examples.world.game import HIT_RADIUS, RATE, REWIND, SCHEMA, VIEW_RADIUS, Game
from examples.world.server import CLIENT, Server
from gdvariant.multiplayer.snapshots import receiver_script
from gdvariant.netsim import Conditions, UdpProxy
from gdvariant.replication import SnapshotDecoder, gdscript
from tests.support import processes
from tests.support.engines import Engine
from tests.support.multiplayer_recorder import run_godot
from tests.support.paths import ROOT

STEP = 5.0  # units a tick: the test target's speed, 100 units a second


def crossing_target(game: Game) -> tuple[Any, Any]:
    """A shooter at the origin and a wanderer 200 units east of it walking north at
    :data:`STEP` units a tick, starting 50 units south."""
    shooter = game.join("shooter", "Ayla", gd.Vector2(0, 0))
    target = game.add_wanderer(gd.Vector2(200, -50), gd.Vector2(0, STEP))
    return shooter, target


def test_a_shot_hits_where_the_target_was_at_the_view_tick_not_where_it_is() -> None:
    game = Game(wanderers=0, turn_chance=0.0)
    _, target = crossing_target(game)
    spawned = game.step()  # the target is at y = -45 at this tick
    for _ in range(10):
        game.step()
    now = game.world.tick
    assert now == spawned + 10
    seen_at = spawned + 4  # the shooter's screen was 6 ticks behind: the target at y = -25
    then = gd.Vector2(200, -45 + 4 * STEP)
    assert target.position == gd.Vector2(200, -45 + 10 * STEP)  # 30 units on: out of reach

    hit = game.fire("shooter", then, seen_at)
    assert hit is not None and hit.target == target.net_id
    assert (hit.view_tick, hit.world_tick, hit.then, hit.now) == (
        seen_at,
        now,
        then,
        target.position,
    )
    assert target.health == 90
    assert game.avatars["shooter"].score == 1

    # Aimed at where the target is now, with the same view tick: it was not there then.
    assert game.fire("shooter", target.position, seen_at) is None
    # The same aim tested at the present hits: the rewind is what made the difference.
    assert game.fire("shooter", target.position, now) is not None


def test_a_fractional_view_tick_is_interpolated_as_the_client_drew_it() -> None:
    game = Game(wanderers=0, turn_chance=0.0)
    crossing_target(game)
    spawned = game.step()
    for _ in range(10):
        game.step()
    halfway = gd.Vector2(200, -45 + 4.5 * STEP)  # between ticks spawned + 4 and + 5
    hit = game.fire("shooter", halfway, spawned + 4.5)
    assert hit is not None and hit.then == halfway
    # Not the neighbouring ticks: aimed at tick + 4's position off the side of the disc.
    beside = gd.Vector2(200, -45 + 4.5 * STEP + HIT_RADIUS + 1)
    assert game.fire("shooter", beside, spawned + 4.5) is None


def test_a_view_tick_is_checked_against_the_ticks_kept() -> None:
    game = Game(wanderers=0, turn_chance=0.0)
    crossing_target(game)
    for _ in range(REWIND + 10):
        game.step()
    now = game.world.tick
    assert game.view_tick(now + 100) == now  # from the future: the present
    assert game.view_tick(3) == now - REWIND  # older than the rewind allows: the oldest
    assert game.view_tick(math.nan) == now and game.view_tick(math.inf) == now
    assert game.view_tick(now - 2.5) == now - 2.5
    # A shot along no direction, or from a client without an avatar, hits nothing.
    assert game.fire("shooter", gd.Vector2(0, 0), now) is None
    assert game.fire("shooter", gd.Vector2(math.nan, 1), now) is None
    assert game.fire("nobody", gd.Vector2(1, 0), now) is None


def _near(position: gd.Vector2, centre: gd.Vector2) -> bool:
    return math.hypot(position.x - centre.x, position.y - centre.y) <= VIEW_RADIUS


def test_each_client_holds_only_the_entities_in_its_area() -> None:
    """Two clients walking through a world of 600 wanderers, their packets applied by
    decoders that ack every tick: at every tick each holds exactly its avatar and the
    bodies within the view radius of it, and things come into view and leave it."""
    game = Game(wanderers=600, seed=3)
    game.join("west", "Ayla", gd.Vector2(-800, 0))
    game.join("east", "Bruno", gd.Vector2(300, 0))
    game.steer("west", 1, 0)  # towards the east client, then past it
    game.steer("east", 0, 0.5)
    clients = ["west", "east"]
    decoders = {client: SnapshotDecoder(SCHEMA) for client in clients}
    held: dict[str, set[int]] = {client: set() for client in clients}
    came = dict.fromkeys(clients, 0)
    went = dict.fromkeys(clients, 0)
    met = False
    for _ in range(100):
        tick = game.step()
        for client, decoder in decoders.items():
            assert decoder.apply(game.encoder.packet_for(client)) == tick
            game.encoder.ack(client, tick)
            avatar = game.avatars[client].position
            want = {i for i, e in game.world.entities.items() if _near(e.position, avatar)}
            assert set(decoder.state) == want | {game.avatars[client].net_id}
            came[client] += len(want - held[client])
            went[client] += len(held[client] - want)
            held[client] = want
        met = met or game.avatars["east"].net_id in decoders["west"].state
        assert len(decoders["west"].state) < len(game.world.entities) // 4
    assert met  # the west client saw the east one once they were near
    assert min(came.values()) > 10 and min(went.values()) > 10, (came, went)


def test_the_client_project_s_generated_scripts_are_current() -> None:
    """The Godot project works when opened as it is: its decoder is the schema's own and
    its receiver the link's."""
    assert (CLIENT / "world_decoder.gd").read_text() == gdscript.generate(SCHEMA)
    assert (CLIENT / "snapshot_receiver.gd").read_text() == receiver_script()


@pytest.mark.slow
def test_python_bots_play_over_enet() -> None:
    """Two bots for two seconds: they get snapshots of their area only, and their moves
    arrive."""

    async def main() -> list[bots.BotStats]:
        server = Server(Game(wanderers=400, seed=5))
        port = await server.listen("127.0.0.1", 0)
        game = asyncio.create_task(server.run())
        try:
            return await asyncio.gather(*(bots.run_bot("127.0.0.1", port, 2.0, s) for s in (1, 2)))
        finally:
            game.cancel()
            await server.close()

    for stats in asyncio.run(asyncio.wait_for(main(), 30)):
        assert stats.applied > 0 and stats.refused == 0
        assert 0 < stats.most_seen < 400 // 4
        assert stats.avatar > 0 and stats.travelled > 0  # its moves steered it
        assert stats.shots >= 1  # one a second of its own steps, whatever the load


def test_the_command_refuses_bad_arguments_without_a_traceback() -> None:
    for bad in (["--bots", "-1"], ["--netsim", "1.5"]):
        proc = processes.run(
            [sys.executable, "-m", "examples.world", *bad],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
        assert proc.returncode == 2 and proc.stdout == "", proc.stdout
        assert "Traceback" not in proc.stderr and " error: " in proc.stderr, proc.stderr
    missing = "no-such-godot-binary"
    proc = processes.run(
        [sys.executable, "-m", "examples.world", "--godot-clients", "1", "--godot", missing],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and proc.stdout == "", proc.stdout
    assert proc.stderr.count("\n") == 1 and f"no Godot 4 binary {missing!r}" in proc.stderr


class _Watch:
    """The test's side of the live game: what each tick made relevant to the Godot client,
    and what the client reported holding."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.relevant: dict[int, set[int]] = {}
        self.avatar_at: list[gd.Vector2] = []
        self.reports: list[tuple[int, set[int]]] = []
        server.on_game_raw = self.raw

    def raw(self, _peer: int, data: bytes) -> None:
        if data[:1] == b"R":
            (tick,) = struct.unpack_from("<I", data, 1)
            self.reports.append((tick, set(gd.loads(data[5:]))))


@pytest.mark.slow
@pytest.mark.engine
def test_a_headless_godot_client_walks_sees_its_area_fires_and_is_confirmed(
    godot4: Engine,
) -> None:
    """The client (examples/world/client, as committed) behind a netsim proxy delaying
    every datagram 40 ms: it walks east from the middle of 800 wanderers, reports the ids it
    holds after each snapshot, and fires twice at the nearest wanderer it draws, with the
    render tick it drew it at."""

    async def play(inside: str) -> tuple[str, _Watch]:
        server = Server(Game(wanderers=800, seed=11, spawn=gd.Vector2(0, 0)))
        watch = _Watch(server)
        port = await server.listen("127.0.0.1", 0)
        proxy = UdpProxy(("127.0.0.1", port), Conditions(latency=0.04), seed=11)
        _, proxy_port = await proxy.listen("127.0.0.1", 0)
        args = ["127.0.0.1", str(proxy_port), "2", "report"]
        client = asyncio.create_task(run_godot(godot4, inside, args))
        try:
            for _ in range(RATE * 50):
                if client.done():
                    break
                tick = server.tick()
                peers = list(server.link.peers)
                if peers:
                    watch.relevant[tick] = server.game.interest.relevant(peers[0])
                    watch.avatar_at.append(server.game.avatars[peers[0]].position)
                await asyncio.sleep(1 / RATE)
            return await client, watch
        finally:
            if not client.done():
                client.cancel()
            await proxy.close()
            await server.close()

    with godot4.workdir() as (here, inside):
        shutil.copytree(CLIENT, here, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".godot"))
        out, watch = asyncio.run(play(inside))
    print(out)
    summary = next(line for line in out.splitlines() if line.startswith("applied "))
    counts = [int(word) for word in summary.replace(";", " ").split() if word.isdigit()]
    applied, _, appeared, left, hits, shots = counts
    assert applied > 20 and appeared > 10 and left > 0, summary
    assert watch.avatar_at[0].distance_to(watch.avatar_at[-1]) > 100  # its moves steered it
    assert shots == 2 and hits >= 1, summary
    assert out.count("hit confirmed: entity ") == hits
    # What the client held after each snapshot is exactly what was relevant at its tick.
    assert len(watch.reports) > 20  # the last few may be cut off when the client quits
    for tick, ids in watch.reports:
        assert ids == watch.relevant[tick], tick
    # Each hit was tested in the past: at the view tick the client sent, behind the world.
    game_hits = watch.server.game.hits
    assert len(game_hits) == hits
    assert all(hit.view_tick < hit.world_tick for hit in game_hits)
