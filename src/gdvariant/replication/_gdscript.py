"""The Godot side: a GDScript (Godot 4) decoder generated from a schema.

``schema.to_gdscript()`` writes one GDScript class that applies this schema's packets
(``docs/replication-wire.md``) and keeps ``state``: entity id -> Dictionary of property path
-> value, with ``classes`` (entity id -> class id) and ``newest_tick`` to acknowledge.
``sorted_state()`` gives ``[state, classes]`` with ids ascending (canonical for
``var_to_bytes``), and ``apply_to_nodes(nodes)`` sets the newest state on game objects
instead (entity id -> Object; each property that differs from what it last set there, by
the names in ``node_properties``), so that a game need not read the Dictionaries at all.

The generated code follows the wire doc's §4 recipe, which was measured in Godot 4.6: every
field read written inline (a 32-bit refill into a 64-bit accumulator, no function call per
field) and one ``if mask & bit`` block per property (under one test per group of 4, so a
sparse delta skips most of them). Each record is read inline in the section loop, with no
call per record (``_gdscript_records``); that fast path checks bounds once per record (the
zero padding covers the run) and on any failed check hands the record to ``_c<id>``, its
checked twin, which checks what the Python :class:`SnapshotDecoder` checks, in the same
order, and reports the same errors in ``last_error`` and ``last_error_path`` (naming entity
and property) instead of raising. ``_c<id>`` also decodes the class baselines at start-up.

States: the ring of recent ticks (delta bases) holds each tick's state as one packed column
per property, indexed by entity id (``_gdscript_columns``). A packet starts from its base
tick's state, copies a class's columns when its first record of that class comes (a C-level
copy per column) and stores values into them by index, so that older ticks stay intact
without a copy per record (an Array of values per entity cost a copy of about 0.3 µs per
record in Godot 4.6). Ids from ``DENSE_IDS`` up are kept in a Dictionary beside the
columns. Nothing is stored until the whole packet has decoded.
``state`` (the newest tick, as Dictionaries) is a view built when it is read: ``apply()`` only
queues (entity, class, mask) per record, and reading ``state`` copies the queued properties
from the newest tick into the view's Dictionaries in place. Each delta comes from a base no
newer than the tick before it, so the queue names every entity and property that differ
since the view was last built, except entities that came and went in between, which are
removed by comparing the entity sets. Building Dictionaries costs about as much as decoding
(1 µs per property written in Godot 4.6), and a client that renders at a lower rate than it
receives packets pays it once per read instead of once per packet.

Float constants (ranges, steps) are not written as decimal literals: Godot 4.6.3's GDScript
parser reads some literals to a different double (``5e-324`` and ``2.2250738585072014e-308``
become 0.0, ``8.98846567431158e+307`` is off by one ulp). They are loaded at start-up from
their exact ``var_to_bytes`` encoding and the steps are computed from them in float64, as
§5 requires. Class baselines are decoded at start-up from the description's default bits by
the generated code itself.

Reading past the end never touches memory out of range: the packet is copied with zero
padding longer than the longest run of reads between two bounds checks. ``_c<id>`` checks
after each record header, after each change list, after each property and before each
element of a length-prefixed run, and names the property that crossed the end; the fast
path checks before each length-prefixed run or element and at the record's end (after each
property too, for a class whose record can exceed 4,096 bits).

The generator is split by concern: ``_gdscript_reads`` (the inline read of one value per
codec, and of value deltas), ``_gdscript_records`` (change lists, the fast and the checked
record readers, the section loop), ``_gdscript_runtime`` (the fixed GDScript runtime, the
``state`` view and node application) and this module (the assembly and the value mapping
between Python and GDScript).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ._codecs import ArrayOf, Codec, Enum, UInt, VarUInt
from ._gdscript_columns import column_functions, dispatch_functions
from ._gdscript_reads import Writer, straight_bits
from ._gdscript_records import baseline_bits, class_function, fast_run_bits, section
from ._gdscript_runtime import (
    RUNTIME,
    node_dispatch,
    node_property,
    publish,
    publish_functions,
)
from ._packet_format import VERSION

if TYPE_CHECKING:
    from ._schema import Schema
    from ._snapshot_decoder import EntityState

__all__ = ["generate", "godot_state", "godot_value"]

_RECORD_HEADER_BITS = 2 + 1 + 2 + 32


def godot_value(codec: Codec, value: Any) -> Any:
    """``value`` (as Python decodes it with ``codec``) as the generated GDScript holds it:
    Enum members become their described int, tuples Arrays (lists), and unsigned values of
    2**63 and above wrap to negative (GDScript ints are signed 64-bit)."""
    if isinstance(codec, Enum) and isinstance(value, enum.Enum):
        return codec.describe()[3][codec.position[value]]
    if isinstance(codec, ArrayOf):
        return [godot_value(codec.element, v) for v in value]
    if isinstance(codec, UInt | VarUInt) and isinstance(value, int) and value >= 1 << 63:
        return value - (1 << 64)
    return value


def godot_state(schema: Schema, state: Mapping[int, EntityState]) -> list[dict[int, Any]]:
    """A decoder state (``SnapshotDecoder.state``, ``SnapshotEncoder.expected_state``) as the
    generated GDScript holds it, ``[{id: {path: value}}, {id: class id}]`` with ids ascending
    and paths in flat order: what its ``var_to_bytes`` must equal."""
    values: dict[int, Any] = {}
    classes: dict[int, int] = {}
    for net_id in sorted(state):
        ent = state[net_id]
        lay = schema.layout(ent.class_name)
        values[net_id] = {p.path: godot_value(p.codec, ent.values[p.path]) for p in lay.props}
        classes[net_id] = lay.class_id
    return [values, classes]


def generate(schema: Schema, *, class_name: str | None = None) -> str:
    """The GDScript source of a decoder for ``schema``'s packets (see the module doc)."""
    if class_name is not None and not class_name.isidentifier():
        raise ValueError(f"class_name must be an identifier, not {class_name!r}")
    body = Writer()
    for lay in schema.classes:
        class_function(body, lay)
        column_functions(body, lay)
        publish_functions(body, lay)
    dispatch_functions(body, schema)
    section(body, schema)
    publish(body, schema)
    node_dispatch(body, schema)
    straight = [_RECORD_HEADER_BITS + schema.class_bits]
    for lay in schema.classes:
        straight.append(1 + lay.count)
        # A value delta adds at most a 3-bit prefix per component to the whole value.
        straight.extend(straight_bits(p.codec) + 3 * 4 for p in lay.props)
        straight.append(fast_run_bits(lay))
    padding = (max(straight) + 7) // 8 + 8

    head = Writer()
    head.emit(0, f"# Generated by gdvariant.replication from schema {schema.fingerprint.hex()}.")
    head.emit(0, "# Do not edit: regenerate with schema.to_gdscript() when the schema changes.")
    if class_name:
        head.emit(0, f"class_name {class_name}")
    head.emit(0, "extends RefCounted")
    head.emit(0, "")
    head.emit(
        0, "## The wire format's version (a packet's first byte); other versions are refused."
    )
    head.emit(0, f"const WIRE_VERSION := {VERSION}")
    head.emit(0, "## The schema's global fingerprint; packets stamped with another are refused.")
    head.emit(0, f'const FINGERPRINT := "{schema.fingerprint.hex()}"')
    names = [lay.name for lay in schema.classes]
    head.emit(0, "## Class (table) names by class id.")
    head.emit(0, f"const CLASS_NAMES := {json.dumps(names)}")
    prints = {lay.name: lay.fingerprint.hex() for lay in schema.classes}
    head.emit(0, "## Per-class fingerprints, by class name.")
    head.emit(0, f"const CLASS_FINGERPRINTS := {json.dumps(prints)}")
    head.emit(0, "")
    head.emit(0, "## How many recent ticks' states are kept as delta bases.")
    head.emit(0, "var history := 32")
    head.emit(0, "## The newest state: entity id -> {property path: value}. Built when read, from")
    head.emit(0, "## the records applied since the last read, and then updated in place.")
    head.emit(0, "var state: Dictionary:")
    head.emit(1, "get:")
    head.emit(2, "if _stale:")
    head.emit(3, "_publish()")
    head.emit(2, "return _view")
    head.emit(0, "## Entity id -> class id (an index into CLASS_NAMES), for [member state].")
    head.emit(0, "var classes: Dictionary:")
    head.emit(1, "get:")
    head.emit(2, "if _stale:")
    head.emit(3, "_publish()")
    head.emit(2, "return _view_classes")
    head.emit(
        0, "## Per class id, the node property each flat property is set to by apply_to_nodes():"
    )
    head.emit(0, '## the path with "." and "[" as "_" and "]" dropped ("purse.gold" is purse_gold,')
    head.emit(0, '## "ammo[2]" is ammo_2). Change an entry to map a property elsewhere.')
    node_names = [[node_property(p.path) for p in lay.props] for lay in schema.classes]
    head.emit(0, f"var node_properties: Array = {json.dumps(node_names)}")
    head.emit(0, "## The newest tick applied: the one to acknowledge (0 before any).")
    head.emit(0, "var newest_tick := 0")
    head.emit(0, '## Why the last apply() failed, naming entity and property; "" if it did not.')
    head.emit(0, 'var last_error := ""')
    head.emit(0, "## Where it failed, as entity[12].origin.")
    head.emit(0, 'var last_error_path := ""')
    head.emit(0, "")
    head.emit(0, "var _states := {}")
    head.emit(0, "var _empty := []")
    head.emit(0, "var _unfresh := PackedByteArray()")
    head.emit(0, "var _view := {}")
    head.emit(0, "var _view_classes := {}")
    head.emit(0, "var _pending := PackedInt64Array()")
    head.emit(0, "var _node_last := {}")
    head.emit(0, "var _stale := false")
    head.emit(0, "var _baselines := []")
    head.emit(0, 'var _broken := ""')
    head.emit(0, "var _scratch := PackedByteArray()")
    head.emit(0, "var _padding := PackedByteArray()")
    for member in body.members.values():
        head.emit(0, f"var {member}: float")
    head.emit(0, "")
    head.emit(0, "")
    head.emit(0, "func _init() -> void:")
    head.emit(1, "_scratch.resize(8)")
    head.emit(1, f"_padding.resize({padding})")
    head.emit(1, "_padding.fill(0)")
    head.emit(1, f"_unfresh.resize({len(schema.classes)})")
    head.emit(1, "_unfresh.fill(0)")
    sets = ", ".join(f"_cols{lay.class_id}()" for lay in schema.classes)
    head.emit(1, f"_empty = [PackedInt64Array([0]), [{sets}], {{}}]")
    head.lines.extend(body.member_lines)
    for lay in schema.classes:
        raw = baseline_bits(lay)
        head.emit(1, f'var base{lay.class_id} := "{raw.hex()}".hex_decode()')
        head.emit(1, f"base{lay.class_id}.append_array(_padding)")
        head.emit(1, f"var values{lay.class_id} := []")
        head.emit(1, f"values{lay.class_id}.resize({lay.count + 1})")
        head.emit(1, f"values{lay.class_id}[{lay.count}] = {lay.class_id}")
        head.emit(
            1,
            f"if _c{lay.class_id}(base{lay.class_id}, 0, {8 * len(raw)}, -1, "
            f"values{lay.class_id}, false) < 0:",
        )
        head.emit(2, f'_broken = "cannot decode the baseline of {lay.name}: " + last_error')
        head.emit(1, "else:  # the rows of a new state hold the baseline")
        head.emit(2, f"_put{lay.class_id}(_empty[1][{lay.class_id}], 0, values{lay.class_id})")
        head.emit(1, f"_baselines.append(values{lay.class_id})")
    head.emit(0, "")
    return "\n".join([*head.lines, "", *body.lines]) + RUNTIME
