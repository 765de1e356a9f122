"""Live: a stock Godot 4.6 client (tests/engine/multiplayer_client, scene api.tscn) plays
against SceneMultiplayer on our WebSocket server: RPCs both ways with 0-8 random Variant
arguments, reliable and unreliable; two calls the server must refuse; a spawn whose state
the client reads in ``_ready``; 1,000 rounds of a full SYNC and a delta whose values the
client must hold exactly; a despawn. Skipped without engines; required in ``.ci/run``.
"""

from __future__ import annotations

import asyncio
import json
import random
import struct
from collections.abc import Callable
from typing import Any

import pytest
from engines import SEED, Engine
from multiplayer_api_scene import (
    ENTITY,
    PLAYER,
    PLAYER_FINAL,
    PROJECT,
    RPC,
    golden_script,
    golden_view,
)
from multiplayer_recorder import free_port, record_api, record_api_godot_server, run_godot
from random_values import LEAVES, random_value

from gdvariant import TypedArray, VariantType, Vector2, dumps
from gdvariant.multiplayer import SceneMultiplayer, SpawnedNode, read_script_rpcs
from gdvariant.multiplayer.websocket import MultiplayerServer

pytestmark = pytest.mark.engine

CALLS = 60
ROUNDS = 1000
CHECK_EVERY = 100  # rounds between checkpoints, so the client's queue never fills


def f32(rng: random.Random) -> float:
    return float(struct.unpack("<f", struct.pack("<f", rng.uniform(-1e4, 1e4)))[0])


def covering_calls(rng: random.Random) -> list[tuple[Any, ...]]:
    """Argument lists that together hold a value of every Variant type but Object, every
    width of the compressed INT and both compressed BOOLs, shuffled, up to 8 per call."""
    values = [LEAVES[maker](rng) for maker in LEAVES]
    values += [True, False, -5, 300, -70000, 2**40, [1, "a"], {"k": 1}]
    values.append(TypedArray(VariantType.INT, [1, 2]))
    rng.shuffle(values)
    calls = [tuple(values[i : i + 8]) for i in range(0, len(values), 8)]
    return [(*call, 0) if call == (b"",) else call for call in calls]


def random_args(rng: random.Random, count: int) -> tuple[Any, ...]:
    """``count`` random values of every type the compressed form has; one lone empty
    PackedByteArray is avoided (Godot receives it as no argument at all)."""
    while True:
        args = tuple(random_value(rng) for _ in range(count))
        if args != (b"",):
            return args


def argument_counts(rng: random.Random, calls: int) -> list[int]:
    """How many arguments each of ``calls`` random calls takes: every count from 0 to 8 at
    least once (left to chance, about one seed in 60 missed one), the rest random."""
    counts = list(range(9)) + [rng.randint(0, 8) for _ in range(calls - 9)]
    rng.shuffle(counts)
    return counts


def new_label(rng: random.Random, old: str) -> str:
    while (label := "".join(rng.choice("abcé☃") for _ in range(rng.randint(0, 12)))) == old:
        pass
    return label


