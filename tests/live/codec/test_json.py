"""Godot's JSON dialect (``to_json``/``from_json(dialect="godot")``) against Godot 4.6.

For the committed golden values, fresh random values and hand-picked edge values: our text
equals the engine's ``JSON.stringify(JSON.from_native(v))`` exactly (and with
``full_objects``); the engine's ``JSON.to_native`` of our text is what we read from it; and we
read the engine's own text to what the engine reads from it. The seed is printed; rerun one
with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import gdvariant as gd
from tests.support.engines import SEED, Engine, run_oracle
from tests.support.godot_describe import objects_inside
from tests.support.vectors import NOT_IN_BYTES, golden

pytestmark = [pytest.mark.engine, pytest.mark.slow]

FRESH = 150

#: Values whose from_native text or reading is an edge: float digits, non-finite numbers,
#: int64 through doubles, escapes, typed containers, double-precision vector arrays.
EDGES: list[Any] = [
    0.1 + 0.2,
    1 / 3,
    1e-20,
    1e300,
    -1e300,
    123456789.0,
    1.5e16,
    2.0**63,
    -(2.0**63),
    -0.0,
    math.inf,
    -math.inf,
    math.nan,
    5e-324,
    [0.1, 1e22, 12345.678, -0.000123],
    gd.Vector2(math.inf, -math.inf),
    gd.Vector3(math.nan, 0.1, -0.0),
    gd.Color(1e-30, 3e38, 0.5, 1),
    gd.PackedFloat64Array([0.1, 1 / 3, 1e300, 5e-324, -math.inf]),
    gd.PackedInt64Array([2**53 + 1, -(2**63), 2**63 - 1]),
    gd.Vector2i(-(2**31), 2**31 - 1),
    gd.PackedVector2Array64([(0.1, 0.2)]),
    'a\vb\x01c"\\/é\n\t\r\b\f',
    gd.StringName("x\ny"),
    gd.NodePath("/root/a:b:c"),
    gd.PackedStringArray(["s:x", "\v"]),
    b"\x00\xff",
    gd.RID(12),
    gd.Signal("x", 5),
    gd.Callable(),
    {"b": 1, "a": 2, 3: [gd.StringName("k")]},
    gd.Dictionary({"a": 1}, gd.VariantType.STRING, gd.VariantType.INT),
    gd.Dictionary({}, None, gd.VariantType.VECTOR2),
    gd.TypedArray(gd.VariantType.INT, [1, 2]),
    gd.TypedArray(gd.VariantType.PACKED_BYTE_ARRAY, [b"\x01"]),
    [[], {}, [[[]]]],
]


def _values(engine: Engine) -> list[Any]:
    records = golden("4.6")
    fresh = run_oracle(
        engine, engine.oracle, ["generate", str(SEED), str(FRESH), "{inside}/out.jsonl"]
    )
    records += [r for r in fresh if "bytes" in r]
    values = [
        gd.loads(bytes.fromhex(r["bytes_objects"]), allow_objects=True)
        for r in records
        if r["name"] not in NOT_IN_BYTES
    ]
    return values + EDGES


def _ours(value: Any, full_objects: bool) -> str | None:
    try:
        return gd.to_json(value, dialect="godot", full_objects=full_objects)
    except gd.EncodeError:
        return None


def _engine_bytes(hexdata: str) -> str:
    """The engine's value through our codec (so padding the engine leaves does not count)."""
    return gd.dumps(gd.loads(bytes.fromhex(hexdata), allow_objects=True), full_objects=True).hex()


def _our_reading(text: str) -> str:
    """What we read from ``text``, as bytes; a rejection reads as the engine's null."""
    try:
        value = gd.from_json(text, dialect="godot")
    except gd.JSONError:
        value = None
    return gd.dumps(value, full_objects=True).hex()


def _engine_json(engine: Engine, values: list[Any], texts: list[str]) -> list[dict[str, Any]]:
    """The oracle's "json" mode: for each value its from_native texts, and for each text the
    engine's to_native reading (and that of its own text)."""
    blob = bytearray()
    for value, text in zip(values, texts, strict=True):
        data = gd.dumps(value, full_objects=True)
        sent = text.encode()
        blob += len(data).to_bytes(4, "little") + data + len(sent).to_bytes(4, "little") + sent
    replies = run_oracle(
        engine,
        engine.oracle,
        ["json", "{inside}/in.bin", "{inside}/out.jsonl"],
        {"in.bin": bytes(blob)},
    )
    assert len(replies) == len(values)
    return replies


