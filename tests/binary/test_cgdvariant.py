"""What only the compiled core (``gdvariant._binary._cgdvariant``) has: its fast path, the
stream hot path, and its own failure modes. The comparison of the two cores on random values and
bytes is ``tests/binary/test_core_differential.py``, their memory
``tests/binary/test_core_leaks.py``, and the compiled FastLZ is in
``tests/files/test_fastlz.py``. Without a C compiler these tests skip, unless
``GDVARIANT_REQUIRE_COMPILED=1`` says it must be there (CI).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._binary import pure as _pure
from gdvariant._limits import DEFAULT_LIMITS
from tests.support import cores, processes
from tests.support.core_compare import compare_decode, same_value
from tests.support.random_values import RELEASES
from tests.support.vectors import golden

PROFILES = [gd.get_profile(name) for name in RELEASES] + [
    gd.get_profile(name, double=True) for name in RELEASES if name.startswith("4.")
]


@pytest.fixture(scope="module")
def core() -> ModuleType:
    """The compiled module (skipped where it is not built, unless it is required)."""
    return cores.core("c")


@pytest.mark.parametrize("release", ["4.6", "3.6", "3.2"])
def test_engine_golden_vectors_decode_alike_and_mostly_in_c(core: Any, release: str) -> None:
    """Every engine-written vector decodes alike; only rare shapes leave the C code."""
    profile = gd.get_profile(release)
    slow = set()
    for row in golden(release):
        blob = bytes.fromhex(row["bytes"])
        assert compare_decode(blob, profile) is None, row["name"]
        if core.fast_path_decode(blob, profile, DEFAULT_LIMITS) is None:
            slow.add(row["name"])
    # Text that starts with a byte-order mark goes to the pure core, which drops the mark.
    assert slow - {"random"} == {"string_bom_leading", "string_bom_only"}


def test_the_benchmark_payloads_stay_on_the_fast_path(core: Any) -> None:
    profile = gd.get_profile("4")
    values: list[Any] = [
        [{"id": 1, "pos": gd.Vector2(1, 2), "tags": gd.PackedStringArray(["a", "b"])}],
        [1, 2.5, "three", -(2**40), 1e300],
        gd.PackedFloat32Array([1.0, 2.0]),
        [7, "move", gd.Vector3(1, 2, 3), {"seq": 42}],
        [gd.StringName("x"), gd.NodePath("/root/a:b"), gd.RID(5), gd.ObjectID(9), None, True],
    ]
    for value in values:
        blob = core.fast_path_encode(value, profile)
        assert blob == _pure.encode_value(value, profile, False)
        decoded, end = core.fast_path_decode(blob, profile, DEFAULT_LIMITS)
        assert same_value(decoded, _pure.decode_value(blob, profile, False, 0, DEFAULT_LIMITS)[0])
        assert end == len(blob)


def test_dictionaries_whose_keys_merge_are_read_in_bounded_time(core: Any) -> None:
    """1 and true are two keys in Godot: the C code reads such a Dictionary again as pairs.
    Nested 60 deep, with the merge found after each inner one, re-reading every level again
    would take 2**60 passes; past one input's worth of re-read bytes the pure core takes over.
    """
    value: Any = {"leaf": 0}
    for _ in range(60):
        value = gd.Dictionary([(1, value), (True, 0)])
    blob = _pure.encode_value(value, gd.get_profile("4"), False)
    assert compare_decode(blob, gd.get_profile("4")) is None
    decoded = core.decode_value(blob, gd.get_profile("4"), False, 0, DEFAULT_LIMITS)[0]
    assert same_value(decoded, value)
    pairs = [gd.Dictionary([(1, "a"), (1.0, "b")]), gd.Dictionary([([], 1)])]
    shallow = _pure.encode_value(pairs, gd.get_profile("4"), False)
    assert compare_decode(shallow, gd.get_profile("4")) is None


@pytest.mark.parametrize("big_endian", [False, True])
def test_the_stream_hot_path_stops_where_python_must_go_on(core: Any, big_endian: bool) -> None:
    """decode_frames decodes whole frames in place and stops at the first it cannot finish:
    a value the fast path hands over, a partial frame, or a length out of range."""
    profile = gd.get_profile("4")
    order: Any = "big" if big_endian else "little"

    def framed(blob: bytes) -> bytes:
        return len(blob).to_bytes(4, order) + blob

    values: list[Any] = [1, "abc", gd.Vector2(1, 2), {"k": [1.5]}]
    frames = b"".join(framed(gd.dumps(v)) for v in values)
    slow = framed(gd.dumps(gd.GodotObject("Node", ()), full_objects=True))
    buffer = bytearray(frames + slow + frames[:6])
    assert core.decode_frames(buffer, 0, big_endian, 1 << 20, profile, DEFAULT_LIMITS) == (
        values,
        len(frames),
    )
    after = len(frames) + len(slow)
    assert core.decode_frames(buffer, after, big_endian, 1 << 20, profile, DEFAULT_LIMITS) == (
        [],
        after,
    )
    assert core.decode_frames(buffer, 0, big_endian, 7, profile, DEFAULT_LIMITS) == ([], 0)


def test_a_failing_table_setup_raises_instead_of_crashing(core: Any) -> None:
    """The C code reads its classes from _ctables on first use; if that fails, every entry
    point raises the error (found when a rename broke it: the second call crashed)."""
    script = """if True:
        import gdvariant._binary.ctables as tables
        def broken():
            raise AttributeError("broken on purpose")
        tables.classes = broken
        import gdvariant as gd
        from gdvariant._binary import _cgdvariant as c
        p, limits = gd.get_profile("4"), gd.Limits()
        calls = [
            lambda: c.decode_value(bytes(4), p, False, 0, limits),
            lambda: c.encode_value(1, p, False),
            lambda: c.decode_whole(bytes(4), p, False, limits),
            lambda: c.decode_frames(bytearray(8), 0, False, 9, p, limits),
        ]
        for call in calls:
            try:
                call()
            except AttributeError as exc:
                assert str(exc) == "broken on purpose"
            else:
                raise SystemExit("no error")
    """
    result = processes.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
