"""Per-version data (``gdvariant._profiles``), checked against spec notes godot4.md §1, §2, §8."""

from __future__ import annotations

import struct

import pytest

import gdvariant as gd
from gdvariant import (
    PROFILES,
    DecodeError,
    Dictionary,
    ElementType,
    EncodeError,
    GodotError,
    PackedVector4Array,
    Profile,
    TypedArray,
    VariantType,
    get_profile,
)

RELEASES = [f"4.{minor}" for minor in range(7)]
PRE_43 = ["4.0", "4.1", "4.2"]
FROM_43 = ["4.3", "4.4", "4.5", "4.6"]


ALL_RELEASES = [
    *RELEASES,
    *(f"3.{minor}" for minor in range(7)),
    "2.0",
    "2.1",
    "pandemonium-g1",
    "pandemonium-g2",
    "pandemonium-g3",
]


def test_profile_names() -> None:
    # The list: every 4.x, 3.x and 2.x release, Pandemonium's three generations.
    assert set(PROFILES) == {"4", "3", "2", "pandemonium", *ALL_RELEASES}
    for name in ALL_RELEASES:
        assert PROFILES[name].name == name
        engine = PROFILES[name].engine
        assert name.replace("pandemonium-g", "Pandemonium G") in engine
    assert PROFILES["3"] is PROFILES["3.6"]
    assert PROFILES["2"] is PROFILES["2.1"]
    assert PROFILES["pandemonium"] is PROFILES["pandemonium-g3"]


def test_alias_4_is_the_newest_release() -> None:
    assert PROFILES["4"] is PROFILES["4.6"]
    assert get_profile("4") is get_profile("4.6")


def test_profiles_mapping_is_read_only() -> None:
    with pytest.raises(TypeError):
        PROFILES["9.9"] = PROFILES["4"]  # type: ignore[index]


def test_get_profile() -> None:
    for name, profile in PROFILES.items():
        assert get_profile(name) is profile
    p = PROFILES["4.3"]
    assert get_profile(p) is p


@pytest.mark.parametrize("bad", ["4.7", "3.7", "1", "nope", "", "4.6.1", 4, None, ["4"]])
def test_unknown_version_lists_the_valid_ones(bad: object) -> None:
    with pytest.raises(ValueError) as info:
        get_profile(bad)  # type: ignore[arg-type]
    message = str(info.value)
    for name in PROFILES:
        assert repr(name) in message


@pytest.mark.parametrize("version", RELEASES)
def test_type_numbers_are_godot4s(version: str) -> None:
    p = PROFILES[version]
    # Spec §1: 11 TRANSFORM2D, 12 VECTOR4, 13 VECTOR4I, 20 COLOR, 24 OBJECT, 37 PACKED_COLOR_ARRAY.
    assert p.wire_ids[VariantType.TRANSFORM2D] == 11
    assert p.wire_ids[VariantType.VECTOR4] == 12
    assert p.wire_ids[VariantType.VECTOR4I] == 13
    assert p.wire_ids[VariantType.COLOR] == 20
    assert p.wire_ids[VariantType.OBJECT] == 24
    assert p.wire_ids[VariantType.PACKED_COLOR_ARRAY] == 37
    for vtype, wire in p.wire_ids.items():
        assert p.types_by_id[wire] is vtype
    assert len(p.types_by_id) == 256
    assert all(t is None for t in p.types_by_id[p.variant_max :])


@pytest.mark.parametrize("version", PRE_43)
def test_before_43(version: str) -> None:
    p = PROFILES[version]
    assert p.variant_max == 38
    assert not p.supports(VariantType.PACKED_VECTOR4_ARRAY)
    assert p.supports(VariantType.PACKED_COLOR_ARRAY)
    assert p.types_by_id[38] is None
    assert len(p.wire_ids) == 38
    assert not p.typed_arrays
    assert not p.typed_dictionaries


@pytest.mark.parametrize("version", FROM_43)
def test_from_43(version: str) -> None:
    p = PROFILES[version]
    assert p.variant_max == 39
    assert p.supports(VariantType.PACKED_VECTOR4_ARRAY)
    assert p.types_by_id[38] is VariantType.PACKED_VECTOR4_ARRAY
    assert len(p.wire_ids) == 39
    assert p.typed_arrays
    assert p.typed_dictionaries is (version != "4.3")


def test_profiles_are_immutable() -> None:
    p = PROFILES["4.6"]
    with pytest.raises(AttributeError):
        p.typed_arrays = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.wire_ids[VariantType.NIL] = 5  # type: ignore[index]


