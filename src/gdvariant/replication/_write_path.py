"""Which NetClass write path is live: the compiled one when it imports, else the pure-Python one.

Every write of a networked property (``entity.position = Vector2(...)``) goes through
``NetClass.__setattr__``. The pure one, in ``_declarations``, is the reference; the compiled
one (``gdvariant.replication._cwrite``, built by ``setup.py`` when a compiler is there) does
the writes a game makes every tick in C, a plain networked property of a spawned entity, with
the same effects on the same objects (``_net_vals`` holds the very object written), and hands
every other write, and every value its codec refuses, to the pure one. As the packet
assembler is (``_assembler``), it is chosen once, at import, by :mod:`gdvariant._compiled`'s
policy: ``GDVARIANT_PURE_PYTHON=1`` keeps the pure one (the compiled module is then not even
imported).

The compiled one reads, per layout, the description :func:`plan` gives: which names it writes
and how each property's value is encoded (:data:`W_WHOLE` ... :data:`W_QVEC`). The same
module reads too: its ``Prop.__get__`` returns a plain entity's value from ``_net_vals`` where
the pure one's ``_net_get`` would, and hands every other read (an embedded table's view, a
class with its own ``_net_get``) to ``_net_get``.

For tests: :func:`implementations` gives every write path that imports, and :func:`use` makes
one live inside a block.
"""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gdvariant import EncodeError

from .._compiled import COMPILED, PYTHON, Compiled
from ._codecs import Bool, Int, UInt
from ._float_codecs import Angle, Coord, Float32, Float64, Half, Quant, Vec2, Vec3, Vec4

__all__ = [
    "COMPILED",
    "PYTHON",
    "compiled_error",
    "detach",
    "detached_class",
    "implementations",
    "install",
    "plan",
    "use",
    "write_path",
]

#: How the compiled write encodes one property's value (the numbers _cwrite.c uses): through
#: the codec's ``encode``; a vector of raw IEEE components; a raw IEEE float; an Int; a UInt;
#: a Bool; a Quant, Coord or Angle; a vector of one of those. Each but the first only for a
#: value of exactly the types it packs itself.
W_WHOLE, W_VEC, W_FLOAT, W_INT, W_UINT, W_BOOL, W_QUANT, W_QVEC = range(8)
#: The quantized component codecs the compiled write encodes itself (_cwrite.c's Q_*).
Q_QUANT, Q_COORD, Q_ANGLE = 1, 2, 3

#: the raw IEEE codecs, whose struct format (``fmt``) the compiled write packs with
_IEEE = (Half, Float32, Float64)
_VECTORS = (Vec2, Vec3, Vec4)
_QUANTIZED = (Quant, Coord, Angle)

_WRITER = Compiled("gdvariant.replication._cwrite", "write path")
_setattrs: dict[str, Callable[..., None]] = {}
#: each path's ``Prop.__get__``: the compiled one reads a plain entity's plain property itself
_getters: dict[str, Any] = {}
_installed: list[Any] = []
#: each layout's detached class (see :func:`detached_class`), made on first use
_detached: weakref.WeakKeyDictionary[Any, type] = weakref.WeakKeyDictionary()
#: the slot where a detached class's instances keep their values list
_SLOT = "_net_fast"


def write_path() -> str:
    """The live write path: ``"c"`` (compiled) or ``"python"``."""
    if not _installed:
        return PYTHON
    live = vars(_installed[0])["__setattr__"]
    return COMPILED if live is not _setattrs[PYTHON] else PYTHON


def implementations() -> dict[str, Any]:
    """Every write path that imports, by name: the ``__setattr__`` each installs. The
    compiled one is listed even under ``GDVARIANT_PURE_PYTHON``, for tests."""
    found = {PYTHON: _setattrs[PYTHON]}
    compiled = _WRITER.available()
    if compiled is not None:
        found[COMPILED] = _compiled_setattr(compiled)
    return found


def compiled_error() -> str | None:
    """Why the compiled write path cannot be imported (None when it can)."""
    return _WRITER.error()


def install(cls: type, pure: Callable[..., None], prop: type) -> None:
    """Make ``cls``'s ``__setattr__`` the live write path, ``pure`` (its pure-Python one)
    the reference the compiled one hands other writes to, and ``prop``'s ``__get__`` (the
    networked property's descriptor) the live read. Called once, by NetClass."""
    _setattrs[PYTHON] = pure
    _getters[PYTHON] = vars(prop)["__get__"]
    _installed.extend((cls, prop))
    if _WRITER.module is not None:
        cls.__setattr__ = _compiled_setattr(_WRITER.module)  # type: ignore[method-assign]
        prop.__get__ = _getters[COMPILED]  # type: ignore[attr-defined]


def _compiled_setattr(module: Any) -> Any:
    if COMPILED not in _setattrs:
        module.configure(_setattrs[PYTHON], plan, EncodeError)
        _setattrs[COMPILED] = module.descriptor(_installed[0])
        _getters[COMPILED] = module.getter(_installed[1], _installed[0])
    return _setattrs[COMPILED]