class Game:
    """Our side: the API on a MultiplayerServer, and what arrived."""

    def __init__(self, reply: bytes = b"welcome", auth_timeout: float = 3.0) -> None:
        self.reply = reply
        self.server = MultiplayerServer(
            auth_callback=self.auth, auth_timeout=auth_timeout, ids=random.Random(SEED)
        )
        self.mp = SceneMultiplayer(self.server, project=PROJECT)
        self.mp.node(RPC, script="res://api_rpc.gd", node_rpcs=["hey"])
        self.spawner = self.mp.add_spawner("Api/Spawner", "Api/Entities", [ENTITY, PLAYER])
        self.inputs: list[dict[str, Any]] = []
        self.mp.synchronized.connect(lambda node, changed: self.inputs.append(changed))
        self.pokes: list[tuple[str, int, int]] = []
        self.spawner.on_rpc(ENTITY.path, "poke", self.poked)
        self.echoes: list[tuple[int, str, tuple[Any, ...]]] = []
        self.refused: list[tuple[int, str]] = []
        self.checkpoints: asyncio.Queue[int] = asyncio.Queue()
        self.joined: asyncio.Queue[int] = asyncio.Queue()
        for prefix in "ru":
            for count in range(9):
                method = f"{prefix}{count}"
                self.mp.on_rpc(RPC, method, self.echo(method))
        self.mp.on_rpc(RPC, "checkpoint", lambda peer, n: self.checkpoints.put_nowait(n))
        self.mp.peer_connected.connect(self.joined.put_nowait)
        self.mp.packet_refused.connect(lambda peer, why: self.refused.append((peer, why)))

    def auth(self, peer: int, data: bytes) -> None:
        if data != b"letmein":
            self.server.disconnect_peer(peer)
            return
        self.server.send_auth(peer, self.reply)
        self.server.complete_auth(peer)

    def poked(self, node: SpawnedNode, peer: int, n: int) -> None:
        self.pokes.append((node.path, peer, n))

    def echo(self, method: str) -> Any:
        return lambda peer, *args: self.echoes.append((peer, method, args))

    async def checkpoint(self, peer: int, number: int) -> None:
        self.mp.rpc(peer, RPC, "checkpoint", number)
        assert await asyncio.wait_for(self.checkpoints.get(), 20) == number


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(20):
        while not condition():
            await asyncio.sleep(0.01)


async def play(engine: Engine, inside: str, rng: random.Random) -> dict[str, Any]:
    game = Game()
    port = await game.server.listen("127.0.0.1", free_port())
    client = asyncio.create_task(
        run_godot(engine, inside, [f"ws://127.0.0.1:{port}", "60"], scene="res://api.tscn")
    )
    expected: dict[str, Any] = {"calls": [], "sync": [], "delta": []}
    try:
        peer = await asyncio.wait_for(game.joined.get(), 20)
        expected["peer"] = peer
        covering = covering_calls(rng)
        counts = argument_counts(rng, CALLS - len(covering))
        for number in range(CALLS):
            args = covering[number] if number < len(covering) else random_args(rng, counts.pop())
            method = f"{rng.choice('ru')}{len(args)}"
            game.mp.rpc(peer, RPC, method, *args)
            expected["calls"].append((method, args))
        game.mp.rpc(peer, RPC, "hey")  # the node-level RPC (rpc_config in api.gd)
        await game.checkpoint(peer, 0)
        expected["checksum_valid"] = game.mp.send_cache.checksum_valid(peer, RPC)
        values = {"position": Vector2(f32(rng), f32(rng)), "spin": rng.random(), "hp": 100}
        values["label"] = "hello"
        node = game.spawner.spawn("res://api_entity.tscn", "E1", values)
        expected["ready"] = [values["position"], values["spin"], values["hp"], values["label"]]
        game.mp.rpc(peer, node.path, "poke", 41)
        state = node.state
        for number in range(1, ROUNDS + 1):
            state.position = Vector2(f32(rng), f32(rng))
            state.spin = rng.uniform(-1e6, 1e6)
            if number == 1 or rng.random() < 0.5:
                state.hp = rng.randint(-(2**31), 2**31 - 1)
            else:
                state.label = new_label(rng, state.label)
            game.mp.sync()
            expected["sync"].append([state.position, state.spin])
            expected["delta"].append([state.hp, state.label])
            if number % CHECK_EVERY == 0:
                await game.checkpoint(peer, number)
        game.spawner.despawn(node)
        # A player the client owns: its synchronizer's values come from the client.
        player = game.spawner.spawn(PLAYER.path, str(peer), owner=peer)
        await until(lambda: player.owned_values == PLAYER_FINAL)
        game.spawner.despawn(player)
        game.mp.rpc(0, RPC, "finish")
        log = await client
    finally:
        await game.server.close()
    return {"log": log.splitlines(), "game": game, "expected": expected}


