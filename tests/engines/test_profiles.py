"""Per-version data (``gdvariant._engines.profiles``), against spec notes godot4.md §1, §2, §8."""

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
from tests.support.paths import DOCS

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


@pytest.mark.parametrize(
    ("version", "release"),
    [
        ("4.6.3", "4.6"),  # what a Godot user has in hand: Help > About, `godot --version`
        ("4.6.3.stable", "4.6"),
        ("4.6.3.stable.debian4.6.3+ds-3", "4.6"),  # Debian's godot --version
        ("4.6.stable.official.abc123def", "4.6"),
        ("v4.2.2-stable", "4.2"),  # a release tag
        ("3.6.2.stable", "3.6"),
        ("3.2.3.stable.custom_build", "3.2"),
        ("2.1.6", "2.1"),
        (4, "4.6"),  # version=4
        (3, "3.6"),
    ],
)
def test_a_godot_version_string_or_an_int_names_its_release(version: object, release: str) -> None:
    assert get_profile(version) is PROFILES[release]  # type: ignore[arg-type]


def test_a_float_version_is_refused_with_what_to_write() -> None:
    with pytest.raises(ValueError, match="as a string"):
        get_profile(4.1)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["4.7", "3.7", "1", "nope", "", "4.7.1", "4.6x", True, None, ["4"]])
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
    # 4.0-4.2 hold typed Arrays but write them untyped (godot4.md §8: the type bits are 4.3+).
    assert gd.dumps(value, version="4.2") == gd.dumps([1], version="4.2")
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


# ---- Godot 3.x (spec godot3.md) -------------------------------------------------------------

G3 = [f"3.{minor}" for minor in range(7)]


@pytest.mark.parametrize("version", G3)
def test_godot3_type_numbers(version: str) -> None:
    # godot3.md §2: 27 types; Quat 10, Transform 13, NodePath 15, Object 17, PoolColorArray 26.
    p = PROFILES[version]
    assert p.variant_max == 27
    assert p.wire_ids[VariantType.QUATERNION] == 10
    assert p.wire_ids[VariantType.TRANSFORM3D] == 13
    assert p.wire_ids[VariantType.NODE_PATH] == 15
    assert p.wire_ids[VariantType.OBJECT] == 17
    assert p.wire_ids[VariantType.PACKED_COLOR_ARRAY] == 26
    assert not p.supports(VariantType.STRING_NAME)
    assert not p.supports(VariantType.VECTOR2I)


def test_godot30_writes_every_int_as_64_bit() -> None:
    # godot3.md §11: 3.0-3.0.6 flag every int; 3.1 fixed the range test.
    assert gd.dumps(1, version="3.0") == bytes.fromhex("020001000100000000000000")
    assert gd.dumps([1], version="3.0")[8:] == bytes.fromhex("020001000100000000000000")
    assert gd.dumps(1, version="3.1") == bytes.fromhex("0200000001000000")
    assert gd.dumps(-(2**31), version="3.6") == bytes.fromhex("0200000000000080")
    assert gd.dumps(2**31, version="3.6") == bytes.fromhex("020001000000008000000000")


@pytest.mark.parametrize("version", G3)
def test_godot3_rid_is_a_bare_header(version: str) -> None:
    # godot3.md §4: _RID (16) has no payload and decodes to an empty RID.
    assert gd.dumps(gd.RID(), version=version) == bytes.fromhex("10000000")
    assert gd.decode(bytes.fromhex("10000000ffffffff"), version=version) == (gd.RID(), 4)
    with pytest.raises(EncodeError, match="RID"):
        gd.dumps([gd.RID(5)], version=version)


def test_godot4_only_types_are_encode_errors_in_godot3_with_their_path() -> None:
    value = {"pos": [1, gd.Vector2i(1, 2)]}
    with pytest.raises(EncodeError) as info:
        gd.dumps(value, version="3.6")
    assert "VECTOR2I" in str(info.value)
    assert info.value.path == '["pos"][1]'
    for only4 in (gd.StringName("a"), gd.Callable(), gd.Signal("s", 1), gd.PackedInt64Array()):
        with pytest.raises(EncodeError):
            gd.dumps(only4, version="3")
    with pytest.raises(EncodeError):
        gd.dumps(TypedArray(VariantType.INT, [1]), version="3")


def test_godot3_accepts_encoded_surrogates() -> None:
    # godot3.md §6: parse_utf8 takes ED A0 80 as U+D800 (engine-verified on 3.2.3); Godot 4 not.
    data = bytes.fromhex("0400000003000000eda08000")
    assert gd.loads(data, version="3.6") == "\ud800"
    assert gd.dumps("\ud800", version="3.2") == data
    # Godot 3.6.2 holds U+D800 too, but writes a space for it (engine-checked).
    assert gd.dumps("\ud800", version="3.6") == bytes.fromhex("040000000100000020000000")
    with pytest.raises(DecodeError):
        gd.loads(data, version="4")
    with pytest.raises(EncodeError):
        gd.dumps("\ud800", version="4")