def detached_class(layout: Any) -> type:
    """The class a detached entity of ``layout``'s class (out of every world, as a
    multiplayer node's state is) is made of. With the compiled write path live: a subclass
    (same name, same table) that also keeps the entity's ``_net_vals`` list in a slot, whose
    plain networked properties are compiled descriptors reading and writing that list, each
    write checked as the codec checks it (a value they do not take goes to the pure
    ``__setattr__``, which stores it in the same list or raises its error): a write touches
    the entity and its list, not its ``__dict__``. Else, or for a class with its own
    ``__setattr__``, ``_net_write``, metaclass or ``__init_subclass__`` (which would see the
    subclass), the class itself."""
    cls: type = layout.cls
    if write_path() != COMPILED:
        return cls
    sub = _detached.get(layout)
    if sub is None:
        # with the compiled path live, whether a class is plain no longer changes: cache both
        module = _WRITER.available()  # imported even under PURE_PYTHON, where ``use`` made it live
        if module is None or not _plain(cls):
            sub = _detached[layout] = cls
        else:
            sub = _detached[layout] = _subclass(cls, module.generic_set)
            module.detach(sub, vars(sub)[_SLOT], plan(layout))
    return sub


def _plain(cls: Any) -> bool:
    """Whether ``cls``'s writes are NetClass's own and a subclass of it is seen nowhere."""
    base: Any = _installed[0]
    hooks = any("__init_subclass__" in vars(k) for k in cls.__mro__ if k not in (base, object))
    return (
        not hooks
        and cls.__setattr__ is _setattrs[COMPILED]
        and cls._net_write is base._net_write
        and type(cls) is type
    )


def _subclass(cls: Any, store: Any) -> type:
    """``cls``'s detached subclass, before ``detach`` compiles it; ``store`` its generic
    write (``_net_store``: ``object.__setattr__`` refuses the C setattro it gets)."""
    namespace = {
        "__slots__": (_SLOT,),
        "_net_store": store,
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
    }
    sub: Any = types.new_class(
        cls.__name__, (cls,), {"table": cls.net_table}, lambda ns: ns.update(namespace)
    )
    sub.net_abstract, sub.net_class_id = cls.net_abstract, cls.net_class_id
    return sub  # type: ignore[no-any-return]


def detach(entity: Any) -> Any:
    """``entity``, just despawned from its world, as an instance of its detached class (the
    same ``__dict__`` and values list; ``entity`` itself when that class is its own)."""
    d = vars(entity)
    cls = detached_class(d["_net_layout"])
    if cls is type(entity):
        return entity
    twin: Any = object.__new__(cls)
    vars(twin).update(d)
    vars(twin)["_net_root"] = twin
    vars(cls)[_SLOT].__set__(twin, d["_net_vals"])
    return twin


@contextmanager
def use(name: str) -> Iterator[None]:
    """Make the write path ``name`` (``"python"`` or ``"c"``) live inside the block. For
    tests: it swaps a process-wide choice, so it is not for threads."""
    found = implementations()
    if name not in found:
        raise LookupError(f"no {name!r} write path: {compiled_error()}")
    cls, prop = _installed[0], _installed[1]
    saved, saved_get = vars(cls)["__setattr__"], vars(prop)["__get__"]
    cls.__setattr__ = found[name]
    prop.__get__ = _getters[name]
    try:
        yield
    finally:
        cls.__setattr__ = saved
        prop.__get__ = saved_get


def _quantized(codec: Any) -> tuple[int, int, int, int, float, float, float, float]:
    """A Quant's, Coord's or Angle's numbers, the very ones its ``encode`` reads: ``(Q_*,
    clamp, bits, frac bits, then low, high, step, levels / magnitude, scale, largest q /
    period, step)``."""
    c = codec
    if type(c) is Quant:
        return (Q_QUANT, int(c.clamp), c.bits, 0, c.low, c.high, c.step, float(c.levels))
    if type(c) is Coord:
        scale, top = float(c.scale), float(c.max_q)
        return (Q_COORD, int(c.clamp), c.int_bits, c.frac_bits, c.magnitude, scale, top, 0.0)
    return (Q_ANGLE, 0, c.bits, 0, c.period, c.step, 0.0, 0.0)


def _prop_plan(codec: Any) -> tuple[Any, ...]:
    """``(kind, codec, components, IEEE format, wide, bits, zigzag, vector type, quantized
    component or None)``."""
    kind, count, code, wide, bits, zigzag, make = W_WHOLE, 1, "d", 0, 64, 0, None
    quantized = None
    if type(codec) in _VECTORS and type(codec.component) in _IEEE:
        kind, count, make = W_VEC, codec.count, codec.make
        code, wide = codec.component.fmt.format[-1], int(codec.wide)
    elif type(codec) in _VECTORS and type(codec.component) in _QUANTIZED and not codec.wide:
        kind, count, make, quantized = W_QVEC, codec.count, codec.make, _quantized(codec.component)
    elif type(codec) in _QUANTIZED:
        kind, quantized = W_QUANT, _quantized(codec)
    elif type(codec) in _IEEE:
        kind, code = W_FLOAT, codec.fmt.format[-1]
    elif type(codec) is Int:
        kind, bits, zigzag = W_INT, codec.bits, int(codec.zigzag)
    elif type(codec) is UInt:
        kind, bits = W_UINT, codec.bits
    elif type(codec) is Bool:
        kind = W_BOOL
    return (kind, codec, count, code, wide, bits, zigzag, make, quantized)


def plan(layout: Any) -> tuple[Any, ...]:
    """What the compiled write reads for ``layout``: ``(class, layout.index, {name: flat
    index} of the names it writes itself, per-property plans)``. It writes the class's plain
    networked properties (``net_plain``) the layout has, unless the class has its own
    ``_net_write``."""
    cls = layout.cls
    names: dict[str, int] = {}
    if cls is not None and cls._net_write is _installed[0]._net_write:
        names = {name: layout.index[name] for name in cls.net_plain if name in layout.index}
    return (cls, layout.index, names, tuple(_prop_plan(c) for c in layout.codecs))
