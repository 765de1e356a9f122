"""The Godot side: a GDScript (Godot 4) decoder generated from a schema.

:func:`generate` writes one GDScript class that applies this schema's packets
(``docs/replication-wire.md``) and keeps ``state``: entity id -> Dictionary of property path
-> value, with ``classes`` (entity id -> class id) and ``newest_tick`` to acknowledge.
``sorted_state()`` gives ``[state, classes]`` with ids ascending (canonical for
``var_to_bytes``), and ``apply_to_nodes(nodes)`` sets the newest state on game objects
instead (entity id -> Object; each property that differs from what it last set there, by
the names in ``node_properties``), so that a game need not read the Dictionaries at all.
It keeps the newest ``interpolation_buffer`` ticks applied, and ``interpolated(render_tick)``
and ``apply_to_nodes(nodes, render_tick)`` give the state at a fractional tick between them
(``_interpolate``; ``docs/replication-interpolation.md``), as the Python decoder does.

The generated code follows the wire doc's §4 recipe, which was measured in Godot 4.6: every
field read written inline (a 32-bit refill into a 64-bit accumulator, no function call per
field) and one ``if mask & bit`` block per property (under one test per group of 4, so a
sparse delta skips most of them). Each record is read inline in the section loop, with no
call per record (``_record_reads``); that fast path checks bounds once per record (the
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
their exact ``var_to_bytes`` encoding and the steps are computed from them in float64, as the
wire doc's §5 requires. Class baselines are decoded at start-up from the description's default
bits by the generated code itself.

Reading past the end never touches memory out of range: the packet is copied with zero
padding longer than the longest run of reads between two bounds checks. ``_c<id>`` checks
after each record header, after each change list, after each property and before each
element of a length-prefixed run, and names the property that crossed the end; the fast
path checks before each length-prefixed run or element and at the record's end (after each
property too, for a class whose record can exceed 4,096 bits).

The generator is split by concern: ``decoder_template.gd`` (package data: the decoder's fixed
text, in blocks, from ``apply`` to the section loop's skeleton), ``_lines`` (the lines:
template blocks filled in, generated lines, fresh names), ``_value_reads`` (the inline read of
one value per codec, and of value deltas), ``_columns`` (the per-property columns),
``_record_reads`` (change lists, the fast and the checked record readers, the section loop),
``_state_view`` (the ``state`` view and node application), ``_interpolate`` (the blends
between kept ticks), ``_generate`` (the assembly) and
``_godot_values`` (the value mapping between Python and GDScript). Nothing in the rest of
``gdvariant.replication`` imports this package: the model does not depend on its decoder.
"""

from __future__ import annotations

from ._generate import generate
from ._godot_values import changes_values, godot_state, godot_value

__all__ = ["changes_values", "generate", "godot_state", "godot_value"]
