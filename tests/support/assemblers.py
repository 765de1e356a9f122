"""The replication packet assemblers the tests run on: the pure one always, the compiled one
(``gdvariant.replication._cassemble``) when it is built.

As for the codec cores (``cores.py``), a missing compiled assembler skips the test, unless
``GDVARIANT_REQUIRE_COMPILED=1`` makes that a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

import pytest

from gdvariant.replication import _assembler
from tests.support.cores import compiled_required

#: Every assembler a test can run on, the reference (pure) one first.
ASSEMBLERS = [_assembler.PYTHON, _assembler.COMPILED]


def compiled() -> ModuleType:
    """The compiled assembler; skips (or fails, when it is required) if it is not built."""
    module = _assembler.implementations().get(_assembler.COMPILED)
    if module is None:
        why = _assembler.compiled_error() or "compiled assembler not built"
        if compiled_required():
            pytest.fail(f"GDVARIANT_REQUIRE_COMPILED is set but {why}")
        pytest.skip(why)
    return module


@contextmanager
def live(name: str) -> Iterator[None]:
    """Make the assembler ``name`` live inside the block (skipping if it is not built)."""
    if name == _assembler.COMPILED:
        compiled()
    with _assembler.use(name):
        yield