def test_godot3_depth_limits_per_release() -> None:
    # godot3.md §7: no decode limit before 3.3.5/3.4.3/3.5; 3.2.3 encodes 1100 nested arrays.
    deep: list[object] = []
    for _ in range(1100):
        deep = [deep]
    data = gd.dumps(deep, version="3.2")
    assert len(data) == 8808  # the engine-verified size
    with pytest.raises(DecodeError, match="max_depth limit"):  # our default: 1024
        gd.decode(data, version="3.2")
    value, used = gd.decode(data, version="3.2", limits=gd.Limits(max_depth=None))
    assert used == len(data)
    for _ in range(1100):
        (value,) = value
    assert value == []
    with pytest.raises(DecodeError) as info:
        gd.loads(data, version="3.6")
    assert info.value.code == GodotError.ERR_OUT_OF_MEMORY
    with pytest.raises(EncodeError):
        gd.dumps(deep, version="3.6")


def test_engines_without_a_depth_limit_refuse_cycles() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(EncodeError, match="contains itself"):
        gd.dumps(loop, version="3.2")


# ---- Godot 2.x (spec godot2.md) -------------------------------------------------------------


def test_godot2_header_has_no_flags() -> None:
    # godot2.md §2: the whole header word is compared with VARIANT_MAX.
    assert gd.loads(bytes.fromhex("0200000007000000"), version="2") == 7
    for header in ("02000100", "02010000", "00000080"):
        with pytest.raises(DecodeError):
            gd.decode(bytes.fromhex(header + "0700000000000000"), version="2")
    assert gd.decode(bytes.fromhex("020100000700000000000000"), version="3")[0] == 7


def test_godot2_ints_and_floats_are_32_bit() -> None:
    with pytest.raises(EncodeError, match="32-bit"):
        gd.dumps(2**31, version="2")
    # REAL is always float32: 0.1 is narrowed, 1e300 becomes inf (godot2.md §3).
    assert gd.dumps(0.1, version="2") == bytes.fromhex("03000000") + struct.pack("<f", 0.1)
    assert gd.dumps(1e300, version="2") == bytes.fromhex("030000000000807f")


def test_godot2_containers_carry_the_shared_bit() -> None:
    # godot2.md §3.1: GDScript literals are shared, so var2bytes([1]) has count 0x80000001.
    data = bytes.fromhex("15000000010000800200000001000000")
    assert gd.dumps([1], version="2") == data
    assert gd.loads(data, version="2") == [1]
    assert gd.loads(bytes.fromhex("15000000010000000200000001000000"), version="2") == [1]
    assert gd.dumps({}, version="2") == bytes.fromhex("1400000000000080")


def test_godot2_node_path_property() -> None:
    # godot2.md §4: "a/b:c" is names [a, b] plus the property c (flags bit 1).
    data = bytes.fromhex(
        "10000000 02000080 00000000 0200000001000000 61000000 01000000 62000000 01000000 63000000"
    )
    assert gd.dumps(gd.NodePath("a/b:c"), version="2") == data
    assert gd.loads(data, version="2") == gd.NodePath("a/b:c")


def test_godot20_reads_the_old_node_path_format() -> None:
    data = bytes.fromhex("10000000 03000000 612f62")  # length 3, "a/b", no padding
    assert gd.decode(data, version="2.0") == (gd.NodePath("a/b"), 11)
    with pytest.raises(DecodeError):
        gd.decode(data, version="2.1")


def test_godot2_objects_are_bare_headers() -> None:
    # godot2.md §7: the encoder writes 12000000, the decoder returns null.
    assert gd.decode(bytes.fromhex("12000000"), version="2") == (None, 4)
    with pytest.raises(EncodeError, match="None"):
        gd.dumps(gd.ObjectID(3), version="2")
    with pytest.raises(EncodeError):
        gd.dumps(gd.GodotObject("Node"), version="2", full_objects=True)


# ---- Pandemonium (spec pandemonium.md) ------------------------------------------------------


def test_pandemonium_generations_renumber() -> None:
    # pandemonium.md §2: StringName 21 in G1, 24 in G2/G3; Vector2 5 in G1, 7 in G2/G3.
    g1, g2, g3 = (PROFILES[f"pandemonium-g{n}"] for n in (1, 2, 3))
    assert (g1.variant_max, g2.variant_max, g3.variant_max) == (33, 38, 40)
    assert g1.wire_ids[VariantType.STRING_NAME] == 21
    assert g2.wire_ids[VariantType.STRING_NAME] == g3.wire_ids[VariantType.STRING_NAME] == 24
    assert gd.dumps(gd.Vector2(1, 2), version="pandemonium-g1")[:4] == bytes.fromhex("05000000")
    assert gd.dumps(gd.Vector2(1, 2), version="pandemonium")[:4] == bytes.fromhex("07000000")
    assert not g1.supports(VariantType.VECTOR4)
    assert g3.wire_ids[VariantType.TYPED_ARRAY] == 27
    assert g3.wire_ids[VariantType.PACKED_COLOR_ARRAY] == 39


