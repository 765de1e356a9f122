"""The text writer's and reader's two twins (``gdvariant._text.core``): the compiled writer
writes exactly the pure one's text, or raises exactly its error, on random values of every
type; the compiled reader reads exactly the pure one's value, or gives exactly its error, on
their texts and on mutated ones; and the switch between them follows the codec's policy."""

from __future__ import annotations

import contextlib
import os
import random
import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._compiled import PURE_FORCED
from gdvariant._floats import _CACHED
from gdvariant._text import core
from gdvariant._text.parser import from_text_all
from gdvariant._text.writer import compiled_plan, to_text_line
from tests.support import processes
from tests.support.core_compare import same_value
from tests.support.cores import compiled_required
from tests.support.edge_values import edge_float, edge_value
from tests.support.engines import SEED
from tests.support.ids import value_id
from tests.support.paths import SRC

T = gd.VariantType
#: The releases whose default layout the compiled writer knows, and one it hands back whole.
VERSIONS = ["4", "4.6", "4.5", "4.4", "3.6"]


@pytest.fixture(scope="module")
def compiled() -> Iterator[None]:
    if "c" not in core.implementations():
        if compiled_required():
            pytest.fail(f"the compiled text writer is required: {core.error()}")
        pytest.skip(str(core.error()))
    yield


def _text(impl: str, value: Any, version: str) -> tuple[str, str]:
    """("ok", text) or (error type, message) of to_text on the writer ``impl``."""
    with core.use(impl):
        try:
            return "ok", gd.to_text(value, version=version)
        except Exception as exc:  # the same error, whatever it is, is the contract
            return type(exc).__name__, str(exc)


def _same(value: Any, version: str) -> None:
    pure, compiled = _text("python", value, version), _text("c", value, version)
    assert compiled == pure, (version, value)


def test_the_compiled_writer_writes_the_pure_writers_text(compiled: None) -> None:
    rng = random.Random(SEED)
    print("seed", SEED)
    for _ in range(3000):
        value = edge_value(rng)
        for version in VERSIONS:
            _same(value, version)


@pytest.mark.parametrize("version", VERSIONS)
def test_every_float_digit_path_is_the_same(compiled: None, version: str) -> None:
    """Floats, float32 components and packed elements of every exponent: the digit printer."""
    rng = random.Random(SEED + 1)
    floats = [edge_float(rng) for _ in range(4000)]
    _same(floats, version)
    _same([gd.Vector2(x, -x) for x in floats], version)
    _same(gd.PackedFloat64Array(floats), version)
    _same(gd.PackedFloat32Array(x for x in floats if abs(x) < 3.4e38 or x != x), version)


def test_deep_and_self_referencing_values_are_the_same(compiled: None) -> None:
    deep: Any = []
    for level in range(150):
        deep = [deep] if level % 2 else {"k": deep}
    loop: list[Any] = [1]
    loop.append(loop)
    for value in (deep, loop, {"a": loop}):
        _same(value, "4")


@pytest.mark.parametrize(
    "value",
    [
        gd.RID(5),
        gd.NodePath("a/b:c"),
        gd.TypedArray(T.INT, [1, 2]),
        gd.Dictionary([(1, "a")], T.INT, T.STRING),
        bytearray(b"ab"),
        object(),
        [object()],
        {"a": {1: object()}},
        gd.PackedVector2iArray([(1, 2)]),
        gd.GodotObject("Node", [("name", "n")]),
    ],
    ids=value_id,
)
def test_values_handed_back_write_or_fail_as_the_pure_writer(compiled: None, value: Any) -> None:
    for version in VERSIONS:
        _same(value, version)
        _same([1, {"k": value}], version)


def test_the_c_source_has_the_digit_printers_powers_of_ten() -> None:
    source = (SRC / "_text" / "_ctext.c").read_text()
    significands = re.findall(r"UINT64_C\(0x([0-9a-f]{16})\)", source)
    exponents = re.search(r"POWERS_E\[\d+\] = \{([^}]*)\}", source)
    assert exponents is not None
    table = list(
        zip(
            (int(f, 16) for f in significands),
            map(int, exponents.group(1).split(",")[:-1]),
            strict=True,
        )
    )
    assert table == _CACHED


def test_only_the_grisu2_releases_have_a_compiled_plan() -> None:
    assert compiled_plan("4.6") is not None and compiled_plan("4.5") is not None
    for version in ("4.4", "4.0", "3.6", "3.2"):
        assert compiled_plan(version) is None


