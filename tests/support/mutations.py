"""Mutations of engine-written Variant bytes, for differential tests against the engine.

Each mutation is one of the ways real input goes wrong: cut short, bits flipped, a header's
type byte or flags changed, a length or count changed, two values spliced, or a word replaced
outright. Lengths and counts sit on 4-byte boundaries in every Godot layout, so word-level
mutations pick aligned words.
"""

from __future__ import annotations

import random
from collections.abc import Callable

KINDS = ("truncate", "flip", "header", "length", "splice", "word")

_ABSURD = (0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x40000000, 0x10000, 0x7FFFFFFC)


def _word(data: bytearray, i: int) -> int:
    return int.from_bytes(data[i : i + 4], "little")


def _set(data: bytearray, i: int, value: int) -> None:
    data[i : i + 4] = (value & 0xFFFFFFFF).to_bytes(4, "little")


def _aligned(rng: random.Random, data: bytearray) -> int:
    return rng.randrange(0, max(len(data) - 3, 1), 4)


def _truncate(rng: random.Random, data: bytearray, pool: list[bytes]) -> bytearray:
    return data[: rng.randrange(len(data))]


def _flip(rng: random.Random, data: bytearray, pool: list[bytes]) -> bytearray:
    for _ in range(rng.choice((1, 1, 2, 3))):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return data


def _header(rng: random.Random, data: bytearray, pool: list[bytes]) -> bytearray:
    i = _aligned(rng, data) if rng.random() < 0.5 else 0
    if len(data) < i + 4:
        return data
    word = _word(data, i)
    roll = rng.random()
    if roll < 0.5:  # another type byte
        word = (word & ~0xFF) | rng.randrange(48)
    elif roll < 0.8:  # a flag bit (64-bit, typed container kinds...)
        word ^= 1 << rng.randrange(16, 24)
    else:  # junk in the high bits
        word ^= rng.randrange(1, 256) << 24
    _set(data, i, word)
    return data


def _length(rng: random.Random, data: bytearray, pool: list[bytes]) -> bytearray:
    i = _aligned(rng, data)
    if len(data) < i + 4:
        return data
    word = _word(data, i)
    roll = rng.random()
    if roll < 0.6:  # off by a little
        word += rng.choice((-4, -3, -2, -1, 1, 2, 3, 4))
    elif roll < 0.8:
        word = rng.choice(_ABSURD)
    else:  # the top (count-mask) bit
        word ^= 0x80000000
    _set(data, i, word)
    return data


def _splice(rng: random.Random, data: bytearray, pool: list[bytes]) -> bytearray:
    other = rng.choice(pool)
    cut = rng.randrange(len(data) + 1)
    return data[:cut] + other[rng.randrange(len(other) + 1) :]


def _replace_word(rng: random.Random, data: bytearray, pool: list[bytes]) -> bytearray:
    i = _aligned(rng, data)
    if len(data) >= i + 4:
        _set(data, i, rng.randrange(1 << 32))
    return data


MUTATORS: dict[str, Callable[[random.Random, bytearray, list[bytes]], bytearray]] = {
    "truncate": _truncate,
    "flip": _flip,
    "header": _header,
    "length": _length,
    "splice": _splice,
    "word": _replace_word,
}


def mutate(rng: random.Random, pool: list[bytes], count: int) -> list[tuple[str, bytes]]:
    """``count`` distinct mutated inputs (and how each was made), round-robin over the kinds."""
    seen = set(pool)
    out: list[tuple[str, bytes]] = []
    attempts = 0
    while len(out) < count and attempts < count * 20:
        attempts += 1
        kind = KINDS[len(out) % len(KINDS)]
        source = rng.choice(pool)
        if not source:
            continue
        data = bytes(MUTATORS[kind](rng, bytearray(source), pool))
        if data and data not in seen:
            seen.add(data)
            out.append((kind, data))
    return out
