"""Our side of each engine-disagreement class in ``tests/vectors/differential/classes.json``.

The live test (``tests/live/codec/test_differential.py``) checks the engine's side of every example;
this one, which needs no engine, checks what each class says about us: we refuse the input
(as invalid, or as a conversion we do not model), or we keep exactly what was written
(decode -> encode gives the bytes back).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import gdvariant as gd
from tests.support import differential
from tests.support.differential import CLASSES
from tests.support.godot_describe import canon

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

EXAMPLES = [
    (version, name, example)
    for version, classes in CLASSES.items()
    if not version.startswith("_")
    for name, spec in classes.items()
    for example in spec["examples"]
]


def test_every_class_is_explained_and_has_examples() -> None:
    for version, classes in CLASSES.items():
        if version.startswith("_"):
            continue
        for name, spec in classes.items():
            assert len(spec["why"]) > 80, name
            assert spec["examples"], f"{version} {name} has no example"


def _changes(normalise: Callable[[Any], Any]) -> Callable[[Any], bool]:
    return lambda value: canon(normalise(value)) != canon(value)


#: What each class says we keep, as a check on our decoded value.
KEPT: dict[str, Callable[[Any], bool]] = {
    "dictionary_keeps_duplicate_keys": _changes(differential.merge_duplicate_keys),
    "object_types_named_encoded_as_id": _changes(differential.name_objects_as_id),
    "godot3_root_path_becomes_relative": _changes(differential.root_path_as_relative),
}


@pytest.mark.parametrize(("version", "name", "example"), EXAMPLES)
def test_we_do_what_the_class_says(version: str, name: str, example: str) -> None:
    data = bytes.fromhex(example)
    if name == "godot3_accepts_invalid_utf8":
        with pytest.raises(gd.DecodeError, match="invalid UTF-8"):
            gd.decode(data, version=version)
        return
    if name == "unmodelled_element_conversion":
        with pytest.raises(gd.DecodeError, match="does not model") as caught:
            gd.decode(data, version=version)
        assert caught.value.code == gd.GodotError.ERR_UNAVAILABLE
        return
    value, _ = gd.decode(data, version=version)
    assert KEPT[name](value), "what the engine changes is still in our value"
    # Only var_to_bytes_with_objects writes an object-typed container's own class name.
    full = name == "object_types_named_encoded_as_id"
    data = gd.dumps(value, version=version, full_objects=full)
    again = gd.loads(data, version=version, allow_objects=full)
    assert canon(again) == canon(value), "our value survives our own round trip"
