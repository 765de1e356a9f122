"""Where the replication benchmark's bytes go, and what cheaper record framing could save.

Runs the world of ``bench_replication.py`` and, for clients lagging 0-8 ticks, prices the
same records under other framings, against Godot's delta of the same changes (as that
benchmark computes it):

* ``wire``: the packets as sent (format 2);
* ``model``: the same computed from the record layout with whole values (the difference from
  ``wire`` is what value deltas, wire doc §5.1, save on these values; the framings below are
  priced with whole values too);
* ``no pad``: records not padded to a byte;
* ``1-bit head``: one bit for an update with no id gap, else a flag, the op and an
  Elias-gamma id gap;
* ``entropy idx``: the changed indices as a 5-bit count and their combination's rank
  (``ceil(log2(C(N, k)))`` bits), about the information they carry;
* ``all``: the three together.

It shows how far from 1/4 of Godot's bytes framing alone can get; the values are fixed by
the codecs. Run: ``python -m benchmarks.bench_replication_overhead [--ticks N]``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from benchmarks.bench_replication import (
    ENTITIES,
    MAX_LAG,
    Soldier,
    changed_since,
    command_line,
    godot_delta,
    random_value,
    set_path,
)
from gdvariant.replication import Schema, SnapshotEncoder, World
from gdvariant.replication._history import entries

Record = tuple[int, int, int]  # entity id, changed mask, value bits


def gap_bits(gap: int) -> int:
    """Format 1: the gap flag, then a size class and the gap in 4/8/16/32 bits."""
    if not gap:
        return 1
    return 3 + next(w for w in (4, 8, 16, 32) if gap < 1 << w)


def packet_bytes(
    records: list[Record], head: Callable[[int], int], index: Callable[[int], int], pad: bool
) -> int:
    """Bytes of a packet of ``records`` priced with the given head and index coders, after
    the 18-byte header and the 8-byte fingerprint stamp (the encoder's default)."""
    bits, prev = 0, -1
    for net_id, mask, value_bits in records:
        size = head(net_id - prev - 1) + index(mask) + value_bits
        prev = net_id
        bits += (size + 7) & ~7 if pad else size
    return 26 + (bits + 7) // 8


def run(ticks: int, warmup: int, seed: int) -> None:
    rng = random.Random(seed)
    schema = Schema.build([Soldier])
    lay = schema.layout(Soldier)
    count = lay.count
    paths = [p.path for p in lay.props]
    world = World(schema)
    encoder = SnapshotEncoder(world, history=32)
    ents = [world.spawn(Soldier) for _ in range(ENTITIES)]
    for ent in ents:
        for path in paths:
            set_path(ent, path, random_value(path, rng))
    for lag in range(MAX_LAG + 1):
        encoder.add_client(lag)
    last_change: dict[tuple[int, int], int] = {}
    step_bits = 1 + lay.index_bits

    def head(gap: int) -> int:
        return 2 + gap_bits(gap)

    def index(mask: int) -> int:
        return 1 + min(count, 1 + mask.bit_count() * step_bits)

    def short_head(gap: int) -> int:
        return 1 if not gap else 3 + 2 * (gap + 1).bit_length() - 1

    def entropy_index(mask: int) -> int:
        return 5 + math.ceil(math.log2(math.comb(count, mask.bit_count())))

    coders: dict[str, tuple[Callable[[int], int], Callable[[int], int], bool]] = {
        "model": (head, index, True),
        "no pad": (head, index, False),
        "1-bit head": (short_head, index, True),
        "entropy idx": (head, entropy_index, True),
        "all": (short_head, entropy_index, False),
    }
    totals: dict[str, int] = {"wire": 0, "godot": 0, **dict.fromkeys(coders, 0)}
    for step in range(warmup + ticks):
        picks = [(rng.randrange(ENTITIES), rng.randrange(count)) for _ in range(1500)]
        before = {(e, i): ents[e]._net_vals[i] for e, i in picks}
        for e, i in picks:
            set_path(ents[e], paths[i], random_value(paths[i], rng))
        tick = encoder.snapshot()
        for key, old in before.items():
            if ents[key[0]]._net_vals[key[1]] != old:
                last_change[key] = tick
        for lag in range(MAX_LAG + 1):
            encoder.ack(lag, max(tick - 1 - lag, 0))
        packets = encoder.packets()  # every tick: a client acks only ticks it was sent
        if step < warmup:
            continue
        for lag in range(MAX_LAG + 1):
            base = encoder.base_for(encoder.clients[lag])
            records: list[Record] = []
            for ent in ents:
                mask = 0
                for t, changed, *_ in entries(ent):
                    if t > base:
                        mask |= changed
                if mask:
                    value_bits = sum(ent._net_widths[i] for i in range(count) if mask >> i & 1)
                    records.append((ent.net_id, mask, value_bits))
            totals["godot"] += godot_delta(ents, changed_since(last_change, base))
            totals["wire"] += len(packets[lag])
            for name, (h, x, pad) in coders.items():
                totals[name] += packet_bytes(records, h, x, pad)
    print(f"ratio to Godot's delta of the same changes, ack lag 0-{MAX_LAG}, {ticks} ticks:")
    for name, total in totals.items():
        if name != "godot":
            print(f"  {name:12} {total / totals['godot']:.3f}")


def main() -> None:
    args = command_line(__doc__, 30)
    run(args.ticks, args.warmup, args.seed)


if __name__ == "__main__":
    main()
