"""Options resolved into a codec (``gdvariant._binary.codec``): validated once, cached, applied."""

from __future__ import annotations

from typing import Any

import pytest

import gdvariant as gd
from gdvariant._binary import codec as _codec
from gdvariant._binary.codec import codec_for


def test_the_same_options_give_the_same_codec() -> None:
    assert codec_for("4") is codec_for("4", False, False, False, gd.DEFAULT_LIMITS)
    assert codec_for("4.6") is not codec_for("4")  # another spelling, the same profile
    assert codec_for("4.6").profile is codec_for("4").profile


def test_a_codec_holds_the_resolved_options() -> None:
    limits = gd.Limits(max_depth=3)
    codec = codec_for("4.2", True, 1, 0, limits)  # type: ignore[arg-type]
    assert codec.profile is gd.get_profile("4.2", double=True)
    assert codec.allow_objects is True and codec.full_objects is False
    assert codec.limits is limits
    assert repr(codec).startswith(
        "VariantCodec('4.2+double', allow_objects=True, full_objects=False"
    )


def test_equal_limits_objects_get_codecs_that_behave_alike() -> None:
    a, b = gd.Limits(max_elements=2), gd.Limits(max_elements=2)
    data = gd.dumps([1, 2, 3])
    for limits in (a, b):
        with pytest.raises(gd.DecodeError, match="max_elements") as info:
            codec_for("4", limits=limits).decode(data)
        assert info.value.limit == "max_elements"


@pytest.mark.parametrize("version", ["4.9", ["4"], None])
def test_a_bad_version_is_a_value_error_naming_the_valid_ones(version: Any) -> None:
    with pytest.raises(ValueError, match=r"valid versions: '4\.0'"):
        codec_for(version)


def test_limits_must_be_limits() -> None:
    with pytest.raises(TypeError, match=r"limits must be a gdvariant\.Limits, not dict"):
        codec_for("4", limits={"max_depth": 3})  # type: ignore[arg-type]


def test_double_needs_an_engine_with_double_builds() -> None:
    with pytest.raises(ValueError, match="no double-precision variant format"):
        codec_for("3", double=True)


def test_the_cache_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_codec, "_CACHE", {})
    for depth in range(_codec._CACHE_MAX + 10):
        codec = codec_for("4", limits=gd.Limits(max_depth=depth))
        assert codec.limits.max_depth == depth
        assert len(_codec._CACHE) <= _codec._CACHE_MAX


def test_decode_gives_the_end_offset_and_decode_whole_refuses_leftovers() -> None:
    codec = codec_for("4")
    data = b"pad!" + gd.dumps("abc") + b"tail"
    assert codec.decode(data, 4) == ("abc", len(data) - 4)
    with pytest.raises(gd.DecodeError, match="4 bytes of trailing data") as info:
        codec.decode_whole(data[4:])
    assert info.value.offset == 12


def test_the_object_policy_applies_both_ways() -> None:
    obj = gd.GodotObject("Node", (("name", "n"),))
    with pytest.raises(gd.EncodeError, match="full_objects=True"):
        codec_for("4").encode(obj)
    data = codec_for("4", full_objects=True).encode(obj)
    with pytest.raises(gd.DecodeError, match="allow_objects is off"):
        codec_for("4").decode(data)
    assert codec_for("4", allow_objects=True).decode_whole(data) == obj


def test_other_version_keeps_the_policy_and_limits() -> None:
    limits = gd.Limits(max_length=5)
    other = codec_for("4", False, True, True, limits).other_version("3")
    assert other.profile is gd.get_profile("3")
    assert (other.allow_objects, other.full_objects, other.limits) == (True, True, limits)


def test_packed_views_are_part_of_the_codec() -> None:
    viewing = codec_for("4", packed_views=True)
    assert viewing is not codec_for("4") and viewing.packed_views is True
    assert codec_for("4").packed_views is False
    assert viewing.other_version("3").packed_views is True
    assert repr(viewing).endswith("packed_views=True)")
    data = gd.dumps([gd.PackedInt64Array([3])])
    assert type(viewing.decode_whole(data)[0]) is gd.PackedView
    assert type(viewing.decode(data)[0][0]) is gd.PackedView
    assert type(codec_for("4").decode_whole(data)[0]) is gd.PackedInt64Array