def test_the_pure_twin_hands_everything_to_the_reference() -> None:
    with core.use("python"):
        assert core.write([1], (), lambda value, depth: f"{value}@{depth}") == "[1]@0"


def test_gdvariant_pure_python_forces_the_pure_writer() -> None:
    script = "from gdvariant._text import core; print(core.IMPLEMENTATION, core.error())"
    env = {**os.environ, "GDVARIANT_PURE_PYTHON": "1"}
    run = processes.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.stdout.startswith("python GDVARIANT_PURE_PYTHON is set"), run.stderr
    if "c" in core.implementations() and not PURE_FORCED:
        assert core.IMPLEMENTATION == "c"


# ---- the reader ------------------------------------------------------------------------


def _read(impl: str, text: str, version: str) -> tuple[str, Any]:
    """("ok", value) or (error type, (message, offset, line, column)) of from_text."""
    with core.use(impl):
        try:
            return "ok", gd.from_text(text, version=version)
        except Exception as exc:  # the same error, whatever it is, is the contract
            fields = (str(exc), *(getattr(exc, n, None) for n in ("offset", "line", "column")))
            return type(exc).__name__, fields


def _same_read(text: str, version: str = "4") -> None:
    (kind_a, a), (kind_b, b) = _read("python", text, version), _read("c", text, version)
    assert kind_a == kind_b, (text, a, b)
    if kind_a == "ok":
        assert same_value(a, b), (text, a, b)
    else:
        assert a == b, text


#: Pieces that a mutation puts into a text: every character class the tokenizer tells apart.
_PIECES = [
    *'"\\&@;:,()[]{}-+.eE0159 \n\t\0xa_',
    "\\u00e9",
    "\\U01f3ae",
    "\\ud83c\\udfae",
    "\\ud800",
    "\ud800",
    "inf",
    "inf_neg",
    "-inf",
    "nan",
    "true",
    "null",
    "Vector2(",
    "Vector2i(",
    "Quat(",
    "PackedFloat64Array(",
    "PackedStringArray(",
    "PackedByteArray(",
    "NodePath(",
    "Array[int]([",
    "1e400",
    "123456789012345678901234",
    ".5",
    "é",
    "漢",
]


def _mutated(rng: random.Random, text: str) -> str:
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(text) + 1)
        roll = rng.random()
        if roll < 0.3:
            text = text[:at]
        elif roll < 0.6:
            text = text[:at] + text[at + rng.randrange(1, 4) :]
        else:
            text = text[:at] + rng.choice(_PIECES) + text[at:]
    return text


def _texts(rng: random.Random, value: Any) -> Iterator[str]:
    """The texts of ``value`` that are read back: Godot's, and the exact one when it has one."""
    yield gd.to_text(value)
    if rng.random() < 0.5:
        exact = None
        with contextlib.suppress(gd.EncodeError):  # e.g. a U+0000: no exact text to read
            exact = gd.to_text(value, exact=True)
        if exact is not None:
            yield exact


def test_the_compiled_reader_reads_the_pure_readers_values(compiled: None) -> None:
    rng = random.Random(SEED + 2)
    print("seed", SEED)
    for _ in range(1500):
        for text in _texts(rng, edge_value(rng)):
            _same_read(text)
            _same_read(_mutated(rng, text))
            _same_read(text, rng.choice(VERSIONS))


