"""The packet format (header, flags, record ops, records), shared by encoder and decoders.

The packet layout is in ``docs/replication-wire.md``; in short::

    header   u8 version, u8 flags, u32 tick, u32 base tick, u32 shared count, u32 private count
             [u64 schema fingerprint if flags & 1]
    records  shared section, then private section; each record is byte-aligned and
             bit-packed, LSB first, padded to a byte: 2-bit op, 1-bit "id gap follows"
             [2-bit size class, gap in 4/8/16/32 bits], then (update, enter)
             [class id (enter)] selector (0 = bitmask of N bits, 1 = gap list),
             the changed indices, then each changed value in index order (whole, or a
             value delta in shared update records when flags & 4).

Why fields are bit-packed and records byte-aligned (measured in Godot 4.6.3, details in the
wire doc §9): the generated GDScript decoder (``gdscript.generate(schema)``), which reads fields
inline with 32-bit refills, applies the benchmark's lag-0 packet (1,400 properties) in
about 1.1 ms and its lag-8 packet (10,631) in 3.3 ms (its ``state`` Dictionaries are built
when read, 0.5-1.8 ms more). Byte-aligned
fields would read about 20% faster but make the values 37% larger. Aligning only the records
costs 3.5 bits each and lets the server cache and join records as ``bytes``.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._schema import ClassLayout

__all__ = [
    "FLAG_DELTAS",
    "FLAG_FULL",
    "FLAG_PARTIAL",
    "FLAG_STAMP",
    "GAP_WIDTHS",
    "HEADER",
    "OP_DELETE",
    "OP_ENTER",
    "OP_UPDATE",
    "VERSION",
    "change_list",
    "encode_record",
]

VERSION = 2
FLAG_STAMP = 1
FLAG_FULL = 2
FLAG_DELTAS = 4
#: The packet left out entities that changed (an encoder with an MTU or a budget).
FLAG_PARTIAL = 8
OP_UPDATE, OP_ENTER, OP_DELETE = 0, 1, 2
HEADER = struct.Struct("<BBIIII")
GAP_WIDTHS = (4, 8, 16, 32)


def gap_code(gap: int) -> tuple[int, int]:
    """The entity-id gap as bits: ``0`` for 0, else ``1``, a 2-bit size class and the gap in
    4, 8, 16 or 32 bits."""
    if gap == 0:
        return 0, 1
    for size, width in enumerate(GAP_WIDTHS):
        if gap < 1 << width:
            return 1 | size << 1 | gap << 3, 3 + width
    raise ValueError(f"entity id gap {gap} is over 32 bits")


def update_head(gap: int) -> tuple[int, int]:
    """An update record's op and nonzero id gap as ``(bits, bit count)``."""
    acc, n = gap_code(gap)
    return OP_UPDATE | acc << 2, n + 2


# SET_BITS[k][b]: the positions of the set bits of byte b of a mask, at byte offset k; lets
# the record encoder walk a mask a byte at a time with plain for-loops (no per-bit work).
SET_BITS: list[tuple[tuple[int, ...], ...]] = []


def set_bits(k: int) -> tuple[tuple[int, ...], ...]:
    while len(SET_BITS) <= k:
        off = 8 * len(SET_BITS)
        SET_BITS.append(tuple(tuple(off + i for i in range(8) if b >> i & 1) for b in range(256)))
    return SET_BITS[k]


def set_indices(mask: int) -> tuple[int, ...]:
    """The set bits of ``mask``, ascending."""
    if mask < 1 << 32:
        t0, t1, t2, t3 = SMALL
        return t0[mask & 255] + t1[(mask >> 8) & 255] + t2[(mask >> 16) & 255] + t3[mask >> 24]
    out: tuple[int, ...] = ()
    k = 0
    while mask:
        low = mask & 255
        if low:
            out += set_bits(k)[low]
        mask >>= 8
        k += 1
    return out


SMALL = tuple(set_bits(k) for k in range(4))


def encode_record(
    layout: ClassLayout | None,
    class_bits: int,
    op: int,
    gap: int,
    mask: int,
    bits: list[int],
    widths: list[int],
) -> bytes:
    """One record with whole values: op, id gap, [class id], selector, indices, values;
    padded to a byte."""
    if gap:
        acc, n = gap_code(gap)
        acc = op | acc << 2
        n += 2
    else:
        acc, n = op, 3
    if layout is None:
        return acc.to_bytes((n + 7) >> 3, "little")
    if op == OP_ENTER:
        acc |= layout.class_id << n
        n += class_bits
    acc, n, idx = change_list(acc, n, mask, layout.count, 1 + layout.index_bits)
    for i in idx:
        acc |= bits[i] << n
        n += widths[i]
    return acc.to_bytes((n + 7) >> 3, "little")


def change_list(
    acc: int, n: int, mask: int, count: int, step: int
) -> tuple[int, int, tuple[int, ...]]:
    """Append the selector and change list of ``mask`` (a class of ``count`` properties,
    gap-list items of ``step`` bits) to the record bits ``acc`` (``n`` bits so far); also
    return the changed indices, ascending."""
    if mask < 1 << 32:
        t0, t1, t2, t3 = SMALL
        idx = t0[mask & 255] + t1[(mask >> 8) & 255] + t2[(mask >> 16) & 255] + t3[mask >> 24]
    else:
        idx = set_indices(mask)
    if 1 + len(idx) * step < count:
        acc |= 1 << n
        n += 1
        prev = -1
        for i in idx:
            acc |= (1 | (i - prev - 1) << 1) << n
            n += step
            prev = i
        n += 1
    else:
        acc |= mask << (n + 1)
        n += 1 + count
    return acc, n, idx
