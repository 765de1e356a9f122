"""The generated decoder's interpolation: per class, its properties blended between two ticks.

The fixed part (the ring of the newest ticks applied, the render-time rules and one helper per
blend kind) is the template's ``interpolation`` block. This module fills in, per class with a
property that is not stepwise, ``_i<id>(a, b, w)`` (blends two Arrays of values: an entity
sparse in the newer state) and ``_ib<id>(a, cols, row, w)`` (reads only the blended values
of the newer state, from its columns), the dispatch to them, and ``_dense``, which builds
``interpolated()``'s Dictionaries straight from both states' columns, as ``_publish`` builds
the ``state`` view: reading an entity's 30 values into an Array (``_take``) costs about
6 µs in Godot 4.6's editor binary, a third of a blended entity's time before. The kinds, and the
expressions each helper computes, are those of the Python decoder (``_interpolation``), so
that both give the same values.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .._float_codecs import Angle, Vec2, Vec3, Vec4
from .._interpolation import ANGLE, ANGLE_VECTOR, LINEAR, NORMAL, QUAT, STEP, VECTOR, kind
from ._columns import held_value, load_columns, prop_columns
from ._state_view import whole_entry

if TYPE_CHECKING:
    from .._codecs import Codec
    from .._schema import ClassLayout, Schema
    from ._lines import Writer

__all__ = ["interpolation"]

_HELPERS = {LINEAR: "_lf", VECTOR: "_lv", NORMAL: "_ln", QUAT: "_lq"}


def _period(angle: Angle) -> str:
    """The GDScript constant of the angle's period (TAU is math.tau's double)."""
    return "360.0" if angle.degrees else "TAU"


def _blend_call(codec: Codec, i: int, args: str = "") -> str:
    """The expression of property ``i`` (of ``codec``) blended from ``a`` towards ``b``
    (``args``: other expressions of the two values and the weight)."""
    k = kind(codec)
    args = args or f"a[{i}], b[{i}], w"
    if k == ANGLE:
        assert isinstance(codec, Angle)
        return f"_la({args}, {_period(codec)})"
    if k == ANGLE_VECTOR:
        assert isinstance(codec, Vec2 | Vec3 | Vec4) and isinstance(codec.component, Angle)
        return f"_lva({args}, {_period(codec.component)}, {codec.count})"
    return f"{_HELPERS[k]}({args})"


def _blended(lay: ClassLayout) -> list[int]:
    return [p.index for p in lay.props if kind(p.codec) != STEP]


def interpolation(w: Writer, schema: Schema) -> None:
    """``_i<id>`` for each class that blends, and the template's ``interpolation`` block
    with ``_blend_values`` dispatching to them (a class that does not blend keeps ``a``)."""
    blending = [lay for lay in schema.classes if _blended(lay)]
    for lay in blending:
        blends = [f"o[{i}] = {_blend_call(lay.props[i].codec, i)}" for i in _blended(lay)]
        w.fill(0, "blend_class", c=lay.class_id, blends=blends)
        w.fill(0, "blend_row", c=lay.class_id, blends=_row_blends(w, lay))
    blends = w.cases("c", blending, lambda lay: f"return _i{lay.class_id}(va, vb, w)")
    column_blends = w.cases(
        "c", blending, lambda lay: f"return _ib{lay.class_id}(va, cols, row, w)"
    )
    w.fill(
        0,
        "interpolation",
        blends=blends or ["pass"],
        column_blends=column_blends or ["pass"],
    )
    _dense(w, schema)


def _row_blends(w: Writer, lay: ClassLayout) -> list[str]:
    """``_ib<id>``'s lines: each blended value of ``a`` towards the one held in ``row`` of
    the columns ``cols`` (read as ``_take<id>`` reads them)."""
    blended = set(_blended(lay))
    lines = []
    for p, cols in prop_columns(lay):
        if p.index in blended:
            new = held_value(w, lay, p, [f"cols[{at}][row]" for at, _, _ in cols])
            call = _blend_call(p.codec, p.index, f"a[{p.index}], {new}, w")
            lines.append(f"o[{p.index}] = {call}")
    return lines


def _dense(w: Writer, schema: Schema) -> None:
    """``_dense``: the column locals of every class in both states (the newer one's only for
    the properties that blend), and per class the entity's Dictionary, its blended values
    replaced where the newer state holds it with the same class."""

    def class_locals(indent: int) -> None:
        for lay in schema.classes:
            c = lay.class_id
            w.emit(indent, f"var s{c}: Array = sets[{c}]")
            load_columns(w, indent, lay, f"s{c}", declare=True)
            blended = set(_blended(lay))
            if blended:
                w.emit(indent, f"var t{c}: Array = setsb[{c}]")
            for p, cols in prop_columns(lay):
                if p.index in blended:
                    for at, name, col_type in cols:
                        w.emit(indent, f"var b{name}: {col_type} = t{c}[{at}]")

    def views(indent: int) -> None:
        for lay in w.by_class(indent, "c", schema.classes):
            blended = set(_blended(lay))
            if not blended:
                w.emit(indent + 1, f"values[id] = {whole_entry(w, lay)}")
                continue
            w.emit(indent + 1, f"var d{lay.class_id} := {whole_entry(w, lay)}")
            w.emit(indent + 1, "if both:")
            for p, cols in prop_columns(lay):
                if p.index not in blended:
                    continue
                old = held_value(w, lay, p, [f"{name}[id]" for _, name, _ in cols])
                new = held_value(w, lay, p, [f"b{name}[id]" for _, name, _ in cols])
                call = _blend_call(p.codec, p.index, f"{old}, {new}, wt")
                w.emit(indent + 2, f"d{lay.class_id}[{json.dumps(p.path)}] = {call}")
            w.emit(indent + 1, f"values[id] = d{lay.class_id}")

    w.fill(0, "dense", class_locals=class_locals, views=views)
