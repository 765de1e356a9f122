"""The JSON writers' and readers' two twins (``gdvariant._json.core``): the compiled one writes
exactly the pure one's text, and reads exactly its value, or raises exactly its error, in both
dialects, on random values of every type and on mutated and hand-picked texts; and the switch
between them follows the codec's policy."""

from __future__ import annotations

import contextlib
import math
import os
import random
import re
import struct
import sys
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._compiled import PURE_FORCED
from gdvariant._floats import godot_strtod
from gdvariant._json import core, godot, tagged_read
from gdvariant._json.tagged import F64
from tests.support import processes
from tests.support.core_compare import same_value
from tests.support.cores import compiled_required
from tests.support.edge_values import edge_float, edge_text, edge_value
from tests.support.engines import SEED
from tests.support.ids import value_id
from tests.support.paths import SRC


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
    ids=value_id,
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
    ids=value_id,
)
def test_tagged_edge_values_are_the_same(compiled: None, value: Any) -> None:
    _same(value)
    _same([value, {"k": value}])


def test_gdvariant_pure_python_forces_the_pure_writer() -> None:
    script = "from gdvariant._json import core; print(core.IMPLEMENTATION, core.error())"
    env = {**os.environ, "GDVARIANT_PURE_PYTHON": "1"}
    run = processes.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert run.stdout.startswith("python GDVARIANT_PURE_PYTHON is set"), run.stderr
    if "c" in core.implementations() and not PURE_FORCED:
        assert core.IMPLEMENTATION == "c"


# ---- the readers ----------------------------------------------------------------------------


def _read(impl: str, text: str, dialect: str, allow_objects: bool) -> tuple[Any, ...]:
    """("ok", value) or (error type, message, line, column, path) of from_json on ``impl``."""
    with core.use(impl):
        try:
            return "ok", gd.from_json(text, dialect=dialect, allow_objects=allow_objects)  # type: ignore[arg-type]
        except Exception as exc:  # the same error, whatever it is, is the contract
            fields = (getattr(exc, name, None) for name in ("line", "column", "path"))
            return (type(exc).__name__, str(exc), *fields)


