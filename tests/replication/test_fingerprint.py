"""The canonical description, fingerprints and diffs."""

from __future__ import annotations

import hashlib

import pytest

import gdvariant
from gdvariant.replication import Bool, NetClass, Prop, Quant, Schema, SchemaError, UInt


class Ship(NetClass, table="DT_Ship"):
    speed = Prop(Quant(0.0, 10.0, 4), hot=True)
    shield = Prop(Bool(), default=True)


class Rock(NetClass, table="DT_Rock"):
    size = UInt(3)


def test_description_by_hand() -> None:
    schema = Schema.build([Ship, Rock])
    # Classes by table name: DT_Rock 0, DT_Ship 1. Defaults: size 0 in 3 bits -> b"\x00";
    # speed 0.0 -> grid point 0 in 4 bits; shield True -> 1 bit, b"\x01".
    ship = [
        "DT_Ship",
        1,
        [
            [0, "speed", ["Quant", 0.0, 10.0, 4, False], "", 1, 4, b"\x00"],
            [1, "shield", ["Bool"], "", 0, 1, b"\x01"],
        ],
    ]
    rock = ["DT_Rock", 0, [[0, "size", ["UInt", 3], "", 0, 3, b"\x00"]]]
    expected = ["gdvariant.replication", 2, [rock, ship]]  # format 2 (wire doc §8)
    assert schema.description == expected
    digest = hashlib.blake2b(gdvariant.dumps(expected), digest_size=8).digest()
    assert schema.fingerprint == digest
    assert (
        schema.layout(Ship).fingerprint
        == hashlib.blake2b(gdvariant.dumps(ship), digest_size=8).digest()
    )


def test_fingerprint_is_deterministic_and_sensitive() -> None:
    assert Schema.build([Ship, Rock]).fingerprint == Schema.build([Rock, Ship]).fingerprint

    class Ship2(NetClass, table="DT_Ship"):
        speed = Prop(Quant(0.0, 10.0, 5), hot=True)
        shield = Prop(Bool(), default=True)

    a, b = Schema.build([Ship, Rock]), Schema.build([Ship2, Rock])
    assert a.fingerprint != b.fingerprint
    assert a.layout("DT_Rock").fingerprint == b.layout("DT_Rock").fingerprint
    assert a.diff(b) == [
        "DT_Ship: first difference at index 0: "
        "[0] speed ['Quant', 0.0, 10.0, 4, False] hot (default 4 bits) != "
        "[0] speed ['Quant', 0.0, 10.0, 5, False] hot (default 5 bits)"
    ]
    assert a.diff(a) == []


def test_diff_names_missing_classes_ids_and_props() -> None:
    class Rock2(NetClass, table="DT_Rock"):
        size = UInt(3)
        mass = UInt(3)

    class Asteroid(NetClass, table="DT_A"):
        x = UInt(1)

    a = Schema.build([Ship, Rock])
    b = Schema.build([Rock2, Asteroid])
    assert a.diff(b) == [
        "DT_A: only in the second schema",
        "DT_Rock: class id 0 != 1",
        "DT_Rock: first difference at index 1: (none) != [1] mass ['UInt', 3] (default 3 bits)",
        "DT_Ship: only in the first schema",
    ]


def test_diff_of_defaults_alone() -> None:
    class Ship3(NetClass, table="DT_Ship"):
        speed = Prop(Quant(0.0, 10.0, 4), hot=True)
        shield = Prop(Bool(), default=False)

    diff = Schema.build([Ship]).diff(Schema.build([Ship3]))
    assert len(diff) == 1 and "index 1" in diff[0] and "b'\\x01'" in diff[0]


def test_from_description_rebuilds_the_same_schema() -> None:
    schema = Schema.build([Ship, Rock])
    wire = gdvariant.dumps(schema.description)
    rebuilt = Schema.from_description(gdvariant.loads(wire))
    assert rebuilt.fingerprint == schema.fingerprint
    assert rebuilt.layout("DT_Ship").baseline == (0.0, True)
    assert rebuilt.explain("DT_Ship").splitlines()[1:] == schema.explain(Ship).splitlines()[1:]


@pytest.mark.parametrize(
    "bad",
    [
        [],
        ["other", 2, []],
        ["gdvariant.replication", 1, []],  # format 1: zigzag value deltas, no longer read
        ["gdvariant.replication", 2, [["T", 0, [[0, "x", ["Nope"], "", 0, 1, b"\x00"]]]]],
        ["gdvariant.replication", 2, [["T", 0, [[0, "x", ["UInt", 3], "", 0, 5, b"\x00"]]]]],
    ],
)
def test_bad_descriptions(bad: list[object]) -> None:
    with pytest.raises(SchemaError, match="bad schema description"):
        Schema.from_description(bad)


def test_layout_lookup() -> None:
    schema = Schema.build([Ship])
    with pytest.raises(KeyError):
        schema.layout(Rock)
    with pytest.raises(KeyError):
        schema.layout("DT_Rock")
    assert repr(schema.layout(Ship)) == "<ClassLayout DT_Ship id=0 props=2>"
