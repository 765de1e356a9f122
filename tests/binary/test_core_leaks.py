"""No core leaks: memory stays flat while it encodes and decodes the same things many times.

Each core (the pure one, and the compiled one when built) runs two workloads after a warm-up
(which fills every cache): a large mixed value encoded and decoded whole (also into packed
views, written back), with failing inputs and values alongside (error paths are where compiled
code tends to leak), and many small messages, which show a leak of one small object per call.
The pure core is measured with ``tracemalloc`` (live Python allocations); the compiled one with
``tracemalloc`` too, which sees every object it makes, and with the process's resident size,
which also sees ``malloc``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import random
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import gdvariant as gd
from tests.support.cores import core
from tests.support.random_values import mutated_encodings, random_value

pytestmark = pytest.mark.slow  # many rounds of each workload: seconds, not milliseconds

PROFILE = gd.get_profile("4")
LIMITS = gd.DEFAULT_LIMITS


def _large_value() -> list[Any]:
    """About 300 KB on the wire (and 500 KB of Python objects), of every kind of value."""
    rng = random.Random(7)
    return [
        [random_value(rng) for _ in range(150)],
        {f"key{i}": [i, float(i) / 3, f"text {i}" * 3] for i in range(600)},
        gd.Dictionary([(gd.Vector2i(i, -i), gd.Color(0, 0, 0, 1)) for i in range(200)]),
        gd.TypedArray(gd.VariantType.STRING, [f"s{i}" for i in range(200)]),
        gd.PackedFloat32Array(float(i) for i in range(50_000)),
        gd.PackedStringArray(f"name{i}" for i in range(300)),
        gd.GodotObject("Node", (("name", "root"), ("children", [1, 2, 3]))),
        "x" * 100_000,
    ]


BAD_VALUES: list[Any] = [[1, {"k": "nul\0"}], {"deep": [2**64]}, [object()]]


def _large_workload() -> Callable[[ModuleType], None]:
    value = _large_value()
    bad_bytes = mutated_encodings(random.Random(8), count=40)

    def run(impl: ModuleType) -> None:
        data = impl.encode_value(value, PROFILE, True)
        impl.decode_value(data, PROFILE, True, 0, LIMITS)
        viewed, _ = impl.decode_value(bytearray(data), PROFILE, True, 0, LIMITS, True)
        impl.encode_value(viewed, PROFILE, True)  # packed views, written back
        for blob in bad_bytes:
            for views in (False, True):
                with contextlib.suppress(gd.DecodeError):
                    impl.decode_value(blob, PROFILE, False, 0, LIMITS, views)
        for bad in BAD_VALUES:
            with contextlib.suppress(gd.EncodeError):
                impl.encode_value(bad, PROFILE, False)

    return run


def _small_workload(count: int) -> Callable[[ModuleType], None]:
    message = [7, "move", gd.Vector3(1, 2, 3), {"seq": 42}]
    broken = gd.dumps(message)[:-3]

    def run(impl: ModuleType) -> None:
        for _ in range(count):
            impl.decode_value(impl.encode_value(message, PROFILE, False), PROFILE, False, 0, LIMITS)
            with contextlib.suppress(gd.DecodeError):
                impl.decode_value(broken, PROFILE, False, 0, LIMITS)

    return run


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def _rss() -> int:
    gc.collect()
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def growth(impl: ModuleType, run: Callable[[ModuleType], None], rounds: int, meter: str) -> int:
    """Bytes the process holds after ``rounds`` more runs than after two warm-up runs."""
    measure = _traced if meter == "tracemalloc" else _rss
    if meter == "tracemalloc":
        tracemalloc.start()
    try:
        for _ in range(2):
            run(impl)
        before = measure()
        for _ in range(rounds):
            run(impl)
        return measure() - before
    finally:
        if meter == "tracemalloc":
            tracemalloc.stop()


# (core, meter): tracemalloc for every core, the resident size for the compiled one.
CASES = [("python", "tracemalloc"), ("c", "tracemalloc"), ("c", "rss")]


def _core_for(name: str, meter: str) -> ModuleType:
    if meter == "rss" and not sys.platform.startswith("linux"):
        pytest.skip("the resident size is read from /proc (Linux)")
    return core(name)


@pytest.mark.parametrize(("name", "meter"), CASES)
def test_a_large_value_many_times_leaks_nothing(name: str, meter: str) -> None:
    impl = _core_for(name, meter)
    # Leaking the value (or its bytes) once per round would hold 300 KB more per round.
    rounds, limit = (3, 64 << 10) if meter == "tracemalloc" else (30, 4 << 20)
    grew = growth(impl, _large_workload(), rounds, meter)
    assert grew < limit, f"{name}: {grew:,} bytes more after {rounds} rounds"


@pytest.mark.parametrize(("name", "meter"), CASES)
def test_small_messages_many_times_leak_nothing(name: str, meter: str) -> None:
    impl = _core_for(name, meter)
    # One leaked object (32 bytes or more) per call would hold 38 KB (tracemalloc, 1,200
    # calls) or 19 MB (resident size, 600,000 calls) more.
    count, limit = (400, 16 << 10) if meter == "tracemalloc" else (100_000, 4 << 20)
    grew = growth(impl, _small_workload(count), 3 if meter == "tracemalloc" else 6, meter)
    assert grew < limit, f"{name}: {grew:,} bytes more"
