"""Time gdvariant's decode/encode, on each core, against Godot 4.6's own bytes_to_var/var_to_bytes.

Run on demand (not a test):  .venv/bin/python -m benchmarks.bench_codec [--no-godot]
Godot's times come from a GDScript timing loop inside the engine (tests/live/codec/godot4_oracle.gd,
mode ``bench``) on the same payload bytes, in the same run. gdvariant is timed through the public
``gd.loads``/``gd.dumps`` (so the call overhead counts) on every core that is built: ``c`` (the
compiled core) and ``python`` (the pure one). Each time is the median of ``--repeats`` rounds.
The last column is the time of copying the payload's bytes once (``bytes(memoryview(blob))``),
the floor for the 4 MB packed array. A second table times the opt-in zero-copy decode
(``gd.loads(blob, packed_views=True)``, packed arrays as views of the input) against that copy.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from functools import partial
from typing import Any

import gdvariant as gd
from benchmarks.payloads import PAYLOADS
from benchmarks.timing import median_time
from gdvariant._binary import core as _core
from tests.support.engines import ORACLES, find_engine


def godot_times(blobs: dict[str, bytes], iterations: int) -> dict[str, dict[str, Any]]:
    engine, why = find_engine("4.6")
    if engine is None:
        print(f"(no Godot timings: {why})", file=sys.stderr)
        return {}
    with engine.workdir() as (here, inside):
        shutil.copy(ORACLES / "godot4_oracle.gd", here)
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


def _copy(blob: bytes) -> bytes:
    return bytes(memoryview(blob))


def _loads_views(blob: bytes) -> Any:
    # A function, not partial(..., packed_views=True): a partial with keywords costs more per
    # call than the whole decode of the small message.
    return gd.loads(blob, packed_views=True)


def _us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:,.2f}"


def _ratio(ours: float | None, godot_us: float | None) -> str:
    return f"{ours * 1e6 / godot_us:.2f}x" if ours is not None and godot_us else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-godot", action="store_true", help="time gdvariant only")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--repeats", type=int, default=7, help="rounds per measurement")
    parser.add_argument("--godot-iterations", type=int, default=20)
    args = parser.parse_args()

    cores = list(_core.implementations())
    blobs: dict[str, bytes] = {}
    times: dict[tuple[str, str], tuple[float, float]] = {}
    views: dict[tuple[str, str], float] = {}
    copies: dict[str, float] = {}
    for name, make in PAYLOADS.items():
        value: Any = make()
        blob = gd.dumps(value)
        blobs[name] = blob
        copies[name] = median_time(partial(_copy, blob), args.budget, args.repeats)
        for core in cores:
            with _core.use(core):
                assert gd.dumps(gd.loads(blob)) == blob
                assert gd.dumps(gd.loads(blob, packed_views=True)) == blob
                print(f"timing the {core} core on {name} ({len(blob):,} bytes)...", file=sys.stderr)
                dec = median_time(partial(gd.loads, blob), args.budget, args.repeats)
                enc = median_time(partial(gd.dumps, value), args.budget, args.repeats)
                times[name, core] = (dec, enc)
                viewed = partial(_loads_views, blob)
                views[name, core] = median_time(viewed, args.budget, args.repeats)

    godot = {} if args.no_godot else godot_times(blobs, args.godot_iterations)
    print(
        f"\ngdvariant {gd.__version__} (live core: {gd.IMPLEMENTATION}), Python "
        f"{sys.version.split()[0]}; times in microseconds, ratio = compiled core / Godot"
    )
    print(
        "| payload | bytes | decode c | decode python | Godot decode | ratio | encode c "
        "| encode python | Godot encode | ratio | bytes copy |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, blob in blobs.items():
        g = godot.get(name, {})
        c_dec, c_enc = times.get((name, "c"), (None, None))
        p_dec, p_enc = times[name, "python"]
        print(
            f"| {name} | {len(blob):,} | {_us(c_dec)} | {_us(p_dec)} | {g.get('decode_us', '-')} "
            f"| {_ratio(c_dec, g.get('decode_us'))} | {_us(c_enc)} | {_us(p_enc)} "
            f"| {g.get('encode_us', '-')} | {_ratio(c_enc, g.get('encode_us'))} "
            f"| {_us(copies[name])} |"
        )
        if g and not g.get("same_bytes", True):
            print(f"  warning: Godot re-encoded {name} to different bytes", file=sys.stderr)
    print(
        "\nopt-in zero-copy decode, loads(blob, packed_views=True): it saves the copy of packed"
        " arrays only (the packed_f32_1M row); ratios = compiled core with views / the other"
    )
    print("| payload | views c | views python | ÷ decode c | ÷ bytes copy |")
    print("|---|---:|---:|---:|---:|")
    for name in blobs:
        c_views = views.get((name, "c"))
        c_dec = times.get((name, "c"), (None, None))[0]
        print(
            f"| {name} | {_us(c_views)} | {_us(views[name, 'python'])} "
            f"| {_ratio(c_views, c_dec and c_dec * 1e6)} "
            f"| {_ratio(c_views, copies[name] * 1e6)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
