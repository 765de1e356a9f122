"""The pure decoder's shape: a loop for the common kinds, a table of readers for the others.

``_binary.decoder._loop`` reads nil, bool, int32, float, String, the math types and untyped
Arrays and Dictionaries itself; every other layout is one function in
``_binary.decoder._READERS``, keyed by kind.
These tests hold the table to that: every kind any profile puts on the wire is read by one of
the two, and each reader, called on its own, reads its layout as the whole decoder does (so it
can be read, and changed, alone).
"""

from __future__ import annotations

import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._binary import decoder as _decoder
from gdvariant._engines.profiles import KIND_BARE_OBJECT
from gdvariant._limits import UNLIMITED
from gdvariant._values.layouts import LAYOUTS
from tests.support.core_compare import same_value
from tests.support.random_values import RELEASES

T = gd.VariantType

#: The kinds the loop reads itself (the math types, and these, whose unusual forms it hands
#: to the table too).
FIXED = {int(t) for t in LAYOUTS}
IN_THE_LOOP = {int(t) for t in (T.NIL, T.BOOL, T.INT, T.FLOAT, T.STRING, T.ARRAY, T.DICTIONARY)}

SAMPLES: list[Any] = [
    2**40,
    -(2**63),
    gd.StringName("name"),
    gd.NodePath("/root/a:b"),
    gd.NodePath("a/b"),
    gd.RID(9),
    gd.RID(),
    gd.ObjectID(5),
    gd.GodotObject("Node", {"x": 1}),
    gd.GodotObject("Node"),
    gd.Callable(),
    gd.Signal("sig", 4),
    b"\x01\x02\x03",
    b"",
    gd.PackedInt32Array([1, -2, 3]),
    gd.PackedFloat64Array([0.5]),
    gd.PackedVector3Array([(1, 2, 3)]),
    gd.PackedColorArray([gd.Color(1, 0, 0)]),
    gd.PackedStringArray(["x", "yz"]),
    gd.PackedStringArray(),
    gd.TypedArray(T.STRING, ["a", "b"]),
    gd.TypedArray(T.INT, []),
    gd.Dictionary([(1, 2)], T.INT, T.INT),
    gd.Dictionary([], T.STRING, None),
    gd.Image(1, 0, 2, 1, b"\x00\x01\x02\x03\x04\x05"),
    gd.InputEvent(gd.InputEventType.KEY, 1, 2, 65),
    gd.InputEvent(gd.InputEventType.JOYSTICK_MOTION, 0, 0, 1, 0.5),
    gd.InputEvent(gd.InputEventType.NONE, 3),
]


def _call(profile: gd.Profile) -> Any:
    """One call's state as decode_value builds it (objects allowed, no caps but the engine's)."""
    depth = profile.max_depth or UNLIMITED
    plan = _decoder._plan(profile)
    return _decoder._Call(profile, plan, True, UNLIMITED, UNLIMITED, depth, None, [])


def _blobs(profile: gd.Profile) -> list[bytes]:
    blobs = []
    for value in SAMPLES:
        try:
            blobs.append(gd.dumps(value, version=profile, full_objects=True))
        except (gd.EncodeError, TypeError, ValueError):
            continue  # a type or form this release does not have
    # Godot 2's Object is a header alone (read as null); no value of ours writes it.
    bare = [wire for wire, kind in enumerate(profile.kind_codes) if kind == KIND_BARE_OBJECT]
    return blobs + [struct.pack("<I", wire) for wire in bare]


def test_every_kind_on_the_wire_is_read_by_the_loop_or_a_reader() -> None:
    for profile in gd.PROFILES.values():
        kinds = {k for k in profile.kind_codes if k != -1}
        loose = kinds - _decoder._READERS.keys() - IN_THE_LOOP - FIXED
        assert not loose, f"{profile.name}: kinds {sorted(loose)} have no reader"
    assert _decoder._READERS.keys().isdisjoint({int(T.NIL), int(T.STRING)} | FIXED)


@pytest.mark.parametrize("version", RELEASES)
def test_each_reader_alone_reads_its_layout_as_the_decoder_does(version: str) -> None:
    profile = gd.get_profile(version)
    read = 0
    for blob in _blobs(profile):
        header = struct.unpack_from("<I", blob)[0]
        reader = _decoder._READERS.get(profile.kind_codes[header & 0xFF])
        if reader is None:
            continue  # a kind the loop reads itself
        call = _call(profile)
        value, end = reader(blob, 0, header, call)
        expected, expected_end = _decoder.decode_value(blob, profile, True)
        if value is _decoder._OPEN:  # a container with elements: its frame is pushed
            assert len(call.stack) == 1 and end < expected_end
        else:
            assert same_value(value, expected) and end == expected_end, (value, expected)
        read += 1
    assert read >= 8


@pytest.mark.parametrize("version", RELEASES)
def test_the_readers_of_cut_short_scalars_fail_as_the_decoder_does(version: str) -> None:
    profile = gd.get_profile(version)
    for value in (7, 2**40, True, 1.5, 0.1):
        if value == 2**40 and not profile.int64:
            continue
        blob = gd.dumps(value, version=profile)
        header = struct.unpack_from("<I", blob)[0]
        reader = _decoder._READERS[profile.kind_codes[header & 0xFF]]
        for cut in range(4, len(blob)):
            with pytest.raises(gd.DecodeError) as alone:
                reader(blob[:cut], 0, header, _call(profile))
            with pytest.raises(gd.DecodeError) as whole:
                _decoder.decode_value(blob[:cut], profile)
            assert (str(alone.value), alone.value.offset) == (str(whole.value), whole.value.offset)