def _deep_same(a: Any, b: Any) -> bool:
    """``same_value``, with plain lists and dicts unfolded on a stack of our own: the deepest
    texts read are thousands of levels, past what recursion through ``all(map(...))`` may take
    (Python 3.12 limits C recursion whatever ``sys.setrecursionlimit`` says)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is list and type(y) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif type(x) is dict and type(y) is dict:
            if len(x) != len(y):
                return False
            for (kx, vx), (ky, vy) in zip(x.items(), y.items(), strict=True):
                stack += ((kx, ky), (vx, vy))
        elif not same_value(x, y):
            return False
    return True


def _same_read(text: str, dialects: tuple[str, ...] = ("tagged", "godot")) -> None:
    """The same value (types, -0.0 and NaN included) or error from both readers."""
    for dialect in dialects:
        for allow_objects in (False, True):
            c, python = (_read(impl, text, dialect, allow_objects) for impl in ("c", "python"))
            if c[0] == "ok" and python[0] == "ok":
                assert _deep_same(c[1], python[1]), (dialect, text[:200], c[1], python[1])
            else:
                assert c == python, (dialect, allow_objects, text[:200])


_SPLICES = [
    *'{}[],:"\\-+.eE0123456789 tfnulrs\t\n\0\x01\x7f\ud800é🎮',
    "\\ud800",
    "\\udc00",
    "\\ud83c\\udfae",
    "\\u0000",
    "\\v",
    "\\/",
    "1e400",
    "-0",
    "-0.0",
    "NaN",
    "Infinity",
    "01",
    "1.",
    ".5",
    "99999999999999999999",
    "9223372036854775808",
    '"$type"',
    '"type"',
    '"args"',
    '"float64"',
    "true",
    "null",
    '"i:',
    '"f:',
    '"s:',
    '"sn:',
    '"np:',
    '"Vector2"',
    '"Vector2i"',
    '"Dictionary"',
    '"key_type"',
    '"Array"',
    ",]",
    ",}",
]


#: A text around another that is not ASCII, so that the compiled reader's plain parser leaves
#: it to CPython's scanner (a value in both dialects when the text inside is one)
_NOT_ASCII = '["s:é", {}]'


def _mutate(rng: random.Random, text: str) -> str:
    """``text`` with one to three random edits: a cut, a splice from the list, a copied slice."""
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(text) + 1)
        end = min(len(text), at + rng.choice((1, 1, 2, 5)))
        edit = rng.randrange(4)
        if edit == 0:
            text = text[:at] + text[end:]
        elif edit == 1:
            text = text[:at] + rng.choice(_SPLICES) + text[at:]
        elif edit == 2:
            text = text[:at] + rng.choice(_SPLICES) + text[end:]
        else:
            start = rng.randrange(len(text) + 1)
            text = text[:at] + text[start : start + rng.randint(1, 20)] + text[at:]
    return text


def _texts(value: Any, full_objects: bool) -> list[tuple[str, str]]:
    """(dialect, text) of ``value`` in each dialect that can hold it."""
    out = []
    for dialect in ("tagged", "godot"):
        with contextlib.suppress(gd.EncodeError):
            out.append((dialect, gd.to_json(value, dialect=dialect, full_objects=full_objects)))
    return out


def test_the_compiled_reader_reads_what_the_pure_reader_reads(compiled: None) -> None:
    rng = random.Random(SEED + 2)
    print("seed", SEED + 2)
    for _ in range(1500):
        full = rng.random() < 0.3
        for dialect, text in _texts(edge_value(rng), full):
            _same_read(text, (dialect,))
            _same_read(_NOT_ASCII.format(text), (dialect,))
            for _ in range(3):
                mutated = _mutate(rng, text)
                _same_read(mutated, (dialect,))
                _same_read(_NOT_ASCII.format(mutated), (dialect,))


def test_every_math_and_save_value_reads_alike(compiled: None) -> None:
    rng = random.Random(SEED + 3)
    floats = [edge_float(rng) for _ in range(500)]
    values: list[Any] = [
        [gd.Vector2(x, -x) for x in floats],
        [gd.Vector2i(int(x) & 0x7FFFFFFF, -3) for x in floats if x == x and abs(x) < 1e9],
        floats,
        {f"k{i}": {"pos": gd.Vector3(x, 1, 2), "n": i, "s": str(x)} for i, x in enumerate(floats)},
        [gd.Color(0.1, 0.2, 0.3, 0.4), gd.Basis((1, 2, 3), (4, 5, 6), (7, 8, 9))],
        [gd.Transform2D((1, 2), (3, 4), (5, 6)), gd.Projection(*((1.5, 2, 3, 4),) * 4)],
        [gd.PackedFloat64Array(floats), gd.PackedVector2Array64((x, 1) for x in floats)],
        [gd.PackedFloat32Array(x for x in floats if abs(x) < 3.4e38 or x != x)],
        [gd.PackedVector2Array((x, -x) for x in floats if abs(x) < 3e38)],
        [gd.PackedInt32Array([0, -(2**31), 2**31 - 1]), gd.PackedVector3iArray([(1, -2, 3)])],
        [
            gd.PackedInt64Array([-(2**63), 2**63 - 1, 2**53 + 1]),
            gd.PackedColorArray([(1, 0, 0, 1)]),
        ],
    ]
    for value in values:
        for _, text in _texts(value, False):
            _same_read(text)


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "-0",
        "-0.0",
        "1.5e3",
        "1E400",
        "-1e-400",
        "5e-324",
        "2.2250738585072014e-308",
        "123456789012345678901234567890",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "0.1",
        "1e22",
        "1e23",
        "12345678901234567890.123e-5",
        "[1, 2.0, -0, 1e0]",
        "[01]",
        "[1.]",
        "[-.5]",
        "[.5]",
        "[+1]",
        "NaN",
        "[Infinity]",
        "[-Infinity]",
        '"\\u00e9\\ud83c\\udfae"',
        '"\\ud800"',
        '"\\udc00x"',
        '["s:漢", "s:\\ud800"]',
        '["s:🎮", "s:\\uDC00", "s:\\ud83c\\udfae"]',
        '["s:é\\ud800"]',
        '"\\ud800\\u0041"',
        '"\\v"',
        '"a\\/b"',
        '"\x01"',
        '"a\0b"',
        "[1]\0junk",
        "[1,]",
        '{"a":1,}',
        '{"a":1,"a":2}',
        '{"$type":"Vector2","args":[1,2]}',
        '{"$type":"Vector2","args":[1,2],"float64":true}',
        '{"$type":"Vector2","args":[1,2],"float64":1}',
        '{"$type":"Vector2","args":[1e39,2]}',
        '{"$type":"Vector2","args":["nan","-inf"]}',
        '{"$type":"Vector2i","args":[2147483648,0]}',
        '{"$type":"Vector2i","args":[1.0,0]}',
        '{"$type":"Vector2i","args":[1,2],"float64":true}',
        '{"$type":"Vector2","args":[1]}',
        '{"$type":"Vector2","args":[true,null]}',
        '{"$type":"Vector2","args":[1,2],"x":0}',
        '{"$type":"Vector2","$type":"Vector2","args":[1,2]}',
        '{"$type":5}',
        '{"$type":"Nope"}',
        '{"a":{"$type":"float","value":"inf"},"b":[{"$type":"StringName","value":"x"}]}',
        '{"type":"Vector2","args":[1.5,"f:2",true]}',
        '{"type":"Vector2","args":[1.5,null]}',
        '{"type":"Vector2","args":[0.1,"2"]}',
        '{"type":"Vector2i","args":[3e9,-2.7]}',
        '{"type":"Vector2i","args":["i:7",1e300]}',
        '{"type":"Vector2","args":[1,2],"x":1}',
        '{"type":"Dictionary","args":["s:a","i:1","s:a","i:2","s:b","f:-0"]}',
        '{"type":"Dictionary","args":["sn:a","i:1","s:a","i:2"]}',
        '{"type":"Dictionary","args":["i:1","s:x","f:1","s:y"]}',
        '{"type":"Dictionary","args":["s:a"]}',
        '{"type":"Dictionary","key_type":"String","args":["s:a","i:1"]}',
        '{"type":"Dictionary","args":["s:a",{"type":"Dictionary","args":[]}]}',
        '["i:-", "i:--5", "i:12-3", "i:99999999999999999999", "i:-9223372036854775808",'
        ' "i:-99999999999999999999", "i: 4x2", "i:", "i:\\u0663"]',
        '["f:1.5", "f:-0", "f:+2", "f:.5", "f:5.", "f:1e", "f:1e+", "f: 1", "f:1 ", "f:inf",'
        ' "f:-inf", "f:nan", "f:x", "f:-", "f:1e999", "f:\\u0663", "f:1.5e-3x"]',
        '["s:", "sn:", "np:", "np:a/b:c", "sn:\\u00e9", "x:1", "s", "", "i", 1.5, true, null]',
        '{"$type":"PackedInt32Array","items":[1,2147483648]}',
        '{"$type":"PackedInt32Array","items":[1,true]}',
        '{"$type":"PackedInt64Array","items":[-9223372036854775808,9223372036854775808]}',
        '{"$type":"PackedFloat32Array","items":[1e39,0.1,-0.0,3]}',
        '{"$type":"PackedFloat32Array","items":[1,"nan"]}',
        '{"$type":"PackedFloat32Array","items":[1],"float64":true}',
        '{"$type":"PackedFloat64Array","items":[0.1,1e308,5e-324]}',
        '{"$type":"PackedVector2Array","items":[[1,2],[3]]}',
        '{"$type":"PackedVector2Array","items":[[1,2],3]}',
        '{"$type":"PackedVector2Array","items":[[0.1,2]],"float64":true}',
        '{"$type":"PackedVector2iArray","items":[[1,2]],"float64":true}',
        '{"$type":"PackedVector3iArray","items":[[1,2,2147483648]]}',
        '{"$type":"PackedInt32Array","items":[1],"base64":"AAAAAA=="}',
        '{"$type":"PackedInt32Array","base64":"AAAAAA=="}',
        '{"$type":"PackedInt32Array","items":{}}',
        '{"type":"PackedInt32Array","args":[1.9,-2.9,3e10,-3e10,true,null,"i:5"]}',
        '{"type":"PackedInt32Array","args":[1.9,-2.9,3e10,-3e10,true,null]}',
        '{"type":"PackedInt64Array","args":[1e19,-1e19,9.2e18,-9.3e18,2.5]}',
        '{"type":"PackedVector2Array","args":[1,2,3]}',
        '{"type":"PackedFloat32Array","args":[1e39,-0.0,null,false,0.1]}',
        '{"type":"PackedFloat32Array","args":[1,"f:2"]}',
        '{"type":"PackedFloat64Array","args":[0.1,1e308]}',
        '{"type":"PackedColorArray","args":[1,2,3,4]}',
        '{"type":"PackedVector4Array","args":[1,2,3,4,5,6,7,8]}',
        '{"type":"PackedByteArray","args":[1,300]}',
        '{"type":"PackedStringArray","args":["a"]}',
        '{"type":"Node","props":["name","s:n"]}',
        '{"args":[]}',
        '{"type":3}',
        '{"type":"RID","args":[]}',
        '{"type":"Array","elem_type":"int","args":["i:1"]}',
        "",
        " ",
        "[",
        "]",
        "{",
        '{"a"}',
        "[1 2]",
        "tru",
        "nul",
        "[1]x",
        "\ufeff[1]",
        " [1] ",
        "\t[1]\x0b",
        '{"a":1} {"b":2}',
    ],
    ids=value_id,
)
def test_edge_texts_read_alike(compiled: None, text: str) -> None:
    _same_read(text)


@pytest.mark.parametrize("depth", [1, 200, 899, 900, 901, 1023, 1024, 1025, 1026, 3080, 3081])
def test_deep_texts_read_alike(compiled: None, depth: int) -> None:
    _same_read("[" * depth + "]" * depth)
    _same_read("[" * depth + "1.5, -2.0" + "]" * depth)
    _same_read('{"a":' * depth + "1" + "}" * depth)
    _same_read('{"type":"Array","args":[' * depth + "]}" * depth, ("godot",))
    inner = '{"$type":"Array","element_type":"int","items":[]}'
    _same_read("[" * depth + inner + "]" * depth, ("tagged",))


def test_the_pure_readers_hand_everything_to_the_reference() -> None:
    with core.use("python"):
        assert core.read_tagged("[1]", ()) is NotImplemented
        assert core.read_godot("[1]", ()) is NotImplemented


def test_the_compiled_reader_reads_a_save_itself(compiled: None) -> None:
    """A save of plain values, Vector2s and packed arrays is read by C, with no node handed
    back."""
    save: list[Any] = [{"id": 1, "name": "p", "hp": 2.5, "alive": True, "pos": gd.Vector2(1, 2)}]
    save += [gd.PackedFloat32Array([0.5, 2]), gd.PackedVector3Array([(1, 2, 3)])]

    def refuse(*node: Any) -> Any:
        raise AssertionError(f"handed back: {node!r}")

    module = core.implementations()["c"]
    tagged_plan = (*tagged_read.compiled_plan()[:2], refuse)
    godot_plan = (*godot.compiled_read_plan(False)[:4], refuse)
    assert module.read_tagged(gd.to_json(save), tagged_plan) == save
    read = module.read_godot(gd.to_json(save, dialect="godot"), godot_plan)
    assert read == gd.from_json(gd.to_json(save, dialect="godot"), dialect="godot")
    assert read[0]["pos"] == gd.Vector2(1, 2)
    assert type(read[1]) is gd.PackedFloat32Array and read[2] == save[2]


def _number_token(rng: random.Random) -> str:
    """A JSON number token: doubles' shortest digits, long mantissas, big exponents, ints."""
    kind = rng.randrange(5)
    if kind == 0:
        return repr(abs(edge_float(rng))) if rng.random() < 0.5 else repr(rng.uniform(-1e3, 1e3))
    if kind == 1:
        return str(rng.randrange(10 ** rng.randrange(1, 30)))
    if kind == 2:
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 40)))
        return f"-{digits}.{rng.randrange(10**20)}e{rng.randrange(-400, 400)}"
    if kind == 3:
        return "0." + "0" * rng.randrange(30) + str(rng.randrange(1, 10 ** rng.randrange(2, 20)))
    return f"{rng.uniform(-1e30, 1e30):.15g}"


