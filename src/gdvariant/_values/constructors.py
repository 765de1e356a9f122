"""Which ``__new__`` the math value types use: compiled when it imports, else their own.

A value type's ``__new__`` written in Python (float() of each field, then ``tuple.__new__``)
costs about 0.2 us; a game server that builds thousands of vectors a tick pays it on every
one. ``gdvariant._values._cvalues`` (C, built by ``setup.py`` when a compiler is there) does
the same work in about a third of that, and once a class is built it calls the class straight
(no ``type.__call__``, no argument tuple): ``Vector2(3.0, 4.0)`` 47 ns against 89. As every
compiled part does (``gdvariant._compiled``), the choice is made once, at import, and
``GDVARIANT_PURE_PYTHON=1`` keeps the Python ones.

The Python ``__new__`` stays the reference: :func:`float_fields` and :func:`int_fields` decorate
it, and the compiled twin takes its field names and defaults from it, so the two accept the same
calls and give the same values (tests/values/test_constructors.py compares them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from .._compiled import COMPILED, Compiled

__all__: list[str] = []

_COMPILED = Compiled("gdvariant._values._cvalues", "value constructors")
#: The live constructors: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _COMPILED.implementation

New = TypeVar("New", bound=Callable[..., Any])
#: every decorated ``__new__`` by qualified name (``"Vector2.__new__"``), the Python one
PURE: dict[str, Callable[..., Any]] = {}


def float_fields(new: New) -> New:
    """Decorate the ``__new__`` of a value type whose fields are all ``float(x)``."""
    return _twin(new, ints=False)


def int_fields(new: New) -> New:
    """Decorate the ``__new__`` of a value type whose fields are all ``operator.index(x)``."""
    return _twin(new, ints=True)


def compiled_twin(new: Callable[..., Any], *, ints: bool) -> Callable[..., Any] | None:
    """The compiled ``__new__`` standing in for ``new`` (None when not built); under
    ``GDVARIANT_PURE_PYTHON`` too, for tests."""
    module = _COMPILED.available()
    if module is None:
        return None
    code = new.__code__
    names = code.co_varnames[1 : code.co_argcount]
    defaults = new.__defaults__ or ()
    if len(defaults) != len(names):
        raise TypeError(f"{new.__qualname__}: every field needs a default")
    made: Callable[..., Any] = module.constructor(ints, names, defaults, new)
    return made


def _twin(new: New, *, ints: bool) -> New:
    PURE[new.__qualname__] = new
    if IMPLEMENTATION != COMPILED:
        return new
    twin = compiled_twin(new, ints=ints)
    assert twin is not None  # live, so it imports
    live: New = staticmethod(twin)  # type: ignore[assignment]
    return live


def compiled_error() -> str | None:
    """Why the compiled constructors cannot be imported (None when they can)."""
    return _COMPILED.error()
