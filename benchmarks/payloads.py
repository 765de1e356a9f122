"""The benchmark payloads named in the codec issue, built deterministically."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import gdvariant as gd


def entities(count: int = 1000) -> list[dict[str, Any]]:
    """Game-entity dictionaries, about 276 bytes each on the wire."""
    rng = random.Random(1)
    return [
        {
            "id": i,
            "name": f"entity_{i:05d}",
            "position": gd.Vector2(rng.uniform(-1e3, 1e3), rng.uniform(-1e3, 1e3)),
            "velocity": gd.Vector3(rng.uniform(-9, 9), rng.uniform(-9, 9), rng.uniform(-9, 9)),
            "hp": rng.randrange(100),
            "alive": rng.random() < 0.9,
            "tags": gd.PackedStringArray(["npc", "enemy", f"zone{i % 7}"]),
            "inventory": [rng.randrange(500) for _ in range(4)],
        }
        for i in range(count)
    ]


def mixed(count: int = 30_000) -> list[Any]:
    """An Array of ints, floats and short strings in equal parts."""
    rng = random.Random(2)
    makers = (
        lambda: rng.randrange(-(10**6), 10**6),
        lambda: rng.uniform(-1e6, 1e6),
        lambda: f"item{rng.randrange(10**4)}",
    )
    return [makers[i % 3]() for i in range(count)]


def floats(count: int = 1_000_000) -> gd.PackedFloat32Array:
    """A PackedFloat32Array (bulk data: moves as one block)."""
    rng = random.Random(3)
    return gd.PackedFloat32Array(rng.random() for _ in range(count))


def message() -> list[Any]:
    """A small network message."""
    return [7, "move", gd.Vector3(1, 2, 3), {"seq": 42}]


PAYLOADS: dict[str, Callable[[], Any]] = {
    "entities_1000": entities,
    "mixed_30000": mixed,
    "packed_f32_1M": floats,
    "small_message": message,
}
