"""Godot's text syntax against the real engines (4.6, 3.6, 3.2.3).

For the committed golden values and for fresh random ones: our ``to_text`` equals the engine's
``var_to_str`` / ``var2str`` exactly; we read the engine's text to the value the engine reads
from it; and the engine reads our ``exact=True`` text back to the very value it started from.
Random floats (bit patterns, float32 values, typical magnitudes) check the float printing.
The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import math
import random
import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._floats import f32
from tests.support.engines import SEED, Engine, engine_text, run_oracle
from tests.support.godot_describe import objects_inside, surrogates_as_spaces
from tests.support.vectors import NOT_IN_BYTES, golden

pytestmark = [pytest.mark.engine, pytest.mark.slow]

FRESH = 150
FLOATS = 4000


def _value(record: dict[str, Any], version: str) -> Any:
    return gd.loads(bytes.fromhex(record["bytes_objects"]), version=version, allow_objects=True)


def _bytes(value: Any, version: str) -> str:
    return gd.dumps(value, version=version, full_objects=True).hex()


def _random_floats(rng: random.Random, count: int) -> list[float]:
    out: list[float] = []
    while len(out) < count:
        pick = rng.randrange(4)
        if pick == 0:
            x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        elif pick == 1:
            x = struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0]
        elif pick == 2:
            x = rng.uniform(-1000, 1000)
        else:
            x = rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30)
        # Only values some text gives the engine exactly can be handed to it through
        # str_to_var (its reader misses about 1 % of doubles, and all below ~1e-290).
        if math.isfinite(x) and _exact_ok(lambda x=x: gd.to_text(x, exact=True)) is not None:
            out.append(x)
    return out


def _float_values(rng: random.Random, version: str) -> list[Any]:
    """Values that carry random floats in every place a float is printed."""
    floats = _random_floats(rng, FLOATS)
    chunks = [floats[i : i + 50] for i in range(0, len(floats), 50)]
    values: list[Any] = [list(c) for c in chunks]
    values += [gd.PackedFloat32Array(c) for c in chunks[:20]]
    single = [[f32(x) for x in c] for c in chunks]  # Vector2 components are float32
    values += [[gd.Vector2(a, b) for a, b in zip(c[::2], c[1::2], strict=True)] for c in single]
    if version == "4.6":
        values += [gd.PackedFloat64Array(c) for c in chunks]
    return values


def _exact_ok(text_of: Any) -> Any:
    try:
        return text_of()
    except gd.EncodeError:
        return None


def _same(a: Any, b: Any) -> bool:
    """Equal values, floats by their bits, Dictionaries in any order (sorting keys Godot's
    way is not idempotent when keys do not compare, so a re-read Dictionary may be ordered
    otherwise)."""
    return bool(_unordered(a) == _unordered(b))


def _unordered(v: Any) -> Any:
    """A comparable form; what the text syntax never carries is left out (documented): NaN
    payloads and a Signal's contents."""
    if isinstance(v, float):
        return ("nan",) if math.isnan(v) else ("float", struct.pack("<d", v))
    if isinstance(v, gd.Signal):
        return ("Signal",)
    if isinstance(v, gd.PackedFloat32Array | gd.PackedFloat64Array | gd.PackedColorArray):
        return (type(v).__name__, tuple(_unordered(float(x)) for x in v._numbers()))
    if isinstance(v, gd.PackedVector2Array | gd.PackedVector3Array | gd.PackedVector4Array):
        return (type(v).__name__, tuple(_unordered(float(x)) for x in v._numbers()))
    if isinstance(v, gd.Dictionary | dict):
        pairs = v.items_list if isinstance(v, gd.Dictionary) else tuple(v.items())
        types = (
            _unordered(getattr(v, "key_type", None)),
            _unordered(getattr(v, "value_type", None)),
        )
        return (
            "dict",
            types,
            tuple(sorted(((_unordered(k), _unordered(x)) for k, x in pairs), key=repr)),
        )
    if isinstance(v, gd.ElementType):
        if v == gd.ElementType.class_name("Object"):  # both print as "Object"
            v = gd.ElementType.builtin(gd.VariantType.OBJECT)
        return ("element type", *v)
    if isinstance(v, list | tuple):
        extra = _unordered(getattr(v, "element_type", None))
        return (type(v).__name__, extra, tuple(_unordered(x) for x in v))
    return (type(v).__name__, v)


