"""The generated decoder's record reading: change lists, property dispatch, sections.

``class_function`` writes ``_c<id>``, the checked reader of one record's change list and
values of one class; ``section`` writes ``_section``, which walks a section's records (header,
op, entity id, class; its fixed text is in the template) and reads each inline with
``fast_record``. ``masked`` writes the per-property tests of a change mask, shared with the
``state`` view's publisher.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .._codecs import Bool, EntityRef
from .._delta import ScalarDelta
from ._columns import load_columns, prop_columns
from ._value_reads import (
    delta,
    holds_ordinals,
    ordinal_delta,
    ordinal_read,
    read_value,
    straight_bits,
)

if TYPE_CHECKING:
    from .._flatten import FlatProp
    from .._schema import ClassLayout, Schema
    from ._lines import Writer

__all__ = [
    "DENSE_IDS",
    "FAST_RUN_BITS",
    "MASK_GROUPS",
    "RECORD_START_BITS",
    "baseline_bits",
    "class_function",
    "code_bits",
    "fast_record",
    "fast_run_bits",
    "masked",
    "section",
    "touch",
]

# Nested sizes of the groups of properties tested together before their own bits (a sparse
# mask skips a group with one test). Measured in Godot 4.6 on the benchmark's deltas:
# groups of 4 a little faster than 8, or 16 then 4.
MASK_GROUPS = (4,)

# Entity ids below this are kept in an Array indexed by id (the servers of this package
# hand out the lowest free id, so ids stay below the most entities alive at once); copying
# and indexing it is much cheaper than a Dictionary's. Larger ids go to a Dictionary.
DENSE_IDS = 1 << 16

# The bits a record's reader holds when it starts (``n = 32 - (at & 7)``, at least 25): the
# first entries of a gap list are read from them with no refill.
RECORD_START_BITS = 25

# The fast path reads up to this many bits between two bounds checks (the zero padding after
# the packet covers them); a class whose whole record can be longer checks after each property.
FAST_RUN_BITS = 4096


def class_function(w: Writer, lay: ClassLayout) -> None:
    """``_c<id>(buf, s, end, id, values, delta) -> int``: the change list and values of one
    record of this class from bit ``s`` into ``values`` (by flat index); the bit after them,
    or -1 with ``last_error`` set. With ``delta`` (a shared update record) the codecs that
    allow it read a value delta against ``values``. It checks everything the Python decoder
    checks, in its order: the baselines at start-up and a record whose fast path failed."""
    name = lay.name
    wide = lay.count > 62
    w.emit(0, f"# {name}: class {lay.class_id}, {lay.count} properties")
    w.emit(
        0,
        f"func _c{lay.class_id}(buf: PackedByteArray, s: int, end: int, id: int, "
        "values: Array, delta: bool) -> int:",
    )
    w.emit(1, "var bp := s >> 3")
    w.emit(1, "var acc := buf[bp] >> (s & 7)")
    w.emit(1, "var n := 8 - (s & 7)")
    w.emit(1, "bp += 1")
    words = (lay.count + 31) // 32
    if wide:
        w.emit(1, "var mask := PackedInt64Array()")
        w.emit(1, f"mask.resize({words})")
    else:
        w.emit(1, "var mask := 0")
    selector = w.read(1, 1)
    w.emit(1, f"if {selector}:")
    w.emit(2, "var p := -1")
    truncated = f'return _fail("packet truncated in entity %d ({name})\'s change list" % id, id)'
    w.emit(2, "while true:")
    w.emit(3, "if (bp << 3) - n > end:")
    w.emit(4, truncated)
    more = w.read(3, 1)
    w.emit(3, f"if not {more}:")
    w.emit(4, "break")
    gap = w.read(3, lay.index_bits)
    w.emit(3, f"p += 1 + {gap}")
    w.emit(3, f"if p >= {lay.count}:")
    w.emit(
        4,
        f'return _fail("entity %d ({name}): index %d is past its {lay.count} properties" '
        "% [id, p], id)",
    )
    w.emit(3, "mask[p >> 5] |= 1 << (p & 31)" if wide else "mask |= 1 << p")
    w.emit(1, "else:")
    if lay.count == 0:
        w.emit(2, "pass")
    for k in range(words):
        width = min(32, lay.count - 32 * k)
        piece = w.read(2, width)
        w.emit(2, f"mask[{k}] = {piece}" if wide else f"mask |= {piece} << {32 * k}")
    w.emit(1, "if (bp << 3) - n > end:")
    w.emit(2, truncated)
    props(w, lay, check=True)
    w.emit(1, "return (bp << 3) - n")
    w.emit(0, "")
    w.emit(0, "")


def props(
    w: Writer,
    lay: ClassLayout,
    *,
    check: bool,
    mask: str = "mask",
    at: int = 1,
    deltas: bool | None = None,
    columns: bool = False,
) -> None:
    """Each property's read under its bit of ``mask``: a value delta against the held value
    where the codec allows it and ``deltas`` is true, a whole value where it is false, and
    either by the GDScript ``delta`` flag where it is None. The values go to the Array
    ``values`` by flat index, or with ``columns`` to row ``row`` of the class's columns (in
    their stored form, ``_columns``). ``check``: a bounds check after each
    property."""
    locals_ = dict(prop_columns(lay)) if columns else {}
    for indent, prop in masked(w, lay, mask, at):
        where = (lay.name, prop.path)
        coder = lay.deltas[prop.index]
        if columns and holds_ordinals(coder):
            _ordinals(w, indent, lay, prop, [f"{n}[row]" for _, n, _ in locals_[prop]], deltas)
            if check:
                w.check_end(indent, where)
            continue
        slot = f"{locals_[prop][0][1]}[row]" if columns else f"values[{prop.index}]"
        if coder is not None and deltas:
            value = delta(w, indent, coder, slot, where, typed=columns)
            w.emit(indent, f"{slot} = {value}")
            if check:
                w.check_end(indent, where)
            continue
        if deltas is not None:
            coder = None
        if coder is not None:
            w.emit(indent, "if delta:")
            value = delta(w, indent + 1, coder, slot, where)
            w.emit(indent + 1, f"{slot} = {value}")
            w.emit(indent, "else:")
            indent += 1
        if columns and isinstance(prop.codec, Bool | EntityRef):
            value = w.read(indent, 1 if isinstance(prop.codec, Bool) else prop.codec.bits)
        else:
            value = read_value(w, indent, prop.codec, where)
        w.emit(indent, f"{slot} = {value}")
        if coder is not None:
            indent -= 1
        if check:
            w.check_end(indent, where)


def _ordinals(
    w: Writer, indent: int, lay: ClassLayout, prop: FlatProp, cells: list[str], deltas: bool | None
) -> None:
    """The read of a property held as ordinals (``holds_ordinals``) into its column entries
    ``cells``, one per component: value deltas against them where ``deltas``, else whole
    values."""
    coder = lay.deltas[prop.index]
    assert coder is not None and deltas is not None
    where = (lay.name, prop.path)
    for part, cell in zip(coder.parts, cells, strict=True):
        assert isinstance(part, ScalarDelta)
        if deltas:
            value = ordinal_delta(w, indent, part, cell, where)
        else:
            value = ordinal_read(w, indent, part.codec)
        w.emit(indent, f"{cell} = {value}")


def masked(
    w: Writer, lay: ClassLayout, mask: str = "mask", at: int = 1
) -> Iterator[tuple[int, FlatProp]]:
    """Emit ``if mask & bit:`` per property, in index order, and yield (indent, property)
    for the caller to fill in. With more than 8 properties, each group of 8 sits under one
    test of the group's byte: a sparse mask (the usual delta) skips most tests. ``mask`` names
    the variable and ``at`` is the indent of the outer tests."""
    wide = lay.count > 62

    def test(i: int, bits: int) -> str:
        if wide:
            return f"{mask}[{i >> 5}] & {bits << (i & 31)}"
        return f"{mask} & {bits << i}"

    levels = [size for size in MASK_GROUPS if lay.count > size]
    for prop in lay.props:
        i = prop.index
        indent = at
        for size in levels:
            if i % size == 0:
                w.emit(indent, f"if {test(i, (1 << min(size, lay.count - i)) - 1)}:")
            indent += 1
        w.emit(indent, f"if {test(i, 1)}:")
        yield indent + 1, prop


def baseline_bits(lay: ClassLayout) -> bytes:
    """A change list naming every property (bitmask), then each default's bits: what
    ``_c<id>`` decodes at start-up into the class baseline."""
    acc, n = ((1 << lay.count) - 1) << 1, 1 + lay.count
    for bits, width in zip(lay.base_bits, lay.base_widths, strict=True):
        acc |= bits << n
        n += width
    return acc.to_bytes((n + 7) >> 3, "little")


def _record_bits(lay: ClassLayout) -> tuple[int, int]:
    """The most bits a record of ``lay`` takes in its change list (a gap list of every
    index, or the bitmask) and in its values (each at most its codec's longest run between
    checks plus a value delta's prefixes)."""
    changes = max(2 + lay.count * (1 + lay.index_bits), 1 + lay.count)
    return changes, sum(straight_bits(p.codec) + 3 * 4 for p in lay.props)


def _checked_each(lay: ClassLayout) -> bool:
    """Whether the fast path of ``lay`` checks bounds after each property (a long record)."""
    return sum(_record_bits(lay)) > FAST_RUN_BITS


def fast_run_bits(lay: ClassLayout) -> int:
    """The longest run of bits the fast path of ``lay`` reads without a bounds check: the
    whole record, or for a long one (``_checked_each``) its change list."""
    changes, values = _record_bits(lay)
    return changes if _checked_each(lay) else changes + values


def fast_record(w: Writer, lay: ClassLayout, indent: int, bail: str) -> None:
    """Inline read of one record of ``lay`` into row ``row`` of the class's columns (the
    locals ``k<class>_<index>``), for the section loop, from the reader the section started
    at the record's bits (with ``RECORD_START_BITS`` in it). No call, the first
    entries of a gap list unrolled and each later one's gap and flag taken in one read, and
    one bounds check at the record's end (or after each property, for a class whose record
    can be longer than ``FAST_RUN_BITS``). A failed check returns ``bail``, which re-reads
    the record with ``_c<id>`` to name the error: the fast path checks a subset of what
    ``_c<id>`` checks, at the same bits, so ``_c<id>`` fails at or before the point where it
    did. Leaves the mask in ``m<id>``, the record's end bit in ``e`` and the reader after
    the record."""
    c, count = lay.class_id, lay.count
    wide = count > 62
    m = f"m{c}"
    w.bail = bail
    words = (count + 31) // 32
    if wide:
        w.emit(indent, f"var {m} := PackedInt64Array()")
        w.emit(indent, f"{m}.resize({words})")
    else:
        w.emit(indent, f"var {m} := 0")
    # n >= 25 here (RECORD_START_BITS), so the selector needs no refill.
    w.emit(indent, "if acc & 1:")
    step = 1 + lay.index_bits
    # As many entries as fit in those bits, and no more than a list of distinct indices holds.
    unrolled = 0 if wide else min(count, (RECORD_START_BITS - 1) // step)
    inner = _unrolled_changes(w, indent + 1, lay, m, unrolled, bail)
    if unrolled:
        w.emit(inner, f"acc >>= {1 + unrolled * step}")
        w.emit(inner, f"n -= {1 + unrolled * step}")
    else:
        w.emit(inner, "acc >>= 1")
        w.emit(inner, "n -= 1")
        w.emit(inner, "var p := -1")
    w.emit(inner, "while true:")
    if step <= 32:
        g = w.tmp()
        w.fill(inner + 1, "refill", bits=step)
        w.emit(inner + 1, f"var {g} := acc & {(1 << step) - 1}")
        w.emit(inner + 1, f"if not {g} & 1:")
        w.emit(inner + 2, "acc >>= 1")
        w.emit(inner + 2, "n -= 1")
        w.emit(inner + 2, "break")
        w.emit(inner + 1, f"acc >>= {step}")
        w.emit(inner + 1, f"n -= {step}")
        w.emit(inner + 1, f"p += 1 + ({g} >> 1)")
    else:
        more = w.read(inner + 1, 1)
        w.emit(inner + 1, f"if not {more}:")
        w.emit(inner + 2, "break")
        w.emit(inner + 1, f"p += 1 + {w.read(inner + 1, lay.index_bits)}")
    w.emit(inner + 1, f"if p >= {count}:")
    w.emit(inner + 2, f"return {bail}")
    w.emit(inner + 1, f"{m}[p >> 5] |= 1 << (p & 31)" if wide else f"{m} |= 1 << p")
    for k in reversed(range(unrolled)):  # the list ended after entry k: its 0 flag taken
        w.emit(indent + 1 + k, "else:")
        w.emit(indent + 2 + k, f"acc >>= {2 + k * step}")
        w.emit(indent + 2 + k, f"n -= {2 + k * step}")
    w.emit(indent, "else:")
    w.emit(indent + 1, "acc >>= 1")
    w.emit(indent + 1, "n -= 1")
    if count == 0:
        w.emit(indent + 1, "pass")
    for k in range(words):
        piece = w.read(indent + 1, min(32, count - 32 * k))
        if wide:
            w.emit(indent + 1, f"{m}[{k}] = {piece}")
        else:
            w.emit(indent + 1, f"{m} = {piece}" if k == 0 else f"{m} |= {piece} << {32 * k}")
    checked_each = _checked_each(lay)
    if checked_each:
        w.check_end(indent, (lay.name, ""))
    if any(coder is not None for coder in lay.deltas):
        # One body for records with value deltas and one without: no test per property.
        w.emit(indent, "if delta:")
        props(w, lay, check=checked_each, mask=m, at=indent + 1, deltas=True, columns=True)
        w.emit(indent, "else:")
        props(w, lay, check=checked_each, mask=m, at=indent + 1, deltas=False, columns=True)
    else:
        props(w, lay, check=checked_each, mask=m, at=indent, columns=True)
    w.emit(indent, "var e := (bp << 3) - n")
    w.emit(indent, "if e > end:")
    w.emit(indent + 1, f"return {bail}")
    w.bail = None


def _unrolled_changes(
    w: Writer, indent: int, lay: ClassLayout, m: str, entries: int, bail: str
) -> int:
    """The first ``entries`` entries of a gap list, read from the bits already in ``acc``
    (their flags and gaps lie below ``RECORD_START_BITS``) with no refill and no loop: one
    ``if`` per entry's flag, nested. Leaves ``p`` at the last index and returns the indent
    inside the innermost ``if``, where the list goes on (a generic loop); each ``if`` gets
    its ``else`` (the list ended there) from the caller."""
    step = 1 + lay.index_bits
    gap = (1 << lay.index_bits) - 1
    for k in range(entries):
        w.emit(indent + k, f"if acc & {1 << (1 + k * step)}:")
        index = f"(acc >> {2 + k * step}) & {gap}"
        w.emit(indent + k + 1, f"var p := {index}" if k == 0 else f"p += 1 + ({index})")
        w.emit(indent + k + 1, f"if p >= {lay.count}:")
        w.emit(indent + k + 2, f"return {bail}")
        w.emit(indent + k + 1, f"{m} = 1 << p" if k == 0 else f"{m} |= 1 << p")
    return indent + entries


def code_bits(schema: Schema) -> int:
    """The low bits of a ``touched`` entry that hold the record's code (see ``touch``)."""
    return (2 * len(schema.classes)).bit_length()


def touch(schema: Schema, code: str) -> str:
    """The ``touched`` entry of a record of entity ``id``: the id above ``code_bits`` and the
    code (-1 delete, c update of class c, -2 - c enter of class c) plus the class count + 1
    below, one append per record instead of two."""
    return f"(id << {code_bits(schema)}) | ({code} + {len(schema.classes) + 1})"


def _copied(w: Writer, indent: int, lay: ClassLayout) -> None:
    """In ``_section``, once ``sets`` holds this packet's copy of ``lay``'s columns: mark the
    class copied and point its locals at the copies."""
    c = lay.class_id

    def columns(at: int) -> None:
        load_columns(w, at, lay, f"s{c}", declare=False)

    w.fill(indent, "copied", c=c, columns=columns)


def _header_end(w: Writer, indent: int, failure: str) -> None:
    """After a header field read with the bit reader: ``at`` = the bit after it, and
    ``_fail(failure)`` (its arguments, as GDScript) if that is past the packet."""
    w.fill(indent, "header_end", failure=failure)


def _gap(w: Writer, indent: int) -> None:
    """In ``_section``, a record's id gap: its 2-bit size class, then the gap in 4, 8, 16 or
    32 bits (from bit ``at``, after the op and the flag)."""
    w.resync(indent, "at")
    size = w.read(indent, 2)
    for k, width in enumerate((4, 8, 16, 32)):
        w.emit(indent, f"{'if' if k == 0 else 'elif'} {size} == {k}:" if k < 3 else "else:")
        w.emit(indent + 1, f"id += {w.read(indent + 1, width)}")
    _header_end(w, indent, '"packet truncated in a record header at byte %d" % pos')


def _class_id(w: Writer, schema: Schema, indent: int) -> None:
    """In ``_section``, an enter record's class id into ``c`` (none in a one-class schema)."""
    if schema.class_bits:
        w.resync(indent, "at")
        w.emit(indent, f"c = {w.read(indent, schema.class_bits)}")
        _header_end(w, indent, '"packet truncated in entity %d\'s class id" % id, id')


def _record_branches(w: Writer, schema: Schema, indent: int) -> None:
    """In ``_section``, the record once its class ``c`` is known, per class: ``if c ==
    <id>:`` branches, or for a one-class schema the code itself, untested (``c`` can only
    be 0 there)."""
    if len(schema.classes) == 1:
        _record(w, schema.classes[0], indent)
        return
    for lay in w.by_class(indent, "c", schema.classes):
        _record(w, lay, indent + 1)


def _record(w: Writer, lay: ClassLayout, indent: int) -> None:
    """In ``_section``, a record of ``lay``: its columns copied (on the class's first record
    in this packet), then read inline by ``fast_record``, its mask queued."""
    c = lay.class_id
    w.fill(indent, "record_start", c=c, copied=lambda at: _copied(w, at, lay))
    bail = "_recheck(buf, at if slow else (pos << 3) + 3, end, id, delta, c, st)"
    fast_record(w, lay, indent, bail)
    w.fill(indent, "record_end", c=c, append="append_array" if lay.count > 62 else "append")


def section(w: Writer, schema: Schema) -> None:
    """``_section``: one section's records, each read up to its class, then inline by
    ``fast_record`` into the class's columns (``_columns``). The usual record header (an id
    gap of 0) is the low 3 bits of the record's first byte, read without the bit reader;
    any other record (``slow``) has its op, id gap and class read, and a delete ends there.
    ``st`` is the state being built, ``[cls, sets, sparse, fresh, base]``: the first three
    as a kept state, ``fresh`` per class 1 once this packet copied its columns (``sets``
    holds the copies), and ``base`` the kept state of the base tick. A record of an entity
    at or past ``DENSE_IDS`` goes through the scratch row. ``touched`` gets ``touch`` and the
    mask words per record (see ``publish``); ``_recheck`` re-reads a record whose fast path
    failed with its checked twin."""

    def class_locals(indent: int) -> None:
        for lay in schema.classes:
            c = lay.class_id
            w.emit(indent, f"var f{c} := fresh[{c}] == 1")
            w.emit(indent, f"var s{c}: Array = sets[{c}]")
            load_columns(w, indent, lay, f"s{c}", declare=True)

    def copy_all(indent: int) -> None:
        for lay in schema.classes:
            _copied(w, indent, lay)

    w.fill(
        0,
        "section",
        class_locals=class_locals,
        gap=lambda indent: _gap(w, indent),
        touch_delete=touch(schema, "-1"),
        touch_update=touch(schema, "c"),
        class_id=lambda indent: _class_id(w, schema, indent),
        class_count=len(schema.classes),
        dense_ids=DENSE_IDS,
        dense_rows=DENSE_IDS + 1,
        copy_all=copy_all,
        touch_enter=touch(schema, "-2 - c"),
        records=lambda indent: _record_branches(w, schema, indent),
        rechecks=w.cases(
            "c", schema.classes, lambda lay: f"_c{lay.class_id}(buf, s, end, id, values, delta)"
        ),
    )
