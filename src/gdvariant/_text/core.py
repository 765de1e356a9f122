"""Which text writer and reader are live: the compiled ones when they import, else pure Python.

As the codec core does (``gdvariant._compiled``), the choice is made once, at import:
``gdvariant._text._ctext`` (C, built by ``setup.py`` when a compiler is there) if it imports,
else :mod:`._pytext`. Both are modules of two functions:

``write(value, plan, fallback)``
    The text of ``value`` in the layout ``plan`` describes (:func:`.writer.compiled_plan`),
    where ``fallback(value, depth)`` is the pure writer's own method, the reference. The
    compiled one writes the values a save is made of and hands every other value (and so
    every error) to ``fallback``; the pure twin hands it everything. The text is the same,
    character for character.
``read(text, plan)``
    The first value of ``text`` (``plan``: :func:`.parser.compiled_plan`), or
    ``NotImplemented`` when the pure parser must read it: the pure twin always says so, the
    compiled one for anything but the plain texts a save is made of (and for every error, so
    that each error is the pure parser's own).
``read_from(text, plan, start)``
    The same for the value that starts at ``start`` (a text of records, as the command line
    reads it): ``(value, end)``, ``end`` just past it, or ``NotImplemented``.

``GDVARIANT_PURE_PYTHON=1`` forces the pure one. ``IMPLEMENTATION`` names the live one,
``"c"`` or ``"python"``. For tests and benchmarks: :func:`implementations` gives every twin
that imports, and :func:`use` makes one live inside a block.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from .._compiled import COMPILED as COMPILED
from .._compiled import PYTHON as PYTHON
from .._compiled import Compiled, Switch
from . import _pytext

__all__ = [
    "COMPILED",
    "IMPLEMENTATION",
    "PYTHON",
    "error",
    "implementations",
    "read",
    "read_from",
    "use",
    "write",
]

_SWITCH = Switch(Compiled("gdvariant._text._ctext", "text writer"), _pytext)
#: The live text writer and reader: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _SWITCH.implementation


def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any, int], str]) -> str:
    """The live writer's text of ``value``."""
    result: str = _SWITCH.module.write(value, plan, fallback)
    return result


def read(text: str, plan: tuple[Any, ...]) -> Any:
    """The live reader's value of ``text``, or ``NotImplemented``: the pure parser reads it."""
    return _SWITCH.module.read(text, plan)


def read_from(text: str, plan: tuple[Any, ...], start: int) -> Any:
    """The live reader's ``(value, end)`` of the value at ``start``, or ``NotImplemented``."""
    return _SWITCH.module.read_from(text, plan, start)


def implementations() -> dict[str, ModuleType]:
    """Every text writer that imports, by name (the compiled one even when not live)."""
    return _SWITCH.implementations()


def error() -> str | None:
    """Why the compiled text writer is not live (None when it is)."""
    return _SWITCH.error()


@contextmanager
def use(name: str) -> Iterator[None]:
    """Make the writer ``name`` (``"python"`` or ``"c"``) live inside the block (tests)."""
    with _SWITCH.use(name):
        yield
