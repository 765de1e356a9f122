"""What the command line's tests share: a sample value and its text, hand-made bytes a
decoder must refuse, and the values read back from what a command printed."""

from __future__ import annotations

import io
import struct
from typing import Any

import gdvariant as gd
from gdvariant import Vector3

NAMESPACE: dict[str, Any] = dict(vars(gd))
SAMPLE: Any = [7, "move", Vector3(1, 2, 3), {"seq": 42, "tags": ["a", "b"]}]
SAMPLE_TEXT = '[7, "move", Vector3(1, 2, 3), {"seq": 42, "tags": ["a", "b"]}]'

# Spec §5.2: a full Object: header 24 (bit 16 clear), class name String, property count.
FULL_OBJECT = struct.pack("<II4sI", 24, 4, b"Node", 0)
# An Array of 1 whose only element (an INT header at offset 8) has no payload.
TRUNCATED = struct.pack("<III", 28, 1, 2)


def printed_value(out: str) -> Any:
    """The value printed by ``decode``: one line of Godot text."""
    assert out.endswith("\n") and out.count("\n") == 1, out
    return gd.from_text(out)


def python_value(out: str) -> Any:
    """The value printed by ``decode --format python``."""
    return eval(out, NAMESPACE)


def store_var_records(values: list[Any], **options: Any) -> bytes:
    """``values`` as ``store_var`` records, one after another."""
    out = io.BytesIO()
    gd.dump_all(values, out, **options)
    return out.getvalue()


def printed_records(out: str) -> list[Any]:
    """The values ``decode`` printed, one record per line."""
    return [gd.from_text(line) for line in out.splitlines()]
