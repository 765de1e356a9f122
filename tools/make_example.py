"""Regenerate examples/savegame.bin with the real Godot 4.6 engine (tools/setup-engines.sh)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from engines import find_engine  # noqa: E402


def main() -> int:
    engine, why = find_engine("4.6")
    if engine is None:
        print(why, file=sys.stderr)
        return 1
    with engine.workdir() as (here, inside):
        shutil.copy(ROOT / "examples" / "make_savegame.gd", here)
        engine.run("make_savegame.gd", [f"{inside}/savegame.bin"], cwd=(here, inside))
        shutil.copy(here / "savegame.bin", ROOT / "examples" / "savegame.bin")
    print(f"wrote examples/savegame.bin with Godot {engine.version()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
