"""Which Dictionary keys an engine holds as one key, per engine line, as data.

Our Dictionary keeps every pair as written, so bytes come back as they went in. The engine
keeps its keys in a hash map with its own idea of equality and folds two written pairs with
equal keys into one (the first key's place, the last value). The lines differ: Godot 4
compares Dictionaries by value, so two ``{}`` keys that Godot 3 kept apart (it compares
Dictionaries by identity) are one key once Godot 4 reads them. :func:`key_token` gives a
token that is equal for two keys exactly when the engine holds them as one, and
``convert`` refuses the keys the target would fold (``gdvariant._cli._portability.problems``).

Checked against Godot 4.6.3, 3.6.2 and 3.2.3 by ``tests/live/codec/test_dictionary_keys.py``:

- both lines compare types strictly (``1``, ``1.0`` and ``true`` are three keys) and take
  ``-0.0`` for ``0.0``; NaN matches NaN as a key and inside math values and packed arrays;
- Godot 4 compares Arrays (ignoring their element type) and Dictionaries by value; a String
  key and a StringName key are one; a float or string inside an Array or as a Dictionary value
  compares strictly (``[NAN]`` twice is two keys, ``["a"]`` and ``[&"a"]`` are two);
- Godot 3 compares Arrays and math values by content, NaN matching NaN at any depth, and a
  Dictionary only by identity: a key holding a Dictionary anywhere matches no other key.

Objects (and object ids, which decode to a fresh object) match only themselves in both lines.
Every 4.x profile uses the rules checked on 4.6.3, every 3.x profile those of 3.2.3 and 3.6.2;
Godot 2 and Pandemonium are not checked, so their profiles name no rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .._values.base import GodotObject, ObjectID, StringName
from .._values.collections import Dictionary
from .._values.packed import PackedView

__all__ = ["RULES", "KeyRules", "key_token"]

#: Where a value stands inside a key: the key itself (or a key of a Dictionary inside it), an
#: element (of an Array, or a Dictionary's value), or a component of a math value or packed array.
_KEY, _ELEMENT, _PART = 0, 1, 2


@dataclass(frozen=True)
class KeyRules:
    """One engine line's Dictionary key equality."""

    #: Dictionaries compare by content (Godot 4); else by identity (Godot 3).
    dictionaries_by_value: bool
    #: A String key and a StringName key with the same text are one key (Godot 4).
    strings_merge: bool
    #: A float or string that is an element compares strictly (NaN never matches, a String
    #: never matches a StringName); else NaN matches NaN at any depth (Godot 3).
    strict_elements: bool


#: Profile ``key_rules`` name -> rules; a profile with ``""`` is not checked.
RULES = MappingProxyType(
    {
        "godot4": KeyRules(dictionaries_by_value=True, strings_merge=True, strict_elements=True),
        "godot3": KeyRules(dictionaries_by_value=False, strings_merge=False, strict_elements=False),
    }
)


def key_token(key: Any, rules: KeyRules) -> tuple[Any, ...]:
    """A token equal for two keys exactly when the engine holds them as one.

    Flat (each node in pre-order with its child count) and built without recursion, so a key
    nested to Godot's depth limit neither overflows the stack nor makes comparing tokens recurse.
    A part that matches nothing (an object, a Godot 3 Dictionary) is a fresh ``object()``.
    """
    out: list[Any] = []
    stack: list[tuple[Any, int]] = [(key, _KEY)]
    while stack:
        value, place = stack.pop()
        node, children = _node(value, place, rules)
        out.append(node)
        stack.extend(reversed(children))
    return tuple(out)


def _node(value: Any, place: int, rules: KeyRules) -> tuple[Any, list[tuple[Any, int]]]:
    """One value's own atom in :func:`key_token`, and its children with their places."""
    if isinstance(value, float):
        if math.isnan(value):
            strict = rules.strict_elements and place == _ELEMENT
            return (object() if strict else ("nan",)), []
        return ("float", value + 0.0), []  # -0.0 + 0.0 is 0.0
    if isinstance(value, str):
        merge = rules.strings_merge and place == _KEY
        kind = "String" if merge or not isinstance(value, StringName) else "StringName"
        return (kind, str(value)), []
    if value is None or type(value) in (bool, int, bytes):  # bytes: a PackedByteArray
        return (type(value).__name__, value), []
    if isinstance(value, list):  # a TypedArray too: its element type does not count
        return ("Array", len(value)), [(v, _ELEMENT) for v in value]
    if isinstance(value, dict | Dictionary):
        if not rules.dictionaries_by_value:
            return object(), []
        pairs = value.items_list if isinstance(value, Dictionary) else value.items()
        children = [(x, p) for k, v in pairs for x, p in ((k, _KEY), (v, _ELEMENT))]
        return ("Dictionary", len(value)), children
    if isinstance(value, GodotObject | ObjectID):
        return object(), []
    if isinstance(value, PackedView):
        value = value.topacked()
    if isinstance(value, tuple | bytes):  # math values, NodePath, RID..., packed arrays
        parts = list(value)
        return (type(value).__name__, len(parts)), [(v, _PART) for v in parts]
    return (type(value).__name__, repr(value)), []
