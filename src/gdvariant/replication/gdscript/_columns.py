"""How the generated decoder holds a tick's state: one packed column per property.

A kept tick's state (a delta base) is ``[cls, sets, sparse]``: ``cls`` a PackedInt64Array
by entity id holding class id + 1 (0 = no entity), ``sets`` per class id an Array of that
class's columns by flat index, each indexed by entity id, and ``sparse`` a Dictionary of the
entities whose id is ``DENSE_IDS`` or more (id -> Array of values by flat index, class id
last). The last row of ``cls`` and of every column is scratch: no entity lives there, and a
record of a sparse entity is decoded there (``_put``, the inline read, ``_take``).

Why columns (measured in Godot 4.6, ``docs/replication-wire.md`` §9): a delta starts from its
base tick's state, which older ticks share and must keep. With an Array of values per entity,
each record copied its entity's Array (about 0.3 µs for 31 values) and stored it back. With
columns, a packet duplicates a class's columns once, when its first record of that class comes
(a C-level copy of each column), and records store values with indexed writes. Columns a class
shares between ticks cost nothing.

A column holds values in a form cheap to store from the wire: a Bool as its bit (0 or 1),
an EntityRef as its raw field (0 = null, else id + 1), and a Quant, Angle or Coord with value
deltas as its ordinal (wire doc §5.1), one int column per vector component, so that a delta
adds to it with no conversion (``prop_columns``). ``held_value`` and ``stored_cells``
convert between that form and the value GDScript gives the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._codecs import Bool, Bytes, Codec, EntityRef, Enum, Int, Str, UInt, VarInt, VarUInt
from .._float_codecs import Angle, Coord, Float32, Float64, Half, Normal, Quant, Vec2, Vec3, Vec4
from ._value_reads import held_ordinal, holds_ordinals, ordinal_value

if TYPE_CHECKING:
    from .._flatten import FlatProp
    from .._schema import ClassLayout, Schema
    from ._lines import Writer

__all__ = [
    "column_functions",
    "column_type",
    "dispatch_functions",
    "held",
    "held_value",
    "load_columns",
    "prop_columns",
    "stored",
    "stored_cells",
]

_TYPES: tuple[tuple[tuple[type[Codec], ...], str], ...] = (
    ((Bytes,), "Array"),  # before Str: a Bytes is a Str
    ((Bool,), "PackedByteArray"),
    ((UInt, Int, VarUInt, VarInt, Enum, EntityRef), "PackedInt64Array"),
    ((Quant, Coord, Angle, Half, Float32, Float64), "PackedFloat64Array"),
    ((Vec2,), "PackedVector2Array"),
    ((Vec3, Normal), "PackedVector3Array"),
    ((Vec4,), "PackedVector4Array"),
    ((Str,), "PackedStringArray"),
)


def column_type(codec: Codec) -> str:
    """The GDScript type of a column of ``codec``'s values: a packed array where one holds
    them exactly, else ``Array`` (Bytes, Variant, ArrayOf, Quat)."""
    for kinds, name in _TYPES:
        if isinstance(codec, kinds):
            return name
    return "Array"


def held(codec: Codec, cell: str) -> str:
    """The GDScript value of the column entry ``cell`` (an expression read twice at most)."""
    if isinstance(codec, Bool):
        return f"{cell} == 1"
    if isinstance(codec, EntityRef):
        return f"(null if {cell} == 0 else {cell} - 1)"
    return cell


def stored(codec: Codec, value: str) -> str:
    """The column entry for the GDScript value ``value`` (an expression read twice at most)."""
    if isinstance(codec, Bool):
        return f"int({value})"
    if isinstance(codec, EntityRef):
        return f"(0 if {value} == null else {value} + 1)"
    return value


def prop_columns(lay: ClassLayout) -> list[tuple[FlatProp, list[tuple[int, str, str]]]]:
    """Per property of ``lay``, its columns as (index in the class's column set, the local
    that holds it in generated functions, GDScript type): one column, or for a property held
    as ordinals (``holds_ordinals``) one PackedInt64Array per component."""
    out: list[tuple[FlatProp, list[tuple[int, str, str]]]] = []
    at = 0
    for p in lay.props:
        coder = lay.deltas[p.index]
        name = f"k{lay.class_id}_{p.index}"
        if coder is not None and holds_ordinals(coder):
            if coder.vector is None:
                cols = [(at, name, "PackedInt64Array")]
            else:
                axes = "xyzw"[: len(coder.parts)]
                cols = [(at + k, f"{name}{a}", "PackedInt64Array") for k, a in enumerate(axes)]
        else:
            cols = [(at, name, column_type(p.codec))]
        out.append((p, cols))
        at += len(cols)
    return out


def held_value(w: Writer, lay: ClassLayout, prop: FlatProp, cells: list[str]) -> str:
    """The GDScript value of ``prop`` held in the column entries ``cells`` (expressions read
    up to three times each)."""
    coder = lay.deltas[prop.index]
    if coder is None or not holds_ordinals(coder):
        return held(prop.codec, cells[0])
    values = [
        ordinal_value(w, part.codec, cell) for part, cell in zip(coder.parts, cells, strict=True)
    ]
    if coder.vector is None:
        return values[0]
    return f"{coder.vector.__name__}({', '.join(values)})"


def stored_cells(w: Writer, lay: ClassLayout, prop: FlatProp, value: str) -> list[str]:
    """The column entries of ``prop`` for its GDScript value ``value`` (an expression)."""
    coder = lay.deltas[prop.index]
    if coder is None or not holds_ordinals(coder):
        return [stored(prop.codec, value)]
    if coder.vector is None:
        return [held_ordinal(w, coder.parts[0].codec, value)]
    return [
        held_ordinal(w, part.codec, f"{value}.{a}")
        for part, a in zip(coder.parts, "xyzw", strict=False)
    ]


def load_columns(w: Writer, indent: int, lay: ClassLayout, source: str, *, declare: bool) -> None:
    """Set the locals of ``lay``'s columns (``prop_columns``) to the columns in the Array
    ``source``."""
    for _, cols in prop_columns(lay):
        for at, name, kind in cols:
            if declare:
                w.emit(indent, f"var {name}: {kind} = {source}[{at}]")
            else:
                w.emit(indent, f"{name} = {source}[{at}]")


def column_functions(w: Writer, lay: ClassLayout) -> None:
    """Per class: ``_cols<id>()`` (its columns, one scratch row each), ``_put<id>(cols, row,
    values)`` and ``_take<id>(cols, row)`` (a row from and to an Array of GDScript values,
    class id last)."""
    columns = prop_columns(lay)
    fresh = ", ".join(f"{kind}()" for _, cols in columns for _, _, kind in cols)
    puts = [
        f"cols[{at}][row] = {cell}"
        for p, cols in columns
        for (at, _, _), cell in zip(
            cols, stored_cells(w, lay, p, f"values[{p.index}]"), strict=True
        )
    ]
    held_values = [
        held_value(w, lay, p, [f"cols[{at}][row]" for at, _, _ in cols]) for p, cols in columns
    ]
    values = ", ".join([*held_values, str(lay.class_id)])
    w.fill(0, "columns", c=lay.class_id, fresh=fresh, puts=puts or ["pass"], values=values)


def dispatch_functions(w: Writer, schema: Schema) -> None:
    """``_dup(cols)`` (a class's columns copied), ``_grow(cols, size, base)``, and the per-class
    dispatch of ``_take`` by class id."""
    takes = w.cases("c", schema.classes, lambda lay: f"return _take{lay.class_id}(cols, row)")
    w.fill(0, "column_helpers", takes=takes)
