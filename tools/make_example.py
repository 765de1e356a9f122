"""Regenerate the files in examples/ with the real engines (tools/setup-engines.sh).

Each file is written by its GDScript (examples/make_*.gd) running in the engine named here:
savegame.bin (var_to_bytes), capture.bin (put_var frames), user_save.dat (an encrypted save)
with Godot 4.6, and godot3_save.sav (store_var records) with Godot 3.6. The README's and
``--help``'s command-line examples read them (tests/docs/test_cli_examples.py).

Usage: python -m tools.make_example [NAME...]   (from the repository root)
"""

from __future__ import annotations

import shutil
import sys

from tests.support.engines import find_engine
from tests.support.paths import EXAMPLES as FOLDER

#: output file -> (engine, script)
EXAMPLES = {
    "savegame.bin": ("4.6", "make_savegame.gd"),
    "capture.bin": ("4.6", "make_capture.gd"),
    "user_save.dat": ("4.6", "make_user_save.gd"),
    "godot3_save.sav": ("3.6", "make_godot3_save.gd"),
}


def main() -> int:
    wanted = sys.argv[1:] or list(EXAMPLES)
    for name in wanted:
        version, script = EXAMPLES[name]
        engine, why = find_engine(version)
        if engine is None:
            print(why, file=sys.stderr)
            return 1
        with engine.workdir() as (here, inside):
            shutil.copy(FOLDER / script, here)
            engine.run(script, [f"{inside}/{name}"], cwd=(here, inside))
            shutil.copy(here / name, FOLDER / name)
        print(f"wrote examples/{name} with Godot {engine.version()}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
