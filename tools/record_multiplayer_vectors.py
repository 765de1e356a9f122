"""Record SceneMultiplayer packets from a real Godot 4.6 into tests/vectors/multiplayer/.

Runs ``tests/live/multiplayer/game`` as one headless server and two headless clients on the real
engine (see ``tests/support/engines.py``; install it with ``sudo bash tools/setup-engines.sh``),
with a recording WebSocket proxy between them (``tests/support/multiplayer_recorder.py``). The
output holds the engine version, every packet in order with its client and direction, and what
each peer printed. With ``--enet`` the project runs as an ENetMultiplayerPeer server instead,
joined by a bare ENet client (``tests/support/enet_recorder.py``): every packet the server sent,
with its ENet channel and flags, into enet_server.json.

With ``--api`` it records instead the API scene of ``tests/live/multiplayer/client``
(``api.tscn``) served by a Godot 4.6 server playing its golden script to one Godot client:
what ``SceneMultiplayer`` must send byte for byte (``tests/multiplayer/test_api_golden.py``).
With ``--visibility`` the same scene plays its visibility and custom-spawn script
(``api.gd`` ``_play_visibility``) into api_visibility.json.

Usage: python -m tools.record_multiplayer_vectors [--enet | --api | --visibility] [--out PATH]
       (from the repository root)
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from tests.support.enet_recorder import record_enet_server
from tests.support.engines import Engine, find_engine
from tests.support.multiplayer_api_scene import PROJECT as API_PROJECT
from tests.support.multiplayer_recorder import record_api_godot_server, record_session
from tests.support.paths import VECTORS as ALL_VECTORS

VECTORS = ALL_VECTORS / "multiplayer"
#: Picks the peer id of the ENet recording's client.
ENET_SEED = 14


def record_api(engine: Engine, script: str = "calls") -> dict[str, Any]:
    with engine.workdir() as (here, inside):
        for path in API_PROJECT.iterdir():
            (here / path.name).write_bytes(path.read_bytes())
        return asyncio.run(record_api_godot_server(engine, inside, script))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--enet", action="store_true", help="record a Godot ENet server")
    kind.add_argument("--api", action="store_true", help="record the API scene instead")
    kind.add_argument(
        "--visibility", action="store_true", help="record the API scene's visibility script"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    engine, why = find_engine("4.6")
    if engine is None:
        raise SystemExit(why)
    if args.enet:
        result = record_enet_server(engine, ENET_SEED)
        out = args.out or VECTORS / "enet_server.json"
    elif args.api:
        result = record_api(engine)
        out = args.out or VECTORS / "api_server.json"
    elif args.visibility:
        result = record_api(engine, "visibility")
        out = args.out or VECTORS / "api_visibility.json"
    else:
        result = record_session(engine)
        out = args.out or VECTORS / "session.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{len(result['packets'])} packets from {result['godot']} -> {out}")


if __name__ == "__main__":
    main()
