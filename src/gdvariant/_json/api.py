"""``to_json`` / ``from_json``: Godot values as JSON text, in two dialects.

``dialect="tagged"`` (the default) is gdvariant's lossless form (:mod:`.tagged`; the
rules are in ``docs/json.md`` and its JSON Schema ships as
``gdvariant/schemas/tagged-json.schema.json``). ``dialect="godot"`` is the form of Godot 4.4+'s
``JSON.from_native`` / ``JSON.to_native`` (:mod:`.godot`).
"""

from __future__ import annotations

import json
import json.scanner
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from .._errors import EncodeError, JSONError
from . import core
from .godot import compiled_plan, compiled_read_plan, from_native_tree, stringify, to_native_value
from .godot_parse import GodotJSONSyntaxError, parse
from .tagged import Bad
from .tagged_read import compiled_plan as tagged_read_plan
from .tagged_read import from_tree, object_pairs
from .tagged_write import compiled_plan as tagged_plan
from .tagged_write import to_tree

__all__ = ["from_json", "to_json"]

Dialect = Literal["tagged", "godot"]

#: Deepest JSON nesting read: the tagged form of a value at Godot's own limit (1024 nested
#: containers) is at most three JSON levels per container (a Dictionary's items, a pair, the
#: value).
MAX_JSON_DEPTH = 3 * 1024 + 8
_SURROGATE = re.compile("[\ud800-\udfff]")
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


@contextmanager
def _deep(frames: int) -> Iterator[None]:
    """Room for ``frames`` more Python frames (deep values recurse once per level)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, frames + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _check_dialect(dialect: str) -> None:
    if dialect not in ("tagged", "godot"):
        raise ValueError(f'dialect must be "tagged" or "godot", not {dialect!r}')


def to_json(
    value: Any,
    *,
    dialect: Dialect = "tagged",
    indent: int | str | None = None,
    full_objects: bool = False,
) -> str:
    """``value`` as JSON text.

    ``dialect="tagged"``: gdvariant's lossless form, which :func:`from_json` reads back to a
    value with the same bytes (``dumps``) in every engine version. JSON's own values stay
    plain (ints, strings, bools, null, floats, arrays, String-keyed objects), the rest are
    objects tagged with ``"$type"``; ``docs/json.md`` has the rules and the JSON Schema.

    ``dialect="godot"``: exactly the text of Godot 4.4+'s ``JSON.stringify(JSON.from_native(
    value, full_objects), indent)``, e.g. ``"i:5"``, ``{"args":[1.0,2.0],"type":"Vector2"}``.
    It is lossy where Godot's form is (``"f:"`` floats keep 14 decimals, bare float args
    about 15 digits; RID, Callable and Signal keep nothing) and has only Godot 4's types.

    ``indent`` pretty-prints (tagged: as :func:`json.dumps` does; godot: a string, as
    ``JSON.stringify`` does). Raises :class:`EncodeError` for a value the dialect cannot
    hold (in the Godot dialect also an Object without ``full_objects``, which Godot would
    silently write as null).
    """
    _check_dialect(dialect)
    try:
        with _deep(8 * 1024):
            if dialect == "godot":
                return _godot_text(value, full_objects, _indent_text(indent))
            text = _tagged_text(value, indent)
    except TypeError as exc:
        raise EncodeError(str(exc)) from None
    except RecursionError:
        raise EncodeError("the value is nested too deeply to write as JSON") from None
    if text.isascii():  # known at once, and the compiled writers' texts mostly are
        return text
    # Lone surrogates (Godot 3 Strings may hold them) as \u escapes, so the text encodes.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _tree_text(tree: Any, indent: int | str | None) -> str:
    try:
        return json.dumps(tree, ensure_ascii=False, allow_nan=False, indent=indent)
    except RecursionError:  # CPython's C encoder has a depth cap of its own
        encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=indent)
        return "".join(encoder.iterencode(tree, _one_shot=False))


def _tagged_text(value: Any, indent: int | str | None) -> str:
    """The tagged form's text: without indent, by the live writer (:mod:`.core`), which
    hands values back to the pure path (``to_tree``, then ``json.dumps``)."""
    if indent is None:
        text = core.write_tagged(value, tagged_plan(), lambda part: _tree_text(to_tree(part), None))
        if text is not NotImplemented:
            return str(text)
    return _tree_text(to_tree(value), indent)


def _godot_text(value: Any, full_objects: bool, indent: str) -> str:
    """``JSON.stringify(JSON.from_native(value, full_objects), indent)``: without indent, by
    the live writer (:mod:`.core`), which hands values back to the pure path."""

    def fallback(part: Any) -> str:
        return stringify(from_native_tree(part, full_objects), "")

    if not indent:
        text = core.write(value, compiled_plan(), fallback)
        if text is not NotImplemented:
            return str(text)
    return stringify(from_native_tree(value, full_objects), indent)


def _indent_text(indent: int | str | None) -> str:
    if indent is None:
        return ""
    return " " * indent if isinstance(indent, int) else indent


def _depth(text: str) -> int:
    """The deepest bracket nesting of JSON text (strings skipped)."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _reject_constant(name: str) -> Any:
    raise Bad(f'{name} is not JSON; a non-finite float is {{"$type": "float", "value": ...}}')


def _parse(text: str) -> Any:
    """Standard JSON, strictly: objects as pairs, no NaN/Infinity, no raw control characters."""
    decoder = json.JSONDecoder(object_pairs_hook=object_pairs, parse_constant=_reject_constant)
    try:
        return decoder.decode(text)
    except RecursionError:  # CPython's C scanner has a depth cap of its own
        decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
        return decoder.decode(text)


def _line_column(text: str, position: int) -> tuple[int, int]:
    line = text.count("\n", 0, position) + 1
    return line, position - (text.rfind("\n", 0, position) + 1) + 1


def from_json(
    text: str | bytes,
    *,
    dialect: Dialect = "tagged",
    allow_objects: bool = False,
) -> Any:
    """The value that JSON text stands for.

    ``dialect="tagged"`` reads :func:`to_json`'s form (and any JSON: plain values read as
    themselves). ``dialect="godot"`` reads ``JSON.from_native``'s form as Godot's
    ``JSON.to_native(JSON.parse_string(text))`` does, Godot's lenient JSON syntax included
    (where Godot logs an error and gives null, this raises); objects
    need ``allow_objects=True`` there and come back as :class:`GodotObject` records.
    Malformed input raises :class:`JSONError`, with a line and column for broken JSON text and
    a jq-style path (``.a[3]``) for a node that is not a valid value.
    """
    _check_dialect(dialect)
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JSONError(f"the text is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    # The live reader (:mod:`.core`) gives the value, or hands the text to the pure reader
    # below, the reference, for the value or the error.
    if dialect == "godot":
        value = core.read_godot(text, compiled_read_plan(allow_objects))
    else:
        value = core.read_tagged(text, tagged_read_plan())
    if value is not NotImplemented:
        return value
    depth = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise JSONError(f"JSON nested {depth} levels deep; at most {MAX_JSON_DEPTH} are read")
    try:
        with _deep(4 * depth):
            if dialect == "godot":
                return to_native_value(parse(text), allow_objects)
            return from_tree(_parse(text))
    except json.JSONDecodeError as exc:
        raise JSONError(exc.msg, line=exc.lineno, column=exc.colno) from None
    except GodotJSONSyntaxError as exc:
        line, column = _line_column(text, exc.position)
        raise JSONError(exc.reason, line=line, column=column) from None
    except Bad as exc:
        raise JSONError(exc.reason, exc.path()) from None
