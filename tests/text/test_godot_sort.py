"""Godot's SortArray port: on a total order it sorts like ``sorted``; on comparisons that are
not an order it still ends (the engine-written key orders are checked in test_text_writer)."""

from __future__ import annotations

import random

from gdvariant._text.godot_sort import godot_sort


def test_total_order_sorts() -> None:
    rng = random.Random(3)
    for n in (0, 1, 2, 5, 16, 17, 40, 300):
        items = [rng.randrange(50) for _ in range(n)]
        got = list(items)
        godot_sort(got, lambda a, b: a < b)
        assert got == sorted(items)


def test_bad_comparisons_end_and_keep_every_item() -> None:
    rng = random.Random(4)
    items = list(range(200))
    godot_sort(items, lambda a, b: rng.random() < 0.5)
    assert sorted(items) == list(range(200))
