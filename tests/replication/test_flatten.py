"""Flattening (spec replication.md §5.3 and, for order="source", §1.2) and the explain table.

Every expected order and table here is worked out by hand from the spec's rules; the working
is in the comments.
"""

from __future__ import annotations

import re

import pytest

from gdvariant.replication import (
    Array,
    Bool,
    Embed,
    Exclude,
    NetClass,
    Prop,
    Quant,
    Schema,
    SchemaError,
    SourceProp,
    SourceTable,
    UInt,
    source_flat_order,
)


class Base(NetClass, table="DT_Base"):
    a = UInt(4)
    b = Prop(Bool(), hot=True)


class Inner(NetClass, table="DT_Inner", abstract=True):
    e = UInt(2)
    f = Prop(Quant(0.0, 1.0, 8), hot=True)


class Mid(Base, table="DT_Mid"):
    excludes = (Exclude(Base, "a"),)
    c = Prop(UInt(3), priority=50)
    local = Embed(Inner, audience="owner")
    d = Array(UInt(9), size=2, per_element=True)
    g = Array(Bool(), max_len=5)


def paths(schema: Schema, cls: type[NetClass]) -> list[str]:
    return [p.path for p in schema.flat(cls)]


def test_spec_order() -> None:
    # Walk: base first (a excluded, b), then own: c, local.e, local.f, d[0], d[1], g.
    # Keys (band, priority, position): b (0,100,0), local.f (0,100,3), c (1,50,1),
    # local.e (1,100,2), d[0] (1,100,4), d[1] (1,100,5), g (1,100,6).
    schema = Schema.build([Base, Mid])
    assert paths(schema, Mid) == ["b", "local.f", "c", "local.e", "d[0]", "d[1]", "g"]
    assert paths(schema, Base) == ["b", "a"]
    assert [p.index for p in schema.flat(Mid)] == list(range(7))


def test_masks_per_audience() -> None:
    lay = Schema.build([Mid]).layout(Mid)
    # owner: local.f (1) and local.e (3)
    assert lay.masks == {None: 0b1110101, "owner": 0b0001010}
    assert lay.public_mask == 0b1110101


def test_explain_table() -> None:
    # Class ids: table names sorted, DT_Base = 0, DT_Mid = 1. ArrayOf(Bool(), 5): a 3-bit
    # count (5 = 0b101) + up to 5 one-bit elements = at most 8 bits.
    schema = Schema.build([Base, Mid])
    lines = schema.explain(Mid).splitlines()
    assert re.fullmatch(r"DT_Mid: class 1, 7 properties, fingerprint [0-9a-f]{16}", lines[0])
    expected = [
        "index path codec bits audience flags",
        "0 b Bool() 1 - hot",
        "1 local.f Quant(0.0, 1.0, 8, False) 8 owner hot",
        "2 c UInt(3) 3 - prio=50",
        "3 local.e UInt(2) 2 owner -",
        "4 d[0] UInt(9) 9 - -",
        "5 d[1] UInt(9) 9 - -",
        "6 g ArrayOf(Bool(), 5) <=8 - -",
    ]
    assert [re.sub(r"\s+", " ", line.strip()) for line in lines[1:]] == expected
    # Columns line up: every row's path starts at the same offset.
    starts = set()
    for line in lines[1:]:
        found = re.match(r"\s*\S+\s+", line)
        assert found is not None
        starts.add(found.end())
    assert len(starts) == 1


def test_source_order() -> None:
    # Source tables: DT_Mid = [baseclass->DT_Base (collapsible), EXCLUDE(DT_Base, a), c,
    # local->DT_Inner, d->array table, g]. Walk: inline DT_Base (a excluded, b to local),
    # c to local, DT_Inner appended now [e, f], array table appended now [d0, d1], g to
    # local; then the local list: [e, f, d0, d1, b, c, g]. CHANGES_OFTEN pass: f at 1 swaps
    # with 0 -> [f, e, d0, d1, b, c, g]; b at 4 swaps with 1 -> [f, b, d0, d1, e, c, g].
    schema = Schema.build([Base, Mid], order="source")
    assert paths(schema, Mid) == ["local.f", "b", "d[0]", "d[1]", "local.e", "c", "g"]
    assert Schema.build([Base, Mid]).fingerprint != schema.fingerprint


