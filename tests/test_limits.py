"""Decoding limits (``gdvariant._limits``): each cap names itself, the offset and the path."""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd

pytestmark = pytest.mark.usefixtures("impl")  # every codec core


def _hit(data: bytes, limits: gd.Limits, version: str = "4") -> gd.DecodeError:
    with pytest.raises(gd.DecodeError) as info:
        gd.decode(data, version=version, limits=limits)
    assert info.value.code is gd.GodotError.ERR_OUT_OF_MEMORY
    return info.value


def test_the_defaults_are_documented_and_safe() -> None:
    assert gd.Limits() == gd.DEFAULT_LIMITS
    assert gd.Limits().max_depth == 1024  # Variant::MAX_RECURSION_DEPTH
    assert gd.Limits().max_size == 64 << 20
    assert gd.Limits().max_length == 16 << 20
    assert gd.Limits().max_elements == 16 << 20
    with pytest.raises(ValueError, match="max_depth"):
        gd.Limits(max_depth=-1)
    with pytest.raises(ValueError, match="max_size"):
        gd.Limits(max_size=1.5)  # type: ignore[arg-type]


# (value, limits that the value is just over, limit name, offset, path). Offsets worked out
# by hand from the layout: a String's is its length word, a container's its header, and a
# nesting's the first value inside the container one level too deep (as Godot counts it).
CASES: list[tuple[Any, gd.Limits, str, int, str]] = [
    ("x" * 11, gd.Limits(max_length=10), "max_length", 4, ""),
    (gd.StringName("abcdef"), gd.Limits(max_length=5), "max_length", 4, ""),
    (b"\1" * 9, gd.Limits(max_length=8), "max_length", 0, ""),
    ({"k": [1, "long name"]}, gd.Limits(max_length=8), "max_length", 40, '["k"][1]'),
    (list(range(5)), gd.Limits(max_elements=4), "max_elements", 0, ""),
    ({i: i for i in range(3)}, gd.Limits(max_elements=2), "max_elements", 0, ""),
    (gd.PackedInt32Array(range(7)), gd.Limits(max_elements=6), "max_elements", 0, ""),
    (gd.PackedStringArray(["a"] * 3), gd.Limits(max_elements=2), "max_elements", 0, ""),
    ([[0, [1, [2]]]], gd.Limits(max_depth=3), "max_depth", 48, "[0][1][1][0]"),
    (gd.NodePath("a/b/c:d"), gd.Limits(max_elements=3), "max_elements", 0, ""),
    ([gd.NodePath("ok/fine")], gd.Limits(max_length=3), "max_length", 32, "[0]"),
]


@pytest.mark.parametrize(("value", "limits", "name", "offset", "path"), CASES)
def test_each_limit_hit_names_the_limit_the_offset_and_the_path(
    value: Any, limits: gd.Limits, name: str, offset: int, path: str
) -> None:
    data = gd.dumps(value)
    exc = _hit(data, limits)
    assert (exc.limit, exc.offset, exc.path) == (name, offset, path)
    assert f"over the {name} limit" in str(exc)
    # One more unit of the same limit is enough: the cap is exact.
    looser = gd.Limits(**{name: getattr(limits, name) + 1})
    assert gd.decode(data, limits=looser)[0] == value


def test_max_size_counts_the_input_before_anything_is_copied() -> None:
    data = gd.dumps("x" * 100)
    exc = _hit(data, gd.Limits(max_size=len(data) - 1))
    assert (exc.limit, exc.offset) == ("max_size", 0)
    assert gd.loads(data, limits=gd.Limits(max_size=len(data))) == "x" * 100
    assert gd.decode(b"pad!" + data, offset=4, limits=gd.Limits(max_size=len(data)))[1] == 108