def test_the_compiled_strtod_is_godots(compiled: None) -> None:
    """Every number the Godot-dialect reader reads goes through the compiled strtod."""
    strtod = core.implementations()["c"].strtod
    rng = random.Random(SEED + 4)
    for _ in range(20_000):
        token = _number_token(rng)
        if "n" in token:  # inf, nan
            continue
        assert F64.pack(strtod(token)) == F64.pack(godot_strtod(token)), token


# ---- float32 digits: the compiled writer's fast path against the pure writer's search --------


def _float32_words(rng: random.Random, count: int) -> list[int]:
    """float32 bit patterns: random bits (subnormals included), and random mantissas at random
    finite exponents; never inf or NaN (the writer spells those apart)."""
    words: list[int] = []
    while len(words) < count:
        word = rng.getrandbits(32)
        if rng.random() < 0.5:
            word = (word & 0x807FFFFF) | (rng.randrange(0, 255) << 23)
        if (word >> 23) & 0xFF != 0xFF:
            words.append(word)
    return words


def _float32_edges() -> list[int]:
    """Bit patterns where digit searches go wrong: powers of ten and of two, exact halves and
    ties of six to eight digits, short decimals, the ends of the range and of the subnormals,
    each with its neighbours."""
    f32 = struct.Struct("<f")
    u32 = struct.Struct("<I")

    def word(x: float) -> int:
        return int(u32.unpack(f32.pack(min(x, 3.4e38)))[0])

    centres = [word(10.0**k) for k in range(-45, 39)]
    centres += [word(2.0**k) for k in range(-149, 128)]
    centres += [word(n + 0.5) for n in range(0, 2**23, 9973)]
    centres += [word(float(n)) for n in range(1_000_005, 16_777_216, 100_010)]
    centres += [word(k / 10**j) for k in range(1, 200) for j in range(0, 12)]
    centres += [word(k * 10.0**j) for k in (1, 5, 25, 125, 9999995) for j in range(-40, 35)]
    centres += [0x00000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F7FFFFE]
    words = {(c + delta) & 0x7FFFFFFF for c in centres for delta in range(-3, 4)}
    words = {w for w in words if (w >> 23) & 0xFF != 0xFF}
    return sorted(words | {w | 0x80000000 for w in words})


