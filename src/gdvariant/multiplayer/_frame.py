"""Which network frame is live: the compiled one when it imports, else the pure-Python one.

As the codec core and replication's assembler do (``gdvariant._compiled``), the choice is made
once, at import: ``gdvariant.multiplayer._csync`` (C, built by ``setup.py`` when a compiler is
there) if it imports, else :mod:`._pysync`, the reference. Both are modules of one function,
``frame(roster, slots, clocks, encoder)``, with the same arguments, the same results and the
same writes into the records (see ``_pysync``); with them the packet counts' ``tally``, the
ENet hand-over, and an RPC's short form read and written (``read_call``, ``write_call``).
``GDVARIANT_PURE_PYTHON=1`` forces the pure one (the compiled module is then not even
imported). ``IMPLEMENTATION`` names the live one, ``"c"`` or ``"python"``.

For tests: :func:`implementations` gives every frame that imports, and :func:`use` makes one
live inside a block.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from .. import (
    AABB,
    Basis,
    Color,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Transform2D,
    Transform3D,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
    dumps,
)
from .._compiled import COMPILED as COMPILED
from .._compiled import PYTHON as PYTHON
from .._compiled import Compiled, Switch
from ..replication import godot_value
from . import _pysync
from .wire import encode_compressed

#: nothing here is public: the replicator's own machinery, reached by module
__all__: list[str] = []

#: types whose values never change once made: a raw value that is the same object as last
#: frame's has the same bytes (the Godot math types are tuples of numbers)
IMMUTABLE = frozenset(
    {int, float, bool, str, bytes, type(None), AABB, Basis, Color, Plane, Projection}
    | {Quaternion, Rect2, Rect2i, Transform2D, Transform3D, Vector2, Vector2i, Vector3, Vector3i}
    | {Vector4, Vector4i}
)

_SWITCH = Switch(Compiled("gdvariant.multiplayer._csync", "network frame"), _pysync)
#: The switch itself, for the callers once per RPC (``read_call``, ``write_call``): they read
#: ``SWITCH.module`` where :func:`live` would be one more call.
SWITCH = _SWITCH
#: The live frame: ``"c"`` (compiled) or ``"python"``.
IMPLEMENTATION = _SWITCH.implementation


def encoder() -> _pysync.Encoder:
    """What both frames encode with: ``dumps`` (which hands a value to the live codec core),
    the compressed form, ``godot_value``, :data:`IMMUTABLE`, and the two vector types the
    compiled frame writes itself."""
    return (dumps, encode_compressed, godot_value, IMMUTABLE, Vector2, Vector3)


def live() -> ModuleType:
    """The live frame's module (``_csync`` or ``_pysync``)."""
    return _SWITCH.module


def implementations() -> dict[str, ModuleType]:
    """Every frame that imports, by name (the compiled one even under
    ``GDVARIANT_PURE_PYTHON``, for tests)."""
    return _SWITCH.implementations()


def compiled_error() -> str | None:
    """Why the compiled frame cannot be imported (None when it can)."""
    return _SWITCH.error()


@contextmanager
def use(name: str) -> Iterator[None]:
    """Make the frame ``name`` (``"python"`` or ``"c"``) live inside the block (for tests)."""
    global IMPLEMENTATION
    with _SWITCH.use(name):
        saved, IMPLEMENTATION = IMPLEMENTATION, name
        try:
            yield
        finally:
            IMPLEMENTATION = saved
