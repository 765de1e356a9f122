"""Record SceneMultiplayer packets from a real Godot 4.6 into tests/vectors/multiplayer/.

Runs ``tests/engine/multiplayer`` as one headless server and two headless clients on the real
engine (see ``tests/engines.py``; install it with ``sudo bash tools/setup-engines.sh``), with a
recording WebSocket proxy between them (``tests/multiplayer_recorder.py``). The output holds
the engine version, every packet in order with its client and direction, and what each peer
printed.

With ``--api`` it records instead the API scene of ``tests/engine/multiplayer_client``
(``api.tscn``) served by a Godot 4.6 server playing its golden script to one Godot client:
what ``SceneMultiplayer`` must send byte for byte (``tests/test_multiplayer_api_golden.py``).

Usage: python tools/record_multiplayer_vectors.py [--api] [--out PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from engines import Engine, find_engine  # noqa: E402
from multiplayer_recorder import record_api_godot_server, record_session  # noqa: E402

DEFAULT_OUT = ROOT / "tests/vectors/multiplayer/session.json"
API_OUT = ROOT / "tests/vectors/multiplayer/api_server.json"
API_PROJECT = ROOT / "tests/engine/multiplayer_client"


def record_api(engine: Engine) -> dict[str, Any]:
    with engine.workdir() as (here, inside):
        for path in API_PROJECT.iterdir():
            (here / path.name).write_bytes(path.read_bytes())
        return asyncio.run(record_api_godot_server(engine, inside))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", action="store_true", help="record the API scene instead")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    engine, why = find_engine("4.6")
    if engine is None:
        raise SystemExit(why)
    result = record_api(engine) if args.api else record_session(engine)
    args.out = args.out or (API_OUT if args.api else DEFAULT_OUT)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{len(result['packets'])} packets from {result['godot']} -> {args.out}")


if __name__ == "__main__":
    main()