def hex_of(values: list[Any]) -> str:
    return dumps(values).hex()


def test_godot_client_plays_against_scene_multiplayer(godot4: Engine) -> None:
    print(f"SEED={SEED}")
    with godot4.workdir() as (here, inside):
        for path in PROJECT.iterdir():
            (here / path.name).write_bytes(path.read_bytes())
        result = asyncio.run(play(godot4, inside, random.Random(SEED)))
    log, game, expected = result["log"], result["game"], result["expected"]
    peer = expected["peer"]
    assert f"ID {peer}" in log and "AUTH welcome" in log

    # Godot's own view of the RPC node's script (with its base) is what we read from it.
    line = next(line for line in log if line.startswith("RPC_CONFIG "))
    # Godot 4.6 lists these only when the annotation names them.
    defaults = {"transfer_mode": 2, "call_local": False, "channel": 0}
    godot = {
        name: defaults | config
        for name, config in json.loads(line.removeprefix("RPC_CONFIG ")).items()
    }
    ours = read_script_rpcs(PROJECT, "res://api_rpc.gd").configs
    assert godot == {
        name: {
            "rpc_mode": c.mode,
            "transfer_mode": c.transfer_mode,
            "call_local": c.call_local,
            "channel": c.channel,
        }
        for name, c in ours.items()
    }

    # The client found our checksum of the RPC node (node-level name included) valid, and
    # the node-level RPC, numbered before the script's with 0x8000, ran.
    assert expected["checksum_valid"] is True
    assert "HEY" in log

    # RPCs server -> client: the client got each call's arguments, byte for byte.
    calls = expected["calls"]
    got = [line.split(" ")[1:] for line in log if line.startswith("RPC ")]
    assert got == [[method, hex_of(list(args))] for method, args in calls]
    # ... and client -> server: its echoes reached our handlers with the same values.
    echoed = [(method, dumps(list(args))) for _, method, args in game.echoes]
    assert echoed == [(method, dumps(list(args))) for method, args in calls]
    assert {p for p, _, _ in game.echoes} == {peer}
    assert {len(args) for _, args in calls} == set(range(9))
    sent_types = {dumps(arg)[0] for _, args in calls for arg in args}
    assert sent_types == set(range(VariantType.PACKED_VECTOR4_ARRAY + 1)) - {VariantType.OBJECT}
    # The two calls the client may not make were refused, and nothing else was.
    assert len(game.refused) == 2, game.refused
    assert "authority_only" in game.refused[0][1] and "AUTHORITY" in game.refused[0][1]
    assert "r2() takes 2 arguments, 1 given" in game.refused[1][1]

    # Spawn: the state was set before _ready.
    assert "SPAWNED E1" in log
    assert f"READY E1 {hex_of(expected['ready'])}" in log
    # 1,000 full syncs and 1,000 deltas, each holding what the server sent, in order.
    syncs = [line.split(" ")[2] for line in log if line.startswith("SYNC E1 ")]
    deltas = [line.split(" ")[2] for line in log if line.startswith("DELTA E1 ")]
    assert syncs == [hex_of(v) for v in expected["sync"]]
    assert deltas == [hex_of(v) for v in expected["delta"]]
    assert len(syncs) == len(deltas) == ROUNDS
    # A call on the spawned node, answered by its script.
    assert "POKE E1 41" in log and game.pokes == [("Api/Entities/E1", peer, 42)]
    # The owned player: the client's last input reached us, and every value on the way was
    # one the client set (aim (i, -i) with i rising; presses rising).
    aims = [changed["aim"] for changed in game.inputs if "aim" in changed]
    assert len(aims) >= 20  # Godot 4.6.3 sent 39 full syncs and 14 deltas here
    assert aims == sorted(aims, key=lambda v: v.x) and aims[-1] == PLAYER_FINAL["aim"]
    assert all(v == Vector2(v.x, -v.x) and v.x == int(v.x) for v in aims)
    presses = [changed["presses"] for changed in game.inputs if "presses" in changed]
    assert presses == sorted(presses) and presses[-1] == PLAYER_FINAL["presses"]
    done = f"INPUT_DONE {hex_of([PLAYER_FINAL['aim'], PLAYER_FINAL['presses']])}"
    assert done in log and f"DESPAWNED {peer}" in log
    # Despawn, then the last call.
    assert log.index("DESPAWNED E1") < log.index("FINISH")


