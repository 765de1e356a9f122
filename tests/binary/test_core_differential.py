"""Every available codec core against the pure one, on the same random inputs.

The pure core is the reference (``gdvariant._binary.core`` states the contract). For each other core
that is built, on every engine profile: random values (and values the profile cannot hold)
must encode to the same bytes or fail with the same error type and path; the bytes must decode
to the same value (same types, floats by their bits) and end offset; and random bytes and
mutated encodings, read with assorted options, buffer types, offsets and tight limits, must
decode the same or fail with the same error type, offset, path, Godot code and limit; and
what they decode (random bytes written field by field, ``random_wire``, among them) must encode
to the same bytes, as every build writes it back (double builds too). Without
a compiled core the comparison is skipped (``GDVARIANT_REQUIRE_COMPILED=1`` makes that a
failure); the comparator itself is checked below against cores that are wrong on purpose.

The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._binary import pure as _pure
from tests.support.cores import OTHER_CORES, core
from tests.support.engines import SEED
from tests.support.godot_describe import _canon_node
from tests.support.mutations import mutate
from tests.support.random_values import RELEASES, random_value
from tests.support.random_wire import random_wire

VALUES_PER_PROFILE = 150
MUTANTS_PER_PROFILE = 400
RANDOM_BYTES_PER_PROFILE = 100
WIRE_VALUES_PER_PROFILE = 300
#: (version, double build): every release, and the double build of each Godot 4 release.
BUILDS = [(v, False) for v in RELEASES] + [(v, True) for v in RELEASES if v.startswith("4.")]

#: Values no profile can hold (each also nested, so that the error has a path).
_UNWRITABLE: list[Any] = [
    "nul\0inside",
    2**64,
    gd.Vector2i(2**40, 0),
    gd.RID(2**64),
    gd.GodotObject("Node", (("name", "n"),)),  # without full_objects
    object(),
    {1: {"deep": [0, "\0"]}},
]
#: Limits that some inputs go over.
_LIMITS = [
    gd.DEFAULT_LIMITS,
    gd.Limits(max_depth=2),
    gd.Limits(max_length=3),
    gd.Limits(max_elements=2),
    gd.Limits(max_size=40),
    gd.Limits(max_depth=None, max_size=None, max_length=None, max_elements=None),
]


def exact(value: Any) -> tuple[Any, ...]:
    """A form equal for two values only if they are the same, type for type (floats by bits)."""
    out: list[tuple[Any, ...]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        node, children = _canon_node(item)
        out.append((type(item).__module__, type(item).__qualname__, *node))
        stack.extend(reversed(children))
    return tuple(out)


def _error(exc: gd.VariantError | ValueError) -> tuple[Any, ...]:
    return (
        type(exc),
        getattr(exc, "offset", None),
        getattr(exc, "path", None),
        getattr(exc, "code", None),
        getattr(exc, "limit", None),
    )


def encoded(core_: Any, value: Any, profile: gd.Profile, full: bool) -> tuple[Any, ...]:
    """What a core makes of encoding ``value``: its bytes, or its error's type and path."""
    try:
        return ("bytes", core_.encode_value(value, profile, full))
    except (gd.EncodeError, ValueError) as exc:
        return ("error", *_error(exc))


def decoded(
    core_: Any,
    data: Any,
    profile: gd.Profile,
    allow: bool,
    offset: int,
    limits: gd.Limits,
    views: bool = False,
) -> tuple[Any, ...]:
    """What a core makes of decoding ``data`` (with packed views or not): the exact value and
    end, or the error."""
    try:
        value, end = core_.decode_value(data, profile, allow, offset, limits, views)
    except (gd.DecodeError, ValueError) as exc:
        return ("error", *_error(exc))
    return ("value", exact(value), end)


def encode_cases(
    rng: random.Random, version: str, double: bool = False
) -> Iterator[tuple[Any, gd.Profile, bool]]:
    """(value, profile, full_objects): random values of ``version`` written for it, random
    Godot 4 values written for it (which it may lack types for), and unwritable values."""
    profile = gd.get_profile(version, double)
    for _ in range(VALUES_PER_PROFILE):
        yield random_value(rng, version=version), profile, rng.random() < 0.3
        yield random_value(rng), profile, False
    for bad in _UNWRITABLE:
        yield bad, profile, False
        yield [1, {"k": [None, bad]}], profile, rng.random() < 0.5


def decode_cases(
    rng: random.Random, version: str, double: bool = False
) -> Iterator[tuple[Any, gd.Profile, bool, int, gd.Limits]]:
    """(data, profile, allow_objects, offset, limits): encodings of random values, mutated
    ones, random bytes and bytes written field by field, as bytes, bytearray or memoryview,
    some after a prefix."""
    profile = gd.get_profile(version, double)
    pool = [
        _pure.encode_value(random_value(rng, version=version), profile, True)
        for _ in range(VALUES_PER_PROFILE)
    ]
    blobs = pool + [data for _, data in mutate(rng, pool, MUTANTS_PER_PROFILE)]
    blobs += [rng.randbytes(rng.randrange(64)) for _ in range(RANDOM_BYTES_PER_PROFILE)]
    blobs += [random_wire(rng, profile) for _ in range(WIRE_VALUES_PER_PROFILE)]
    for blob in blobs:
        prefix = rng.randbytes(rng.choice((0, 0, 4, 3)))
        data: Any = prefix + blob
        kind = rng.random()
        if kind < 0.2:
            data = bytearray(data)
        elif kind < 0.3:
            data = memoryview(data)
        limits = rng.choice(_LIMITS) if rng.random() < 0.3 else gd.DEFAULT_LIMITS
        yield data, profile, rng.random() < 0.5, len(prefix), limits


