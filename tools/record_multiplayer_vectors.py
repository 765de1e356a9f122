"""Record SceneMultiplayer packets from a real Godot 4.6 into tests/vectors/multiplayer/.

Runs ``tests/engine/multiplayer`` as one headless server and two headless clients on the real
engine (see ``tests/engines.py``; install it with ``sudo bash tools/setup-engines.sh``), with a
recording WebSocket proxy between them (``tests/multiplayer_recorder.py``). The output holds
the engine version, every packet in order with its client and direction, and what each peer
printed.

Usage: python tools/record_multiplayer_vectors.py [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from engines import find_engine  # noqa: E402
from multiplayer_recorder import record_session  # noqa: E402

DEFAULT_OUT = ROOT / "tests/vectors/multiplayer/session.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    engine, why = find_engine("4.6")
    if engine is None:
        raise SystemExit(why)
    result = record_session(engine)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{len(result['packets'])} packets from {result['godot']} -> {args.out}")


if __name__ == "__main__":
    main()
