"""Replication benchmark, Godot side (issue 13 item 7): GDScript decode time per packet.

Builds the world of ``bench_replication.py`` and takes packets for clients whose acks lag 0,
4 and 8 ticks, plus a full update. It writes a GDScript decoder specialised for the schema,
the way the planned ``schema.to_gdscript()`` will (field reads inline, no call per field;
``docs/replication-wire.md`` §4). It times that decoder in headless Godot 4.6 on each packet.
It also checks the engine's decoded full state against the server's quantized state, compared
through ``var_to_bytes``, so the timings are of a decoder that gets the right answer.

This is a probe, not the generator: it covers the codecs the benchmark schema uses.

Run (as root, with the engines installed): ``python benchmarks/bench_replication_gdscript.py``.
"""

from __future__ import annotations

import argparse
import enum
import json
import random
import sys
from pathlib import Path
from typing import Any

import gdvariant
from gdvariant.replication import (
    Angle,
    Bool,
    ClassLayout,
    Codec,
    Coord,
    EntityRef,
    Enum,
    Half,
    Normal,
    Quant,
    Schema,
    SnapshotEncoder,
    Str,
    UInt,
    VarInt,
    Vec3,
    World,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from bench_replication import ENTITIES, Soldier, random_value, set_path
from engines import find_engine


class _Gen:
    """Emits GDScript lines with fresh local names; ``acc``/``n``/``bp``/``buf`` are the
    reader state (wire doc §4)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def tmp(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("\t" * indent + text)

    def read(self, indent: int, width: int | str) -> str:
        """Inline read of ``width`` (<= 32) bits; returns the variable holding them."""
        out = self.tmp()
        mask = f"((1 << {width}) - 1)" if isinstance(width, str) else str((1 << width) - 1)
        self.emit(indent, f"if n < {width}:")
        self.emit(indent + 1, "acc |= buf.decode_u32(bp) << n")
        self.emit(indent + 1, "bp += 4")
        self.emit(indent + 1, "n += 32")
        self.emit(indent, f"var {out} := acc & {mask}")
        self.emit(indent, f"acc >>= {width}")
        self.emit(indent, f"n -= {width}")
        return out

    def value(self, indent: int, codec: Codec) -> str:
        """Inline decode of one value; returns the variable holding it."""
        out = self.tmp()
        if isinstance(codec, Bool):
            self.emit(indent, f"var {out} := {self.read(indent, 1)} == 1")
        elif isinstance(codec, UInt):
            self.emit(indent, f"var {out} := {self.read(indent, codec.bits)}")
        elif isinstance(codec, Quant):
            q = self.read(indent, codec.bits)
            step = f"(({codec.high!r}) - ({codec.low!r})) / {float(codec.levels)!r}"
            self.emit(indent, f"var {out}: float = {codec.low!r} + {q} * ({step})")
        elif isinstance(codec, Coord):
            self._coord(indent, codec, out)
        elif isinstance(codec, Angle):
            raw = self.read(indent, codec.bits)
            self.emit(indent, f"if {raw} >> {codec.bits - 1}:")
            self.emit(indent + 1, f"{raw} -= {1 << codec.bits}")
            period = "360.0" if codec.degrees else "TAU"
            self.emit(indent, f"var {out}: float = {raw} * ({period} / {float(1 << codec.bits)!r})")
        elif isinstance(codec, Normal):
            self._normal(indent, codec, out)
        elif isinstance(codec, Half):
            half = self.read(indent, 16)
            self.emit(indent, f"hb.encode_u16(0, {half})")
            self.emit(indent, f"var {out} := hb.decode_half(0)")
        elif isinstance(codec, VarInt):
            raw, shift = self.tmp(), self.tmp()
            self.emit(indent, f"var {raw} := 0")
            self.emit(indent, f"var {shift} := 0")
            self.emit(indent, "while true:")
            group = self.read(indent + 1, 8)
            self.emit(indent + 1, f"{raw} |= ({group} & 127) << {shift}")
            self.emit(indent + 1, f"{shift} += 7")
            self.emit(indent + 1, f"if not ({group} & 128):")
            self.emit(indent + 2, "break")
            self.emit(indent, f"var {out} := ({raw} >> 1) ^ -({raw} & 1)")
        elif isinstance(codec, Enum):
            position = self.read(indent, codec.width) if codec.width else "0"
            values = [int(m.value) for m in codec.members]
            self.emit(indent, f"var {out}: int = {values!r}[{position}]")
        elif isinstance(codec, EntityRef):
            raw = self.read(indent, codec.bits)
            self.emit(indent, f"var {out} = null if {raw} == 0 else {raw} - 1")
        elif isinstance(codec, Str):
            length = self.read(indent, codec.len_bits)
            raw, i = self.tmp(), self.tmp()
            self.emit(indent, f"var {raw} := PackedByteArray()")
            self.emit(indent, f"{raw}.resize({length})")
            self.emit(indent, f"for {i} in {length}:")
            byte = self.read(indent + 1, 8)
            self.emit(indent + 1, f"{raw}[{i}] = {byte}")
            self.emit(indent, f"var {out} := {raw}.get_string_from_utf8()")
        elif isinstance(codec, Vec3):
            parts = [self.value(indent, codec.component) for _ in range(3)]
            self.emit(indent, f"var {out} := Vector3({', '.join(parts)})")
        else:
            raise NotImplementedError(f"the probe does not generate {codec!r}")
        return out

    def _coord(self, indent: int, codec: Coord, out: str) -> None:
        flags = self.read(indent, 2)
        self.emit(indent, f"var {out} := 0.0")
        self.emit(indent, f"if {flags}:")
        sign = self.read(indent + 1, 1)
        self.emit(indent + 1, f"if {flags} & 1:")
        whole = self.read(indent + 2, codec.int_bits)
        self.emit(indent + 2, f"{out} = {whole} + 1")
        self.emit(indent + 1, f"if {flags} & 2:")
        frac = self.read(indent + 2, codec.frac_bits)
        self.emit(indent + 2, f"{out} += {frac} / {float(codec.scale)!r}")
        self.emit(indent + 1, f"if {sign}:")
        self.emit(indent + 2, f"{out} = -{out}")

    def _normal(self, indent: int, codec: Normal, out: str) -> None:
        step = f"(2.0 / {float(codec.levels)!r})"
        a, b = self.read(indent, codec.bits), self.read(indent, codec.bits)
        fx, fy, fz, old, length = (self.tmp() for _ in range(5))
        self.emit(indent, f"var {fx}: float = {a} * {step} - 1.0")
        self.emit(indent, f"var {fy}: float = {b} * {step} - 1.0")
        self.emit(indent, f"var {fz}: float = 1.0 - absf({fx}) - absf({fy})")
        self.emit(indent, f"if {fz} < 0.0:")
        self.emit(indent + 1, f"var {old} := {fx}")
        self.emit(indent + 1, f"{fx} = (1.0 - absf({fy})) * (1.0 if {old} >= 0.0 else -1.0)")
        self.emit(indent + 1, f"{fy} = (1.0 - absf({old})) * (1.0 if {fy} >= 0.0 else -1.0)")
        self.emit(indent, f"var {length} := sqrt({fx} * {fx} + {fy} * {fy} + {fz} * {fz})")
        self.emit(
            indent, f"var {out} := Vector3({fx} / {length}, {fy} / {length}, {fz} / {length})"
        )

    def record_body(self, indent: int, lay: ClassLayout) -> None:
        """Selector, indices into ``mask``, then one block per property in index order."""
        selector = self.read(indent, 1)
        self.emit(indent, "var mask := 0")
        self.emit(indent, f"if {selector}:")
        self.emit(indent + 1, "var p := -1")
        self.emit(indent + 1, "while true:")
        more = self.read(indent + 2, 1)
        self.emit(indent + 2, f"if not {more}:")
        self.emit(indent + 3, "break")
        gap = self.read(indent + 2, lay.index_bits)
        self.emit(indent + 2, f"p += 1 + {gap}")
        self.emit(indent + 2, "mask |= 1 << p")
        self.emit(indent, "else:")
        got = 0
        while got < lay.count:
            width = min(32, lay.count - got)
            self.emit(indent + 1, f"mask |= {self.read(indent + 1, width)} << {got}")
            got += width
        for prop in lay.props:
            self.emit(indent, f"if mask & {1 << prop.index}:")
            value = self.value(indent + 1, prop.codec)
            self.emit(indent + 1, f"values[{json.dumps(prop.path)}] = {value}")


def generate(schema: Schema) -> str:
    """A GDScript that decodes packets of ``schema`` (shared section; no stamp)."""
    g = _Gen()
    g.emit(0, "extends SceneTree")
    g.emit(0, "var hb := PackedByteArray([0, 0])")
    g.emit(0, "")
    g.emit(0, "func apply(packet: PackedByteArray, state: Dictionary) -> void:")
    g.emit(1, "var buf := packet.duplicate()")
    g.emit(1, "buf.append_array(PackedByteArray([0, 0, 0, 0, 0, 0, 0, 0]))")
    g.emit(1, "var pos := 18")
    g.emit(1, "var prev := -1")
    g.emit(1, "for r in packet.decode_u32(10):")
    g.emit(2, "var bp := pos")
    g.emit(2, "var acc := 0")
    g.emit(2, "var n := 0")
    op = g.read(2, 2)
    has_gap = g.read(2, 1)
    g.emit(2, "var gap := 0")
    g.emit(2, f"if {has_gap}:")
    size = g.read(3, 2)
    width = g.tmp()
    g.emit(3, f"var {width}: int = [4, 8, 16, 32][{size}]")
    g.emit(3, f"gap = {g.read(3, width)}")
    g.emit(2, "var id := prev + 1 + gap")
    g.emit(2, "prev = id")
    g.emit(2, f"if {op} == 2:")
    g.emit(3, "state.erase(id)")
    g.emit(2, "else:")
    g.emit(3, "var values: Dictionary")
    g.emit(3, "var cid := 0")
    g.emit(3, f"if {op} == 1:")
    if schema.class_bits:
        g.emit(4, f"cid = {g.read(4, schema.class_bits)}")
    g.emit(4, "values = baselines[cid].duplicate()")
    g.emit(4, "state[id] = values")
    g.emit(3, "else:")
    g.emit(4, "values = state[id]")
    g.emit(4, "cid = classes[id]")
    g.emit(3, "classes[id] = cid")
    g.emit(3, "match cid:")
    for lay in schema.classes:
        g.emit(4, f"{lay.class_id}:")
        g.record_body(5, lay)
    g.emit(2, "pos = (bp * 8 - n + 7) >> 3")
    g.emit(2, "assert(pos <= packet.size())")
    g.emit(0, "")
    g.emit(0, "var classes := {}")
    g.emit(0, "var baselines: Array")
    g.emit(0, "")
    g.emit(0, "func _init() -> void:")
    g.emit(1, "var args := OS.get_cmdline_user_args()")
    g.emit(1, "var folder: String = args[0]")
    g.emit(1, "var rounds := int(args[1])")
    g.emit(1, 'baselines = bytes_to_var(FileAccess.get_file_as_bytes(folder + "/baselines.bin"))')
    g.emit(1, 'var full := FileAccess.get_file_as_bytes(folder + "/full.bin")')
    g.emit(1, "var out := {}")
    g.emit(1, 'for name in ["full", "lag0", "lag4", "lag8"]:')
    g.emit(2, 'var pkt := FileAccess.get_file_as_bytes(folder + "/" + name + ".bin")')
    g.emit(2, "var best := 1e12")
    g.emit(2, "for k in rounds:")
    g.emit(3, "var state := {}")
    g.emit(3, "classes = {}")
    g.emit(3, 'if name != "full":')
    g.emit(4, "apply(full, state)")
    g.emit(3, "var t0 := Time.get_ticks_usec()")
    g.emit(3, "apply(pkt, state)")
    g.emit(3, "best = min(best, Time.get_ticks_usec() - t0)")
    g.emit(2, "out[name] = best")
    g.emit(1, "var decoded := {}")
    g.emit(1, "classes = {}")
    g.emit(1, "apply(full, decoded)")
    g.emit(1, 'var f := FileAccess.open(folder + "/decoded.bin", FileAccess.WRITE)')
    g.emit(1, "f.store_buffer(var_to_bytes(decoded))")
    g.emit(1, "f.close()")
    g.emit(1, 'var t := FileAccess.open(folder + "/times.json", FileAccess.WRITE)')
    g.emit(1, "t.store_string(JSON.stringify(out))")
    g.emit(1, "t.close()")
    g.emit(1, "quit()")
    return "\n".join(g.lines) + "\n"


def godot_value(value: Any) -> Any:
    """A Python-decoded value as the GDScript decoder holds it (Enum members are ints)."""
    return int(value.value) if isinstance(value, enum.Enum) else value


def changed_props(ents: list[Any], base: int) -> int:
    """Properties a delta from ``base`` carries (all entities public, none entering)."""
    total = 0
    for ent in ents:
        mask = 0
        for tick, changed in ent._net_hist:
            if tick > base:
                mask |= changed
        total += mask.bit_count()
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    engine, why = find_engine("4.6")
    if engine is None:
        print(f"no Godot 4.6: {why}", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    schema = Schema.build([Soldier])
    paths = [p.path for p in schema.layout(Soldier).props]
    world = World(schema)
    encoder = SnapshotEncoder(world)
    ents = [world.spawn(Soldier) for _ in range(ENTITIES)]
    for ent in ents:
        for path in paths:
            set_path(ent, path, random_value(path, rng))
    for lag in (0, 4, 8):
        encoder.add_client(lag)
    for _ in range(20):
        for _ in range(len(ents) * len(paths) // 20):
            path = rng.choice(paths)
            set_path(rng.choice(ents), path, random_value(path, rng))
        tick = encoder.snapshot()
        for lag in (0, 4, 8):
            encoder.ack(lag, max(tick - 1 - lag, 0))
    packets = {f"lag{lag}": encoder.packet_for(lag) for lag in (0, 4, 8)}
    props = {f"lag{lag}": changed_props(ents, tick - 1 - lag) for lag in (0, 4, 8)}
    props["full"] = sum(world.nondefault(ent).bit_count() for ent in ents)
    expected = encoder.expected_state(0)
    encoder.clients[0].acked = 0
    packets["full"] = encoder.packet_for(0)
    with engine.workdir() as (here, inside):
        (here / "decode.gd").write_text(generate(schema))
        for name, packet in packets.items():
            (here / f"{name}.bin").write_bytes(packet)
        baselines = [{p.path: godot_value(p.default) for p in lay.props} for lay in schema.classes]
        (here / "baselines.bin").write_bytes(gdvariant.dumps(baselines))
        print(f"Godot {engine.version()}: timing the generated decoder...", file=sys.stderr)
        engine.run("decode.gd", [inside, str(args.rounds)], cwd=(here, inside))
        times = json.loads((here / "times.json").read_text())
        decoded = gdvariant.loads((here / "decoded.bin").read_bytes())
    want = {
        net_id: {path: godot_value(v) for path, v in state.values.items()}
        for net_id, state in expected.items()
    }
    same = gdvariant.dumps(decoded) == gdvariant.dumps(want)
    print(f"engine's decoded full state equals the server's quantized state: {same}")
    for name, packet in packets.items():
        records = int.from_bytes(packet[10:14], "little")
        print(
            f"{name}: {len(packet)} bytes, {records} records, {props[name]} properties, "
            f"best {times[name] / 1000:.2f} ms"
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
