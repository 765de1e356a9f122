"""The generated decoder's ``state`` view and node application.

``publish`` and ``entity_functions`` write the code that builds the ``state`` view from the
records queued since it was last read; ``node_dispatch`` and the ``_n<id>`` functions set the
newest state on game objects (``apply_to_nodes``). Their fixed text is in the template.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .._codecs import Codec, EntityRef, Variant
from .._float_codecs import Float32, Float64, Half
from ._columns import held_value, load_columns, prop_columns
from ._record_reads import code_bits, masked

if TYPE_CHECKING:
    from .._schema import ClassLayout, Schema
    from ._lines import Writer

__all__ = [
    "entity_functions",
    "holds_ieee",
    "node_dispatch",
    "node_property",
    "publish",
]


def entity_functions(w: Writer, lay: ClassLayout) -> None:
    """``_d<id>(values) -> Dictionary``: a whole entity by path, for the ``state`` view;
    ``_n<id>(node, values, old)``: sets on ``node`` the properties that differ from ``old``
    (all of them if ``old`` is empty), for ``apply_to_nodes``."""
    entries = ", ".join(f"{json.dumps(p.path)}: values[{p.index}]" for p in lay.props)
    changed: list[str] = []
    for p in lay.props:
        i = p.index
        if holds_ieee(p.codec) or isinstance(p.codec, Variant):
            # == cannot tell -0.0 from 0.0, and a slot of a Variant can change its type
            changed.append(f"node.set(names[{i}], v[{i}])")
            continue
        if isinstance(p.codec, EntityRef):  # null or an int
            changed.append(f"if typeof(v[{i}]) != typeof(o[{i}]) or v[{i}] != o[{i}]:")
        else:
            changed.append(f"if v[{i}] != o[{i}]:")
        changed.append(f"\tnode.set(names[{i}], v[{i}])")
    w.fill(
        0,
        "entity_functions",
        c=lay.class_id,
        entries=entries,
        set_all=[f"node.set(names[{p.index}], v[{p.index}])" for p in lay.props],
        set_changed=changed,
    )


def holds_ieee(codec: Codec) -> bool:
    """Whether ``codec``'s values hold IEEE floats that can be -0.0 (Half, Float32/64)."""
    inner = getattr(codec, "component", None) or getattr(codec, "element", None)
    return isinstance(codec, Half | Float32 | Float64) or (inner is not None and holds_ieee(inner))


def node_property(path: str) -> str:
    """The default node property name of a flat property path (``purse.gold`` ->
    ``purse_gold``, ``ammo[2]`` -> ``ammo_2``)."""
    return path.replace(".", "_").replace("[", "_").replace("]", "")


def node_dispatch(w: Writer, schema: Schema) -> None:
    """``_node_set(node, values, old)``: ``_n<id>`` of the entity's class."""
    sets = w.cases("c", schema.classes, lambda lay: f"_n{lay.class_id}(node, v, old)")
    w.fill(0, "node_set", sets=sets or ["pass"])


def whole_entry(w: Writer, lay: ClassLayout) -> str:
    """A Dictionary literal of entity ``id``'s values by path, from the column locals."""
    entries = (
        f"{json.dumps(p.path)}: {held_value(w, lay, p, [f'{n}[id]' for _, n, _ in cols])}"
        for p, cols in prop_columns(lay)
    )
    return f"{{{', '.join(entries)}}}"


def publish(w: Writer, schema: Schema) -> None:
    """``_publish``: brings the ``state`` view from the tick it last showed to the newest
    one. Every packet applied since was a delta from a base no newer than the newest tick
    before it, so the records kept in ``_pending`` name every entity and property that
    differ, except entities that came and went in between (removed at the end). ``_pending``
    (a PackedInt64Array) holds per record its id and a code in one int (``touch``): -1 =
    delete; c = update of class c and -2 - c = enter of class c, each followed by the
    record's change mask (one int, or one per 32 properties for a class of more than 62).
    The values are read from the newest state's columns, so a property that several packets
    changed is copied once with its newest value; an entity whose newest class is not the
    view's, or one past ``DENSE_IDS``, is rebuilt whole. Too many pending records, and the
    view is rebuilt whole."""

    def class_locals(indent: int) -> None:
        for lay in schema.classes:
            w.emit(indent, f"var s{lay.class_id}: Array = sets[{lay.class_id}]")
            load_columns(w, indent, lay, f"s{lay.class_id}", declare=True)

    def whole_views(indent: int) -> None:
        for lay in w.by_class(indent, "c", schema.classes):
            w.emit(indent + 1, f"view[id] = {whole_entry(w, lay)}")

    def changed_values(indent: int) -> None:
        for lay in w.by_class(indent, "c", schema.classes):
            m = f"m{lay.class_id}"
            if lay.count > 62:
                w.emit(indent + 1, f"var {m} := pending.slice(at, at + {(lay.count + 31) // 32})")
            else:
                w.emit(indent + 1, f"var {m} := pending[at]")
            if not lay.props:
                w.emit(indent + 1, "pass")
            columns = dict(prop_columns(lay))
            for at, p in masked(w, lay, m, indent + 1):
                cells = [f"{name}[id]" for _, name, _ in columns[p]]
                w.emit(at, f"d[{json.dumps(p.path)}] = {held_value(w, lay, p, cells)}")

    wide = [lay for lay in schema.classes if lay.count > 62]
    words = ["i += 1"]
    if wide:
        words = [
            "var rc := code if code >= 0 else -2 - code",
            *w.cases("rc", wide, lambda lay: f"i += {(lay.count + 31) // 32}"),
            "else:",
            "\ti += 1",
        ]
    bits = code_bits(schema)
    w.fill(
        0,
        "publish",
        class_locals=class_locals,
        whole_views=whole_views,
        code_bits=bits,
        code_mask=(1 << bits) - 1,
        code_offset=len(schema.classes) + 1,
        mask_words=words,
        changed_values=changed_values,
        wholes=w.cases("c", schema.classes, lambda lay: f"return _d{lay.class_id}(values)"),
    )
