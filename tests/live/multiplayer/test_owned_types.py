"""What an owner may sync, against Godot 4.6: for each typed property and each value of
another type (or the same), the engine's typed set (owned/typed_set.gd, the ``set_indexed``
that ``MultiplayerSynchronizer.set_state`` makes) and our check
(gdvariant.multiplayer._owned) must agree: a value the engine takes is kept by us, encoded
exactly as the engine's result, and one it leaves the property without is refused. The few
the engine takes and we refuse on purpose are listed, each with why (docs/multiplayer.md,
"What an owner may sync")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import (
    NodePath,
    PackedInt32Array,
    Quaternion,
    StringName,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)
from gdvariant.multiplayer._owned import value_check
from gdvariant.multiplayer.wire import ProtocolError
from gdvariant.replication import (
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    Float32,
    Float64,
    Quat,
    Str,
    Variant,
    VarInt,
    Vec2,
    Vec3,
    Vec4,
)
from tests.support.engines import Engine

pytestmark = [pytest.mark.engine, pytest.mark.slow]
SCRIPT = Path(__file__).parent / "owned" / "typed_set.gd"

#: each property of typed_set.gd and the codec of the same Variant type, as wide as it goes
PROPERTIES: dict[str, Codec] = {
    "int_value": VarInt(),
    "float_value": Float64(),
    "bool_value": Bool(),
    "string_value": Str(65535),
    "vector2_value": Vec2(Float32()),
    "vector3_value": Vec3(Float32()),
    "vector4_value": Vec4(Float32()),
    "quaternion_value": Quat(),
    "bytes_value": Bytes(255),
    "array_value": ArrayOf(Variant(), 100),
}

VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    7,
    -3,
    2.9,
    -2.9,
    0.5,
    1e30,
    "12",
    "abc",
    "",
    StringName("name"),
    NodePath("a/b"),
    Vector2(1.5, -2),
    Vector2i(3, 4),
    Vector3(1, 2, 3),
    Vector3i(-1, 0, 1),
    Vector4(1, 2, 3, 4),
    Vector4i(1, 2, 3, 4),
    Quaternion(0, 0.6, 0, 0.8),
    [1, "a"],
    {"a": 1},
    b"\x01\x02",
    PackedInt32Array([1, 2]),
]

#: (property, type of the value): what the engine takes and we refuse, on purpose
REFUSED_ON_PURPOSE = {
    # Godot parses text as a number, leniently (int("abc") is 0): a stock client sends the
    # type its script declares, and a parse would be a guess.
    ("int_value", "str"): "text is no number",
    ("float_value", "str"): "text is no number",
    ("int_value", "StringName"): "text is no number",
    ("float_value", "StringName"): "text is no number",
    # int(1e30) is -2**63 in Godot: no int64 holds the float.
    ("int_value", "float"): "a float no int64 holds",
    # Godot turns a Packed array into an Array and an Array into a PackedByteArray; no
    # stock client's typed property sends one for the other.
    ("array_value", "PackedInt32Array"): "no container conversions",
    ("array_value", "bytes"): "no container conversions",
    ("bytes_value", "list"): "no container conversions",
}


def _ours(codec: Codec, value: Any) -> bytes | None:
    try:
        return gd.dumps(value_check(codec)(value))
    except ProtocolError:
        return None


def test_owned_values_are_kept_as_godot_keeps_them(godot4: Engine) -> None:
    cases = [(prop, value) for prop in PROPERTIES for value in VALUES]
    with godot4.workdir() as (here, inside):
        (here / SCRIPT.name).write_text(SCRIPT.read_text())
        lines = [f"{prop} {gd.dumps(value).hex()}" for prop, value in cases]
        (here / "cases.txt").write_text("\n".join(lines) + "\n")
        out = godot4.run(SCRIPT.name, [], cwd=(here, inside), timeout=120).stdout
    verdicts = [line.split(" ", 3)[2:] for line in out.splitlines() if line.startswith("CASE ")]
    assert "DONE" in out and len(verdicts) == len(cases)
    disagreements = []
    on_purpose = set()
    for (prop, value), verdict in zip(cases, verdicts, strict=True):
        godot = bytes.fromhex(verdict[1]) if verdict[0] == "SET" else None
        assert verdict[0] != "ODD", (prop, value)
        ours = _ours(PROPERTIES[prop], value)
        if ours == godot:
            continue
        if ours is None and (prop, type(value).__name__) in REFUSED_ON_PURPOSE:
            on_purpose.add((prop, type(value).__name__))
            continue
        disagreements.append((prop, value, godot and gd.loads(godot), ours and gd.loads(ours)))
    assert disagreements == []
    assert on_purpose == set(REFUSED_ON_PURPOSE)  # each listed difference is still one
