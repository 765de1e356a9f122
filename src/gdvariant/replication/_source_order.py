"""Source 2013's own flat order (``order="source"``, ``docs/replication-wire.md`` §10).

Source numbers a class's properties in three moves, reproduced here on a small model of its
SendTables (:class:`SourceTable`, :class:`SourceProp`) so that real tables read from demo files
can be checked too:

1. exclusions: every ``SPROP_EXCLUDE`` prop in the whole tree names ``(table, prop)`` to skip;
   props flagged ``INSIDEARRAY`` (an array's element template) are skipped as well;
2. the hierarchy walk: a collapsible data-table prop (an auto-chained base class) is inlined in
   place; a non-collapsible one (embedded table, SendPropArray3, local-only table) has its
   whole subtree appended to the output at once, *before* the current table's own props,
   which are appended when the table is done;
3. the CHANGES_OFTEN partition: one pass that swaps each such prop to position ``start`` and
   advances ``start`` (unstable). The CS:GO variant repeats the pass per distinct priority,
   ascending, counting CHANGES_OFTEN props as priority 64.

A NetClass maps onto the model as Source declares the same shapes: a base class is a
collapsible ``baseclass`` table, an Embed and a per-element Array are non-collapsible tables,
``hot`` is CHANGES_OFTEN.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ._declarations import Array, Embed, NetClass, SchemaError, declarations
from ._flatten import FlatProp

__all__ = ["SourceProp", "SourceTable", "source_flat_order", "source_order"]


@dataclass(frozen=True)
class SourceProp:
    """One SendProp, reduced to what flattening looks at."""

    name: str
    table: str | None = None
    exclude: bool = False
    inside_array: bool = False
    collapsible: bool = False
    changes_often: bool = False
    priority: int = 128


@dataclass(frozen=True)
class SourceTable:
    """One SendTable: its network name and props in declaration order."""

    name: str
    props: tuple[SourceProp, ...] = field(default_factory=tuple)


def source_flat_order(
    root: str, tables: Mapping[str, SourceTable], *, priorities: bool = False
) -> list[tuple[str, str]]:
    """The flat list of table ``root`` as ``(table key, prop name)`` pairs, in Source's order.

    ``tables`` maps keys to tables (for tables read from a demo, key = network name); a
    data-table prop's ``table`` is a key, an exclude prop's ``table`` a network name.
    ``priorities=True`` applies the CS:GO priority passes instead of SDK 2013's one pass."""
    excluded: set[tuple[str, str]] = set()
    seen: set[str] = set()

    def gather_excludes(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for prop in tables[name].props:
            if prop.exclude and prop.table is not None:
                excluded.add((prop.table, prop.name))
            elif prop.table is not None:
                gather_excludes(prop.table)

    gather_excludes(root)
    out: list[tuple[str, SourceProp]] = []

    def gather(name: str) -> None:
        local: list[tuple[str, SourceProp]] = []
        iterate(name, local)
        out.extend(local)

    def iterate(name: str, local: list[tuple[str, SourceProp]]) -> None:
        for prop in tables[name].props:
            if prop.exclude or prop.inside_array or (tables[name].name, prop.name) in excluded:
                continue
            if prop.table is not None:
                if prop.collapsible:
                    iterate(prop.table, local)
                else:
                    gather(prop.table)
            else:
                local.append((name, prop))

    gather(root)
    levels = sorted({p.priority for _, p in out} | {64}) if priorities else [64]
    start = 0
    for level in levels:
        for i in range(start, len(out)):
            prop = out[i][1]
            hit = (
                prop.changes_often
                if not priorities
                else (prop.priority == level or (level == 64 and prop.changes_often))
            )
            if hit:
                out[start], out[i] = out[i], out[start]
                start += 1
    return [(table, prop.name) for table, prop in out]


def tables_of(
    cls: type[NetClass],
) -> tuple[dict[str, SourceTable], dict[tuple[str, str], str], str]:
    """The SendTables Source would declare for ``cls``'s tree, each leaf's path, and the
    root's key. Tables are keyed by path prefix + network name, so that an embedded table's
    leaves get their own paths; exclusions still match on network names, as Source's do."""
    tables: dict[str, SourceTable] = {}
    paths: dict[tuple[str, str], str] = {}

    def table_for(klass: type[NetClass], prefix: str) -> str:
        key = f"{prefix}|{klass.net_table}"
        if key in tables:
            return key
        props: list[SourceProp] = []
        base = next(
            (b for b in klass.__bases__ if issubclass(b, NetClass) and b is not NetClass), None
        )
        if base is not None:
            props.append(SourceProp("baseclass", table_for(base, prefix), collapsible=True))
        for item in klass.net_excludes:
            props.append(SourceProp(item.name, table=item.table, exclude=True))
        for pname, decl in klass.net_declared:
            if isinstance(decl, Embed):
                props.append(SourceProp(pname, table_for(decl.table, f"{prefix}{pname}.")))
            elif isinstance(decl, Array) and decl.per_element:
                sub = f"{prefix}{pname}|{pname}"
                elems = tuple(
                    SourceProp(f"{i:03d}", changes_often=decl.hot) for i in range(decl.size)
                )
                tables[sub] = SourceTable(pname, elems)
                for i in range(decl.size):
                    paths[(sub, f"{i:03d}")] = f"{prefix}{pname}[{i}]"
                props.append(SourceProp(pname, sub))
            else:
                props.append(SourceProp(pname, changes_often=decl.hot))
                paths[(key, pname)] = f"{prefix}{pname}"
        tables[key] = SourceTable(klass.net_table, tuple(props))
        return key

    root = table_for(cls, "")
    return tables, paths, root


def _pinned(cls: type[NetClass], stack: tuple[type[NetClass], ...] = ()) -> str | None:
    for _owner, name, decl in declarations(cls):
        if isinstance(decl, Embed):
            if decl.table not in stack:
                inner = _pinned(decl.table, (*stack, cls))
                if inner is not None:
                    return f"{name}.{inner}"
        elif decl.index is not None:
            return name
    return None


def source_order(cls: type[NetClass], props: Sequence[FlatProp]) -> tuple[FlatProp, ...]:
    """``props`` (the spec-order flat list of ``cls``) renumbered in Source's order."""
    pinned = _pinned(cls)
    if pinned is not None:
        raise SchemaError('pinned indices need order="spec"', cls.__name__, pinned)
    tables, paths, root = tables_of(cls)
    by_path = {p.path: p for p in props}
    ordered = [by_path[paths[key]] for key in source_flat_order(root, tables)]
    return tuple(replace(p, index=i) for i, p in enumerate(ordered))
