"""Values as the generated decoder holds them: what a test compares its state with."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._codecs import ArrayOf, Codec, Enum, UInt, VarUInt

if TYPE_CHECKING:
    from .._schema import Schema
    from .._snapshot_decoder import EntityState

__all__ = ["changes_values", "godot_state", "godot_value"]

#: the codecs some of whose values :func:`godot_value` changes
_CONVERTING = (Enum, ArrayOf, UInt, VarUInt)


def changes_values(codec: Codec) -> bool:
    """Whether :func:`godot_value` may change a value ``codec`` decodes (else every value
    is already as Godot holds it, and a caller can skip the call)."""
    return isinstance(codec, _CONVERTING)


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
