"""The committed vectors the engines wrote (``tests/vectors/godot*/golden.jsonl``, made by
``python -m tools.make_golden_vectors``) read one way for every test, and the names among the
vectors that the tests treat apart."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from tests.support.paths import VECTORS

#: The engine releases that wrote golden vectors, newest first.
GOLDEN_RELEASES = ("4.6", "3.6", "3.2")

#: Golden records whose value the bytes cannot carry, so no text of the decoded value can be
#: the engine's: Godot's decoder drops a String's leading BOM; a script's non-exported
#: variables and a freed Object key exist only in the engine's memory.
NOT_IN_BYTES = frozenset(
    {"string_bom_leading", "string_bom_only", "obj_with_script", "obj_freed_as_dict_key"}
)

#: Derived vectors (``tests/vectors/derived/``) where we differ from the engine on purpose
#: (README, "Deliberate differences"), each checked by its own test in
#: tests/binary/test_derived_vectors.py instead of the generic one.
DELIBERATE = {
    "String padding missing at end of buffer (2.0 accepts)": "we require String padding",
    "Image data size mismatch -> empty Image": "we keep an Image's data as written",
    "NodePath ':prop' (no names) decodes empty": "we keep the NodePath as written",
    "NodePath '/' (absolute, no names) decodes empty": "we keep the NodePath as written",
    "NodePath 'a/b:s:p' hits the encoder subname-index bug": "we write the right subnames",
    "Dictionary {'a':1} unshared": "we write the shared bit of GDScript literals",
    "Array [1] unshared": "we write the shared bit of GDScript literals",
    "Array [1,'a',null]": "we write the shared bit of GDScript literals",
    "TypedArray<int> drops a float element [G3]": "we keep wrong-typed elements",
}


@cache
def _golden_lines(release: str) -> tuple[str, ...]:
    path = VECTORS / f"godot{release}" / "golden.jsonl"
    return tuple(path.read_text(encoding="utf-8").splitlines())


def golden_header(release: str) -> dict[str, Any]:
    """The first line of a golden file: which engine wrote it, with what seed and count."""
    header: dict[str, Any] = json.loads(_golden_lines(release)[0])
    return header


def golden(release: str) -> list[dict[str, Any]]:
    """The records Godot ``release`` wrote (a fresh list of fresh dicts each call): name, both
    byte forms, the text form and an exact typed description of the value."""
    return [json.loads(line, strict=False) for line in _golden_lines(release)[1:]]
