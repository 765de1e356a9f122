"""Replication benchmark, Godot side (issue 13 item 7): GDScript decode time per packet.

Builds the world of ``bench_replication.py`` and takes packets for clients whose acks lag 0
to 8 ticks (one client per lag, the spread of the issue's 64 clients), plus a full update. The
headline figure is the mean of ``apply()`` over lags 0-8, the decode time per packet of a
client picked at random. It times the decoder that ``gdscript.generate(schema)`` generates
(field reads inline, no call per field; ``docs/replication-wire.md`` §4) in headless Godot
4.6, in the editor binary (a debug build, the one the tests use) and in the release export
template a shipped game runs (``--runtime``). On each packet a fresh decoder per round is
given the delta's base tick (a full packet of that tick, untimed) and then ``apply()`` of the
packet is timed, copy of the base state and all. It also checks the engine's decoded full
state against the server's quantized state, compared through ``var_to_bytes``, so the
timings are of a decoder that gets the right answer.

Values move in steps (``--values motion``, the default) or are drawn anew (``noise``), and the
encoder sends value deltas or not (``--value-deltas on|off``), as in ``bench_replication.py``.

Run (as root, with the engines installed): ``python -m benchmarks.bench_replication_gdscript``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

import gdvariant
from benchmarks.bench_replication import (
    ENTITIES,
    MAX_LAG,
    Soldier,
    moved_value,
    random_value,
    set_path,
)
from gdvariant.replication import (
    Schema,
    SnapshotEncoder,
    World,
    gdscript,
    godot_value,
)
from gdvariant.replication._history import entries
from tests.support.engines import find_engine

#: The timing itself, shared by both runtimes: ``run(args)`` returns the exit status.
_BENCH = """extends RefCounted
# Times the generated decoder (decoder.gd) on each packet: a fresh decoder per round gets
# the delta's base state (untimed), then apply() of the packet is timed.
static func run(args: PackedStringArray) -> int:
\tvar folder: String = args[0]
\tvar rounds := int(args[1])
\tvar script: GDScript = load(folder + "/decoder.gd")
\tvar out := {}
\tfor name in args[2].split(","):
\t\tvar base := FileAccess.get_file_as_bytes(folder + "/" + name + ".base.bin")
\t\tvar pkt := FileAccess.get_file_as_bytes(folder + "/" + name + ".bin")
\t\tvar best := 1e12
\t\tvar best_view := 1e12
\t\tfor k in rounds:
\t\t\tvar decoder = script.new()
\t\t\tif base.size() and decoder.apply(base) < 0:
\t\t\t\tprinterr(decoder.last_error)
\t\t\t\treturn 1
\t\t\tdecoder.state.size()
\t\t\tvar t0 := Time.get_ticks_usec()
\t\t\tvar tick: int = decoder.apply(pkt)
\t\t\tvar t1 := Time.get_ticks_usec()
\t\t\tdecoder.state.size()
\t\t\tbest = min(best, t1 - t0)
\t\t\tbest_view = min(best_view, Time.get_ticks_usec() - t0)
\t\t\tif tick < 0:
\t\t\t\tprinterr(decoder.last_error)
\t\t\t\treturn 1
\t\t\tif name == "full" and k == 0:
\t\t\t\tvar f := FileAccess.open(folder + "/decoded.bin", FileAccess.WRITE)
\t\t\t\tf.store_buffer(var_to_bytes(decoder.state))
\t\t\t\tf.close()
\t\tout[name] = [best, best_view]
\tvar t := FileAccess.open(folder + "/" + args[3], FileAccess.WRITE)
\tt.store_string(JSON.stringify(out))
\tt.close()
\treturn 0
"""
#: The editor binary runs a SceneTree script (``godot --headless --script``).
_EDITOR_MAIN = """extends SceneTree
func _init() -> void:
\tvar args := OS.get_cmdline_user_args()
\tquit(load(args[0] + "/bench.gd").run(args))
"""
#: A release export template runs only a packed project, from its main scene.
_RELEASE_MAIN = """extends Node
func _ready() -> void:
\tvar args := OS.get_cmdline_user_args()
\tget_tree().quit(load(args[0] + "/bench.gd").run(args))
"""
_RELEASE_PROJECT = '[application]\nconfig/name="bench"\nrun/main_scene="res://main.tscn"\n'
_RELEASE_SCENE = """[gd_scene load_steps=2 format=3]

