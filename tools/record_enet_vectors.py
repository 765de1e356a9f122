"""Record what a real Godot 4.6 ENet server sends into tests/vectors/multiplayer/.

Runs ``tests/engine/multiplayer`` as a headless ENetMultiplayerPeer server on the real engine
(see ``tests/engines.py``; install it with ``sudo bash tools/setup-engines.sh``) and joins it
with a bare ENet client (``tests/enet_recorder.py``). The output holds the engine version,
the client's peer id, every packet the server sent with its ENet channel and flags, and what
the server printed.

Usage: python tools/record_enet_vectors.py [--out PATH] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from enet_recorder import record_enet_server  # noqa: E402
from engines import find_engine  # noqa: E402

DEFAULT_OUT = ROOT / "tests/vectors/multiplayer/enet_server.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=14, help="picks the client's peer id")
    args = parser.parse_args()
    engine, why = find_engine("4.6")
    if engine is None:
        raise SystemExit(why)
    result = record_enet_server(engine, args.seed)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{len(result['packets'])} packets from {result['godot']} -> {args.out}")


if __name__ == "__main__":
    main()