@pytest.mark.parametrize("version", RELEASES)
def test_describe(version: str) -> None:
    p = PROFILES[version]
    d = p.describe()
    assert d["name"] == version
    assert d["engine"] == p.engine
    assert d["typed_arrays"] is p.typed_arrays
    assert d["typed_dictionaries"] is p.typed_dictionaries
    assert d["max_depth"] == 1024
    types = d["types"]
    assert isinstance(types, dict)
    assert list(types.values()) == list(range(p.variant_max))
    assert types["NIL"] == 0
    assert types["TRANSFORM2D"] == 11
    assert types["PACKED_COLOR_ARRAY"] == 37
    assert ("PACKED_VECTOR4_ARRAY" in types) is (version not in PRE_43)


def test_profile_is_exported_class() -> None:
    assert all(isinstance(p, Profile) for p in PROFILES.values())


# ---- what the profiles change in dumps/loads ------------------------------------------------

V4_EMPTY = struct.pack("<II", 38, 0)  # PackedVector4Array, count 0


@pytest.mark.parametrize("version", PRE_43)
def test_packed_vector4_array_needs_43(version: str) -> None:
    with pytest.raises(EncodeError):
        gd.dumps(PackedVector4Array([(1, 2, 3, 4)]), version=version)
    with pytest.raises(DecodeError) as info:
        gd.loads(V4_EMPTY, version=version)
    assert info.value.code == GodotError.ERR_INVALID_DATA
    assert info.value.offset == 0


@pytest.mark.parametrize("version", FROM_43)
def test_packed_vector4_array_from_43(version: str) -> None:
    assert gd.dumps(PackedVector4Array(), version=version) == V4_EMPTY
    assert gd.loads(V4_EMPTY, version=version) == PackedVector4Array()


def test_typed_array_needs_43() -> None:
    value = TypedArray(VariantType.INT, [1])
    with pytest.raises(EncodeError):
        gd.dumps(value, version="4.2")
    # Spec §2/§5.4: header bits 16-17 = BUILTIN, then the type (INT = 2), then the count.
    expected = struct.pack("<IIIii", 28 | 1 << 16, 2, 1, 2, 1)
    assert gd.dumps(value, version="4.3") == expected
    assert gd.loads(expected, version="4.3") == value


def test_typed_dictionary_needs_44() -> None:
    value = Dictionary([(1, 2)], VariantType.INT, VariantType.INT)
    with pytest.raises(EncodeError):
        gd.dumps(value, version="4.3")
    data = gd.dumps(value, version="4.4")
    # Upstream test: Dictionary[int, int] starts 1B 00 05 00.
    assert data[:4] == bytes.fromhex("1b000500")
    assert data == struct.pack("<IIIIiiii", 0x5001B, 2, 2, 1, 2, 1, 2, 2)
    assert gd.loads(data, version="4.4") == value


def test_untyped_containers_need_no_43() -> None:
    assert gd.dumps([1], version="4.0") == struct.pack("<IIIi", 28, 1, 2, 1)
    assert gd.dumps({}, version="4.0") == struct.pack("<II", 27, 0)


def test_old_decoders_ignore_typed_array_bits() -> None:
    # Spec §8.1: before 4.3 bits 16-17 of ARRAY are ignored, so the type word is read as the
    # count. Array[NIL] is untyped in 4.3+; type word 0 then reads as an empty array.
    data = struct.pack("<III", 28 | 1 << 16, 0, 0)
    assert gd.decode(data, version="4.2") == ([], 8)
    assert gd.decode(data, version="4.3") == ([], 12)


def test_old_decoders_ignore_typed_dictionary_bits() -> None:
    data = struct.pack("<IIII", 0x5001B, 0, 0, 0)
    assert gd.decode(data, version="4.3") == ({}, 8)
    assert gd.decode(data, version="4.4") == ({}, 16)


def test_typed_container_builtin_type_checked_against_the_profile() -> None:
    # Array[PackedVector4Array]: type 38 is a type only from 4.3 (spec §2.1: must be < VARIANT_MAX).
    value = TypedArray(ElementType.builtin(VariantType.PACKED_VECTOR4_ARRAY), [])
    assert gd.dumps(value, version="4.3") == struct.pack("<III", 28 | 1 << 16, 38, 0)


def test_unknown_version_in_api_is_value_error() -> None:
    with pytest.raises(ValueError, match=r"4\.6"):
        gd.loads(b"\0\0\0\0", version="nope")
    with pytest.raises(ValueError):
        gd.dumps(None, version="nope")
    with pytest.raises(ValueError):
        gd.decode(b"\0\0\0\0", version="5")


def test_profile_object_accepted_as_version() -> None:
    p = PROFILES["4.2"]
    assert gd.dumps(1, version=p) == struct.pack("<Ii", 2, 1)
    with pytest.raises(EncodeError):
        gd.dumps(PackedVector4Array(), version=p)