def _ours(text: str, version: str) -> tuple[Any, str]:
    """Our reading of ``text``: (value, its bytes) or (None, "rejected: why")."""
    try:
        parsed = gd.from_text(text, version=version)
    except gd.TextError as exc:
        return None, f"rejected: {exc}"
    try:
        return parsed, _bytes(parsed, version)
    except gd.EncodeError:  # a lone surrogate, which Godot 3.6 holds and writes as a space
        return parsed, _bytes(surrogates_as_spaces(parsed), version)


def _engines(reply: dict[str, Any], text: str, version: str) -> str:
    """The engine's reading of ``text`` in the same form. Its bytes go through our codec so
    that Godot 3's uninitialised NodePath padding does not count; a rejection is how each line
    reports one: ``str2var`` gives back the text itself, ``str_to_var`` gives null."""
    value = gd.loads(bytes.fromhex(reply["bytes"]), version=version, allow_objects=True)
    rejected = (value == text and type(value) is str) if version < "4" else value is None
    if rejected and text.strip() not in ("null", "nil"):
        return "rejected"
    return _bytes(value, version)


def _check(engine: Engine, version: str, values: list[Any], texts: list[str | None]) -> list[str]:
    """Send the engine its own texts (when known), our texts and our exact texts; compare."""
    ours = [gd.to_text(v, version=version) for v in values]
    exact = [_exact_ok(lambda v=v: gd.to_text(v, version=version, exact=True)) for v in values]
    sent = [t if t is not None else o for t, o in zip(texts, ours, strict=True)]
    replies = engine_text(engine, sent + [e or "null" for e in exact])
    theirs, back = replies[: len(values)], replies[len(values) :]
    problems: list[str] = []
    counts = dict.fromkeys(("same text", "same parse", "exact read back", "objects"), 0)
    for i, value in enumerate(values):
        where = f"#{i} (seed {SEED}) {sent[i]!r:.200}"
        if texts[i] is not None and ours[i] != texts[i]:
            problems.append(f"to_text differs {where}: ours {ours[i]!r:.200}")
        else:
            counts["same text"] += texts[i] is not None
        if objects_inside(value):
            counts["objects"] += 1
            continue
        parsed = _ours(sent[i], version)[1]
        engine_parsed = _engines(theirs[i], sent[i], version)
        if parsed.split(":")[0] != engine_parsed:
            problems.append(
                f"from_text differs {where}: ours {parsed:.120} engine {engine_parsed:.120}"
            )
        else:
            counts["same parse"] += 1
        if exact[i] is None:
            if texts[i] is None:
                problems.append(f"no exact text for random floats {where}")
            continue
        value_back, bytes_back = _ours(exact[i], version)
        if bytes_back != _engines(back[i], exact[i], version):
            problems.append(f"engine reads exact text otherwise {exact[i]!r:.200}")
        elif not _same(value_back, value):
            problems.append(f"exact text does not read back {exact[i]!r:.200}")
        else:
            counts["exact read back"] += 1
            # The engine now holds exactly our value: its var_to_str must be our to_text.
            if texts[i] is None:
                if back[i]["text"] != ours[i]:
                    problems.append(f"engine prints {where} as {back[i]['text']!r:.200}")
                else:
                    counts["same text"] += 1
    print(f"Godot {version}: {len(values)} values, {counts}")
    assert counts["exact read back"] > len(values) // 3, counts
    return problems


def _run(engine: Engine) -> None:
    version = engine.name
    print(f"GDVARIANT_SEED={SEED}")
    records = golden(version)
    fresh = run_oracle(
        engine, engine.oracle, ["generate", str(SEED), str(FRESH), "{inside}/out.jsonl"]
    )
    records += [r for r in fresh if "bytes" in r]
    records = [r for r in records if r["name"] not in NOT_IN_BYTES]
    values = [_value(r, version) for r in records]
    texts: list[str | None] = [r["text"] for r in records]
    floats = _float_values(random.Random(SEED), version)
    values += floats
    texts += [None] * len(floats)
    problems = _check(engine, version, values, texts)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_text_godot4(godot4: Engine) -> None:
    _run(godot4)


def test_text_godot3(godot3: Engine) -> None:
    _run(godot3)


