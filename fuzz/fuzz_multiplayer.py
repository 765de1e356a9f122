"""Coverage-guided fuzzing of the SceneMultiplayer packet codec (atheris). Run by hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python -m fuzz.fuzz_multiplayer fuzz/corpus-multiplayer -max_total_time=600

The first input byte picks the wire version (4.0 ... 4.6), the rest is one packet. Only
:class:`gdvariant.DecodeError` may escape ``decode_scene_packet``; a packet it accepts must
encode without error, and that encoding must be stable (decode and encode it again: same bytes).
``--seed-corpus DIR`` writes the packets recorded from Godot 4.6; ``--replay DIR`` runs a
corpus once without atheris.
"""

from __future__ import annotations

import json
from pathlib import Path

import gdvariant as gd
from fuzz import harness
from gdvariant.multiplayer.wire import WIRE_VERSIONS, decode_scene_packet, encode_scene_packet
from tests.support.paths import VECTORS

VERSIONS = list(WIRE_VERSIONS.values())
SESSION = VECTORS / "multiplayer" / "session.json"


def test_one_input(raw: bytes) -> None:
    if not raw:
        return
    version = VERSIONS[raw[0] % len(VERSIONS)]
    try:
        packet = decode_scene_packet(raw[1:], version=version, allow_objects=True)
    except gd.DecodeError:
        return
    data = encode_scene_packet(packet, version=version, full_objects=True)
    again = decode_scene_packet(data, version=version, allow_objects=True)
    if encode_scene_packet(again, version=version, full_objects=True) != data:
        raise AssertionError(f"unstable encoding of {raw.hex()}")


def seed_corpus(folder: Path) -> None:
    """One file per recorded packet, for the 4.6 wire."""
    folder.mkdir(parents=True, exist_ok=True)
    packets = json.loads(SESSION.read_text(encoding="utf-8"))["packets"]
    unique = {bytes.fromhex(p["hex"]) for p in packets}
    index = VERSIONS.index(WIRE_VERSIONS["4.6"])
    for count, packet in enumerate(sorted(unique)):
        (folder / f"4.6-{count}").write_bytes(bytes([index]) + packet)
    print(f"wrote {len(unique)} seed inputs to {folder}")


if __name__ == "__main__":
    harness.main(test_one_input, seed_corpus)
