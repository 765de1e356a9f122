"""Extract Source SendTables and a published flat order into a replication test fixture.

Reads an svc_DataTables demo packet (type byte 6, i32 tick, i32 length, then a bit stream
of send table descriptions, spec replication.md §3.4) and the JSON flat-prop snapshot that
an independent demo parser committed for the same demo, and writes, for the chosen
classes, the tables each class's flattening needs (reduced to the fields flattening looks
at) together with the published order. Our own ``source_flat_order`` is then checked
against that order in tests/replication/test_source_order.py.

Usage::

    python -m tools.source_send_tables DATATABLES.bin SNAPSHOT.snap OUT.json CITATION CLASS...

CITATION (a sentence naming the repository, paths and commits of both inputs) is stored in
the fixture's ``source`` field.
"""

from __future__ import annotations

import json
import struct
import sys
from typing import Any

# SendProp flag bits of the SDK-2013 / TF2 engine line (public dt_common.h).
EXCLUDE = 1 << 6
INSIDE_ARRAY = 1 << 8
CHANGES_OFTEN = 1 << 10
COLLAPSIBLE = 1 << 12
TYPE_ARRAY = 5
TYPE_DATATABLE = 6


class Bits:
    """LSB-first bit reader (Source's bf_read order)."""

    def __init__(self, data: bytes) -> None:
        self.value = int.from_bytes(data, "little")
        self.pos = 0
        self.size = len(data) * 8

    def read(self, width: int) -> int:
        if self.pos + width > self.size:
            raise ValueError("send table data ends early")
        out = (self.value >> self.pos) & ((1 << width) - 1)
        self.pos += width
        return out

    def string(self) -> str:
        raw = bytearray()
        while (byte := self.read(8)) != 0:
            raw.append(byte)
        return raw.decode("utf-8", "replace")


def parse_tables(packet: bytes) -> dict[str, list[dict[str, Any]]]:
    """``{table name: [prop, ...]}`` from an svc_DataTables demo packet."""
    if packet[0] != 6:
        raise ValueError(f"not a DataTables packet (type {packet[0]})")
    _tick, length = struct.unpack_from("<iI", packet, 1)
    bits = Bits(packet[9 : 9 + length])
    tables: dict[str, list[dict[str, Any]]] = {}
    while bits.read(1):
        bits.read(1)  # needs_decoder
        name = bits.string()
        props = []
        for _ in range(bits.read(10)):
            kind = bits.read(5)
            prop_name = bits.string()
            flags = bits.read(16)
            prop: dict[str, Any] = {"name": prop_name}
            if flags & EXCLUDE or kind == TYPE_DATATABLE:
                prop["table"] = bits.string()
            elif kind == TYPE_ARRAY:
                bits.read(10)
            else:
                bits.read(32 + 32 + 7)  # low, high, bit count
            for key, bit in (
                ("exclude", EXCLUDE),
                ("inside_array", INSIDE_ARRAY),
                ("collapsible", COLLAPSIBLE),
                ("changes_often", CHANGES_OFTEN),
            ):
                if flags & bit:
                    prop[key] = True
            props.append(prop)
        tables[name] = props
    return tables


def needed(root: str, tables: dict[str, list[dict[str, Any]]]) -> list[str]:
    """``root`` and every table its data-table props reach, in first-seen order."""
    seen: list[str] = []
    todo = [root]
    while todo:
        name = todo.pop(0)
        if name in seen:
            continue
        seen.append(name)
        todo.extend(p["table"] for p in tables[name] if "table" in p and not p.get("exclude"))
    return seen


def read_snapshot(path: str) -> dict[str, list[str]]:
    """The JSON object after the ``---`` front matter of an insta snapshot."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return dict(json.loads(text.split("---", 2)[2]))


def main() -> None:
    packet_path, snapshot_path, out_path, citation, *classes = sys.argv[1:]
    with open(packet_path, "rb") as f:
        tables = parse_tables(f.read())
    published = read_snapshot(snapshot_path)
    fixture = {
        "source": citation,
        "classes": {
            name: {
                "tables": {t: tables[t] for t in needed(name, tables)},
                "published_order": published[name],
            }
            for name in classes
        },
    }
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump(fixture, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
