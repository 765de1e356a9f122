"""Regenerate ``tests/vectors/godot4.6/typed_containers.json`` from the real Godot 4.6.

Feeds every case of ``tests/support/typed_cases.py`` (typed Arrays and Dictionaries holding
elements of the wrong type) to the engine's oracle script in ``decode`` mode
(``decode_var_size`` and ``decode_var``, with or without ``allow_objects``) and keeps its
answers: the bytes consumed (0 = rejected) and what ``var_to_bytes`` /
``var_to_bytes_with_objects`` write for the value it made. The first field of the file names the
engine version. Where Objects are involved, whose bytes carry instance ids of the moment, the
engine's exact description of the value (``describe()`` in the oracle script) is kept as well.

Usage: python -m tools.make_typed_vectors [--out PATH]   (from the repository root)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tests.support.engines import engine_decode, find_engine
from tests.support.paths import VECTORS
from tests.support.typed_cases import cases

DEFAULT_OUT = VECTORS / "godot4.6" / "typed_containers.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    engine, why = find_engine("4.6")
    if engine is None:
        print(f"no Godot 4.6: {why}", file=sys.stderr)
        return 1
    todo = list(cases())
    rows = []
    for allow in (False, True):
        subset = [(name, blob) for name, blob, a in todo if a is allow]
        answers = engine_decode(engine, engine.oracle, [blob for _, blob in subset], allow)
        for (name, blob), answer in zip(subset, answers, strict=True):
            row: dict[str, object] = {"name": name, "in": blob.hex(), "allow_objects": allow}
            if answer["ok"]:
                row["size"] = answer["size"]
                row["out"] = answer["bytes_objects" if allow else "bytes"]
                if allow or "object" in name.lower() or "class_" in name:
                    row["value"] = answer["value"]
            else:
                row["size"] = 0
            rows.append(row)
    rows.sort(key=lambda r: (r["name"], r["allow_objects"]))
    version = engine.version()
    lines = ",\n".join(json.dumps(row, separators=(",", ":")) for row in rows)
    args.out.write_text(f'{{"godot": {json.dumps(version)}, "cases": [\n{lines}\n]}}\n')
    print(f"{len(rows)} cases from {version} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
