"""``to_json`` / ``from_json``: Godot values as JSON text, in two dialects.

``dialect="tagged"`` (the default) is gdvariant's lossless form (:mod:`._json_tagged`; the
rules are in ``docs/json.md`` and its JSON Schema ships as
``gdvariant/schemas/tagged-json.schema.json``).
"""

from __future__ import annotations

import json
import json.scanner
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Literal

from ._errors import EncodeError, JSONError
from ._json_tagged import Bad, from_tree, object_pairs, to_tree

__all__ = ["from_json", "to_json"]

Dialect = Literal["tagged"]

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
    if dialect != "tagged":
        raise ValueError(f'dialect must be "tagged", not {dialect!r}')


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

    ``indent`` pretty-prints as :func:`json.dumps` does. Raises :class:`EncodeError` for a
    value no Godot type holds.
    """
    _check_dialect(dialect)
    try:
        with _deep(8 * 1024):
            tree = to_tree(value)
            try:
                text = json.dumps(tree, ensure_ascii=False, allow_nan=False, indent=indent)
            except RecursionError:  # CPython's C encoder has a depth cap of its own
                encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=indent)
                text = "".join(encoder.iterencode(tree, _one_shot=False))
    except TypeError as exc:
        raise EncodeError(str(exc)) from None
    except RecursionError:
        raise EncodeError("the value is nested too deeply to write as JSON") from None
    # Lone surrogates (Godot 3 Strings may hold them) as \u escapes, so the text encodes.
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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


def _parse(text: str, dialect: Dialect) -> Any:
    decoder = json.JSONDecoder(
        object_pairs_hook=object_pairs if dialect == "tagged" else None,
        parse_constant=_reject_constant if dialect == "tagged" else None,
        strict=dialect != "tagged",
    )
    try:
        return decoder.decode(text)
    except RecursionError:  # CPython's C scanner has a depth cap of its own
        decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
        return decoder.decode(text)


def from_json(
    text: str | bytes,
    *,
    dialect: Dialect = "tagged",
    allow_objects: bool = False,
) -> Any:
    """The value that JSON text stands for.

    ``dialect="tagged"`` reads :func:`to_json`'s form (and any JSON: plain values read as
    themselves).
    Malformed input raises :class:`JSONError`, with a line and column for broken JSON text and
    a jq-style path (``.a[3]``) for a node that is not a valid value.
    """
    _check_dialect(dialect)
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JSONError(f"the text is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    depth = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise JSONError(f"JSON nested {depth} levels deep; at most {MAX_JSON_DEPTH} are read")
    try:
        with _deep(4 * depth):
            tree = _parse(text, dialect)
            return from_tree(tree)
    except json.JSONDecodeError as exc:
        raise JSONError(exc.msg, line=exc.lineno, column=exc.colno) from None
    except Bad as exc:
        raise JSONError(exc.reason, exc.path()) from None
