"""schema.to_gdscript(): the generated Godot 4 decoder, run in the real engine."""

from __future__ import annotations

import random
import shutil
import struct
from typing import Any

import pytest
from engines import ENGINE_SCRIPTS, Engine
from replication_world import Crate, Mob, Mood, random_value, set_path

import gdvariant
from gdvariant import DecodeError
from gdvariant.replication import (
    Codec,
    NetClass,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    World,
    godot_value,
)
from gdvariant.replication._bits import BitReader


def test_generated_script_names_the_schema() -> None:
    schema = Schema.build([Mob, Crate])
    text = schema.to_gdscript(history=7)
    assert text.startswith("extends RefCounted\n")
    assert schema.fingerprint.hex() in text
    assert f"var fingerprint := PackedByteArray({list(schema.fingerprint)!r})" in text
    assert 'const CLASS_NAMES := ["DT_Crate", "DT_Mob"]' in text
    assert "const HISTORY := 7" in text


def test_unknown_codecs_are_refused() -> None:
    class Odd(Codec):
        name = "Odd"
        width = max_bits = 1

        def encode(self, value: Any) -> tuple[int, int]:
            return int(bool(value)), 1

        def decode(self, reader: BitReader) -> bool:
            return reader.read(1) == 1

        def default(self) -> bool:
            return False

    class Strange(NetClass):
        odd = Odd()

    with pytest.raises(NotImplementedError, match="Odd"):
        Schema.build([Strange]).to_gdscript()


def test_godot_value() -> None:
    assert godot_value(Mood.SAD) == 9
    assert godot_value((1, (Mood.CALM,))) == [1, [3]]
    assert godot_value(gdvariant.Vector2(1, 2)) == gdvariant.Vector2(1, 2)


def scenario(seed: int) -> tuple[Schema, list[bytes], list[tuple[int, int, Any]]]:
    """Packets as one client receives them (20% lost, acks lagging, some corrupted) and what
    the Python decoder holds after each: (result, tick, {id: {path: value}})."""
    rng = random.Random(seed)
    schema = Schema.build([Mob, Crate])
    world = World(schema)
    encoder = SnapshotEncoder(world, history=8)
    encoder.add_client("me")
    decoder = SnapshotDecoder(schema, history=8)
    live: list[Any] = []
    delivered: list[bytes] = []
    expected: list[tuple[int, int, Any]] = []
    pending: list[int] = []
    for _ in range(90):
        for _ in range(rng.randrange(3)):
            if live and rng.random() < 0.4:
                world.despawn(live.pop(rng.randrange(len(live))))
            else:
                cls = rng.choice([Mob, Crate])
                live.append(world.spawn(cls, net_owner=rng.choice(["me", "other"])))
        for ent in live:
            for prop in schema.flat(type(ent)):
                if rng.random() < 0.15:
                    set_path(ent, prop.path, random_value(prop.codec, rng))
        encoder.snapshot()
        packet = encoder.packet_for("me")
        if rng.random() < 0.1:  # a damaged packet: both decoders must refuse it, unchanged
            cut = bytearray(packet[: rng.randrange(len(packet))])
            packet = bytes(cut)
        if rng.random() < 0.8:
            try:
                decoder.apply(packet)
                result = decoder.tick
            except DecodeError:
                result = -1
            state = {
                net_id: {path: godot_value(v) for path, v in s.values.items()}
                for net_id, s in decoder.state.items()
            }
            if result != -1:
                result = int.from_bytes(packet[2:6], "little")
            delivered.append(packet)
            expected.append((result, decoder.tick, state))
            pending.append(decoder.ack)
        while pending and rng.random() < 0.6:
            encoder.ack("me", pending.pop(0))
    return schema, delivered, expected


@pytest.mark.parametrize("seed", [1, 2])
def test_engine_decodes_like_python(godot4: Engine, seed: int) -> None:
    schema, packets, expected = scenario(seed)
    assert any(result == -1 for result, _, _ in expected)
    with godot4.workdir() as (here, inside):
        shutil.copy(ENGINE_SCRIPTS / "replication_apply.gd", here)
        (here / "decoder.gd").write_text(schema.to_gdscript(history=8))
        (here / "packets.bin").write_bytes(b"".join(struct.pack("<I", len(p)) + p for p in packets))
        godot4.run("replication_apply.gd", [inside], cwd=(here, inside), timeout=180)
        raw = (here / "states.bin").read_bytes()
    got = []
    pos = 0
    while pos < len(raw):
        (size,) = struct.unpack_from("<I", raw, pos)
        got.append(gdvariant.loads(raw[pos + 4 : pos + 4 + size]))
        pos += 4 + size
    assert len(got) == len(expected)
    for i, ((result, tick, state), engine) in enumerate(zip(expected, got, strict=True)):
        assert engine[0] == result, f"packet {i}"
        assert engine[1] == tick, f"packet {i}"
        assert gdvariant.dumps(engine[2]) == gdvariant.dumps(state), f"packet {i}"
