"""The decoder of a schema, put together: the template's fixed text around the generated code."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .._packet_format import VERSION
from ._columns import column_functions, dispatch_functions
from ._interpolate import interpolation
from ._lines import Writer
from ._record_reads import baseline_bits, class_function, fast_run_bits, section
from ._state_view import entity_functions, node_dispatch, node_property, publish
from ._value_reads import straight_bits

if TYPE_CHECKING:
    from .._schema import ClassLayout, Schema

__all__ = ["generate"]

_RECORD_HEADER_BITS = 2 + 1 + 2 + 32


def generate(schema: Schema, *, class_name: str | None = None) -> str:
    """The GDScript source of a decoder for ``schema``'s packets (see the package doc);
    ``class_name`` names its class for Godot's editor."""
    if class_name is not None and not class_name.isidentifier():
        raise ValueError(f"class_name must be an identifier, not {class_name!r}")
    body = Writer()
    for lay in schema.classes:
        class_function(body, lay)
        column_functions(body, lay)
        entity_functions(body, lay)
    dispatch_functions(body, schema)
    section(body, schema)
    publish(body, schema)
    node_dispatch(body, schema)
    interpolation(body, schema)

    out = Writer()
    out.fill(
        0,
        "decoder",
        fingerprint=schema.fingerprint.hex(),
        class_name=[f"class_name {class_name}"] if class_name else [],
        version=VERSION,
        class_names=json.dumps([lay.name for lay in schema.classes]),
        class_fingerprints=json.dumps({lay.name: lay.fingerprint.hex() for lay in schema.classes}),
        node_properties=json.dumps(
            [[node_property(p.path) for p in lay.props] for lay in schema.classes]
        ),
        members=[f"var {member}: float" for member in body.members.values()],
        padding=_padding(schema),
        class_count=len(schema.classes),
        column_sets=", ".join(f"_cols{lay.class_id}()" for lay in schema.classes),
        member_inits=body.member_lines,
        baselines=lambda indent: _baselines(out, indent, schema.classes),
        functions=body.lines,
    )
    return "\n".join(out.lines) + "\n"


def _padding(schema: Schema) -> int:
    """The zero bytes after a packet's copy: more than the longest run of bits read between
    two bounds checks (a record header, a change list, a value with its delta prefixes, a
    fast record's run)."""
    straight = [_RECORD_HEADER_BITS + schema.class_bits]
    for lay in schema.classes:
        straight.append(1 + lay.count)
        # A value delta adds at most a 3-bit prefix per component to the whole value.
        straight.extend(straight_bits(p.codec) + 3 * 4 for p in lay.props)
        straight.append(fast_run_bits(lay))
    return (max(straight) + 7) // 8 + 8


def _baselines(w: Writer, indent: int, layouts: tuple[ClassLayout, ...]) -> None:
    """In ``_init``, each class's baseline, decoded by its ``_c<id>`` from the default bits,
    and its scratch row holding it."""
    for lay in layouts:
        raw = baseline_bits(lay)
        w.fill(
            indent,
            "baseline",
            c=lay.class_id,
            raw=raw.hex(),
            size=lay.count + 1,
            count=lay.count,
            bits=8 * len(raw),
            name=lay.name,
        )
