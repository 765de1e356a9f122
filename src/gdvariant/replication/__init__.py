"""Networked entity state from a schema: flattened property tables, snapshots and deltas.

Declare networked classes with :class:`NetClass` and codecs, build a :class:`Schema`
(flattening, class ids, fingerprints), keep entities in a :class:`World` (property writes mark
them dirty), and turn ticks into per-client packets with :class:`SnapshotEncoder`; a
:class:`SnapshotDecoder` applies them. An :class:`Interest` (a grid over a position property,
areas per client, always-relevant entities, a predicate) sends each client only what is
relevant to it. ``World(schema, rewind=K)`` keeps the last ``K`` ticks, and
:meth:`World.at` gives a :class:`Rewound` view of a past tick for lag compensation. Sans-I/O:
bytes in, bytes out. The wire format is
specified in ``docs/replication-wire.md``. :data:`IMPLEMENTATION` (also :func:`assembler`)
names the live packet assembler, as ``gdvariant.IMPLEMENTATION`` names the codec core: ``"c"``
(compiled, ``_cassemble``) or ``"python"`` (set ``GDVARIANT_PURE_PYTHON=1`` to force it), and
:func:`write_path` the live ``NetClass`` write path (compiled, ``_cwrite``, or pure) the same way.
"""

from __future__ import annotations

from ._assembler import IMPLEMENTATION, assembler
from ._codecs import (
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    EntityRef,
    Enum,
    Int,
    Str,
    UInt,
    Variant,
    VarInt,
    VarUInt,
)
from ._declarations import Array, Embed, Exclude, NetClass, Prop, SchemaError
from ._fingerprint import codec_from_description
from ._flatten import MAX_FLAT_PROPS, FlatProp
from ._float_codecs import (
    Angle,
    Coord,
    Float32,
    Float64,
    Half,
    Normal,
    Quant,
    Quat,
    Vec2,
    Vec3,
    Vec4,
)
from ._interest import Interest
from ._load import load_schema
from ._rewind import Rewound
from ._schema import ClassLayout, Schema
from ._snapshot_decoder import EntityState, SnapshotDecoder
from ._snapshot_encoder import AckError, Client, SnapshotEncoder
from ._source_order import SourceProp, SourceTable, source_flat_order
from ._world import World
from ._write_path import write_path
from .gdscript import godot_state, godot_value

__all__ = [
    "IMPLEMENTATION",
    "MAX_FLAT_PROPS",
    "AckError",
    "Angle",
    "Array",
    "ArrayOf",
    "Bool",
    "Bytes",
    "ClassLayout",
    "Client",
    "Codec",
    "Coord",
    "Embed",
    "EntityRef",
    "EntityState",
    "Enum",
    "Exclude",
    "FlatProp",
    "Float32",
    "Float64",
    "Half",
    "Int",
    "Interest",
    "NetClass",
    "Normal",
    "Prop",
    "Quant",
    "Quat",
    "Rewound",
    "Schema",
    "SchemaError",
    "SnapshotDecoder",
    "SnapshotEncoder",
    "SourceProp",
    "SourceTable",
    "Str",
    "UInt",
    "VarInt",
    "VarUInt",
    "Variant",
    "Vec2",
    "Vec3",
    "Vec4",
    "World",
    "assembler",
    "codec_from_description",
    "godot_state",
    "godot_value",
    "load_schema",
    "source_flat_order",
    "write_path",
]
