"""Time gdvariant's decode/encode against Godot 4.6's own bytes_to_var/var_to_bytes.

Run on demand (not a test):  .venv/bin/python benchmarks/bench_codec.py [--no-godot]
Godot's times come from a GDScript timing loop inside the engine (tests/engine/godot4_oracle.gd,
mode ``bench``) on the same payload bytes, in the same run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from functools import partial
from pathlib import Path
from typing import Any

import gdvariant as gd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from engines import ENGINE_SCRIPTS, find_engine
from payloads import PAYLOADS
from timing import best_time


def godot_times(blobs: dict[str, bytes], iterations: int) -> dict[str, dict[str, Any]]:
    engine, why = find_engine("4.6")
    if engine is None:
        print(f"(no Godot timings: {why})", file=sys.stderr)
        return {}
    with engine.workdir() as (here, inside):
        shutil.copy(ENGINE_SCRIPTS / "godot4_oracle.gd", here)
        (here / "payloads").mkdir()
        for name, blob in blobs.items():
            (here / "payloads" / f"{name}.bin").write_bytes(blob)
        print(f"timing Godot {engine.version()} ({iterations} iterations each)...", file=sys.stderr)
        engine.run(
            "godot4_oracle.gd",
            ["bench", f"{inside}/payloads", str(iterations), f"{inside}/bench.jsonl"],
            cwd=(here, inside),
        )
        lines = (here / "bench.jsonl").read_text().splitlines()
    return {row["name"]: row for row in map(json.loads, lines) if row.get("name")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-godot", action="store_true", help="time gdvariant only")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--godot-iterations", type=int, default=20)
    args = parser.parse_args()

    blobs: dict[str, bytes] = {}
    rows: list[tuple[str, int, float, float]] = []
    for name, make in PAYLOADS.items():
        value: Any = make()
        blob = gd.dumps(value)
        blobs[name] = blob
        assert gd.dumps(gd.loads(blob)) == blob
        print(f"timing gdvariant on {name} ({len(blob):,} bytes)...", file=sys.stderr)
        dec = best_time(partial(gd.loads, blob), args.budget)
        enc = best_time(partial(gd.dumps, value), args.budget)
        rows.append((name, len(blob), dec, enc))

    godot = {} if args.no_godot else godot_times(blobs, args.godot_iterations)
    print(f"\ngdvariant {gd.__version__} ({gd.IMPLEMENTATION}), Python {sys.version.split()[0]}")
    head = "| payload | bytes | decode (us) | Godot decode (us) | ratio | encode (us) "
    print(head + "| Godot encode (us) | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, size, dec, enc in rows:
        g = godot.get(name, {})
        gdec, genc = g.get("decode_us"), g.get("encode_us")
        ratio_d = f"{dec * 1e6 / gdec:.2f}x" if gdec else "-"
        ratio_e = f"{enc * 1e6 / genc:.2f}x" if genc else "-"
        print(
            f"| {name} | {size:,} | {dec * 1e6:,.1f} | {gdec or '-'} | {ratio_d} "
            f"| {enc * 1e6:,.1f} | {genc or '-'} | {ratio_e} |"
        )
        if g and not g.get("same_bytes", True):
            print(f"  warning: Godot re-encoded {name} to different bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
