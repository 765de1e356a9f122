"""Property tests (hypothesis) for hostile input, on every engine profile.

- Random values of every type round-trip: encode -> decode -> encode gives the same bytes.
- Random bytes and mutated encodings raise nothing but :class:`DecodeError`, finish within
  hypothesis's deadline, and never allocate more than a bounded multiple of their size.
- Whatever the decoder accepts, the encoder writes back for the same release (and double
  build), and reading that gives the value again, changed only as the engine's own write and
  read change it (``random_wire.reread``).
"""

from __future__ import annotations

import random
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdvariant as gd
from tests.support.godot_describe import canon
from tests.support.mutations import MUTATORS
from tests.support.random_values import RELEASES, random_value
from tests.support.random_wire import random_wire, reread

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

#: Peak bytes allocated while decoding an input of n bytes stay under SLOPE * n + FLOOR: the
#: worst case is a run of tiny containers (an empty Array is 8 bytes, a Python list ~56 plus
#: its slot) or math values (a Vector2 is 12 bytes, a tuple of two floats ~100).
SLOPE = 32
FLOOR = 64 << 10

profiles = st.sampled_from(RELEASES)
#: Every release, and the double-precision build of each Godot 4 release.
BUILDS = [gd.get_profile(v) for v in RELEASES]
BUILDS += [gd.get_profile(v, double=True) for v in RELEASES if v.startswith("4.")]
builds = st.sampled_from(BUILDS)
fast = settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(version=profiles, seed=st.integers(0, 2**32))
def test_random_values_round_trip(version: str, seed: int) -> None:
    value = random_value(random.Random(seed), version=version)
    data = gd.dumps(value, version=version)
    again, used = gd.decode(data, version=version)
    assert used == len(data)
    assert gd.dumps(again, version=version) == data


def _decode_bounded(data: bytes, version: str) -> Any:
    """Decode with allocation tracing: only DecodeError may escape, memory stays bounded."""
    tracemalloc.start()
    try:
        try:
            return gd.decode(data, version=version, allow_objects=True)
        except gd.DecodeError as exc:
            assert exc.offset >= 0
            return exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < SLOPE * len(data) + FLOOR, f"{peak} bytes for a {len(data)}-byte input"


@fast
@given(version=profiles, data=st.binary(max_size=2048))
def test_random_bytes_raise_only_decode_errors(version: str, data: bytes) -> None:
    _decode_bounded(data, version)


@fast
@given(
    version=profiles,
    seed=st.integers(0, 2**32),
    kind=st.sampled_from(sorted(MUTATORS)),
    rounds=st.integers(1, 4),
)
def test_mutated_encodings_raise_only_decode_errors(
    version: str, seed: int, kind: str, rounds: int
) -> None:
    rng = random.Random(seed)
    pool = [gd.dumps(random_value(rng, version=version), version=version) for _ in range(3)]
    data = bytearray(pool[0])
    for _ in range(rounds):
        if data:
            data = MUTATORS[kind](rng, data, pool)
    _decode_bounded(bytes(data), version)


@fast
@given(
    version=profiles,
    seed=st.integers(0, 2**32),
    cuts=st.lists(st.integers(1, 64), min_size=1, max_size=20),
)
def test_the_stream_decoder_survives_any_chunking_of_mutated_streams(
    version: str, seed: int, cuts: list[int]
) -> None:
    rng = random.Random(seed)
    stream = b"".join(
        gd.frame(random_value(rng, version=version), version=version) for _ in range(4)
    )
    data = bytearray(stream)
    if rng.random() < 0.7:
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    decoder = gd.StreamDecoder(version=version)
    pos = 0
    try:
        for cut in cuts * (len(data) // sum(cuts) + 1):
            decoder.feed(bytes(data[pos : pos + cut]))
            pos += cut
            if pos >= len(data):
                break
        decoder.feed_eof()
    except gd.DecodeError:
        return
    if data == stream:
        assert decoder.pending() == 4


def test_a_tiny_input_claiming_two_billion_elements_allocates_nothing() -> None:
    for version in RELEASES:
        array = gd.get_profile(version).wire_ids[gd.VariantType.ARRAY]
        data = bytes([array, 0, 0, 0]) + (2**31 - 1).to_bytes(4, "little") + bytes(8)
        result = _decode_bounded(data, version)
        assert isinstance(result, gd.DecodeError)


def _written_back(data: bytes, profile: gd.Profile, objects: bool, views: bool) -> None:
    """If ``profile`` reads ``data``, its encoder writes the value back, and reading that gives
    the value as the engine would hold it after the same write and read."""
    try:
        value, _ = gd.decode(data, version=profile, allow_objects=objects, packed_views=views)
    except gd.DecodeError:
        return
    again = gd.dumps(value, version=profile, full_objects=objects)  # never an EncodeError
    if objects and not views:  # without objects, an object-typed container's class is
        back = gd.loads(again, version=profile, allow_objects=True)  # written EncodedObjectAsID
        assert canon(back) == canon(reread(value, profile))


@fast
@given(profile=builds, seed=st.integers(0, 2**32), objects=st.booleans(), views=st.booleans())
def test_whatever_is_read_is_written_back(
    profile: gd.Profile, seed: int, objects: bool, views: bool
) -> None:
    _written_back(random_wire(random.Random(seed), profile), profile, objects, views)


@fast
@given(
    profile=builds,
    source=builds,
    seed=st.integers(0, 2**32),
    kind=st.sampled_from(sorted(MUTATORS)),
    objects=st.booleans(),
)
def test_whatever_is_read_from_any_release_is_written_back(
    profile: gd.Profile, source: gd.Profile, seed: int, kind: str, objects: bool
) -> None:
    """Another release's bytes (a double build's read by a single one...), mutated."""
    rng = random.Random(seed)
    base = source.name.removesuffix("+double")
    pool = [gd.dumps(random_value(rng, version=base), version=source) for _ in range(3)]
    data = bytearray(pool[0])
    if rng.random() < 0.7:
        data = MUTATORS[kind](rng, data, pool)
    _written_back(bytes(data), profile, objects, False)