@pytest.mark.parametrize(
    "text",
    [
        "1e5",
        "1E+",
        "1e",
        "-0",
        "-0.0",
        "0.",
        "5.e-3",
        "00012",
        "999999999999999999",
        "9999999999999999999",
        "-9223372036854775809",
        "0.1e-400",
        "1e99999999999999999999",
        "123456789012345678901234.5e-3",
        "[1,]",
        "[1,,]",
        "[,]",
        "{1: 2,}",
        "{,}",
        '{"a" 1}',
        '{"a": 1, "a": 2}',
        '{"a": 1, &"a": 2}',
        "{1: 1, true: 2, 1.0: 3}",
        '{"k": [], 2: {}}',
        "Vector2(1, inf_neg)",
        "Vector2(1, -inf)",
        "Vector2i(1e20, nan)",
        "Vector2i(-3.9, 2)",
        "Vector3(1, 2)",
        "Vector3(1, 2, 3,)",
        "Vector2()",
        "Color(0.1, 1e-50, 3e38, 4e38)",
        "Quat(1, 2, 3, 4)",
        "Rect2i(1, 2, 3, 4)",
        "Transform3D(1,2,3,4,5,6,7,8,9,10,11,12)",
        "PackedInt32Array(1, 2.5, -3e10, 4294967297)",
        "PackedInt64Array(-1e300, inf)",
        "PackedVector2Array(1, 2, 3)",
        "PackedFloat32Array()",
        "PackedFloat64Array(0.1, nan)",
        'PackedStringArray("a", "b\\n")',
        'PackedStringArray("a",)',
        "PackedStringArray()",
        'PackedByteArray("AQI=")',
        "PackedByteArray(1, 2)",
        'NodePath("a")',
        "RID(5)",
        'Object(Node,"name":"n")',
        "Array[int]([1])",
        '"a\\u00e9"',
        '"\\ud83c\\udfae"',
        '"\\ud800"',
        '"a\\qb\\"\\\\"',
        '"unterminated',
        '&"sn"',
        '@"sn"',
        "&x",
        "-x",
        "- 1",
        " ; comment\n 7 trailing ]",
        "\0",
        "",
        "   ",
        "[" * 300 + "]" * 300,
        "nil",
        "inf_neg",
        "Vector2(1 ; two\n, 2)",
        '"é漢🎮"',
        "true false",
        "[1 2]",
    ],
)
def test_edge_texts_read_alike(compiled: None, text: str) -> None:
    for version in VERSIONS:
        _same_read(text, version)


def test_a_text_past_the_size_limit_is_refused_by_both(compiled: None) -> None:
    limits = gd.Limits(max_size=3)
    for impl in ("python", "c"):
        with core.use(impl), pytest.raises(gd.TextError, match="at most 3 characters"):
            gd.from_text("[1, 2]", limits=limits)


@pytest.mark.parametrize("depth", [0, 1, 3, 4, None])
def test_the_depth_limit_is_the_pure_readers(compiled: None, depth: int | None) -> None:
    results = []
    for impl in ("python", "c"):
        with core.use(impl):
            try:
                results.append(gd.from_text("[[[{1: [2]}]]]", limits=gd.Limits(max_depth=depth)))
            except gd.TextError as exc:
                results.append((str(exc), exc.offset))
    assert results[0] == results[1]


def _read_all(impl: str, text: str) -> tuple[str, Any]:
    """("ok", [(value, line)...]) or (error type, (message, offset, line, column))."""
    with core.use(impl):
        try:
            return "ok", from_text_all(text)
        except Exception as exc:  # the same error, whatever it is, is the contract
            fields = (str(exc), *(getattr(exc, n, None) for n in ("offset", "line", "column")))
            return type(exc).__name__, fields


def test_a_text_of_records_reads_alike(compiled: None) -> None:
    """from_text_all (the command line's reader of records): the compiled reader reads each
    record it can, the pure parser the rest, with the same values, lines and errors."""
    rng = random.Random(SEED + 3)
    print("seed", SEED)
    for _ in range(300):
        records = [edge_value(rng) for _ in range(rng.randrange(1, 6))]
        lines = []
        for value in records:
            with contextlib.suppress(gd.EncodeError):
                lines.append(to_text_line(value) if rng.random() < 0.5 else gd.to_text(value))
        text = rng.choice(["\n", " ; note\n", "\n\n", " "]).join(lines)
        for candidate in (text, _mutated(rng, text)):
            (kind_a, a), (kind_b, b) = _read_all("python", candidate), _read_all("c", candidate)
            assert kind_a == kind_b, (candidate, a, b)
            if kind_a == "ok":
                assert len(a) == len(b), candidate
                for (va, la), (vb, lb) in zip(a, b, strict=True):
                    assert la == lb and same_value(va, vb), candidate
            else:
                assert a == b, candidate


@pytest.mark.parametrize("version", ["9", "", ["4"], None])
def test_a_bad_version_is_the_same_value_error(compiled: None, version: Any) -> None:
    for impl in ("python", "c"):
        with core.use(impl):
            with pytest.raises(ValueError, match="no text syntax for version"):
                gd.to_text(1, version=version)
            with pytest.raises(ValueError, match="no text syntax for version"):
                gd.from_text("1", version=version)