def _same_float32(words: list[int]) -> None:
    """The tagged text of the PackedFloat32Array (and a Vector2 per pair) of ``words``, from
    both twins."""
    array = gd.PackedFloat32Array.frombuffer(struct.pack(f"<{len(words)}I", *words))
    texts = []
    for impl in ("c", "python"):
        with core.use(impl):
            texts.append(gd.to_json(array))
    if texts[0] != texts[1]:
        items = [text.split('"items": [')[1].split(", ") for text in texts]
        pairs = zip(*items, strict=True)
        wrong = [(hex(w), c, p) for w, (c, p) in zip(words, pairs, strict=False) if c != p]
        pytest.fail(f"{len(wrong)} floats written otherwise, e.g. {wrong[:5]}")


def test_float32_digits_are_the_pure_writers_at_the_edges(compiled: None) -> None:
    _same_float32(_float32_edges())
    values = [struct.unpack("<f", struct.pack("<I", w))[0] for w in _float32_edges()[::7]]
    _same([gd.Vector2(x, -x) for x in values])


def test_float32_digits_are_the_pure_writers_on_random_bits(compiled: None) -> None:
    rng = random.Random(SEED + 5)
    print("seed", SEED + 5)
    _same_float32(_float32_words(rng, 200_000))


@pytest.mark.slow
def test_float32_digits_are_the_pure_writers_on_millions(compiled: None) -> None:
    rng = random.Random(SEED + 6)
    print("seed", SEED + 6)
    for _ in range(4):
        _same_float32(_float32_words(rng, 1_000_000))


