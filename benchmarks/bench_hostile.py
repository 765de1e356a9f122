"""Hostile inputs: time and peak memory of decoding what an attacker would send.

Run on demand (not a test):  .venv/bin/python -m benchmarks.bench_hostile

Each input is decoded with the default limits (``gd.DEFAULT_LIMITS``). Time is the best
per-call time over several rounds without tracing (``timing.best_time``); peak memory is
what ``tracemalloc`` saw allocated during one decode. The last table checks that time grows
linearly with input size: the same hostile shapes at 10x and 100x the size should cost 10x
and 100x (flat ns per byte).
"""

from __future__ import annotations

import struct
import sys
import tracemalloc
from collections.abc import Callable
from functools import partial

import gdvariant as gd
from benchmarks.timing import best_time


def run(data: bytes) -> str:
    try:
        value, used = gd.decode(data)
    except gd.DecodeError as exc:
        return f"DecodeError: {exc.reason[:60]}"
    return f"ok: {type(value).__name__}, {used:,} bytes"


def peak(data: bytes) -> int:
    tracemalloc.start()
    run(data)
    size = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return size


def claims(type_id: int, count: int) -> bytes:
    """16 bytes: a header and a count, then 8 bytes where the elements should be."""
    return struct.pack("<II", type_id, count) + bytes(8)


def nested(levels: int) -> bytes:
    return b"\x1c\0\0\0\1\0\0\0" * (levels - 1) + b"\x1c\0\0\0\0\0\0\0"


def tiny_containers(n: int) -> bytes:
    """An Array of n empty Arrays (8 bytes each): the most Python objects per input byte."""
    return struct.pack("<II", 28, n) + b"\x1c\0\0\0\0\0\0\0" * n


def tiny_dicts(n: int) -> bytes:
    """A Dictionary of n int keys, each holding an empty Dictionary."""
    pair = b"\x02\0\0\0%s\x1b\0\0\0\0\0\0\0"
    return struct.pack("<II", 27, n) + b"".join(pair % struct.pack("<i", i) for i in range(n))


def nested_chains(n: int) -> bytes:
    """An Array of n chains, each 1,000 Arrays deep (just under the depth limit)."""
    chain = nested(1000)
    return struct.pack("<II", 28, n) + chain * n


CASES: list[tuple[str, bytes]] = [
    ("Array claiming 2^31-1 elements (16 B)", claims(28, 2**31 - 1)),
    ("Dictionary claiming 2^31-1 entries (16 B)", claims(27, 2**31 - 1)),
    ("PackedInt32Array claiming 2^31-1 (16 B)", claims(30, 2**31 - 1)),
    ("PackedStringArray claiming 2^31-1 (16 B)", claims(34, 2**31 - 1)),
    ("String claiming 2^31-1 bytes (16 B)", claims(4, 2**31 - 1)),
    ("1,024 nested Arrays (at the limit)", nested(1025)),
    ("1,025 nested Arrays (over the limit)", nested(1026)),
    ("1,000,000 empty Arrays in an Array", tiny_containers(1_000_000)),
    ("1,000,000 empty Dictionaries in a Dictionary", tiny_dicts(1_000_000)),
]


def main() -> int:
    print(f"gdvariant {gd.__version__} ({gd.IMPLEMENTATION}), Python {sys.version.split()[0]}\n")
    print("| input | bytes | result | time | peak memory | peak / input |")
    print("|---|---:|---|---:|---:|---:|")
    for name, data in CASES:
        seconds = best_time(partial(run, data), budget=0.5)
        mem = peak(data)
        print(
            f"| {name} | {len(data):,} | {run(data)} | {seconds * 1e3:.3f} ms "
            f"| {mem / 1024:,.0f} KiB | {mem / len(data):.1f}x |",
            flush=True,
        )
    print("\nLinearity (time per input byte should stay flat):\n")
    print("| shape | n | 10n | 100n |")
    print("|---|---:|---:|---:|")
    shapes: list[tuple[str, Callable[[int], bytes]]] = [
        ("empty Arrays in an Array (n = 1,000)", tiny_containers),
        ("empty Dictionaries in a Dictionary (n = 1,000)", tiny_dicts),
        ("chains 1,000 deep in an Array (n = 1)", nested_chains),
    ]
    for name, make in shapes:
        sizes = (1, 10, 100) if make is nested_chains else (1_000, 10_000, 100_000)
        cells = []
        for n in sizes:
            data = make(n)
            seconds = best_time(partial(run, data), budget=0.5)
            cells.append(f"{seconds * 1e9 / len(data):.0f} ns/B ({len(data):,} B)")
        print(f"| {name} | {' | '.join(cells)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
