"""Timing shared by the benchmarks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], budget: float = 1.0, repeats: int = 5) -> float:
    """Best per-call seconds over ``repeats`` rounds of about ``budget / repeats`` seconds."""
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(budget / repeats / once))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def median_time(fn: Callable[[], Any], budget: float = 1.0, repeats: int = 7) -> float:
    """Median per-call seconds over ``repeats`` rounds of about ``budget / repeats`` seconds.

    The median, not the best: on a shared machine it is the steadier figure to report.
    """
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    number = max(1, int(budget / repeats / once))
    rounds = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        rounds.append((time.perf_counter() - start) / number)
    return sorted(rounds)[len(rounds) // 2]