def test_the_powers_of_ten_table_is_exact() -> None:
    """The compiled writer's 10^q = T 2^s table: T in [2^63, 2^64), the nearest to 10^q / 2^s."""
    source = (SRC / "_json" / "_cjson.c").read_text()
    rows = re.findall(r"\{0x([0-9a-f]{16})ULL, (-?\d+)\}", source)
    first = int(re.search(r"#define POW10_MIN \((-?\d+)\)", source).group(1))  # type: ignore[union-attr]
    assert len(rows) == int(re.search(r"#define POW10_MAX (\d+)", source).group(1)) - first + 1  # type: ignore[union-attr]
    for q, (t, s) in enumerate(rows, start=first):
        mantissa, shift = int(t, 16), int(s)
        exact = Fraction(10) ** q / Fraction(2) ** shift
        assert 2**63 <= mantissa < 2**64 and abs(mantissa - exact) <= Fraction(1, 2), q


# ---- numbers: the compiled reader's one-pass tokens, exact fast path and number runs ---------


def _decimal_token(rng: random.Random) -> str:
    """A float token of one to twenty digits, the point anywhere, maybe an exponent near the
    fast path's edges (|E| about 22, mantissas about 2^53)."""
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 21)))
    if rng.random() < 0.2:
        digits = str(rng.choice([2**53 - 1, 2**53, 2**53 + 1, 10**18 - 1, 10**18 + 7]))
    digits = digits.lstrip("0") or "0"
    point = rng.randrange(1, len(digits) + 1)
    token = f"{'-' if rng.random() < 0.3 else ''}{digits[:point]}.{digits[point:] or '0'}"
    if rng.random() < 0.6:
        sign = rng.choice(["", "+", "-"])
        token += f"{rng.choice('eE')}{sign}{rng.randrange(0, 40):0{rng.randrange(1, 4)}d}"
    return token


