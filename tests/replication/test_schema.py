"""Declaring networked classes: build-time errors name class and property; entity views."""

from __future__ import annotations

from typing import Any

import pytest

import gdvariant
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
    Str,
    UInt,
    World,
)


class Base(NetClass):
    a = UInt(4)
    b = Bool()


def schema_error(classes: list[type[NetClass]], **kwargs: Any) -> SchemaError:
    with pytest.raises(SchemaError) as info:
        Schema.build(classes, **kwargs)
    return info.value


def test_schema_error_is_a_gdvariant_error() -> None:
    assert issubclass(SchemaError, gdvariant.VariantError)
    assert issubclass(SchemaError, ValueError)


def test_exclusion_naming_nothing() -> None:
    class Bad(Base):
        excludes = (Exclude(Base, "zzz"),)
        c = UInt(1)

    err = schema_error([Bad])
    assert (err.cls, err.prop) == ("Bad", "zzz")
    assert "names no property" in str(err)


def test_exclusion_of_a_table_not_in_the_tree() -> None:
    class Other(NetClass):
        q = UInt(1)

    class Bad(Base):
        excludes = (Exclude(Other, "q"),)

    assert schema_error([Bad]).prop == "q"


def test_duplicate_name() -> None:
    class Dup(Base):
        b = UInt(2)

    err = schema_error([Dup])
    assert (err.cls, err.prop) == ("Dup", "b")
    assert "twice" in str(err)


def test_duplicate_path_through_an_embed() -> None:
    class Inner(NetClass, abstract=True):
        x = UInt(1)

    class Outer(NetClass):
        inner = Embed(Inner)

    class Clash(Outer):
        inner = Embed(Inner)

    assert schema_error([Clash]).prop == "inner.x"


def test_cycle_of_embeds() -> None:
    class A(NetClass, abstract=True):
        x = UInt(1)

    class B(NetClass):
        a = Embed(A)

    # A class body cannot name a class defined after it, so close the cycle afterwards.
    back = Embed(B)
    back.__set_name__(A, "b")
    A.net_declared = (*A.net_declared, ("b", back))
    err = schema_error([B])
    assert (err.cls, err.prop) == ("A", "b")
    assert "cycle" in str(err)


def test_pinned_index_clash_and_range() -> None:
    class Clash(NetClass):
        x = Prop(UInt(1), index=1)
        y = Prop(UInt(1), index=1)

    err = schema_error([Clash])
    assert (err.cls, err.prop) == ("Clash", "y")
    assert "also x's" in str(err)

    class Far(NetClass):
        x = Prop(UInt(1), index=5)

    assert (schema_error([Far]).cls, schema_error([Far]).prop) == ("Far", "x")


def test_more_properties_than_the_limit() -> None:
    class Wide(NetClass):
        arr = Array(UInt(1), size=5, per_element=True)

    err = schema_error([Wide], max_props=4)
    assert (err.cls, err.prop) == ("Wide", "arr[4]")


def test_abstract_duplicate_tables_and_class_ids() -> None:
    class Abstract(NetClass, abstract=True):
        x = UInt(1)

    assert schema_error([Abstract]).cls == "Abstract"

    class One(NetClass, table="T"):
        x = UInt(1)

    class Two(NetClass, table="T"):
        x = UInt(1)

    assert schema_error([One, Two]).cls == "Two"

    class P(NetClass, class_id=0):
        x = UInt(1)

    class Q(NetClass, class_id=0):
        x = UInt(1)

    assert schema_error([P, Q]).cls == "Q"

    class R(NetClass, class_id=9):
        x = UInt(1)

    assert "outside" in str(schema_error([R]))


def test_two_netclass_bases() -> None:
    class Other(NetClass):
        z = UInt(1)

    class Both(Base, Other):
        pass

    err = schema_error([Both])
    assert err.cls == "Both"


def test_conflicting_nested_audiences() -> None:
    class Secret(NetClass, abstract=True):
        x = UInt(1)

    class Team(NetClass, abstract=True):
        s = Embed(Secret, audience="owner")

    class Top(NetClass):
        t = Embed(Team, audience="team")

    err = schema_error([Top])
    assert (err.cls, err.prop) == ("Team", "s")


def test_default_that_does_not_encode() -> None:
    class Bad(NetClass):
        x = Prop(UInt(2), default=9)

    assert (schema_error([Bad]).cls, schema_error([Bad]).prop) == ("Bad", "x")

    class BadElems(NetClass):
        arr = Array(UInt(2), size=3, per_element=True, default=(1, 2))

    assert schema_error([BadElems]).prop == "arr[2]"


def test_excludes_must_be_exclude_objects() -> None:
    with pytest.raises(SchemaError, match="Exclude"):

        class Bad(Base):
            excludes = ("a",)


def test_declaration_type_errors() -> None:
    with pytest.raises(TypeError):
        Prop("not a codec")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Array(UInt(1), per_element=True)
    with pytest.raises(TypeError):
        Array(UInt(1))
    with pytest.raises(TypeError):
        Embed(int)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="order"):
        Schema.build([Base], order="godot")
    with pytest.raises(SchemaError):
        Schema.build([int])  # type: ignore[list-item]


class Local(NetClass, abstract=True):
    ammo = Array(UInt(9), size=3, per_element=True)
    fov = Quant(0.0, 180.0, 8)


class Player(Base):
    excludes = (Exclude(Base, "a"),)
    name = Str(8)
    local = Embed(Local, audience="owner")
    inventory = Array(UInt(4), max_len=3)


def test_entity_views_read_and_write_flat_properties() -> None:
    world = World(Schema.build([Player]))
    p = world.spawn(Player, name="ann", local={"fov": 90.0})
    assert p.name == "ann"
    assert p.local.fov == 90.0
    p.local.ammo[2] = 7
    p.local.ammo[-3] = 1
    assert list(p.local.ammo) == [1, 0, 7]
    assert p.local.ammo[1:] == [0, 7]
    assert len(p.local.ammo) == 3
    p.local.ammo = [4, 5, 6]
    assert repr(p.local.ammo) == "[4, 5, 6]"
    p.inventory = (1, 2)
    assert p.inventory == (1, 2)
    with pytest.raises(IndexError):
        p.local.ammo[3] = 1
    with pytest.raises(ValueError):
        p.local.ammo = [1]
    with pytest.raises(AttributeError, match="not networked"):
        _ = p.a  # excluded
    with pytest.raises(AttributeError, match="not networked"):
        p.a = 3
    with pytest.raises(AttributeError, match="embedded"):
        p.local = None
    with pytest.raises(
        gdvariant.EncodeError, match=r"entity 0 \(Player\) property local.ammo\[0\]"
    ):
        p.local.ammo[0] = 512


def test_unspawned_instances_refuse_writes() -> None:
    with pytest.raises(AttributeError, match="World"):
        Player().name = "x"


def test_class_attributes_are_the_declarations() -> None:
    assert isinstance(Player.name, Prop)
    assert isinstance(Player.local, Embed)
    assert Player.net_table == "Player"
    assert [n for n, _ in Player.net_declared] == ["name", "local", "inventory"]
