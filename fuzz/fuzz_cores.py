"""Differential fuzzing of the compiled core against the pure-Python core (atheris). By hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python -m fuzz.fuzz_cores fuzz/corpus -atheris_runs=10000000

The compiled core (``gdvariant._binary._cgdvariant``) must give what the pure core gives, for every
input: the same value and end offset or the same DecodeError (message, offset, path, code, limit);
re-encoding a decoded value must give the same bytes on both, and give them (an EncodeError is a
crash: ``harness.written_back`` says what a round trip must give); FastLZ
(``gdvariant._files._cfastlz``) must decompress to the same bytes or refuse what the pure decoder
refuses. Any difference is a crash, and so is any exception other than those errors -- or a
sanitizer report, when the extension is built with AddressSanitizer (``tools/build-asan.sh`` says
how). The first input byte picks the profile, the second the target; the seed corpus is
fuzz_decode.py's.

``--fast-path CORPUS RUNS [SEED]`` runs the C code alone, many times faster, for long sanitizer
runs. gcc cannot instrument C for libFuzzer, so this mode is a mutation loop of its own: each
run takes a corpus input, applies one to three of the structure-aware mutations of
``tests/support/mutations.py`` (truncate, flip, header, length, splice, word), and sends it
through the compiled fast path (``fast_path_decode``, then ``fast_path_encode`` of what it
decoded; for some, ``decode_frames`` on the same bytes as a stream, or a decode into packed
views written back) or FastLZ; one input in sixteen that the fast path decodes is checked
against the pure core, and inputs it decodes join the pool. It prints the run count at the end.
"""

from __future__ import annotations

import contextlib
import random
import sys
import time
from pathlib import Path

import atheris

from fuzz import harness

FAST = sys.argv[1:2] == ["--fast-path"]
with contextlib.nullcontext() if FAST else atheris.instrument_imports():
    import gdvariant as gd
    from gdvariant._binary import pure as _pure
    from gdvariant._files import fastlz as _fastlz_live
    from gdvariant._files import fastlz_pure as _fastlz
    from tests.support.core_compare import compare_decode, compare_encode
    from tests.support.core_compare import compiled as maybe_compiled
    from tests.support.mutations import MUTATORS

if maybe_compiled is None:
    sys.exit("gdvariant._binary._cgdvariant is not built: pip install -e . with a C compiler")
compiled = maybe_compiled
maybe_fastlz = _fastlz_live.implementations().get("c")
if maybe_fastlz is None:
    sys.exit("gdvariant._files._cfastlz is not built: pip install -e . with a C compiler")
compiled_fastlz = maybe_fastlz

RELEASES = sorted({p.name for p in gd.PROFILES.values()})
PROFILES = [gd.get_profile(name) for name in RELEASES]
PROFILES += [gd.get_profile(name, double=True) for name in RELEASES if name.startswith("4.")]
TIGHT = gd.Limits(max_depth=8, max_size=4096, max_length=64, max_elements=64)


def check_decode(profile: gd.Profile, data: bytes, tight: bool) -> None:
    limits = TIGHT if tight else gd.Limits()
    problem = compare_decode(data, profile, True, limits)
    if problem:
        raise AssertionError(f"{profile.name}: {problem}")
    try:
        value, _ = _pure.decode_value(data, profile, True, 0, limits)
    except gd.DecodeError:
        return
    problem = compare_encode(value, profile, True)
    if problem:
        raise AssertionError(f"{profile.name} encode: {problem}")
    harness.written_back(value, profile, True)


def check_fastlz(control: int, stream: bytes) -> None:
    size = control * 37 + len(stream)
    try:
        expected: bytes | None = _fastlz.decompress(stream, size)
    except _fastlz.FastLZError:
        expected = None
    got = compiled_fastlz.fast_path_decompress(stream, size)
    if got != expected:
        raise AssertionError(f"fastlz_decompress: pure {expected!r}, compiled {got!r}")
    if compiled_fastlz.compress(stream) != _fastlz.compress(stream):
        raise AssertionError("fastlz_compress differs")


def fast_path(profile: gd.Profile, control: int, data: bytes, check: bool) -> bool:
    """Run the C code alone on one input (and the pure core too when ``check``); whether the
    fast path decoded it."""
    if control >= 200:
        compiled_fastlz.fast_path_decompress(data, (control - 200) * 37 + len(data))
        compiled_fastlz.compress(data)
        return False
    limits = TIGHT if control & 1 else gd.Limits()
    if control & 2:  # the same bytes as a stream of frames, for the stream hot path
        compiled.decode_frames(bytearray(data), 0, control & 4 == 4, 1 << 20, profile, limits)
    if control & 8:  # packed views: slices of the input (a bytearray here), written back
        try:
            viewed, _ = compiled.decode_value(bytearray(data), profile, True, 0, limits, True)
        except gd.DecodeError:
            pass
        else:
            compiled.encode_value(viewed, profile, True)  # an EncodeError here is a crash
    got = compiled.fast_path_decode(data, profile, limits)
    if got is None:
        return False
    if compiled.fast_path_encode(got[0], profile) is None:  # handed over: the pure core's turn
        compiled.encode_value(got[0], profile, False)  # an EncodeError here is a crash
    if check:
        check_decode(profile, data, control & 1 == 1)
    return True


def mutation_loop(folder: Path, runs: int, seed: int) -> None:
    """The ``--fast-path`` mode: ``runs`` mutated corpus inputs through the C code."""
    rng = random.Random(seed)
    pool = [raw for raw in (p.read_bytes() for p in sorted(folder.iterdir())) if len(raw) > 2]
    kinds = list(MUTATORS.values())
    donors: list[bytes] = []
    decoded = 0
    started = time.monotonic()
    for run in range(1, runs + 1):
        if run % 1000 == 1:  # what "splice" takes from: a few inputs, refreshed now and then
            donors = [p[2:] for p in rng.sample(pool, 8)]
        raw = pool[int(rng.random() * len(pool))]
        data = bytearray(raw[2:])
        for _ in range(1 + int(rng.random() * 3)):
            if data:
                data = kinds[int(rng.random() * len(kinds))](rng, data, donors)
        head = raw[0] if rng.random() > 0.05 else int(rng.random() * 256)
        control = raw[1] if rng.random() > 0.1 else int(rng.random() * 256)
        blob = bytes(data)
        if fast_path(PROFILES[head % len(PROFILES)], control, blob, decoded % 16 == 0):
            decoded += 1
            if len(pool) < 50_000:
                pool.append(bytes((head, control)) + blob)
        if run % 250_000 == 0:
            rate = run / (time.monotonic() - started)
            print(f"{run:,} runs ({decoded:,} decoded by the fast path), {rate:,.0f}/s", flush=True)
    print(f"done: {runs:,} runs through the compiled core, no crash", flush=True)


def test_one_input(raw: bytes) -> None:
    if len(raw) < 2:
        return
    profile = PROFILES[raw[0] % len(PROFILES)]
    data = raw[2:]
    if raw[1] < 200:
        check_decode(profile, data, raw[1] & 1 == 1)
    else:
        check_fastlz(raw[1] - 200, data)


def seed_corpus(folder: Path) -> None:
    """The seeds of fuzz_decode.py (engine-made golden vectors)."""
    from fuzz import fuzz_decode

    fuzz_decode.seed_corpus(folder)


if __name__ == "__main__":
    if FAST:
        mutation_loop(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]) if sys.argv[4:] else 0)
    else:
        harness.main(test_one_input, seed_corpus)