def test_float_tokens_read_as_python_and_godot_read_them(compiled: None) -> None:
    """The tagged reader's numbers are json.loads' (correctly rounded), the Godot dialect's are
    Godot's strtod, whichever path read them."""
    rng = random.Random(SEED + 7)
    print("seed", SEED + 7)
    tokens = [_decimal_token(rng) for _ in range(100_000)]
    text = "[" + ", ".join(tokens) + "]"
    with core.use("c"):
        tagged = gd.from_json(text)
        packed = gd.from_json(f'{{"args":{text},"type":"PackedFloat64Array"}}', dialect="godot")
    for token, x, y in zip(tokens, tagged, packed, strict=True):
        assert F64.pack(x) == F64.pack(float(token)), token
        assert F64.pack(y) == F64.pack(godot_strtod(token)), token


_RUN_TOKENS = [
    *("0.1", "-0.0", "0.0", "0", "-0", "7", "1e22", "1e23", "1.5e-22", "4.35e-23", "1E+05"),
    *("123456789012345678.0", "1234567890123456789.0", "9007199254740993.0", "0.30000000000000004"),
    *("2.5e-324", "1e-400", "1e400", "1.7976931348623157e308", "1e00005", "0e999", "3.4028235e+38"),
    *(
        "0.000123456789012345678",
        "12345678.12345678",
        "99999999.99999999",
        "1.",
        "01.5",
        "2147483648.0",
    ),
    *('"x"', "true", "null", "[]", "[1.5]", "-", "1e", "1.5.5"),
]


_TAGGED_RUNS = [
    *(
        f'{{"$type": "{name}", "items": [@]}}'
        for name in ("PackedFloat32Array", "PackedInt32Array")
    ),
    *(
        f'{{"$type": "{name}", "items": [@]}}'
        for name in ("PackedFloat64Array", "PackedInt64Array")
    ),
    '{"$type": "PackedFloat64Array", "float64": true, "items": [@]}',
    '{"$type": "PackedVector2Array", "items": [[@], [1.5, 2.5]]}',
    '{"$type": "Vector2", "args": [@]}',
    '{"$type": "Vector2i", "args": [@]}',
    '{"$type": "Vector2", "float64": true, "args": [@]}',
]
_GODOT_RUNS = [
    f'{{"args":[@],"type":"{name}"}}'
    for name in (
        *("PackedFloat32Array", "PackedFloat64Array", "PackedInt32Array", "PackedInt64Array"),
        *("PackedVector2Array", "Vector2", "Vector2i", "Dictionary", "Array", "Color"),
    )
]