def differences(
    other: Any, version: str, seed: int, views: bool = False, double: bool = False
) -> list[str]:
    """Every input on which ``other`` and the pure core disagree (empty: none); ``views``:
    decode with packed views; ``double``: the release's double build."""
    rng = random.Random(f"{seed}-{version}-{double}")
    found = []
    for value, profile, full in encode_cases(rng, version, double):
        ours, theirs = encoded(_pure, value, profile, full), encoded(other, value, profile, full)
        if ours != theirs:
            found.append(f"encode {value!r:.80} ({profile.name}): {theirs!r:.120} != {ours!r:.120}")
    for data, profile, allow, offset, limits in decode_cases(rng, version, double):
        ours = decoded(_pure, data, profile, allow, offset, limits, views)
        theirs = decoded(other, data, profile, allow, offset, limits, views)
        if ours != theirs:
            found.append(
                f"decode {bytes(data).hex()} at {offset} ({profile.name}, allow={allow}, "
                f"{limits}): {theirs!r:.120} != {ours!r:.120}"
            )
        elif ours[0] == "value":  # what was read is written back, alike
            value = _pure.decode_value(data, profile, allow, offset, limits, views)[0]
            ours, theirs = (
                encoded(_pure, value, profile, allow),
                encoded(other, value, profile, allow),
            )
            if ours != theirs or ours[0] != "bytes":
                found.append(
                    f"re-encode {bytes(data).hex()} ({profile.name}): "
                    f"{theirs!r:.120} != {ours!r:.120}"
                )
    return found


@pytest.fixture(scope="module", params=OTHER_CORES)
def other(request: pytest.FixtureRequest) -> ModuleType:
    """Each core other than the pure one (skipped when not built)."""
    return core(request.param)


@pytest.mark.slow
@pytest.mark.parametrize(("version", "double"), BUILDS)
def test_every_core_agrees_with_the_pure_one(other: ModuleType, version: str, double: bool) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    found = differences(other, version, SEED, double=double)
    assert not found, f"seed {SEED}: {len(found)} differences, first: {found[:3]}"


@pytest.mark.parametrize("version", ["4.6", "4.2", "3.6", "2.1", "pandemonium-g3"])
def test_every_core_agrees_with_the_pure_one_on_packed_views(
    other: ModuleType, version: str
) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    found = differences(other, version, SEED, views=True)
    assert not found, f"seed {SEED}: {len(found)} differences, first: {found[:3]}"


# ---------------------------------------------------------------- the comparator itself


def _wrong(
    decode: Callable[..., Any] | None = None, encode: Callable[..., Any] | None = None
) -> Any:
    """The pure core with one function replaced."""
    return SimpleNamespace(
        decode_value=decode or _pure.decode_value, encode_value=encode or _pure.encode_value
    )


def _error_one_off(*args: Any) -> Any:
    try:
        return _pure.decode_value(*args)
    except gd.DecodeError as exc:
        raise gd.DecodeError(exc.reason, exc.offset + 1, exc.path, exc.code, exc.limit) from None


def _tuples_for_lists(*args: Any) -> Any:
    value, end = _pure.decode_value(*args)
    return (tuple(value) if type(value) is list else value), end


def _path_lost(*args: Any) -> Any:
    try:
        return _pure.encode_value(*args)
    except gd.EncodeError as exc:
        raise gd.EncodeError(exc.reason) from None


def _float_one_ulp_off(*args: Any) -> Any:
    value, end = _pure.decode_value(*args)

    def off(item: Any) -> Any:
        return math.nextafter(item, math.inf) if type(item) is float else item

    return ([off(item) for item in value] if type(value) is list else off(value)), end


@pytest.mark.parametrize(
    "wrong",
    [
        _wrong(decode=_error_one_off),
        _wrong(decode=_tuples_for_lists),
        _wrong(decode=_float_one_ulp_off),
        _wrong(encode=_path_lost),
        _wrong(encode=lambda *args: _pure.encode_value(*args) + b"\0"),
    ],
    ids=["error offset", "value type", "float bits", "error path", "bytes"],
)
def test_the_comparison_catches_a_core_that_is_wrong(wrong: Any) -> None:
    assert differences(wrong, "4", 1)


def test_the_pure_core_agrees_with_itself() -> None:
    assert differences(_pure, "3", 1) == []


def test_the_comparison_catches_a_core_that_copies_packed_arrays_under_views() -> None:
    copying = _wrong(decode=lambda *args: _pure.decode_value(*args[:5]))
    assert differences(copying, "4", 1, views=True)
