"""Lookup and equality of ``gdvariant.Dictionary`` (typed, or keys a dict would merge).

Run on demand (not a test):  .venv/bin/python -m benchmarks.bench_dictionary
Baseline: a plain ``dict`` of the same pairs, timed in the same run.
"""

from __future__ import annotations

import gdvariant as gd
from benchmarks.timing import best_time


def row(size: int) -> str:
    """One table row: ``size`` String keys, looked up last, compared in reverse order."""
    pairs = [(f"key{i}", i) for i in range(size)]
    typed = gd.Dictionary(pairs, gd.VariantType.STRING, gd.VariantType.INT)
    reverse = gd.Dictionary(pairs[::-1], gd.VariantType.STRING, gd.VariantType.INT)
    plain, plain_reverse = dict(pairs), dict(pairs[::-1])
    last = f"key{size - 1}"
    lookup = best_time(lambda: typed[last], budget=0.5)
    dict_lookup = best_time(lambda: plain[last], budget=0.5)
    equal = best_time(lambda: typed == reverse, budget=1.0)
    dict_equal = best_time(lambda: plain == plain_reverse, budget=0.5)
    return (
        f"| {size:,} | {lookup * 1e6:.2f} µs | {dict_lookup * 1e6:.2f} µs "
        f"| {equal * 1e3:.2f} ms | {dict_equal * 1e3:.3f} ms |"
    )


def main() -> None:
    print("| keys | Dictionary lookup | dict lookup | Dictionary == | dict == |")
    print("|---:|---:|---:|---:|---:|")
    for size in (100, 2_000, 20_000):
        print(row(size))


if __name__ == "__main__":
    main()
