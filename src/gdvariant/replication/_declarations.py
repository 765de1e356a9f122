"""Declaring networked classes in Python class bodies.

A networked class subclasses :class:`NetClass`; each class attribute that is a :class:`Prop`
(or a bare codec, wrapped in a default Prop), an :class:`Embed` or an :class:`Array` is a
networked property, in declaration order. ``excludes = [Exclude(Base, "name")]`` drops an
inherited property (Source's ``SendPropExclude``). Flattening (``_flatten``) turns the tree into
one numbered list; :class:`World` entities are instances whose property writes mark them dirty.

An entity takes no attribute its class does not name: a misspelt property is an
AttributeError naming the class and the closest name, not a new attribute the network never
sees. Attributes kept only on the server are declared in the class body (an annotation or a
class attribute).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar

from gdvariant import EncodeError, VariantError

from . import _write_path
from ._codecs import ArrayOf, Codec

__all__ = [
    "UNSET",
    "Array",
    "Embed",
    "Exclude",
    "NetClass",
    "Prop",
    "SchemaError",
    "declarations",
    "unknown_name",
]


class SchemaError(VariantError, ValueError):
    """A schema that cannot be flattened; ``cls`` and ``prop`` name where the problem is."""

    def __init__(self, reason: str, cls: str = "", prop: str = "") -> None:
        self.reason, self.cls, self.prop = reason, cls, prop
        where = ".".join(p for p in (cls, prop) if p)
        super().__init__(f"{where}: {reason}" if where else reason)


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()


class Prop:
    """One networked property: a codec plus the flattening options.

    ``hot=True`` puts it in the first band (small indices, like Source's CHANGES_OFTEN);
    ``priority`` orders within a band (lower first, default 100); ``index`` pins its flat
    index (append-only evolution); ``default`` is its baseline value (else the codec's).
    """

    name: str = ""

    def __init__(
        self,
        codec: Codec,
        *,
        hot: bool = False,
        priority: int = 100,
        index: int | None = None,
        default: Any = UNSET,
    ) -> None:
        if not isinstance(codec, Codec):
            raise TypeError(f"Prop needs a codec, not {codec!r}")
        self.codec, self.hot, self.priority, self.index = codec, hot, priority, index
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return obj._net_get(self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        obj._net_set(self.name, value)


class Array(Prop):
    """A fixed-size array: ``per_element=True`` gives ``size`` properties ``name[0]``...
    (Source's SendPropArray3, one index each); otherwise one property holding up to
    ``max_len`` elements with a length prefix (DPT_Array), re-sent whole on change."""

    def __init__(
        self,
        element: Codec,
        *,
        size: int | None = None,
        max_len: int | None = None,
        per_element: bool = False,
        hot: bool = False,
        priority: int = 100,
        index: int | None = None,
        default: Any = UNSET,
    ) -> None:
        if per_element:
            if size is None or size < 1 or max_len is not None:
                raise TypeError("Array(per_element=True) needs size >= 1 and no max_len")
            codec = element
        else:
            length = max_len if max_len is not None else size
            if length is None:
                raise TypeError("Array needs max_len (or size)")
            codec = ArrayOf(element, length)
        super().__init__(codec, hot=hot, priority=priority, index=index, default=default)
        self.per_element = per_element
        self.size = size or 0

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        if self.per_element:
            return _ElementView(obj, self.name, self.size)
        return obj._net_get(self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        if self.per_element:
            if len(value) != self.size:
                raise ValueError(f"{self.name} has {self.size} elements, not {len(value)}")
            for i, item in enumerate(value):
                obj._net_set(f"{self.name}[{i}]", item)
        else:
            obj._net_set(self.name, value)


class _ElementView(Sequence[Any]):
    """``entity.ammo`` for a per-element array: indexing reads and writes single elements."""

    def __init__(self, owner: Any, name: str, size: int) -> None:
        self._owner, self._name, self._size = owner, name, size

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._size))]
        return self._owner._net_get(f"{self._name}[{self._check(i)}]")

    def __setitem__(self, i: int, value: Any) -> None:
        self._owner._net_set(f"{self._name}[{self._check(i)}]", value)

    def _check(self, i: int) -> int:
        j = i + self._size if i < 0 else i
        if not 0 <= j < self._size:
            raise IndexError(f"{self._name}[{i}] is out of range (size {self._size})")
        return j

    def __repr__(self) -> str:
        return repr(list(self))


class Embed:
    """Another NetClass's properties inlined here under ``name.`` (Source's data-table prop).

    ``audience`` restricts them: ``"owner"`` (the entity's owning client), ``"team"``
    (clients of the entity's team) or any other name, resolved by a predicate given to the
    encoder. None sends them to everyone.
    """

    name: str = ""

    def __init__(self, table: type[NetClass], *, audience: str | None = None) -> None:
        if not (isinstance(table, type) and issubclass(table, NetClass)):
            raise TypeError(f"Embed needs a NetClass, not {table!r}")
        self.table, self.audience = table, audience

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        view: NetClass = self.table.__new__(self.table)
        object.__setattr__(view, "_net_root", obj._net_root)
        object.__setattr__(view, "_net_prefix", f"{obj._net_prefix}{self.name}.")
        return view

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(f"{self.name} is an embedded table; set its properties instead")


class Exclude:
    """Drop the property ``name`` declared by ``table`` (a NetClass or its table name) from
    this class's flat list, wherever the walk meets it (Source's ``SendPropExclude``)."""

    def __init__(self, table: type[NetClass] | str, name: str) -> None:
        self.table = table if isinstance(table, str) else table.net_table
        self.name = name

    @property
    def key(self) -> tuple[str, str]:
        """``(declaring table, property name)``, the match key."""
        return self.table, self.name

    def __repr__(self) -> str:
        return f"Exclude({self.table!r}, {self.name!r})"


Declaration = Prop | Embed


class NetClass:
    """Base of networked classes. Class keywords: ``table`` (the network name, default the
    class name), ``abstract=True`` (only embedded or inherited, never spawned) and
    ``class_id`` (pin the class number)."""

    net_table: ClassVar[str] = "NetClass"
    net_abstract: ClassVar[bool] = True
    net_class_id: ClassVar[int | None] = None
    net_declared: ClassVar[tuple[tuple[str, Declaration], ...]] = ()
    net_excludes: ClassVar[tuple[Exclude, ...]] = ()

    # Set on spawned entities by World.spawn (and _net_root/_net_prefix on embedded views).
    _net_root: Any
    _net_prefix: str
    _net_layout: Any
    _net_index: dict[str, int]
    _net_vals: list[Any]
    _net_bits: list[int]
    _net_widths: list[int]
    _net_dirty: int
    _net_before: dict[int, int]
    _net_world: Any
    net_id: int
    #: Who the entity's restricted audiences are (``"owner"``, ``"team"``); assigning either
    #: moves the entity between audiences from the next tick (see ``SnapshotEncoder``).
    net_owner: Any
    net_team: Any
    #: The names of this class's networked properties that a plain write sets (the fast
    #: path of ``__setattr__``): Props, and Arrays sent as one property.
    net_plain: ClassVar[frozenset[str]] = frozenset()
    #: Every other name an instance may be given: the rest of the networked declarations
    #: and the names annotated in the class bodies.
    net_names: ClassVar[frozenset[str]] = frozenset()
    #: How ``__setattr__`` stores a name that is not networked: ``object.__setattr__``, or
    #: for a detached class (``_write_path.detached_class``) the compiled generic write.
    _net_store: ClassVar[Callable[[Any, str, Any], None]] = object.__setattr__

    def __init_subclass__(
        cls,
        *,
        table: str | None = None,
        abstract: bool = False,
        class_id: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        cls.net_table = table or cls.__name__
        cls.net_abstract = abstract
        cls.net_class_id = class_id
        declared: list[tuple[str, Declaration]] = []
        for name, value in list(vars(cls).items()):
            if isinstance(value, Codec):
                value = Prop(value)
                value.__set_name__(cls, name)
                setattr(cls, name, value)
            if isinstance(value, Prop | Embed):
                declared.append((name, value))
        cls.net_declared = tuple(declared)
        excludes = vars(cls).get("excludes", ())
        for item in excludes:
            if not isinstance(item, Exclude):
                raise SchemaError(f"excludes holds {item!r}, not an Exclude", cls.__name__)
        cls.net_excludes = tuple(excludes)
        plain: set[str] = set()
        names: set[str] = set()
        for klass in cls.__mro__:
            names.update(_annotated(klass))
        for _, name, _ in declarations(cls):
            decl = getattr(cls, name, None)
            if type(decl) is Prop or (isinstance(decl, Array) and not decl.per_element):
                plain.add(name)
            else:
                names.add(name)
        cls.net_plain = frozenset(plain)
        cls.net_names = frozenset(names - plain - {"net_id", "net_owner", "net_team"})

    def __setattr__(self, name: str, value: Any) -> None:
        """A networked property is encoded and marked dirty; ``net_owner``/``net_team``
        move the entity between audiences; a name the class does not know is an error."""
        cls = type(self)
        if name in cls.net_plain:
            d = self.__dict__
            root = d.get("_net_root")
            if root is None:
                raise AttributeError(f"{cls.__name__} was not spawned in a World")
            root._net_write(d["_net_prefix"] + name, value)
        elif name in ("net_owner", "net_team"):
            self._net_regroup(name, value)
        elif name in cls.net_names or name.startswith("_net_") or hasattr(cls, name):
            cls._net_store(self, name, value)
        elif name == "net_id":
            raise AttributeError("net_id is given by the World, and cannot be changed")
        else:
            d = self.__dict__
            root = d.get("_net_root")
            if root is None or root is self:
                raise AttributeError(unknown_name(cls, name))
            owner = type(root).__name__
            raise AttributeError(unknown_name(cls, name, owner, d["_net_prefix"]))

    def _net_regroup(self, name: str, value: Any) -> None:
        """Set ``net_owner`` or ``net_team``; on a spawned entity a new value takes effect
        from the world's next tick, which the encoder is told by ``_net_moved``."""
        d = self.__dict__
        root = d.get("_net_root")
        if root is not None and root is not self:
            raise AttributeError(f"{name} belongs to the entity, not its embedded table")
        old = d.get(name)
        type(self)._net_store(self, name, value)
        world = d.get("_net_world")
        if world is not None and old is not value and old != value:
            d["_net_moved"] = world.tick + 1

    def _net_get(self, name: str) -> Any:
        root = self._net_bound()
        i = root._net_index.get(self._net_prefix + name)
        if i is None:
            raise AttributeError(f"{self._net_prefix}{name} is not networked in {root.net_table}")
        return root._net_vals[i]

    def _net_set(self, name: str, value: Any) -> None:
        self._net_bound()._net_write(self._net_prefix + name, value)

    def _net_bound(self) -> Any:
        """The entity this instance (or embedded view) belongs to."""
        root = vars(self).get("_net_root")
        if root is None:
            raise AttributeError(f"{type(self).__name__} was not spawned in a World")
        return root

    def _net_write(self, path: str, value: Any) -> None:
        """Write one flat property of a spawned entity: encode now (a bad value fails here,
        naming entity and property) and mark it dirty if its bits changed. An entity out of
        its world keeps only the value: nothing encodes it again, and a server's multiplayer
        states (detached at once) write thousands a tick. (It reads and writes the entity's
        ``__dict__`` directly: this is every property write's path.)"""
        d = self.__dict__
        lay = d["_net_layout"]
        i = d["_net_index"].get(path)
        if i is None:
            raise AttributeError(f"{path} is not networked in {lay.name}")
        try:
            bits, width = lay.codecs[i].encode(value)
        except EncodeError as exc:
            raise EncodeError(
                f"entity {d['net_id']} ({lay.name}) property {path}: {exc.reason}"
            ) from None
        d["_net_vals"][i] = value
        world = d["_net_world"]
        if world is None:
            return  # despawned (or a multiplayer node's state): its bits are never read again
        held = d["_net_bits"]
        old = held[i]
        if bits != old or width != d["_net_widths"][i]:
            held[i] = bits
            d["_net_widths"][i] = width
            dirty = d["_net_dirty"]
            if not dirty:
                world.dirty.append(self)
                d["_net_before"] = {i: old}  # World.commit hands it to the history
            elif not dirty >> i & 1:
                d["_net_before"][i] = old
            d["_net_dirty"] = dirty | 1 << i


#: Networked writes go through the live write path: the compiled one where it is built, which
#: hands every write it does not do itself to the pure __setattr__ above (see ``_write_path``);
#: reads of a plain property too, handing the rest to the pure Prop.__get__'s _net_get.
_write_path.install(NetClass, NetClass.__setattr__, Prop)


def _annotated(klass: type) -> Iterable[str]:
    """The names annotated in the body of ``klass``, without evaluating the annotations
    (from Python 3.14 a class body's annotations are made when first asked for)."""
    try:
        lib = importlib.import_module("annotationlib")
    except ImportError:
        return list(vars(klass).get("__annotations__", {}))
    return list(lib.get_annotations(klass, format=lib.Format.FORWARDREF))


def known_names(cls: type[NetClass]) -> list[str]:
    """The names an instance of ``cls`` may be given, networked ones first (for messages)."""
    public = sorted(n for n in cls.net_names if not n.startswith("_"))
    return sorted(cls.net_plain) + public + ["net_owner", "net_team"]


def unknown_name(cls: type[NetClass], name: str, owner: str = "", prefix: str = "") -> str:
    """The message for ``name``, which ``cls`` does not know, with the closest name it does
    know; ``owner`` and ``prefix`` name the entity class and path of an embedded table."""
    close = difflib.get_close_matches(name, known_names(cls), n=1)
    hint = f" (did you mean {prefix + close[0]!r}?)" if close else ""
    if owner:
        return f"{owner} has no networked property {prefix + name!r}{hint}"
    return f"{cls.__name__} has no networked property or declared attribute {name!r}{hint}"


def declarations(cls: type[NetClass]) -> Iterator[tuple[type[NetClass], str, Declaration]]:
    """Every declaration of ``cls`` and its NetClass bases, base classes first."""
    for klass in reversed(cls.__mro__):
        if isinstance(klass, type) and issubclass(klass, NetClass) and klass is not NetClass:
            for name, decl in klass.net_declared:
                yield klass, name, decl
