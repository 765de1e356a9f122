"""Which FastLZ is live: the compiled ``_cfastlz`` when it imports, else :mod:`.fastlz_pure`.

GCPF mode 0 compresses each block with FastLZ. The choice follows the codec core's policy
(:mod:`gdvariant._compiled`): made once, at import, and ``GDVARIANT_PURE_PYTHON=1`` forces the
pure module. Both give the same bytes, and the same :class:`FastLZError` with the same
message: the compiled one hands every stream that is not exactly right to the pure one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

from .._compiled import COMPILED, PYTHON, Compiled
from . import fastlz_pure
from .fastlz_pure import FastLZError

__all__ = [
    "IMPLEMENTATION",
    "FastLZError",
    "compiled_error",
    "compress",
    "decompress",
    "implementations",
    "use",
]

_COMPILED = Compiled("gdvariant._files._cfastlz", "FastLZ")
_live: ModuleType = _COMPILED.module if _COMPILED.module is not None else fastlz_pure
#: The live FastLZ: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _COMPILED.implementation
#: Level-1 FastLZ of ``data``, byte for byte as the engine writes it.
compress: Callable[[bytes], bytes] = _live.compress
#: A FastLZ stream that must give exactly ``size`` bytes (either level).
decompress: Callable[[bytes, int], bytes] = _live.decompress


def implementations() -> dict[str, ModuleType]:
    """Every FastLZ that imports, by name: always ``"python"``, and ``"c"`` when it is built
    (even under ``GDVARIANT_PURE_PYTHON``, so the tests can compare the two)."""
    found = {PYTHON: fastlz_pure}
    compiled = _COMPILED.available()
    if compiled is not None:
        found[COMPILED] = compiled
    return found


def compiled_error() -> str | None:
    """Why the compiled FastLZ cannot be imported (None when it can)."""
    return _COMPILED.error()


@contextmanager
def use(name: str) -> Iterator[ModuleType]:
    """Compress and decompress with FastLZ ``name`` (``"python"`` or ``"c"``) inside the block.

    For tests: it swaps the process-wide live module, so it is not for threads.
    """
    global IMPLEMENTATION, compress, decompress
    found = implementations()
    if name not in found:
        raise LookupError(f"no {name!r} FastLZ: {compiled_error()}")
    saved = IMPLEMENTATION, compress, decompress
    IMPLEMENTATION, compress, decompress = name, found[name].compress, found[name].decompress
    try:
        yield found[name]
    finally:
        IMPLEMENTATION, compress, decompress = saved
