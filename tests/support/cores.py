"""The codec cores the tests run on: the pure one always, the compiled one when it is built.

A test asks for a core by name with :func:`core`; one that is not built skips the test with
the reason, unless ``GDVARIANT_REQUIRE_COMPILED=1`` (set by CI once the compiled core lands)
makes that a failure, as ``GDVARIANT_REQUIRE_ENGINES`` does for the engines.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType

import pytest

from gdvariant._binary import core as _core
from gdvariant._files import fastlz as _fastlz

#: Every codec core a test can run on, the reference (pure) one first.
CORES = ["python", "c"]
#: The cores compared against the pure one.
OTHER_CORES = [name for name in CORES if name != "python"]


def compiled_required() -> bool:
    """``GDVARIANT_REQUIRE_COMPILED=1``: a missing compiled core fails instead of skipping."""
    return os.environ.get("GDVARIANT_REQUIRE_COMPILED", "") not in ("", "0")


def core(name: str) -> ModuleType:
    """The core ``name``; skips (or fails, when it is required) the test if it is not built."""
    return _built(name, _core.implementations(), _core.compiled_error, "compiled core")


def fastlz(name: str) -> ModuleType:
    """The FastLZ ``name`` (``gdvariant._files.fastlz`` picks one), skipped as :func:`core` is."""
    return _built(name, _fastlz.implementations(), _fastlz.compiled_error, "compiled FastLZ")


def _built(
    name: str, found: dict[str, ModuleType], error: Callable[[], str | None], what: str
) -> ModuleType:
    if name not in found:
        why = error() or f"{what} not built"
        if compiled_required():
            pytest.fail(f"GDVARIANT_REQUIRE_COMPILED is set but {why}")
        pytest.skip(why)
    return found[name]