def test_none_lifts_a_cap() -> None:
    deep: list[Any] = []
    for _ in range(1100):
        deep = [deep]
    data = gd.dumps(deep, version="3.2")  # 3.2 has no depth limit of its own
    assert _hit(data, gd.Limits(), "3.2").limit == "max_depth"
    assert gd.decode(data, version="3.2", limits=gd.Limits(max_depth=None))[1] == len(data)


@pytest.mark.parametrize("version", ["4.6", "4.0", "3.6", "3.4", "pandemonium-g3"])
def test_an_engines_own_depth_limit_holds_whatever_the_limits(version: str) -> None:
    # Godot 4, 3.4+ and Pandemonium refuse to read or write deeper than 1024 levels, so what
    # the decoder reads, even with max_depth lifted, can be written back by the same release.
    array = gd.get_profile(version).wire_ids[gd.VariantType.ARRAY]
    lifted = gd.Limits(max_depth=None)

    def nested(levels: int) -> bytes:  # the innermost Array empty, at depth levels - 1
        return struct.pack("<II", array, 1) * (levels - 1) + struct.pack("<II", array, 0)

    deepest = nested(1025)  # its empty innermost Array at depth 1024: the engine's last level
    assert gd.dumps(gd.loads(deepest, version=version, limits=lifted), version=version) == deepest
    with pytest.raises(gd.DecodeError) as info:
        gd.loads(nested(1100), version=version, limits=lifted)
    assert info.value.limit == "max_depth"


def test_an_impossible_count_gets_the_engines_verdict_not_a_limit() -> None:
    # 2^31 - 1 elements in 8 bytes: Godot says ERR_INVALID_DATA, and so do we, even though the
    # count is also over max_elements: limits only speak for input that could be real.
    data = struct.pack("<Ii", 28, 0x7FFFFFFF)
    with pytest.raises(gd.DecodeError) as info:
        gd.decode(data)
    assert info.value.code is gd.GodotError.ERR_INVALID_DATA and info.value.limit is None


def test_limits_reach_every_reader(tmp_path: Path) -> None:
    tight = gd.Limits(max_elements=2)
    value = [1, 2, 3]
    framed = gd.frame(value)
    with pytest.raises(gd.DecodeError, match="max_elements") as info:
        gd.decode_packet(gd.dumps(value), limits=tight)
    decoder = gd.StreamDecoder(limits=tight)
    with pytest.raises(gd.DecodeError, match="bad frame: an Array of 3") as info:
        decoder.feed(framed)
    assert info.value.limit == "max_elements" and info.value.offset == 4
    with pytest.raises(gd.DecodeError, match="max_elements"):
        gd.WireFormat(limits=tight).stream_decoder().feed(framed)
    with pytest.raises(gd.DecodeError, match="max_elements"):
        gd.WireFormat(framing="PacketPeer", limits=tight).decode_packet(gd.dumps(value))
    with pytest.raises(gd.DecodeError, match="bad record: an Array of 3"):
        gd.load(io.BytesIO(next(gd.records([value]))), limits=tight)
    path = tmp_path / "save.dat"
    gd.write_save(path, [value], compression=gd.Compression.DEFLATE)
    with pytest.raises(gd.DecodeError, match="max_elements"):
        gd.read_save(path, limits=tight)
    assert gd.read_save(path) == [value]


def test_objects_stay_off_unless_asked_for_everywhere() -> None:
    obj = gd.GodotObject("Node", (("name", "n"),))
    data = gd.dumps(obj, full_objects=True)
    readers: list[Callable[[], object]] = [
        lambda: gd.loads(data),
        lambda: gd.decode_packet(data),
        lambda: gd.StreamDecoder().feed(gd.frame(obj, full_objects=True)),
        lambda: gd.load(io.BytesIO(next(gd.records([obj], full_objects=True)))),
    ]
    for read in readers:
        with pytest.raises(gd.DecodeError, match="allow_objects is off") as info:
            read()
        assert info.value.code is gd.GodotError.ERR_UNAUTHORIZED
    assert gd.loads(data, allow_objects=True) == obj
