"""Flattening a NetClass tree into one numbered property list (``docs/replication-wire.md`` §10).

1. Exclusions: the union of ``excludes`` over the class, its bases and every embedded table,
   keyed by ``(declaring table, property name)``; one that matches nothing is an error.
2. Walk: base classes first (single inheritance), then own declarations in order. An Embed
   is inlined in place with a ``name.`` prefix; its audience applies to everything inside.
3. Arrays: ``per_element`` expands to ``name[0]..name[n-1]``; otherwise one property.
4. Stable sort on ``(band, priority, walk position)``, band 0 for hot properties.
5. Pinned indices (``index=``) take their place; the rest fill the free indices in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._codecs import Codec
from ._declarations import UNSET, Array, Embed, NetClass, Prop, SchemaError, declarations

__all__ = ["MAX_FLAT_PROPS", "FlatProp", "flatten", "gather_excludes", "walk"]

#: Source's MAX_DATATABLE_PROPS (dt_common.h): the default cap on a class's flat list.
MAX_FLAT_PROPS = 4096


@dataclass(frozen=True)
class FlatProp:
    """One entry of a class's flat list: what both sides derive from the schema."""

    index: int
    path: str
    codec: Codec
    audience: str | None
    hot: bool
    priority: int
    default: Any
    table: str


@dataclass(frozen=True)
class _Walked:
    """A property met by the walk, before sorting."""

    position: int
    path: str
    prop: Prop
    element: int | None
    audience: str | None
    table: str


def _single_base(cls: type[NetClass]) -> None:
    for klass in cls.__mro__:
        if isinstance(klass, type) and issubclass(klass, NetClass):
            bases = [b for b in klass.__bases__ if issubclass(b, NetClass)]
            if len(bases) > 1:
                names = ", ".join(b.__name__ for b in bases)
                raise SchemaError(f"more than one NetClass base ({names})", klass.__name__)


def gather_excludes(cls: type[NetClass]) -> dict[tuple[str, str], str]:
    """``{(table, name): declaring class}`` over ``cls``'s bases and embedded tables."""
    found: dict[tuple[str, str], str] = {}
    seen: set[type[NetClass]] = set()

    def visit(root: type[NetClass], stack: tuple[type[NetClass], ...]) -> None:
        _single_base(root)
        for klass in root.__mro__:
            if isinstance(klass, type) and issubclass(klass, NetClass):
                for item in klass.net_excludes:
                    found.setdefault(item.key, klass.__name__)
        for owner, name, decl in declarations(root):
            if isinstance(decl, Embed):
                if decl.table in stack or decl.table is root:
                    raise SchemaError(
                        f"embeds {decl.table.__name__}, a cycle", owner.__name__, name
                    )
                if decl.table not in seen:
                    seen.add(decl.table)
                    visit(decl.table, (*stack, root))

    visit(cls, ())
    return found


def walk(cls: type[NetClass], excludes: dict[tuple[str, str], str]) -> list[_Walked]:
    """The properties of ``cls`` in walk order (steps 2-3), excluded ones left out."""
    out: list[_Walked] = []
    matched: set[tuple[str, str]] = set()

    def visit(root: type[NetClass], prefix: str, audience: str | None) -> None:
        for owner, name, decl in declarations(root):
            key = (owner.net_table, name)
            if key in excludes:
                matched.add(key)
                continue
            if isinstance(decl, Embed):
                if audience is not None and decl.audience not in (None, audience):
                    raise SchemaError(
                        f"audience {decl.audience!r} inside audience {audience!r}",
                        owner.__name__,
                        name,
                    )
                visit(decl.table, f"{prefix}{name}.", decl.audience or audience)
            elif isinstance(decl, Array) and decl.per_element:
                for i in range(decl.size):
                    out.append(
                        _Walked(
                            len(out), f"{prefix}{name}[{i}]", decl, i, audience, owner.net_table
                        )
                    )
            else:
                out.append(
                    _Walked(len(out), f"{prefix}{name}", decl, None, audience, owner.net_table)
                )

    visit(cls, "", None)
    for key, declarer in excludes.items():
        if key not in matched:
            raise SchemaError(
                f"Exclude({key[0]!r}, {key[1]!r}) names no property of its flat list",
                declarer,
                key[1],
            )
    return out


def _default(w: _Walked, cls: type[NetClass]) -> Any:
    prop = w.prop
    if prop.default is UNSET:
        value = prop.codec.default()
    elif w.element is not None:
        try:
            value = prop.default[w.element]
        except (TypeError, IndexError) as exc:
            raise SchemaError(
                f"default {prop.default!r} has no element {w.element}", cls.__name__, w.path
            ) from exc
    else:
        value = prop.default
    try:
        return prop.codec.quantize(value)
    except (ValueError, TypeError) as exc:
        raise SchemaError(
            f"default {value!r} does not encode: {exc}", cls.__name__, w.path
        ) from exc


def flatten(cls: type[NetClass], max_props: int = MAX_FLAT_PROPS) -> tuple[FlatProp, ...]:
    """The flat list of ``cls`` (wire doc §10), index order."""
    walked = walk(cls, gather_excludes(cls))
    seen: dict[str, _Walked] = {}
    for w in walked:
        if w.path in seen:
            raise SchemaError("declared twice (a subclass redeclares it?)", cls.__name__, w.path)
        seen[w.path] = w
    ordered = sorted(walked, key=lambda w: (0 if w.prop.hot else 1, w.prop.priority, w.position))
    if len(ordered) > max_props:
        raise SchemaError(
            f"{len(ordered)} properties, more than the limit of {max_props}; the first past it",
            cls.__name__,
            ordered[max_props].path,
        )
    slots: list[_Walked | None] = [None] * len(ordered)
    for w in ordered:
        if w.prop.index is not None:
            i = w.prop.index + (w.element or 0)
            if not 0 <= i < len(ordered):
                raise SchemaError(
                    f"pinned index {i} is outside 0..{len(ordered) - 1}", cls.__name__, w.path
                )
            other = slots[i]
            if other is not None:
                raise SchemaError(f"pinned index {i} is also {other.path}'s", cls.__name__, w.path)
            slots[i] = w
    free = (i for i, s in enumerate(slots) if s is None)
    for w in ordered:
        if w.prop.index is None:
            slots[next(free)] = w
    return tuple(
        FlatProp(
            i,
            w.path,
            w.prop.codec,
            w.audience,
            w.prop.hot,
            w.prop.priority,
            _default(w, cls),
            w.table,
        )
        for i, w in enumerate(s for s in slots if s is not None)
    )
