"""The generated decoder's fixed runtime and its state view and node application.

``RUNTIME`` is the GDScript that does not depend on the schema (``apply``, the public helpers,
error reporting, the UTF-8 check). ``publish`` and ``publish_functions`` write the
code that builds the ``state`` view from queued records; ``node_dispatch`` and the ``_n<id>``
functions set the newest state on game objects (``apply_to_nodes``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ._codecs import Codec, EntityRef, Variant
from ._float_codecs import Float32, Float64, Half
from ._gdscript_columns import held_value, load_columns, prop_columns
from ._gdscript_reads import Writer
from ._gdscript_records import code_bits, masked

if TYPE_CHECKING:
    from ._schema import ClassLayout, Schema

__all__ = [
    "RUNTIME",
    "holds_ieee",
    "node_dispatch",
    "node_property",
    "publish",
    "publish_functions",
]


def publish_functions(w: Writer, lay: ClassLayout) -> None:
    """``_d<id>(values) -> Dictionary``: a whole entity by path, for the ``state`` view;
    ``_n<id>(node, values, old)``: sets on ``node`` the properties that differ from ``old``
    (all of them if ``old`` is empty), for ``apply_to_nodes``."""
    entries = ", ".join(f"{json.dumps(p.path)}: values[{p.index}]" for p in lay.props)
    w.emit(0, f"func _d{lay.class_id}(values: Array) -> Dictionary:")
    w.emit(1, f"return {{{entries}}}")
    w.emit(0, "")
    w.emit(0, "")
    c = lay.class_id
    w.emit(0, f"func _n{c}(node: Object, v: Array, o: Array) -> void:")
    w.emit(1, f"var names: Array = node_properties[{c}]")
    w.emit(1, "if o.is_empty():")
    for p in lay.props:
        w.emit(2, f"node.set(names[{p.index}], v[{p.index}])")
    w.emit(2, "return")
    for p in lay.props:
        i = p.index
        if holds_ieee(p.codec) or isinstance(p.codec, Variant):
            # == cannot tell -0.0 from 0.0, and a slot of a Variant can change its type
            w.emit(1, f"node.set(names[{i}], v[{i}])")
            continue
        if isinstance(p.codec, EntityRef):  # null or an int
            w.emit(1, f"if typeof(v[{i}]) != typeof(o[{i}]) or v[{i}] != o[{i}]:")
        else:
            w.emit(1, f"if v[{i}] != o[{i}]:")
        w.emit(2, f"node.set(names[{i}], v[{i}])")
    w.emit(0, "")
    w.emit(0, "")
    w.emit(0, "")
    w.emit(0, "")


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
    w.emit(0, "func _node_set(node: Object, v: Array, old: Array) -> void:")
    w.emit(1, "var c: int = v[-1]")
    for lay in w.by_class(1, "c", schema.classes):
        w.emit(2, f"_n{lay.class_id}(node, v, old)")
    if not schema.classes:
        w.emit(1, "pass")
    w.emit(0, "")
    w.emit(0, "")


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
    w.emit(0, "func _publish() -> void:")
    w.emit(1, "var held: Array = _states[newest_tick]")
    w.emit(1, "var cls: PackedInt64Array = held[0]")
    w.emit(1, "var sets: Array = held[1]")
    w.emit(1, "var sparse: Dictionary = held[2]")
    w.emit(1, "var dn := cls.size() - 1")
    w.emit(1, "var live := cls.size() - cls.count(0) + sparse.size()")
    w.emit(1, "var view := _view")
    w.emit(1, "var shown := _view_classes")
    w.emit(1, "var pending := _pending")
    w.emit(1, "_pending = PackedInt64Array()")
    w.emit(1, "_stale = false")
    for lay in schema.classes:
        w.emit(1, f"var s{lay.class_id}: Array = sets[{lay.class_id}]")
        load_columns(w, 1, lay, f"s{lay.class_id}", declare=True)
    w.emit(1, "if pending.size() > 6 * live + 96:")
    w.emit(2, "view.clear()")
    w.emit(2, "shown.clear()")
    w.emit(2, "for id in dn:")
    w.emit(3, "var c := cls[id] - 1")
    w.emit(3, "if c >= 0:")
    w.emit(4, "shown[id] = c")
    for lay in w.by_class(4, "c", schema.classes):
        w.emit(5, f"view[id] = {whole_entry(w, lay)}")
    w.emit(2, "for id in sparse:")
    w.emit(3, "shown[id] = sparse[id][-1]")
    w.emit(3, "view[id] = _whole(sparse[id])")
    w.emit(2, "return")
    w.emit(1, "var i := 0")
    w.emit(1, "var count := pending.size()")
    w.emit(1, "while i < count:")
    bits = code_bits(schema)
    w.emit(2, f"var id := pending[i] >> {bits}")
    w.emit(2, f"var code := (pending[i] & {(1 << bits) - 1}) - {len(schema.classes) + 1}")
    w.emit(2, "i += 1")
    w.emit(2, "if code == -1:")
    w.emit(3, "view.erase(id)")
    w.emit(3, "shown.erase(id)")
    w.emit(3, "continue")
    w.emit(2, "var at := i")
    wide = [lay for lay in schema.classes if lay.count > 62]
    if wide:
        w.emit(2, "var rc := code if code >= 0 else -2 - code")
        for lay in w.by_class(2, "rc", wide):
            w.emit(3, f"i += {(lay.count + 31) // 32}")
        w.emit(2, "else:")
        w.emit(3, "i += 1")
    else:
        w.emit(2, "i += 1")
    w.emit(2, "if id >= dn:")
    w.emit(3, "var got = sparse.get(id)")
    w.emit(3, "if got != null:  # else deleted again by a later record")
    w.emit(4, "shown[id] = got[-1]")
    w.emit(4, "view[id] = _whole(got)")
    w.emit(3, "continue")
    w.emit(2, "var c := cls[id] - 1")
    w.emit(2, "if c < 0:  # deleted again by a later record")
    w.emit(3, "continue")
    w.emit(2, "var shown_d = view.get(id)")
    w.emit(2, "if code != c or shown_d == null or shown.get(id, -1) != c:")
    w.emit(3, "shown[id] = c")
    for lay in w.by_class(3, "c", schema.classes):
        w.emit(4, f"view[id] = {whole_entry(w, lay)}")
    w.emit(3, "continue")
    w.emit(2, "var d: Dictionary = shown_d")
    for lay in w.by_class(2, "c", schema.classes):
        m = f"m{lay.class_id}"
        if lay.count > 62:
            w.emit(3, f"var {m} := pending.slice(at, at + {(lay.count + 31) // 32})")
        else:
            w.emit(3, f"var {m} := pending[at]")
        if not lay.props:
            w.emit(3, "pass")
        columns = dict(prop_columns(lay))
        for indent, p in masked(w, lay, m, 3):
            cells = [f"{name}[id]" for _, name, _ in columns[p]]
            w.emit(indent, f"d[{json.dumps(p.path)}] = {held_value(w, lay, p, cells)}")
    w.emit(1, "if view.size() != live:")
    w.emit(2, "for id in view.keys():")
    w.emit(3, "if not (cls[id] if id < dn else sparse.has(id)):")
    w.emit(4, "view.erase(id)")
    w.emit(4, "shown.erase(id)")
    w.emit(0, "")
    w.emit(0, "")
    w.emit(0, "func _whole(values: Array) -> Dictionary:")
    w.emit(1, "var c: int = values[-1]")
    for lay in w.by_class(1, "c", schema.classes):
        w.emit(2, f"return _d{lay.class_id}(values)")
    w.emit(1, "return {}")
    w.emit(0, "")
    w.emit(0, "")


RUNTIME = """
## Decodes one packet; returns its tick, or -1 with [member last_error] set (and nothing
## changed). A delta needs the state of its base tick: keep acknowledging [member newest_tick].
func apply(packet: PackedByteArray) -> int:
	last_error = ""
	last_error_path = ""
	if _broken != "":
		return _fail(_broken)
	var size := packet.size()
	if size < 18:
		return _fail("packet of %d bytes is shorter than the 18-byte header" % size)
	if packet[0] != WIRE_VERSION:
		return _fail("packet version %d, expected %d" % [packet[0], WIRE_VERSION])
	var flags := packet[1]
	if flags & ~7:
		return _fail("unknown packet flags 0x%02x" % flags)
	var tick := packet.decode_u32(2)
	var base := packet.decode_u32(6)
	if bool(flags & 2) != (base == 0):
		return _fail("full flag and base tick %d disagree" % base)
	var pos := 18
	if flags & 1:
		if size < 26:
			return _fail("packet truncated in the schema fingerprint")
		var stamp := packet.slice(18, 26).hex_encode()
		if stamp != FINGERPRINT:
			return _fail("schema fingerprint %s is not ours (%s)" % [stamp, FINGERPRINT])
		pos = 26
	var held: Array = _empty
	if base:
		if not _states.has(base):
			var why := "packet for tick %d is a delta from tick %d, which this client lacks"
			return _fail(why % [tick, base])
		held = _states[base]
	# The state being built: a copy of the base's class per id and sparse entities, its
	# column sets (a class's columns are copied when this packet first writes to them), which
	# classes are copied, and the base.
	var st := [held[0].duplicate(), held[1].duplicate(), held[2].duplicate()]
	st.append(_unfresh.duplicate())
	st.append(held)
	var buf := packet.duplicate()
	buf.append_array(_padding)
	var touched := PackedInt64Array()
	var deltas := bool(flags & 4)
	pos = _section(buf, size, pos, packet.decode_u32(10), st, true, deltas, touched)
	if pos < 0:
		return -1
	pos = _section(buf, size, pos, packet.decode_u32(14), st, false, false, touched)
	if pos < 0:
		return -1
	if pos != size:
		return _fail("%d bytes of trailing data after the records" % (size - pos))
	_states[tick] = st.slice(0, 3)
	if tick >= newest_tick:
		newest_tick = tick
		_pending.append_array(touched)
		_stale = true
	for old in _states.keys():
		if old <= newest_tick - history:
			_states.erase(old)
	return tick