def test_json_godot4(godot4: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    values = _values(godot4)
    plain = [_ours(v, False) for v in values]
    full = [_ours(v, True) for v in values]
    replies = _engine_json(godot4, values, [text or "null" for text in plain])
    problems: list[str] = []
    counts = dict.fromkeys(
        (
            "same text",
            "same full text",
            "engine reads ours",
            "we read engine's",
            "refused: objects",
        ),
        0,
    )
    for i, (value, reply) in enumerate(zip(values, replies, strict=True)):
        where = f"#{i} (seed {SEED}) {value!r:.150}"
        if full[i] != reply["full"]:
            problems.append(
                f"full_objects text differs {where}: {full[i]!r:.200} {reply['full']!r:.200}"
            )
        else:
            counts["same full text"] += 1
        text = plain[i]
        if text is None:  # an Object without full_objects: we refuse, Godot writes null and logs
            assert "null" in reply["plain"], where
            counts["refused: objects"] += 1
            continue
        if text != reply["plain"]:
            problems.append(f"text differs {where}: {text!r:.200} {reply['plain']!r:.200}")
        else:
            counts["same text"] += 1
        if objects_inside(value):
            continue
        ours_read = _our_reading(text)
        if ours_read != _engine_bytes(reply["ours"]):
            problems.append(f"to_native of our text differs {where}: {ours_read:.120}")
        else:
            counts["engine reads ours"] += 1
        theirs_read = _our_reading(reply["plain"])
        if theirs_read != _engine_bytes(reply["own"]):
            problems.append(f"reading the engine's text differs {where}: {theirs_read:.120}")
        else:
            counts["we read engine's"] += 1
    print(f"Godot 4.6: {len(values)} values, {counts}")
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


#: Hand-written texts in Godot's dialect: odd numbers, odd strings, conversions of args, and
#: mistakes (which Godot reads as null with an error, and we refuse).
TEXTS = [
    '{"type":"Vector2i","args":[3000000000,-1e300]}',
    '{"type":"Vector2i","args":[1.9,-2.9]}',
    '{"type":"Vector2i","args":["7","x"]}',
    '{"type":"Vector2","args":[null,true]}',
    '{"type":"Vector2","args":["1.5","f:2"]}',
    '{"type":"Color","args":[1e-50,1e50,-0.0,0.000000000000000000001]}',
    '{"type":"PackedInt32Array","args":[4294967296,-1.5,"12"]}',
    '{"type":"PackedByteArray","args":[256,-1,1.9]}',
    '{"type":"PackedInt64Array","args":[9223372036854775807,9007199254740993]}',
    '{"type":"PackedFloat64Array","args":[0.1,1e308,1e309,null]}',
    '{"type":"PackedStringArray","args":["a","s:b"]}',
    '{"type":"PackedVector2Array","args":[1,2,3]}',
    '{"type":"Vector2","args":[1]}',
    '{"type":"Dictionary","args":["s:a"]}',
    '{"type":"Dictionary","args":["s:a","i:1","sn:a","i:2","f:0.0","i:3","f:-0.0","i:4"]}',
    '{"type":"Array","elem_type":"int","args":["i:1","i:2"]}',
    '{"type":"Dictionary","key_type":"StringName","args":["sn:a","i:1"]}',
    '"i:12abc"',
    '"i:1a2"',
    '"i:--5"',
    '"i:-"',
    '"i:99999999999999999999"',
    '"i:-99999999999999999999"',
    '"f:1e400"',
    '"f:-1e400"',
    '"f:abc"',
    '"f: 1.5"',
    '"f:1.5x"',
    '"f:.5"',
    '"f:0x10"',
    '"f:nan"',
    '"f:-nan"',
    '"np:/root/a:b"',
    '"sn:"',
    '"s:"',
    '"x:1"',
    '"plain"',
    "5",
    '{"args":[]}',
    '{"type":"int","args":[]}',
    '{"type":"Nope"}',
    '{"type":"RID","args":[5]}',
    "[",
    '"\\v"',
    '"\\u00e9\\ud83d\\ude00"',
    # Godot's reader's own syntax: lenient numbers and trailing commas, strict escapes.
    '{"type":"PackedFloat64Array","args":[01,1.,-.5,00.5e1,-0,1E+2]}',
    '{"type":"PackedFloat64Array","args":[1e]}',
    '{"type":"PackedFloat64Array","args":[-]}',
    '{"type":"PackedFloat64Array","args":[+1]}',
    '{"type":"PackedFloat64Array","args":[.5]}',
    '{"type":"PackedFloat64Array","args":[1.5.3]}',
    '{"type":"PackedFloat64Array","args":[NaN]}',
    '{"type":"PackedFloat64Array","args":[Infinity]}',
    '{"type":"PackedFloat64Array","args":[1,],}',
    '{"type":"Vector2","args":[1,2],"args":[3,4]}',
    '["s:a",]',
    "[,]",
    '["s:a",,"s:b"]',
    '{"type"}',
    '{"type":"RID",,}',
    '{"type" "RID"}',
    '["s:\\x"]',
    '["s:\\ud800"]',
    '["s:\\udc00"]',
    '["s:\\ud800\\u0041"]',
    '["s:\\u12"]',
    '["s:\\/\\b"]',
    '["s:a\x01b\tc"]',
    '"s:a" x',
    '  "s:a"  \n ',
    "[true, false, null, True]",
    "[" * 1026 + "]" * 1026,
    '["f:0.0000000000000000000000000000001"]',
]


#: Texts where Godot reads a bad element as null inside the container (and logs an error);
#: from_json refuses the whole text instead.
REFUSED_INSIDE = ["[1]", "[0.0000000000000000000000000000001]", '["i:1", {"args": []}]']


def test_json_texts_godot4(godot4: Engine) -> None:
    texts = TEXTS + REFUSED_INSIDE
    replies = _engine_json(godot4, [None] * len(texts), texts)
    problems = []
    for text, reply in zip(TEXTS, replies[: len(TEXTS)], strict=True):
        ours = _our_reading(text)
        theirs = _engine_bytes(reply["ours"])
        if ours != theirs:
            mine = gd.loads(bytes.fromhex(ours), allow_objects=True)
            engine = gd.loads(bytes.fromhex(theirs), allow_objects=True)
            problems.append(f"{text}: ours {mine!r:.100} engine {engine!r:.100}")
    for text, reply in zip(REFUSED_INSIDE, replies[len(TEXTS) :], strict=True):
        with pytest.raises(gd.JSONError):
            gd.from_json(text, dialect="godot")
        engine = gd.loads(bytes.fromhex(reply["ours"]), allow_objects=True)
        if not (isinstance(engine, list) and None in engine):
            problems.append(f"{text}: the engine read {engine!r:.100}, not a null inside")
    assert not problems, "\n".join(problems)
