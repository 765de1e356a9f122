"""FastLZ (``gdvariant._files.fastlz_pure``): our compressor and decoder, and the compiled one
(``gdvariant._files._cfastlz``) against it."""

from __future__ import annotations

import os
import random
import sys
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._binary import core as _core
from gdvariant._files import fastlz
from gdvariant._files import fastlz_pure as _fastlz
from gdvariant._files.fastlz_pure import FastLZError, compress, decompress
from tests.support import cores, processes
from tests.support.random_values import random_value


def _samples() -> list[bytes]:
    rng = random.Random(5)
    out = [b"abcd", bytes(16), b"hello world " * 50, bytes(range(256)) * 20]
    for n in (17, 100, 4096, 20000):
        out.append(bytes(rng.randrange(256) for _ in range(n)))
        out.append(bytes(rng.choice(b"ab") for _ in range(n)))
    return out


@pytest.mark.parametrize("data", _samples(), ids=lambda d: f"{len(d)}B")
def test_round_trip(data: bytes) -> None:
    stream = compress(data)
    assert decompress(stream, len(data)) == data


def test_sixteen_zeros_are_the_engine_s_empty_block() -> None:
    # containers.md §3.2 (engine-verified): a GCPF FastLZ block for no data is 16 zeros.
    assert compress(bytes(16)) == bytes.fromhex("010000e002010200 0000")


def test_level_2_far_match_and_long_length() -> None:
    # A hand-made level-2 stream: the literals "abc", then a match whose length (6 from the
    # control byte, plus extension bytes 255 and 10, plus 3) goes on while a byte is 255,
    # at distance 1 (distance byte 0): 274 more "c".
    stream = bytes([0x20 | 2]) + b"abc" + bytes([0xE0, 255, 10, 0])
    assert decompress(stream, 3 + 274) == b"abc" + b"c" * 274
    # A far match (level 2): distance byte 255 with offset bits 31, then a big-endian u16.
    far = bytes(range(256)) * 40  # 10240 bytes of literals, in runs of 32
    literals = b"".join(bytes([31]) + far[i : i + 32] for i in range(0, len(far), 32))
    stream = bytes([literals[0] | 0x20]) + literals[1:] + bytes([0x5F, 255, 0x03, 0xE9])
    # distance = 0x03E9 + 8191 + 1 = 9193 back from the end: bytes far[1047:1051]
    assert decompress(stream, len(far) + 4)[-4:] == far[1047:1051]


@pytest.mark.parametrize(
    ("stream", "size", "reason"),
    [
        (b"", 5, "empty stream"),
        (bytes([0x60]), 1, "unknown FastLZ level"),
        (b"\x05abc", 6, "literal run past the end"),
        (b"\x00a\x40\x05", 6, "outside the output"),
        (compress(b"hello world, hello world"), 10, "literal run past the end|outside"),
        (compress(b"hello world, hello world"), 100, "not the 100 expected"),
    ],
)
def test_bad_streams_are_refused(stream: bytes, size: int, reason: str) -> None:
    with pytest.raises(FastLZError, match=reason):
        decompress(stream, size)


def test_the_compiled_fastlz_gives_the_pure_bytes_and_errors() -> None:
    compiled: Any = cores.fastlz("c")
    rng = random.Random(5)
    blobs = [b"", b"a", b"abc", bytes(100), b"abcd" * 5000, rng.randbytes(3000)]
    blobs += [gd.dumps(random_value(rng)) * rng.randrange(1, 9) for _ in range(100)]
    for blob in blobs:
        packed = compiled.compress(blob)
        assert packed == _fastlz.compress(blob)
        assert compiled.decompress(packed, len(blob)) == blob
        if packed:  # a wrong size or a cut stream: the pure decoder's error
            assert compiled.fast_path_decompress(packed, len(blob) + 1) is None
            with pytest.raises(_fastlz.FastLZError) as caught:
                compiled.decompress(packed, len(blob) + 1)
            with pytest.raises(_fastlz.FastLZError) as expected:
                _fastlz.decompress(packed, len(blob) + 1)
            assert str(caught.value) == str(expected.value)


def test_fastlz_picks_its_own_implementation_outside_the_codec_core() -> None:
    """FastLZ is the save files' concern: no codec core carries it, and its own picker
    follows the compiled-or-pure policy (``GDVARIANT_PURE_PYTHON=1`` forces the pure one)."""
    for module in _core.implementations().values():
        assert not [name for name in dir(module) if "fastlz" in name], module
    assert fastlz.implementations()["python"] is _fastlz
    forced = "from gdvariant._files import fastlz; print(fastlz.IMPLEMENTATION)"
    env = {**os.environ, "GDVARIANT_PURE_PYTHON": "1"}
    result = processes.run([sys.executable, "-c", forced], env=env, capture_output=True, text=True)
    assert result.stdout.strip() == "python", result.stderr
    with fastlz.use("python") as module:
        assert module is _fastlz and fastlz.compress is _fastlz.compress
    with pytest.raises(LookupError), fastlz.use("rust"):
        pass
