"""Vectors worked out from engine source for engines we cannot run here.

Godot 2.x, the Pandemonium fork and Godot 4.0-4.5 (with double-precision builds) have no
installable engine on these machines. ``tests/vectors/derived/`` holds bytes derived by hand from
their ``marshalls.cpp`` and our spec notes, independently of this library (each file's
``_about`` names the sources read). They are kept apart from the engine-verified golden vectors.

Kinds: ``roundtrip`` (decode gives the value using all bytes, encode gives the bytes back),
``decode`` (engine bytes we must read: garbage padding, bug cases), ``encode`` (what the
engine's writer produces) and ``error`` (the decoder must refuse).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import gdvariant as gd
from tests.support.godot_describe import canon, expected
from tests.support.paths import VECTORS
from tests.support.vectors import DELIBERATE

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

DERIVED = VECTORS / "derived"
FILES = ("godot2.json", "pandemonium.json", "godot4-older.json")
CASES = [
    (f"{name}:{v['name']}@{version}", version, v)
    for name in FILES
    for v in json.loads((DERIVED / name).read_text(encoding="utf-8"))["vectors"]
    for version in v["versions"]
    if v["name"] not in DELIBERATE
]


def _options(vector: dict[str, Any]) -> tuple[bool, bool, bool]:
    options = vector.get("options", {})
    return (
        bool(options.get("double", False)),
        bool(options.get("full_objects", False)),
        bool(options.get("allow_objects", False) or options.get("full_objects", False)),
    )


def test_every_file_says_where_it_comes_from() -> None:
    for name in FILES:
        about = json.loads((DERIVED / name).read_text(encoding="utf-8"))["_about"]
        assert "derived" in about.lower() and "not" in about.lower(), name


@pytest.mark.parametrize(("version", "vector"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_derived_vector(version: str, vector: dict[str, Any]) -> None:
    data = bytes.fromhex(vector["hex"])
    double, full, allow = _options(vector)
    kind = vector["kind"]
    if kind == "error":
        with pytest.raises(gd.DecodeError):
            gd.decode(data, version=version, double=double, allow_objects=True)
        return
    want = expected(vector["value"], objects=full or allow)
    if kind in ("roundtrip", "decode"):
        value, used = gd.decode(data, version=version, double=double, allow_objects=allow)
        assert canon(value) == canon(want)
        assert used == vector.get("consumed", len(data))
    if kind in ("roundtrip", "encode"):
        assert gd.dumps(want, version=version, double=double, full_objects=full) == data


def test_deliberate_differences_are_all_in_the_data() -> None:
    names = {
        v["name"]
        for name in FILES
        for v in json.loads((DERIVED / name).read_text(encoding="utf-8"))["vectors"]
    }
    assert set(DELIBERATE) <= names


def test_godot20_strings_need_their_padding_here() -> None:
    # Godot 2.0 reads "a" without its 3 padding bytes; we refuse, as 2.1.5+ does.
    with pytest.raises(gd.DecodeError):
        gd.decode(bytes.fromhex("040000000100000061"), version="2.0")


def test_images_keep_their_data_even_when_it_does_not_fit_the_size() -> None:
    # Godot 2 would return an empty Image for 3 bytes of RGBA 1x1; we return what was written.
    data = bytes.fromhex("0f000000040000000000000001000000010000000300000001020300")
    assert gd.decode(data, version="2") == (gd.Image(4, 0, 1, 1, b"\1\2\3"), 28)


def test_node_paths_without_names_are_kept_as_written() -> None:
    prop = bytes.fromhex("100000000000008000000000020000000400000070726f70")
    assert gd.decode(prop, version="2") == (gd.NodePath.from_parts([], ["prop"]), 24)
    root = bytes.fromhex("10000000000000800000000001000000")
    assert gd.decode(root, version="2") == (gd.NodePath("/"), 16)


def test_godot2_node_path_subnames_are_written_right() -> None:
    # Godot 2 writes "a/b:s:p" with an empty subname (its index bug); we write "s", so a
    # decode -> encode of any bytes stays the same, which emulating the bug would break.
    ours = gd.dumps(gd.NodePath("a/b:s:p"), version="2")
    assert ours == bytes.fromhex(
        "10000000 02000080 01000000 02000000 01000000 61000000 01000000 62000000"
        "01000000 73000000 01000000 70000000"
    )
    engine = bytes.fromhex(
        "1000000002000080010000000200000001000000610000000100000062000000000000000100000070000000"
    )
    read = gd.loads(engine, version="2")
    assert read == gd.NodePath.from_parts(["a", "b"], ["", "p"])
    assert gd.dumps(read, version="2") == engine


@pytest.mark.parametrize(
    ("hexdata", "value"),
    [
        ("14000000010000000400000001000000610000000200000001000000", {"a": 1}),
        ("15000000010000000200000001000000", [1]),
    ],
)
def test_godot2_containers_are_written_shared(hexdata: str, value: Any) -> None:
    # Unshared (C++-built) containers read fine; we write the bit GDScript literals carry.
    data = bytes.fromhex(hexdata)
    assert gd.loads(data, version="2") == value
    shared = bytearray(data)
    shared[7] |= 0x80
    assert gd.dumps(value, version="2") == bytes(shared)


def test_pandemonium_typed_arrays_drop_wrong_typed_elements() -> None:
    """Its decoder push_backs each element and ignores the result; TypedArray::push_back
    refuses any other type (``can_take_variant``, no conversion): the float is not kept."""
    data = bytes.fromhex("1b0000000200000001000000030000000000c03f")
    assert gd.decode(data, version="pandemonium") == (gd.TypedArray(gd.VariantType.INT, []), 20)