## The newest state as [{id: {path: value}}, {id: class id}] with ids ascending, so that
## var_to_bytes of it is canonical (to compare with a server's, or to save). A snapshot:
## later packets do not change it (each entity's Dictionary is a copy of the one in
## [member state], which is updated in place).
func sorted_state() -> Array:
	var view := state
	var ids := view.keys()
	ids.sort()
	var values := {}
	var classes_by_id := {}
	for id in ids:
		values[id] = view[id].duplicate()
		classes_by_id[id] = _view_classes[id]
	return [values, classes_by_id]


## Sets the newest state on nodes instead of reading [member state]: [param nodes] maps entity
## id -> Object (a Node of the game). Each property of entity id that differs from what this
## function last set on nodes[id] is set with Object.set(), by the name in
## [member node_properties]; all of them the first time, or when the node or the entity's
## class changed. Entities without a node, and nodes without an entity, are skipped.
func apply_to_nodes(nodes: Dictionary) -> void:
	var held: Array = _states.get(newest_tick, _empty)
	for id in nodes:
		var v = _entity(held, id)
		if v == null:
			_node_last.erase(id)
			continue
		var node: Object = nodes[id]
		var last = _node_last.get(id)
		var old: Array = []
		if last != null and last[0] == node.get_instance_id() and last[1][-1] == v[-1]:
			if is_same(last[1], v):
				continue
			old = last[1]
		_node_set(node, v, old)
		_node_last[id] = [node.get_instance_id(), v]
	if _node_last.size() > 2 * nodes.size() + 64:
		for id in _node_last.keys():
			if not nodes.has(id):
				_node_last.erase(id)