def _run_texts(items: str) -> list[str]:
    """Texts with the array ``[items]`` at every place a number run is read: a plain array, a
    packed array's items and a math value's args in each dialect, a vector array's element, a
    Dictionary's args."""
    places = ["[@]", '{"a": [@], "b": [[@]]}', *_TAGGED_RUNS, *_GODOT_RUNS]
    return [place.replace("@", items) for place in places]


def test_number_arrays_read_alike(compiled: None) -> None:
    rng = random.Random(SEED + 8)
    print("seed", SEED + 8)
    for _ in range(150):
        count = rng.choice([1, 2, 3, 4, 8])
        pick = [
            _decimal_token(rng) if rng.random() < 0.6 else rng.choice(_RUN_TOKENS)
            for _ in range(count)
        ]
        items = rng.choice([", ", ",", " , ", ",\n"]).join(pick) + rng.choice(["", " ", ",", "\t"])
        for text in _run_texts(items):
            _same_read(text)


def _doubles(rng: random.Random, count: int) -> list[float]:
    """Doubles where the short-digits path is taken and where it must not be: rounded decimals
    of every length and size, powers of ten and their neighbours, integers about 2^53, the
    path's range ends (1e-8, 1e37), random bits."""
    out: list[float] = []
    while len(out) < count:
        kind = rng.randrange(5)
        if kind == 0:
            x = round(rng.uniform(-1, 1) * 10.0 ** rng.randrange(-10, 40), rng.randrange(0, 18))
        elif kind == 1:
            x = rng.randrange(1, 10 ** rng.randrange(1, 18)) * 10.0 ** rng.randrange(-30, 40)
        elif kind == 2:
            x = 10.0 ** rng.randrange(-12, 40) * rng.choice([1, 1e-8, 1e37, -1])
            x = math.nextafter(x, rng.choice([0.0, math.inf])) if rng.random() < 0.5 else x
        elif kind == 3:
            x = float(rng.randrange(2**52, 2**54)) * rng.choice([1, -1, 1e-15, 1e15])
        else:
            x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(x):
            out.append(x)
    return out


def test_double_digits_are_reprs(compiled: None) -> None:
    """Doubles written by the compiled writer (plain floats, float64 packed arrays and math
    values) are repr's digits, whichever path wrote them."""
    rng = random.Random(SEED + 9)
    print("seed", SEED + 9)
    values = _doubles(rng, 200_000)
    with core.use("c"):
        text = gd.to_json(values)
    assert text == "[" + ", ".join(map(repr, values)) + "]"
    _same(gd.PackedFloat64Array(values[:5000]))
    _same([gd.Vector2(x, x) for x in values[:2000]])


def test_godot_dialect_floats_are_the_pure_writers(compiled: None) -> None:
    """The Godot dialect's bare floats (15 significant digits) and "f:" strings (14 decimals)
    from the compiled writer's exact arithmetic are the pure writer's, from Python's "%.*f"."""
    rng = random.Random(SEED + 10)
    print("seed", SEED + 10)
    words = _float32_words(rng, 100_000) + _float32_edges()
    array = gd.PackedFloat32Array.frombuffer(struct.pack(f"<{len(words)}I", *words))
    tiny = [1e-19, -1.5e-30, 1e-300, 5e-324, 2.0**-1074 * 3]  # 32 decimals, the most
    doubles = _doubles(rng, 50_000) + [float(x) for x in array[::4]] + tiny
    for value in (array, gd.PackedFloat64Array(doubles), doubles):
        texts = []
        for impl in ("c", "python"):
            with core.use(impl):
                texts.append(gd.to_json(value, dialect="godot"))
        if texts[0] != texts[1]:
            pairs = zip(texts[0].split(","), texts[1].split(","), strict=False)
            pytest.fail(f"written otherwise, e.g. {[p for p in pairs if p[0] != p[1]][:5]}")