def test_pandemonium_vector4i_pool_writes_z_for_w() -> None:
    # pandemonium.md §3: the PoolVector4iArray encoder writes z into the w slot.
    data = gd.dumps(gd.PackedVector4iArray([(1, 2, 3, 4)]), version="pandemonium")
    assert data == struct.pack("<II4i", 38, 1, 1, 2, 3, 3)
    assert gd.loads(data, version="pandemonium") == gd.PackedVector4iArray([(1, 2, 3, 3)])


def test_pandemonium_typed_array() -> None:
    # pandemonium.md §3: u32 element type, then the count; for objects sent as ids, bit 16.
    ints = TypedArray(VariantType.INT, [5])
    data = struct.pack("<IIIIi", 27, 2, 1, 2, 5)
    assert gd.dumps(ints, version="pandemonium") == data
    assert gd.loads(data, version="pandemonium") == ints
    nodes = gd.PackedTypedArray(ElementType.class_name("Node"), [])
    full = gd.dumps(nodes, version="pandemonium", full_objects=True)
    assert full == struct.pack("<IIII4sI", 28, 23, 24, 4, b"Node", 0)
    assert gd.loads(full, version="pandemonium") == nodes
    as_ids = gd.dumps(nodes, version="pandemonium")
    assert as_ids == struct.pack("<III", 28 | 1 << 16, 23, 0)
    expected = gd.PackedTypedArray(ElementType.class_name("EncodedObjectAsID"), [])
    assert gd.loads(as_ids, version="pandemonium") == expected


# ---- double-precision builds (spec godot4.md §3.1) ------------------------------------------


def test_double_builds_write_flagged_doubles() -> None:
    data = gd.dumps(gd.Vector2(1, 0.1), double=True)
    assert data == struct.pack("<Idd", 5 | 1 << 16, 1, 0.1)
    assert gd.loads(data, double=True) == gd.Vector2(1, 0.1)
    # A single-precision build reads the doubles too, and holds float32s.
    assert gd.loads(data) == gd.Vector2(1, struct.unpack("<f", struct.pack("<f", 0.1))[0])
    assert gd.dumps(gd.Color(1, 0, 0, 1), double=True) == gd.dumps(gd.Color(1, 0, 0, 1))
    assert gd.dumps(gd.Vector2i(1, 2), double=True) == gd.dumps(gd.Vector2i(1, 2))
    packed = gd.dumps(gd.PackedVector2Array([(1, 2)]), double=True)
    assert packed == struct.pack("<IIdd", 35 | 1 << 16, 1, 1, 2)
    assert gd.loads(packed, double=True) == gd.PackedVector2Array64([(1, 2)])
    assert gd.loads(packed) == gd.PackedVector2Array([(1, 2)])


def test_double_builds_of_40_and_41_forget_the_vector4_flag() -> None:
    v = gd.Vector4(1, 2, 3, 4)
    old = gd.dumps(v, version="4.1", double=True)
    assert old == struct.pack("<I4d", 12, 1, 2, 3, 4)
    assert gd.loads(old, version="4.1", double=True) == v
    assert gd.dumps(v, version="4.2", double=True) == struct.pack("<I4d", 12 | 1 << 16, 1, 2, 3, 4)


@pytest.mark.parametrize("version", ["3.6", "2", "pandemonium"])
def test_double_is_godot4_only(version: str) -> None:
    with pytest.raises(ValueError, match="double"):
        gd.dumps(1.5, version=version, double=True)


def test_the_type_table_of_the_docs_is_the_profiles_table() -> None:
    """docs/binary-format.md lists every release's type ids: they must be the profiles'."""

    page = DOCS / "binary-format.md"
    lines = page.read_text().split("\n| type | ", 1)[1].split("\n\n", 1)[0].splitlines()
    columns = ["4.6", "4.2", "3.6", "2.1", "pandemonium-g1", "pandemonium-g2", "pandemonium-g3"]
    shown = {}
    for line in lines[2:]:
        name, *ids = (cell.strip() for cell in line.strip("|").split("|"))
        shown[VariantType[name]] = ids
    for i, release in enumerate(columns):
        profile = get_profile(release)
        table = {t: ids[i] for t, ids in shown.items() if ids[i].isdigit()}
        assert table == {t: str(n) for t, n in profile.wire_ids.items()}, release
    lines_of = {"4.0": "4.2", "4.1": "4.2", "4.3": "4.6", "4.4": "4.6", "4.5": "4.6", "2.0": "2.1"}
    lines_of.update({f"3.{minor}": "3.6" for minor in range(6)})
    for release, column in lines_of.items():  # a column speaks for every release of its line
        assert get_profile(release).wire_ids == get_profile(column).wire_ids, release