## Entity [param id]'s values (by flat index, its class id last) in [param held], a kept
## state ([class + 1 by id, columns by class, {id from DENSE_IDS: values}]), or null.
func _entity(held: Array, id: int) -> Variant:
	var cls: PackedInt64Array = held[0]
	if id >= cls.size() - 1:
		return held[2].get(id)
	if cls[id] == 0:
		return null
	return _take(held[1][cls[id] - 1], id, cls[id] - 1)


## The held ordinal of a Coord value: round(v * scale) times 2, or 1 for -0.0.
static func _coord_ordinal(v: float, scale: float) -> int:
	if v == 0.0 and 1.0 / v < 0.0:
		return 1
	return roundi(v * scale) << 1


## The ticks whose states are kept (delta bases), oldest first: any of them may be acked.
func held_ticks() -> Array:
	var ticks := _states.keys()
	ticks.sort()
	return ticks


## The class (table) name of entity [param id] in [member state], or "" if absent.
func class_of(id: int) -> String:
	var c = classes.get(id)
	return "" if c == null else CLASS_NAMES[c]


func _fail(message: String, id: int = -1) -> int:
	last_error = message
	last_error_path = "entity[%d]" % id if id >= 0 else ""
	return -1


func _bad(id: int, cls: String, path: String, message: String) -> int:
	last_error = "entity %d (%s) property %s: %s" % [id, cls, path, message]
	last_error_path = "entity[%d].%s" % [id, path]
	return -1


## U+FEFF (a BOM), which get_string_from_utf8() drops from the start of a string: a Str that
## starts with one gets it back.
const BOM := "\\uFEFF"


## Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF) without NUL,
## checked here because get_string_from_utf8() replaces bad bytes instead of failing.
static func _utf8_ok(raw: PackedByteArray) -> bool:
	var i := 0
	var size := raw.size()
	while i < size:
		var b := raw[i]
		var more := 0
		var low := 0x80
		var high := 0xBF
		if b == 0:
			return false
		elif b < 0x80:
			i += 1
			continue
		elif b >= 0xC2 and b <= 0xDF:
			more = 1
		elif b >= 0xE0 and b <= 0xEF:
			more = 2
			if b == 0xE0:
				low = 0xA0
			elif b == 0xED:
				high = 0x9F
		elif b >= 0xF0 and b <= 0xF4:
			more = 3
			if b == 0xF0:
				low = 0x90
			elif b == 0xF4:
				high = 0x8F
		else:
			return false
		if i + more >= size:
			return false
		for k in more:
			var c := raw[i + 1 + k]
			if c < (low if k == 0 else 0x80) or c > (high if k == 0 else 0xBF):
				return false
		i += more + 1
	return true
"""
