"""An entity's history, wherever its world keeps it.

An entity's history is the list of its committed changes, oldest first, each entry
``(tick, changed mask, bits before, fragments)`` (docs/replication-interest-performance.md,
"The history in rings"). A world keeps it in the entity's ``_net_hist`` list, or, once the
compiled commit has moved it there, in the world's ``history_table`` (a C ring per entity,
``_table.h``), and ``_net_hist`` is then None. One owner at a time: Python code that reads a
history goes through :func:`entries` (or :func:`changed_since`), and code that writes one
through :func:`owned`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["changed_since", "entries", "owned"]


def entries(ent: Any) -> list[Any]:
    """``ent``'s history entries: its list, or a copy of what its world's table holds (made
    for this call: changing it changes nothing)."""
    hist = ent._net_hist
    if hist is None:
        return _from_table(ent, "entries")
    return hist  # type: ignore[no-any-return]


def changed_since(ent: Any, tick: int) -> int:
    """The properties ``ent`` changed after ``tick`` (its entries' masks or'ed), read in
    place."""
    hist = ent._net_hist
    if hist is None:
        return _from_table(ent, "changed_since", tick)  # type: ignore[return-value]
    changed = 0
    for change in reversed(hist):
        if change[0] <= tick:
            break
        changed |= change[1]
    return changed


def owned(ent: Any) -> list[Any]:
    """``ent``'s history list, taken back from its world's table first if the table holds it:
    for a writer (the pure commit), which then owns it until the compiled commit takes it."""
    hist = ent._net_hist
    if hist is None:
        hist = ent.__dict__["_net_hist"] = _from_table(ent, "take")
    return hist  # type: ignore[no-any-return]


def _from_table(ent: Any, how: str, *args: Any) -> list[Any]:
    """What the table of ``ent``'s world answers of its history (``how``: the method)."""
    table = getattr(ent._net_world, "history_table", None)
    got = getattr(table, how)(ent.net_id, *args) if table is not None else None
    if got is None:
        raise RuntimeError(f"entity {ent.net_id}'s history is in no history table")
    return got  # type: ignore[no-any-return]
