"""Live: Godot 4.6 compiles GDScript sources with ``@rpc`` annotations of every shape
(tests/live/multiplayer/rpc_annotations.gd) and the RPC reader (gdvariant.multiplayer._rpc_config)
reads the same sources: both accept and refuse the same ones, and for those accepted, the
engine's ``get_rpc_config()`` holds the mode, sync, transfer mode and channel we read.
And a call whose one argument is an empty PackedByteArray: what a Godot 4.6 server sends
for it, and that a Godot 4.6 client gets ours with its argument (api.tscn of
tests/live/multiplayer/client). Skipped without engines; required in ``.ci/run``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from gdvariant import dumps
from gdvariant.multiplayer import (
    SceneMultiplayer,
    ScriptError,
    parse_rpc_annotations,
    read_script_rpcs,
    websocket,
)
from gdvariant.multiplayer.wire import RemoteCall, decode_scene_packet, encode_scene_packet
from tests.support.engines import Engine, run_oracle
from tests.support.multiplayer_api_scene import PROJECT, RPC
from tests.support.multiplayer_recorder import record_api_godot_server, run_godot
from tests.support.multiplayer_roles import copy_project

#: The engine's side: compiles each source and prints what ``get_rpc_config()`` holds.
COMPILER = Path(__file__).parent / "rpc_annotations.gd"

pytestmark = [pytest.mark.engine, pytest.mark.slow]

#: ``@rpc`` lines, each above ``func f(a = 1)`` in a script of its own: how many arguments,
#: of which types, in which order; words twice, unknown words; the channel's conversions.
ANNOTATIONS = [
    "@rpc",
    "@rpc()",
    '@rpc("any_peer")',
    '@rpc("authority", "call_remote", "reliable", 0)',
    '@rpc("any_peer", "call_local", "reliable", 2)',
    '@rpc("call_local", "unreliable_ordered", "any_peer", 0x10)',
    '@rpc("unreliable", "call_local")',
    '@rpc("any_peer",)',
    '@rpc("any_peer", "call_local", "reliable", 2,)',
    '@rpc(\n"any_peer",\n"call_local")',
    # an int is the 4th argument only; the first three are Strings
    '@rpc("reliable", "authority", 2)',
    '@rpc("unreliable", 2)',
    "@rpc(2)",
    "@rpc(1.5)",
    "@rpc(true)",
    "@rpc(null)",
    '@rpc("any_peer", "call_local", "reliable", "2")',
    '@rpc("any_peer", "call_local", "reliable", null)',
    '@rpc("any_peer", "call_local", "reliable", &"x")',
    '@rpc("any_peer", "call_local", "reliable", [1])',
    # at most 4 arguments, none empty
    '@rpc("any_peer", "call_local", "reliable", 2, 3)',
    '@rpc("a", "b", "c", "d", "e")',
    "@rpc(,)",
    '@rpc("any_peer",,)',
    '@rpc("any_peer",, "call_local")',
    '@rpc("any_peer" "call_local")',
    # each kind of word once, only these words, as written
    '@rpc("any_peer", "any_peer")',
    '@rpc("any_peer", "authority")',
    '@rpc("call_local", "call_remote")',
    '@rpc("reliable", "unreliable")',
    '@rpc("reliable", "reliable", "reliable", 1)',
    '@rpc("foo")',
    '@rpc("foo", "bar")',
    '@rpc("")',
    '@rpc("ANY_PEER")',
    '@rpc("any_peer", "", "reliable")',
    # string forms: quotes, StringName, NodePath, raw, escapes
    "@rpc('any_peer')",
    '@rpc("""any_peer""")',
    "@rpc('''any_peer''')",
    '@rpc("""any_peer\n""")',
    '@rpc(&"any_peer", ^"call_local", r"reliable")',
    '@rpc("any_pe\\u0065r")',
    '@rpc("any_pe\\U000065r")',
    '@rpc("any\\_peer")',
    '@rpc(r"any\\_peer")',
    # the channel: int literals, floats toward zero, bools, 32 bits kept
    '@rpc("any_peer", "call_local", "reliable", 1_000)',
    '@rpc("any_peer", "call_local", "reliable", 0b11)',
    '@rpc("any_peer", "call_local", "reliable", 0X10)',
    '@rpc("any_peer", "call_local", "reliable", 0x_1)',
    '@rpc("any_peer", "call_local", "reliable", 1__0)',
    '@rpc("any_peer", "call_local", "reliable", 1.7)',
    '@rpc("any_peer", "call_local", "reliable", -1.7)',
    '@rpc("any_peer", "call_local", "reliable", 1.)',
    '@rpc("any_peer", "call_local", "reliable", .5)',
    '@rpc("any_peer", "call_local", "reliable", 1e2)',
    '@rpc("any_peer", "call_local", "reliable", 1e1_0)',
    '@rpc("any_peer", "call_local", "reliable", 2.5e9)',
    '@rpc("any_peer", "call_local", "reliable", 9.2e18)',
    '@rpc("any_peer", "call_local", "reliable", 9.3e18)',
    '@rpc("any_peer", "call_local", "reliable", 1e400)',
    '@rpc("any_peer", "call_local", "reliable", true)',
    '@rpc("any_peer", "call_local", "reliable", false)',
    '@rpc("any_peer", "call_local", "unreliable", 9999999999)',
    '@rpc("any_peer", "call_local", "reliable", 2147483648)',
    '@rpc("any_peer", "call_local", "reliable", -2147483649)',
    '@rpc("any_peer", "call_local", "reliable", 9223372036854775807)',
    # constant expressions the reader follows: signs, brackets, PI, TAU, INF, NAN
    '@rpc("any_peer", "call_local", "reliable", -3)',
    '@rpc("any_peer", "call_local", "reliable", - 2)',
    '@rpc("any_peer", "call_local", "reliable", +-+2)',
    '@rpc("any_peer", "call_local", "reliable", -(2))',
    '@rpc("any_peer", "call_local", "reliable", (2))',
    '@rpc(("any_peer"))',
    '@rpc("any_peer", "call_local", "reliable", -true)',
    '@rpc("any_peer", "call_local", "reliable", PI)',
    '@rpc("any_peer", "call_local", "reliable", TAU)',
    '@rpc("any_peer", "call_local", "reliable", -INF)',
    '@rpc("any_peer", "call_local", "reliable", NAN)',
    # one annotation per function
    '@rpc("call_local") @rpc("any_peer")',
    '@rpc\n@rpc("any_peer")',
]

#: Whole scripts: what an ``@rpc`` may stand on, inner classes, the script's constants.
SCRIPTS = [
    "@rpc\nstatic func f():\n\tpass\n",
    "@rpc\nfunc _init():\n\tpass\n",
    "@abstract\nextends Node\n@rpc\n@abstract func f()\n",
    '@rpc("any_peer") func f(): pass\n',
    '@rpc("any_peer")\n\n# a comment\nfunc f(): pass\n',
    '@rpc("any_peer")\n@warning_ignore("unused_parameter")\nfunc f(x): pass\n',
    '@rpc("any_peer")\nfunc f(a, b = 1, ...c): pass\n',
    "var l = func():\n\tpass\n@rpc\nfunc f(): pass\n",
    "class_name RpcProbe extends Node\n@rpc\nfunc f(): pass\n",
    "@rpc\nvar x = 1\n",
    "@rpc\nstatic var x = 1\n",
    "@rpc\nsignal s\n",
    "@rpc\nconst K = 1\n",
    "@rpc\nclass Inner:\n\tfunc f():\n\t\tpass\n",
    "@rpc\nenum E {A}\n",
    "@rpc\nclass_name Foo\n",
    '@rpc\n("any_peer")\nfunc f(): pass\n',
    "func g():\n\tpass\n@rpc\n",
    "func g():\n\t@rpc\n\tvar x = 1\n",
    "@rpc\nfunc f(): pass\nfunc f(): pass\n",
    "func f(): pass\n@rpc\nstatic func f(): pass\n",
    '@rpc("any_peer")\nfunc f(): pass\n@rpc("authority")\nfunc f(): pass\n',
    # an inner class's @rpc is not the script's, but Godot checks it all the same
    'class Inner:\n\t@rpc("any_peer")\n\tfunc f():\n\t\tpass\n',
    "class Inner:\n\t@rpc(2)\n\tfunc f():\n\t\tpass\n",
    'class Inner:\n\t@rpc("any_peer", "any_peer")\n\tfunc f():\n\t\tpass\n',
    "class Inner:\n\t@rpc\n\tvar x = 1\n",
    'class Inner:\n\tconst C = 2\n\t@rpc("any_peer", "call_local", "reliable", C)\n'
    "\tfunc f():\n\t\tpass\n",
    # the script's own constants, before or after the annotation, typed or not
    'const M = "any_peer"\nconst C = 5\n@rpc(M, "call_local", "reliable", C)\nfunc f():\n\tpass\n',
    '@rpc("any_peer", "call_local", "reliable", C)\nfunc f():\n\tpass\nconst C = 7\n',
    'const A = 2\nconst B = -A\n@rpc("any_peer", "call_local", "reliable", B)\nfunc f(): pass\n',
    'const C: float = 2.9\n@rpc("any_peer", "call_local", "reliable", C)\nfunc f(): pass\n',
    'const C := &"any_peer"\n@rpc(C)\nfunc f():\n\tpass\n',
    "const C = 3\n@rpc(C)\nfunc f():\n\tpass\n",
    'var V = 3\n@rpc("any_peer", "call_local", "reliable", V)\nfunc f():\n\tpass\n',
]

#: Accepted by Godot 4.6, refused by the reader with what to do instead: constant
#: expressions beyond literals and the script's constants, and ints beyond 64 bits (Godot
#: reports those and goes on with a value of its own).
BEYOND = {
    '@rpc("any_" + "peer")\nfunc f(): pass\n': "all the reader evaluates",
    '@rpc("any_peer", "call_local", "reliable", 1 + 2)\nfunc f(): pass\n': "all the reader",
    '@rpc("any_peer", "call_local", "reliable", 1 if true else 2)\nfunc f(): pass\n': "all the",
    'enum {CH = 3}\n@rpc("any_peer", "call_local", "reliable", CH)\nfunc f(): pass\n': "all",
    '@rpc("any_peer", "call_local", "reliable", 99999999999999999999)\nfunc f(): pass\n': "64",
}


def annotated(annotation: str) -> str:
    """A script of ``annotation`` on a function."""
    return script(f"{annotation}\nfunc f(a = 1):\n\tpass\n")


def script(body: str) -> str:
    """A script of ``body`` (a Node's, unless it says what it extends)."""
    return body if body.startswith(("class_name", "@abstract")) else "extends Node\n" + body


def godot_verdicts(engine: Engine, sources: list[str]) -> list[dict[str, Any]]:
    args = ["{inside}/in.json", "{inside}/out.jsonl"]
    results = run_oracle(engine, COMPILER, args, {"in.json": json.dumps(sources)})
    assert len(results) == len(sources)
    return results


def our_verdict(source: str) -> dict[str, Any]:
    """What the reader makes of ``source``, as rpc_annotations.gd prints the engine's."""
    try:
        found, _ = parse_rpc_annotations(source)
    except ScriptError:
        return {"ok": False, "config": {}}
    config = {
        name: {
            "rpc_mode": int(c.mode),
            "transfer_mode": int(c.transfer_mode),
            "call_local": c.call_local,
            "channel": c.channel,
        }
        for name, c in found.items()
    }
    return {"ok": True, "config": config}


def with_defaults(result: dict[str, Any]) -> dict[str, Any]:
    """Godot 4.6 lists ``transfer_mode``, ``call_local`` and ``channel`` only when the
    annotation names them: its defaults filled in."""
    defaults = {"transfer_mode": 2, "call_local": False, "channel": 0}
    config = {name: defaults | entry for name, entry in result["config"].items()}
    return {"ok": result["ok"], "config": config}


def test_the_reader_accepts_and_refuses_what_godot_does(godot4: Engine) -> None:
    sources = [annotated(case) for case in ANNOTATIONS] + [script(case) for case in SCRIPTS]
    godot = godot_verdicts(godot4, sources)
    differ = [
        (source, with_defaults(engine), our_verdict(source))
        for source, engine in zip(sources, godot, strict=True)
        if with_defaults(engine) != our_verdict(source)
    ]
    assert not differ, "\n".join(f"{s!r}: Godot {g}, ours {o}" for s, g, o in differ)
    accepted = sum(result["ok"] for result in godot)
    assert accepted >= 40 and len(godot) - accepted >= 40  # both verdicts well covered


def test_what_godot_takes_beyond_the_reader_is_refused_saying_so(godot4: Engine) -> None:
    sources = [script(case) for case in BEYOND]
    verdicts = godot_verdicts(godot4, sources)
    for source, engine, says in zip(sources, verdicts, BEYOND.values(), strict=True):
        assert engine["ok"], source
        with pytest.raises(ScriptError, match=says):
            parse_rpc_annotations(source)


def test_godot_sends_one_empty_packed_byte_array_as_a_call_of_none(godot4: Engine) -> None:
    """A Godot 4.6 server's ``r1.rpc_id(id, PackedByteArray())`` (api.gd ``_play_bytes``,
    recorded between it and a Godot client): the raw form with no bytes, which is the call
    with no arguments byte for byte, and its client does not run ``r1(a)`` for it (the
    call with ``PackedByteArray([5])`` after it runs)."""
    with godot4.workdir() as (here, inside):
        copy_project(here)
        recording = asyncio.run(record_api_godot_server(godot4, inside, "bytes"))
    r1 = read_script_rpcs(PROJECT, "res://api_rpc.gd").ids["r1"]
    sent = [bytes.fromhex(p["hex"]) for p in recording["packets"] if p["dir"] == "s2c"][1:]
    calls = [(data, decode_scene_packet(data)) for data in sent]
    to_r1 = [(data, call) for data, call in calls if getattr(call, "method_id", None) == r1]
    assert [call.args for _, call in to_r1] == [(), (b"\5",)]  # type: ignore[union-attr]
    data, call = to_r1[0]
    assert data == encode_scene_packet(RemoteCall(r1, (), path=call.path))  # type: ignore[union-attr]
    assert data != encode_scene_packet(RemoteCall(r1, (b"",), path=call.path))  # type: ignore[union-attr]
    got = [line for line in recording["log"] if line.startswith("RPC r1 ")]
    assert got == ["RPC r1 " + dumps([b"\5"]).hex()]


async def our_bytes_calls(engine: Engine, inside: str) -> tuple[list[str], list[Any], list[str]]:
    """Our server calls ``r1`` of a Godot client (api.tscn) with one empty PackedByteArray,
    then with one byte; the client's log, and the echoes that reached our handler and those
    refused."""
    joined: asyncio.Queue[int] = asyncio.Queue()
    echoes: list[tuple[Any, ...]] = []
    refused: list[str] = []

    def auth(peer: int, data: bytes) -> None:
        server.send_auth(peer, b"welcome")
        server.complete_auth(peer)

    server = websocket.MultiplayerServer(auth_callback=auth)
    mp = SceneMultiplayer(server, project=PROJECT)
    mp.node(RPC, script="res://api_rpc.gd")
    mp.on_rpc(RPC, "r1", lambda peer, *args: echoes.append(args))
    mp.peer_connected.connect(joined.put_nowait)
    mp.packet_refused.connect(lambda peer, why: refused.append(why))
    port = await server.listen("127.0.0.1", 0)
    url = f"ws://127.0.0.1:{port}"
    client = asyncio.create_task(run_godot(engine, inside, [url, "20"], scene="res://api.tscn"))
    try:
        peer = await asyncio.wait_for(joined.get(), 20)
        mp.rpc(peer, RPC, "r1", b"")
        mp.rpc(peer, RPC, "r1", b"\5")
        async with asyncio.timeout(20):
            while not echoes:  # the echo of the empty one came first (reliable, in order)
                await asyncio.sleep(0.01)
            while not client.done():
                mp.rpc(0, RPC, "finish")
                await asyncio.wait({client}, timeout=1)
        log = await client
    finally:
        await server.close()
    return log.splitlines(), echoes, refused


def test_a_godot_client_gets_our_one_empty_packed_byte_array(godot4: Engine) -> None:
    """Ours goes in the general form (argc 1), so the Godot client runs ``r1`` with the empty
    array; its echo comes back in Godot's raw form, a call with no arguments, which our
    server refuses as a Godot server would, saying what it may have been."""
    with godot4.workdir() as (here, inside):
        copy_project(here)
        log, echoes, refused = asyncio.run(our_bytes_calls(godot4, inside))
    got = [line for line in log if line.startswith("RPC r1 ")]
    assert got == ["RPC r1 " + dumps([b""]).hex(), "RPC r1 " + dumps([b"\5"]).hex()]
    assert echoes == [(b"\5",)]
    empty = [why for why in refused if "r1() takes 1 arguments, 0 given" in why]
    assert len(empty) == 1 and "one empty PackedByteArray" in empty[0], refused