#: Hand-written text: aliases, legacy names, comments, odd spacing, escapes, colours, numbers,
#: trailing commas, and mistakes. For each, we must accept exactly what the engine accepts and
#: read it to the engine's value.
SYNTAX = [
    "  ; a comment\n 42 ; another",
    "[1, 2,]",
    "[1,, 2]",
    "[,]",
    "[1 2]",
    '{"a": 1,}',
    '{"a" 1}',
    '{"a": 1 "b": 2}',
    "{1: 2, 1.0: 3, true: 4}",
    '{"k": 1, "k": 2}',
    "[",
    "{",
    '"unterminated',
    '"esc \\t\\n\\r\\b\\f\\"\\\\\\/ \\a\\v\\0 \\q"',
    '"\\u00e9\\u0041"',
    '"\\ud83d\\ude00"',
    '"\\ud83d"',
    '"\\U01F600"',
    '"\\u12"',
    '&"name"',
    '@"name"',
    "&name",
    "#ff8000",
    "#ff800080",
    "#f80",
    "#f808",
    "#12345",
    "nil",
    "null",
    "inf",
    "inf_neg",
    "-inf",
    "nan",
    "-x",
    "- 5",
    "1e5",
    "1E5",
    "1.",
    "1e",
    "-0.0",
    ".5",
    "+5",
    "0x10",
    "1_000",
    "99999999999999999999",
    "-99999999999999999999",
    "1.5e-400",
    "1e400",
    "Vector2(1, 2)",
    "Vector2( 1 , 2 )",
    "Vector2(1, 2,)",
    "Vector2(1)",
    "Vector2(1, 2, 3)",
    "Vector2()",
    "Vector2(inf, nan)",
    "Vector2(inf_neg, -inf)",
    'Vector2("1", 2)',
    "Vector2i(1.9, -2.9)",
    "Vector2i(4294967297, 0)",
    "Rect3(1, 2, 3, 4, 5, 6)",
    "Matrix32(1, 0, 0, 1, 0, 0)",
    "Matrix3(1, 0, 0, 0, 1, 0, 0, 0, 1)",
    "Transform(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)",
    "Transform3D(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)",
    "Quat(0, 0, 0, 1)",
    "Quaternion(0, 0, 0, 1)",
    "Color(1, 0, 0)",
    "Color(1, 0, 0, 1)",
    'NodePath("a/b:c")',
    "NodePath(a)",
    'NodePath("a"',
    "RID()",
    "RID(5)",
    "RID(1, 2)",
    "Callable()",
    "Signal()",
    "PoolByteArray(1, 2, 300)",
    "ByteArray(1, 2)",
    'PackedByteArray("AQL/")',
    'PackedByteArray("!!")',
    "PoolIntArray(1, 2)",
    "IntArray(1, 2)",
    "PackedIntArray(1, 2)",
    "PackedInt64Array(9223372036854775807)",
    "PoolRealArray(1.5, 2)",
    "FloatArray(1.5)",
    "PackedRealArray(1.5)",
    "PackedFloat64Array(0.1)",
    'PoolStringArray("a", "b",)',
    'StringArray("a")',
    "PoolVector2Array(1, 2, 3)",
    "Vector2Array(1, 2)",
    "Vector3Array(1, 2, 3)",
    "PoolVector4Array(1, 2, 3, 4)",
    "ColorArray(1, 0, 0, 1)",
    "Array[int]([1, 2])",
    "Array[Variant]([1])",
    "Array[Node]([])",
    "Array[int]([1, 2,])",
    'Dictionary[String, int]({"a": 1})',
    "Dictionary[Variant, Variant]({})",
    "Dictionary[int]({})",
    'Resource("res://nothing.tres")',
    'ExtResource("1")',
    "Unknown(1)",
    "PackedInt32Array(1)",
    "PackedFloat32Array(1)",
    'PackedStringArray("a")',
    "PackedVector2Array(1, 2)",
    "PackedColorArray(1, 1, 1, 1)",
    "PackedByteArray(1)",
    'NodePath("a" x)',
    "RID(1 x)",
    '"\\U12"',
    "",
    "   ",
    "1 2",
    "[1] garbage",
]


def _syntax_check(engine: Engine) -> None:
    version = engine.name
    replies = engine_text(engine, SYNTAX)
    problems = []
    for text, reply in zip(SYNTAX, replies, strict=True):
        ours = _ours(text, version)[1].split(":")[0]
        theirs = _engines(reply, text, version)
        if ours != theirs:
            problems.append(f"{text!r}: ours {ours:.80} engine {theirs:.80}")
    assert not problems, f"Godot {version}:\n" + "\n".join(problems)


def test_syntax_godot4(godot4: Engine) -> None:
    _syntax_check(godot4)


def test_syntax_godot3(godot3: Engine) -> None:
    _syntax_check(godot3)
