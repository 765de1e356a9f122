"""Which codec core is live: the compiled one when it imports, else the pure-Python one.

As msgpack and cbor2 do, the choice is made once, at import: ``gdvariant._binary._cgdvariant`` (the
compiled core) if it can be imported, else :mod:`gdvariant._binary.pure`. Setting the environment
variable ``GDVARIANT_PURE_PYTHON=1`` forces the pure core (the compiled one is then not even
imported). ``IMPLEMENTATION`` names the live core, ``"c"`` or ``"python"``;
``gdvariant.IMPLEMENTATION`` and ``gdvariant versions`` report it.

THE CONTRACT. A core is a module with these functions; nothing else in gdvariant calls a core,
and only :mod:`gdvariant._binary.codec` calls them, through this module (FastLZ, which the
compiled module once carried too, picks its own: :mod:`gdvariant._files.fastlz`):

``decode_value(data, profile, allow_objects, offset, limits[, packed_views]) -> (value, end)``
    Decode the one value that starts at ``offset`` of ``data`` (``bytes``, ``bytearray`` or
    ``memoryview``; any other buffer too) and return it with the offset just past it, which
    may exceed ``len(data)`` by up to 4, as Godot's count does. ``profile`` is a
    :class:`~gdvariant.Profile`, ``allow_objects`` a bool, ``limits`` a
    :class:`~gdvariant.Limits`. ``ValueError`` when ``offset`` is outside ``0..len(data)``.
    Failures raise :class:`~gdvariant.DecodeError` with the same message, ``offset``,
    ``path``, ``code`` and ``limit`` as the pure core. With ``packed_views`` true, every
    numeric packed array and PackedByteArray is a :class:`~gdvariant.PackedView` of its
    bytes in ``data`` (a read-only slice of ``memoryview(data)``), not a copy.

``encode_value(value, profile, full_objects) -> bytes``
    The bytes of ``var_to_bytes(value)`` (``var_to_bytes_with_objects`` with
    ``full_objects``) for ``profile``. Failures raise :class:`~gdvariant.EncodeError` with the
    same message and ``path`` as the pure core.

``decode_whole(data, profile, allow_objects, limits[, packed_views]) -> value``
    ``bytes_to_var``: ``decode_value`` at offset 0, and a :class:`~gdvariant.DecodeError` for
    bytes left over after the value. One call, so that ``loads`` of a small message stays cheap.

A core may also have ``decode_frames(buffer, start, big_endian, max_frame_size, profile,
limits) -> (values, end)``, the stream decoder's hot path: the whole length-prefixed frames
from ``start`` decoded in place, stopping at the first one it cannot finish (``None`` here
when the live core lacks it; the Python loop does everything then).

"Same" is literal: for every input the two cores return equal values of the same types (and
the same bytes), or raise the same exception type with the same offset and path. The pure core
(``decoder.decode_value`` and ``encoder.Encoder.encode``) is the reference; the tests run the
codec tests on every available core and compare each against it.

For tests: :func:`implementations` gives every core that imports, by name, and :func:`use` runs
the public API on a chosen one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from .._compiled import COMPILED, PURE_FORCED, PYTHON, Compiled
from .._engines.profiles import Profile
from .._limits import Limits
from . import pure

__all__ = [
    "COMPILED",
    "IMPLEMENTATION",
    "PURE_FORCED",
    "PYTHON",
    "compiled_error",
    "decode_frames",
    "decode_value",
    "decode_whole",
    "encode_value",
    "implementations",
    "use",
]

DecodeFn = Callable[[Any, Profile, bool, int, Limits, bool], tuple[Any, int]]
EncodeFn = Callable[[Any, Profile, bool], bytes]
WholeFn = Callable[[Any, Profile, bool, Limits, bool], Any]
FramesFn = Callable[[bytearray, int, bool, int, Profile, Limits], tuple[list[Any], int]]
#: What :func:`use` swaps: every function of the contract.
_FUNCTIONS = ("decode_value", "encode_value", "decode_whole", "decode_frames")

_CORE = Compiled("gdvariant._binary._cgdvariant", "core")
_live: ModuleType = _CORE.module if _CORE.module is not None else pure
#: The live core: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _CORE.implementation
decode_value: DecodeFn = _live.decode_value
encode_value: EncodeFn = _live.encode_value
decode_whole: WholeFn = _live.decode_whole
decode_frames: FramesFn | None = getattr(_live, "decode_frames", None)


def implementations() -> dict[str, ModuleType]:
    """Every core that imports, by name: always ``"python"``, and ``"c"`` when it is built.

    The compiled core is listed even under ``GDVARIANT_PURE_PYTHON`` (which only picks the
    live one), so the tests can compare the two.
    """
    cores = {PYTHON: pure}
    compiled = _CORE.available()
    if compiled is not None:
        cores[COMPILED] = compiled
    return cores


def compiled_error() -> str | None:
    """Why the compiled core cannot be imported (None when it can)."""
    return _CORE.error()


@contextmanager
def use(name: str) -> Iterator[ModuleType]:
    """Run the public API on the core ``name`` (``"python"`` or ``"c"``) inside the block.

    For tests: it swaps the process-wide live core, so it is not for threads.
    """
    global IMPLEMENTATION
    cores = implementations()
    if name not in cores:
        raise LookupError(f"no {name!r} core: {compiled_error()}")
    here = globals()
    saved = {key: here[key] for key in ("IMPLEMENTATION", *_FUNCTIONS)}
    IMPLEMENTATION = name
    for key in _FUNCTIONS:
        here[key] = getattr(cores[name], key, None)
    try:
        yield cores[name]
    finally:
        here.update(saved)
