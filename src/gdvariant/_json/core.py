"""Which JSON writer and reader is live: the compiled one when it imports, else pure Python.

As the codec core and the text writer do (``gdvariant._compiled``), the choice is made once, at
import: ``gdvariant._json._cjson`` (C, built by ``setup.py`` when a compiler is there) if it
imports, else :mod:`._pyjson`. Both are modules of four functions: ``write(value, plan,
fallback)``, the text of ``to_json(value, dialect="godot")`` without indent (``plan``:
:func:`.godot.compiled_plan`), and ``write_tagged(value, plan, fallback)``, the text of
``to_json(value)`` without indent (``plan``: :func:`.tagged_write.compiled_plan`). In both,
``fallback(value)`` is the pure path's own text of a value, the reference. The compiled one
writes the values a save is made of and hands every other value (and so every error) to
``fallback``; for a value nested too deeply it returns ``NotImplemented`` and the pure path
writes the whole value. The pure twin hands everything to ``fallback``.

The readers: ``read_tagged(text, plan)`` (``plan``: :func:`.tagged_read.compiled_plan`) and
``read_godot(text, plan)`` (``plan``: :func:`.godot.compiled_read_plan`) give the value of
``from_json(text)`` in each dialect, or ``NotImplemented``: then the pure reader reads the
whole text and gives the value or the error. The compiled one reads an ASCII text without
escapes with a small parser of its own and any other JSON with CPython's C scanner, builds the
values in C, and hands rare nodes to the plan's fallback (the pure reader of one node) and
any error back; the pure twin always returns ``NotImplemented``.
``GDVARIANT_PURE_PYTHON=1`` forces the pure one; ``IMPLEMENTATION`` names the live one. For
tests and benchmarks: :func:`implementations` and :func:`use`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from .._compiled import COMPILED as COMPILED
from .._compiled import PYTHON as PYTHON
from .._compiled import Compiled, Switch
from . import _pyjson

__all__ = [
    "COMPILED",
    "IMPLEMENTATION",
    "PYTHON",
    "error",
    "implementations",
    "read_godot",
    "read_tagged",
    "use",
    "write",
    "write_tagged",
]

_SWITCH = Switch(Compiled("gdvariant._json._cjson", "JSON writer"), _pyjson)
#: The live JSON writers and readers: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _SWITCH.implementation


def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any:
    """The live writer's text of ``value``, or ``NotImplemented``."""
    return _SWITCH.module.write(value, plan, fallback)


def write_tagged(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any:
    """The live writer's tagged text of ``value``, or ``NotImplemented``."""
    return _SWITCH.module.write_tagged(value, plan, fallback)


def read_tagged(text: str, plan: tuple[Any, ...]) -> Any:
    """The live reader's value of tagged JSON ``text``, or ``NotImplemented``."""
    return _SWITCH.module.read_tagged(text, plan)


def read_godot(text: str, plan: tuple[Any, ...]) -> Any:
    """The live reader's value of Godot-dialect JSON ``text``, or ``NotImplemented``."""
    return _SWITCH.module.read_godot(text, plan)


def implementations() -> dict[str, ModuleType]:
    """Every JSON writer and reader that imports, by name (the compiled one even when not live)."""
    return _SWITCH.implementations()


def error() -> str | None:
    """Why the compiled JSON writer and reader is not live (None when it is)."""
    return _SWITCH.error()


@contextmanager
def use(name: str) -> Iterator[None]:
    """Make the writer and reader ``name`` (``"python"`` or ``"c"``) live in the block (tests)."""
    with _SWITCH.use(name):
        yield
