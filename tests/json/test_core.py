"""The JSON writers' two twins (``gdvariant._json.core``): the compiled one writes exactly the
pure one's text, or raises exactly its error, in both dialects, on random values of every
type; and the switch between them follows the codec's policy."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._compiled import PURE_FORCED
from gdvariant._json import core
from tests.support.cores import compiled_required
from tests.support.edge_values import edge_float, edge_text, edge_value
from tests.support.engines import SEED


@pytest.fixture(scope="module")
def compiled() -> Iterator[None]:
    if "c" not in core.implementations():
        if compiled_required():
            pytest.fail(f"the compiled JSON writer is required: {core.error()}")
        pytest.skip(str(core.error()))
    yield


def _json(impl: str, value: Any, **options: Any) -> tuple[str, str]:
    """("ok", text) or (error type, message) of to_json on ``impl``."""
    with core.use(impl):
        try:
            return "ok", gd.to_json(value, **options)
        except Exception as exc:  # the same error, whatever it is, is the contract
            return type(exc).__name__, str(exc)


def _same(value: Any, **options: Any) -> None:
    """The same text or error from both twins, in both dialects."""
    for dialect in ("godot", "tagged"):
        both = [_json(impl, value, dialect=dialect, **options) for impl in ("c", "python")]
        assert both[0] == both[1], (dialect, value)


def test_the_compiled_writer_writes_the_pure_writers_text(compiled: None) -> None:
    rng = random.Random(SEED)
    print("seed", SEED)
    for _ in range(3000):
        value = edge_value(rng)
        _same(value)
        if rng.random() < 0.2:
            _same(value, full_objects=True)


def test_every_float_path_is_the_same(compiled: None) -> None:
    rng = random.Random(SEED + 1)
    floats = [edge_float(rng) for _ in range(4000)]
    _same(floats)
    _same([gd.Vector2(x, -x) for x in floats])
    _same(gd.PackedFloat64Array(floats))
    _same(gd.PackedFloat32Array(x for x in floats if abs(x) < 3.4e38 or x != x))
    _same(gd.PackedVector2Array((x, x) for x in floats if abs(x) < 3.4e38 or x != x))


@pytest.mark.parametrize(
    "value",
    [
        "a\0b",
        ["\ud800"],
        {"k": gd.StringName("\udfff")},
        gd.PackedStringArray(["a", "b\0"]),
        gd.RID(5),
        gd.NodePath("a/b:c"),
        gd.TypedArray(gd.VariantType.INT, [1, 2]),
        gd.Dictionary([(1, "a")], gd.VariantType.INT, gd.VariantType.STRING),
        bytearray(b"ab"),
        object(),
        [object()],
        gd.PackedVector2iArray([(1, 2)]),
        gd.GodotObject("Node", [("name", "n")]),
        gd.Basis((1, 2, 3), (4, 5, 6), (7, 8, 9)),
        gd.Transform3D(((1, 2, 3), (4, 5, 6), (7, 8, 9)), (10, 11, 12)),
        gd.Rect2i((1, 2), (3, 4)),
        [2**70, -(2**64), True, None, -0.0, 1e300, 5e-324],
    ],
    ids=repr,
)
def test_values_handed_back_write_or_fail_as_the_pure_writer(compiled: None, value: Any) -> None:
    _same(value)
    _same({edge_text(random.Random(1)): [value]}, full_objects=True)
    _same(value, indent=2)


def test_deep_values_are_the_same(compiled: None) -> None:
    deep: Any = []
    for level in range(600):
        deep = [deep] if level % 2 else {"k": deep}
    _same(deep)


def test_the_pure_twin_hands_everything_to_the_reference() -> None:
    with core.use("python"):
        assert core.write([1], (), lambda value: f"{value}!") == "[1]!"
        assert core.write_tagged([1], (), lambda value: f"{value}?") == "[1]?"


@pytest.mark.parametrize(
    "value",
    [
        {"$type": 1},
        {"a": 1, 2: "b"},
        {"k\ud800": 1},
        [2**63, -(2**63) - 1, 2**63 - 1, -(2**63)],
        [float("inf"), float("nan"), -0.0, 1e-45, 3.4028234663852886e38],
        gd.Vector2(1e-45, 0.1),
        gd.Vector2(0.1 + 0.2, 1),
        gd.Vector3(float("inf"), 0, 0),
        gd.PackedFloat32Array([1e-45, 0.1, float("inf"), -float("inf")]),
        gd.PackedFloat32Array([float("nan")]),
        gd.PackedVector3Array([(0.1, 0.2, 0.3), (1, 2, 3)]),
        gd.PackedVector2Array64([(0.1, 0.2)]),
        gd.PackedInt64Array([-(2**63), 2**63 - 1]),
        '\x00\x01\x1f\x7f"\\\b\f\n\r\t\u2028é漢🎮',
        gd.StringName("\n"),
    ],
    ids=repr,
)
def test_tagged_edge_values_are_the_same(compiled: None, value: Any) -> None:
    _same(value)
    _same([value, {"k": value}])


def test_gdvariant_pure_python_forces_the_pure_writer() -> None:
    script = "from gdvariant._json import core; print(core.IMPLEMENTATION, core.error())"
    env = {**os.environ, "GDVARIANT_PURE_PYTHON": "1"}
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.stdout.startswith("python GDVARIANT_PURE_PYTHON is set"), run.stderr
    if "c" in core.implementations() and not PURE_FORCED:
        assert core.IMPLEMENTATION == "c"