def test_source_worked_example_of_the_spec() -> None:
    # replication.md §1.3: final order f, b, e, c, d.
    tables = {
        "DT_Base": SourceTable("DT_Base", (SourceProp("a"), SourceProp("b", changes_often=True))),
        "DT_Local": SourceTable("DT_Local", (SourceProp("e"), SourceProp("f", changes_often=True))),
        "DT_Mid": SourceTable(
            "DT_Mid",
            (
                SourceProp("baseclass", "DT_Base", collapsible=True),
                SourceProp("c"),
                SourceProp("local", "DT_Local"),
                SourceProp("d"),
                SourceProp("a", "DT_Base", exclude=True),
            ),
        ),
    }
    assert [name for _, name in source_flat_order("DT_Mid", tables)] == ["f", "b", "e", "c", "d"]


def test_source_priorities_csgo() -> None:
    # CS:GO: passes for priorities 0, 64, 128 (64 always included; CHANGES_OFTEN counts
    # as 64). Flat before sorting: [p128, q0, r_often(128), s64, t0].
    # pass 0: q at 1 -> swap with 0: [q, p, r, s, t]; t at 4 -> swap with 1: [q, t, r, s, p]
    # pass 64: r (often) at 2 stays (start 2) ; s at 3 stays (start 3)
    # pass 128: p at 4 -> swap with 4 (itself).
    table = SourceTable(
        "T",
        (
            SourceProp("p"),
            SourceProp("q", priority=0),
            SourceProp("r", changes_often=True),
            SourceProp("s", priority=64),
            SourceProp("t", priority=0),
        ),
    )
    order = source_flat_order("T", {"T": table}, priorities=True)
    assert [n for _, n in order] == ["q", "t", "r", "s", "p"]
    # SDK 2013 ignores priorities: only r moves, swapping with p.
    assert [n for _, n in source_flat_order("T", {"T": table})] == ["r", "q", "p", "s", "t"]


def test_inside_array_props_are_skipped() -> None:
    table = SourceTable(
        "T", (SourceProp("elem", inside_array=True), SourceProp("arr"), SourceProp("x"))
    )
    assert [n for _, n in source_flat_order("T", {"T": table})] == ["arr", "x"]


def test_pinned_indices() -> None:
    class Pinned(NetClass):
        a = UInt(1)
        b = UInt(1)
        c = Prop(UInt(1), index=0)
        arr = Array(UInt(1), size=2, per_element=True, index=2)

    # Sorted: a, b, c, arr[0], arr[1]; c takes 0, arr takes 2 and 3; a, b fill 1 and 4.
    schema = Schema.build([Pinned])
    assert paths(schema, Pinned) == ["c", "a", "arr[0]", "arr[1]", "b"]
    with pytest.raises(SchemaError, match='order="spec"'):
        Schema.build([Pinned], order="source")


def test_priorities_and_bands() -> None:
    class P(NetClass):
        a = Prop(UInt(1), priority=200)
        b = Prop(UInt(1), priority=5, hot=True)
        c = Prop(UInt(1), hot=True)
        d = Prop(UInt(1), priority=5)
        e = UInt(1)

    # Band 0: b (5), c (100); band 1: d (5), e (100), a (200).
    assert paths(Schema.build([P]), P) == ["b", "c", "d", "e", "a"]


def test_exclusion_inside_an_embedded_table_applies_to_the_whole_class() -> None:
    class Leaf(NetClass, abstract=True):
        x = UInt(1)
        y = UInt(1)

    class Wrapper(NetClass, abstract=True):
        excludes = (Exclude(Leaf, "y"),)
        leaf = Embed(Leaf)

    class Top(NetClass):
        w = Embed(Wrapper)
        other = Embed(Leaf)

    # (Leaf, y) is excluded wherever Leaf's props appear, as in Source.
    assert paths(Schema.build([Top]), Top) == ["w.leaf.x", "other.x"]


def test_class_ids_sorted_by_table_or_pinned() -> None:
    class Zed(NetClass, table="A_zed"):
        x = UInt(1)

    class Alpha(NetClass, table="B_alpha", class_id=0):
        x = UInt(1)

    class Mu(NetClass, table="C_mu"):
        x = UInt(1)

    schema = Schema.build([Mu, Alpha, Zed])
    assert [c.name for c in schema.classes] == ["B_alpha", "A_zed", "C_mu"]
    assert schema.class_bits == 2
