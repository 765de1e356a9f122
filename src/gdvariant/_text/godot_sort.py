"""Godot's ``SortArray`` (introsort + final insertion sort), step for step.

The text writer sorts Dictionary keys with ``Variant::operator<``, which is not a total order
(Dictionaries, Colors, NodePaths... never compare less; String vs StringName keys can be
non-transitive). Python's sort would then give a different order than the engine, so the
engine's algorithm is reproduced here, including its "bad comparison" early exits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["godot_sort"]

_THRESHOLD = 16

Less = Callable[[Any, Any], bool]


def _bitlog(n: int) -> int:
    r = 0
    while n != 1:
        n >>= 1
        r += 1
    return r


def _median_of_3(a: Any, b: Any, c: Any, less: Less) -> Any:
    if less(a, b):
        if less(b, c):
            return b
        return c if less(a, c) else a
    if less(a, c):
        return a
    return c if less(b, c) else b


def _partition(items: list[Any], first: int, last: int, pivot: Any, less: Less) -> int:
    lo, hi = first, last
    while True:
        while less(items[first], pivot):
            if first == hi - 1:  # bad comparison function
                break
            first += 1
        last -= 1
        while less(pivot, items[last]):
            if last == lo:  # bad comparison function
                break
            last -= 1
        if not first < last:
            return first
        items[first], items[last] = items[last], items[first]
        first += 1


def _heap_sort_range(items: list[Any], first: int, last: int, less: Less) -> None:
    """``partial_sort`` over the whole range (only reached when introsort runs out of depth)."""
    part = items[first:last]
    part.sort(key=functools.cmp_to_key(lambda a, b: -1 if less(a, b) else int(less(b, a))))
    items[first:last] = part


def _introsort(items: list[Any], first: int, last: int, depth: int, less: Less) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort_range(items, first, last, less)
            return
        depth -= 1
        mid = first + (last - first) // 2
        pivot = _median_of_3(items[first], items[mid], items[last - 1], less)
        cut = _partition(items, first, last, pivot, less)
        _introsort(items, cut, last, depth, less)
        last = cut


def _unguarded_linear_insert(items: list[Any], last: int, value: Any, less: Less) -> None:
    nxt = last - 1
    while less(value, items[nxt]):
        if nxt == 0:  # bad comparison function
            break
        items[last] = items[nxt]
        last = nxt
        nxt -= 1
    items[last] = value


def _linear_insert(items: list[Any], first: int, last: int, less: Less) -> None:
    value = items[last]
    if less(value, items[first]):
        items[first + 1 : last + 1] = items[first:last]
        items[first] = value
    else:
        _unguarded_linear_insert(items, last, value, less)


def _insertion_sort(items: list[Any], first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        _linear_insert(items, first, i, less)


def godot_sort(items: list[Any], less: Less) -> None:
    """Sort ``items`` in place exactly as Godot's ``SortArray::sort`` would."""
    n = len(items)
    if n < 2:
        return
    _introsort(items, 0, n, _bitlog(n) * 2, less)
    if n > _THRESHOLD:
        _insertion_sort(items, 0, _THRESHOLD, less)
        for i in range(_THRESHOLD, n):
            _unguarded_linear_insert(items, i, items[i], less)
    else:
        _insertion_sort(items, 0, n, less)