async def our_golden_server(engine: Engine, inside: str) -> dict[str, Any]:
    """Our server plays the golden script for a Godot client, recorded like Godot's."""
    game = Game(reply=b"letmein")  # what api.gd's server sends
    port = await game.server.listen("127.0.0.1", free_port())

    async def script() -> None:
        peer = await game.joined.get()

        async def wait(step: str) -> None:
            if step == "confirmed":
                await until(lambda: game.mp.send_cache.is_confirmed(peer, RPC))
            else:
                await until(lambda: bool(game.pokes))

        await golden_script(game.mp, game.spawner, peer, wait)

    player = asyncio.create_task(script())
    try:
        recording = await record_api(engine, inside, port)
        await player
    finally:
        await game.server.close()
    return recording


def without_repeats(lines: list[str]) -> list[str]:
    """Godot syncs every frame, we once per change: repeated SYNC lines say nothing new."""
    return [line for i, line in enumerate(lines) if i == 0 or line != lines[i - 1]]


def test_our_server_sends_what_a_godot_server_sends(godot4: Engine) -> None:
    """The same script played by a Godot 4.6 server (api.gd) and by ours, each for a Godot
    client behind the recording proxy: the packets are equal byte for byte."""
    with godot4.workdir() as (here, inside):
        for path in PROJECT.iterdir():
            (here / path.name).write_bytes(path.read_bytes())
        godot = asyncio.run(record_api_godot_server(godot4, inside))
        ours = asyncio.run(our_golden_server(godot4, inside))
    expected, got = golden_view(godot["packets"]), golden_view(ours["packets"])
    assert got == expected
    assert len(expected["ordered"]) == 16 and len(expected["syncs"]) == 2
    # The client saw the same game both times (the same state after every change).
    for kind in ("RPC ", "READY ", "SYNC ", "DELTA ", "POKE ", "SPAWNED", "DESPAWNED", "FINISH"):
        seen = [[line for line in r["log"] if line.startswith(kind)] for r in (godot, ours)]
        assert without_repeats(seen[0]) == without_repeats(seen[1]), kind
        assert seen[0]


async def silent_client(engine: Engine, inside: str) -> tuple[Game, list[int], str]:
    game = Game(auth_timeout=0.5)
    events: list[int] = []
    game.mp.peer_authenticating.connect(events.append)
    game.mp.peer_authentication_failed.connect(lambda peer: events.append(-peer))
    port = await game.server.listen("127.0.0.1", free_port())
    try:
        url = f"ws://127.0.0.1:{port}"
        log = await run_godot(engine, inside, [url, "20", "silent"], scene="res://api.tscn")
    finally:
        await game.server.close()
    return game, events, log


def test_a_godot_client_that_never_authenticates_times_out(godot4: Engine) -> None:
    """``auth_timeout``: a client that sends no auth data is failed and closed; both sides
    see ``peer_authentication_failed``, and it never becomes a peer (about 1 s)."""
    with godot4.workdir() as (here, inside):
        for path in PROJECT.iterdir():
            (here / path.name).write_bytes(path.read_bytes())
        game, events, log = asyncio.run(silent_client(godot4, inside))
    assert len(events) == 2 and events[1] == -events[0]  # authenticating, then failed
    assert "AUTHENTICATING 1" in log.splitlines()
    # Godot 4.6 signals both, in this order, when the server closes it while authenticating.
    assert log.splitlines()[-2:] == ["AUTH_FAILED", "SERVER_DISCONNECTED"], log
    assert game.joined.empty() and not any(line.startswith("ID ") for line in log.splitlines())