[ext_resource type="Script" path="res://main.gd" id="1"]

[node name="Main" type="Node"]
script = ExtResource("1")
"""
#: Packs files into a .pck with the editor binary: the output, then (res:// path, file) pairs.
_PACKER = """extends SceneTree
func _init() -> void:
\tvar args := OS.get_cmdline_user_args()
\tvar packer := PCKPacker.new()
\tpacker.pck_start(args[0])
\tfor i in range(1, args.size(), 2):
\t\tpacker.add_file(args[i], args[i + 1])
\tquit(packer.flush())
"""
#: Debian's release export template (package godot-template-release), in the chroot.
RELEASE_TEMPLATE = "usr/bin/godot-template-release"


def run_release(engine: Any, cwd: tuple[Path, str], args: list[str]) -> None:
    """Run the benchmark in the release export template, the runtime a shipped game runs:
    GDScript without the debug build's checks. A template takes no script or project path on
    its command line, only the ``.pck`` named after its own executable, beside it."""
    here, inside = cwd
    (here / "main.gd").write_text(_RELEASE_MAIN)
    (here / "main.tscn").write_text(_RELEASE_SCENE)
    (here / "project.godot").write_text(_RELEASE_PROJECT)
    (here / "packer.gd").write_text(_PACKER)
    files = ["project.godot", "main.tscn", "main.gd"]
    pairs = [x for name in files for x in (f"res://{name}", f"{inside}/{name}")]
    engine.run("packer.gd", [f"{inside}/runner.pck", *pairs], cwd=cwd)
    shutil.copy(engine.chroot / RELEASE_TEMPLATE, here / "runner")
    engine.run_command(
        engine.within([f"{inside}/runner", "--headless", "--", *args], inside), cwd=cwd
    )


def changed_props(ents: list[Any], base: int) -> int:
    """Properties a delta from ``base`` carries (all entities public, none entering)."""
    total = 0
    for ent in ents:
        mask = 0
        for tick, changed, *_ in entries(ent):
            if tick > base:
                mask |= changed
        total += mask.bit_count()
    return total


LAGS = range(MAX_LAG + 1)
RUNTIMES = {
    "editor": "godot --headless --script: the editor binary, a debug build",
    "release": "godot-template-release: the export template a shipped game runs",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--values", choices=("noise", "motion"), default="motion")
    parser.add_argument("--value-deltas", choices=("on", "off"), default="on")
    parser.add_argument(
        "--runtime",
        choices=("editor", "release", "both"),
        default="both",
        help="time in the editor binary (a debug build), in the release export template "
        "(what a shipped game runs), or both, in that order",
    )
    args = parser.parse_args()
    engine, why = find_engine("4.6")
    if engine is None or engine.chroot is None:
        print(f"no Godot 4.6: {why}", file=sys.stderr)
        return 1
    runtimes = ["editor", "release"] if args.runtime == "both" else [args.runtime]
    if "release" in runtimes and not (engine.chroot / RELEASE_TEMPLATE).exists():
        print(
            f"no release template at {engine.chroot / RELEASE_TEMPLATE}; run "
            "tools/setup-engines.sh",
            file=sys.stderr,
        )
        return 1
    rng = random.Random(args.seed)
    schema = Schema.build([Soldier])
    paths = [p.path for p in schema.layout(Soldier).props]
    world = World(schema)
    encoder = SnapshotEncoder(world, value_deltas=args.value_deltas == "on")
    ents = [world.spawn(Soldier) for _ in range(ENTITIES)]
    for ent in ents:
        for path in paths:
            set_path(ent, path, random_value(path, rng))
    for lag in LAGS:
        encoder.add_client(lag)
    encoder.add_client("full")
    fulls: dict[int, bytes] = {}
    for _ in range(20):
        for _ in range(len(ents) * len(paths) // 20):
            i = rng.randrange(len(paths))
            ent = rng.choice(ents)
            if args.values == "motion":
                value = moved_value(paths[i], ent._net_vals[i], rng)
            else:
                value = random_value(paths[i], rng)
            set_path(ent, paths[i], value)
        tick = encoder.snapshot()
        fulls[tick] = encoder.packet_for("full")  # never acks: always a full update
        for lag in LAGS:
            encoder.ack(lag, max(tick - 1 - lag, 0))
            encoder.packet_for(lag)  # made (a client acks only ticks it was sent)
    packets = {f"lag{lag}": encoder.packet_for(lag) for lag in LAGS}
    bases = {f"lag{lag}": fulls[tick - 1 - lag] for lag in LAGS}
    props = {f"lag{lag}": changed_props(ents, tick - 1 - lag) for lag in LAGS}
    props["full"] = sum(world.nondefault(ent).bit_count() for ent in ents)
    expected = encoder.expected_state("full")
    packets["full"], bases["full"] = fulls[tick], b""
    times: dict[str, dict[str, list[float]]] = {}
    decoded: dict[str, bytes] = {}
    with engine.workdir() as (here, inside):
        (here / "decoder.gd").write_text(gdscript.generate(schema))
        (here / "bench.gd").write_text(_BENCH)
        (here / "driver.gd").write_text(_EDITOR_MAIN)
        for name, packet in packets.items():
            (here / f"{name}.bin").write_bytes(packet)
            (here / f"{name}.base.bin").write_bytes(bases[name])
        names = ",".join(packets)
        for runtime in runtimes:
            print(
                f"Godot {engine.version()}, {runtime}: timing the generated decoder...",
                file=sys.stderr,
            )
            bench_args = [inside, str(args.rounds), names, f"times_{runtime}.json"]
            if runtime == "editor":
                engine.run("driver.gd", bench_args, cwd=(here, inside))
            else:
                run_release(engine, (here, inside), bench_args)
            times[runtime] = json.loads((here / f"times_{runtime}.json").read_text())
            decoded[runtime] = (here / "decoded.bin").read_bytes()
            (here / "decoded.bin").unlink()
    lay = schema.layout(Soldier)
    want = {
        net_id: {p.path: godot_value(p.codec, state.values[p.path]) for p in lay.props}
        for net_id, state in expected.items()
    }
    same = True
    for runtime, timed in times.items():
        equal = gdvariant.dumps(gdvariant.loads(decoded[runtime])) == gdvariant.dumps(want)
        same = same and equal
        print(f"{runtime} runtime ({RUNTIMES[runtime]}):")
        print(f"  the engine's decoded full state equals the server's quantized state: {equal}")
        for name, packet in packets.items():
            records = int.from_bytes(packet[10:14], "little")
            print(
                f"  {name}: {len(packet)} bytes, {records} records, {props[name]} properties, "
                f"apply() best {timed[name][0] / 1000:.2f} ms, "
                f"apply() and reading state best {timed[name][1] / 1000:.2f} ms"
            )
        lags = [timed[f"lag{lag}"] for lag in LAGS]
        print(
            f"  mean over lags {LAGS[0]}-{LAGS[-1]}: "
            f"apply() {statistics.fmean(t[0] for t in lags) / 1000:.2f} ms, "
            f"apply() and reading state {statistics.fmean(t[1] for t in lags) / 1000:.2f} ms"
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
