"""Godot 4's JSON reader (``JSON.parse``), for ``from_json(dialect="godot")``.

It is more lenient than the JSON standard, and this reader takes what it takes: a trailing
comma in arrays and objects, numbers with leading zeros or a bare point (``01``, ``1.``,
``-.5``), raw control characters in strings, and a NUL that ends the text. It refuses what it
refuses: ``\\v`` and other unknown escapes, lone surrogates, ``+1``, ``.5``, ``NaN``. Numbers
are always doubles, read with Godot's own ``built_in_strtod``; a repeated key keeps its first
place and its last value. Nesting deeper than 1024 is an error, as in the engine. Facts:
``core/io/json.cpp`` (``_get_token``, ``_parse_value``, ``_parse_array``, ``_parse_object``),
checked on Godot 4.6 by ``tests/live/codec/test_json.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .._floats import godot_strtod

__all__ = ["GodotJSONSyntaxError", "parse"]

#: Godot's ``Variant::MAX_RECURSION_DEPTH``, which its JSON reader also stops at.
MAX_DEPTH = 1024

_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_IDENTIFIER = re.compile(r"[A-Za-z]+")
_PLAIN = re.compile(r'[^"\\]*')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "/": "/"}
_PUNCTUATION = frozenset("{}[]:,")
_EOF = ""


class GodotJSONSyntaxError(Exception):
    """Text Godot's JSON reader refuses: ``reason`` and the character ``position``."""

    def __init__(self, reason: str, position: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.position = position


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text.split("\0", 1)[0]  # Godot's text ends at a NUL
        self.pos = 0
        self.start = 0  # where the last token began

    def fail(self, reason: str, at: int | None = None) -> GodotJSONSyntaxError:
        return GodotJSONSyntaxError(reason, self.start if at is None else at)

    def token(self) -> tuple[str, Any]:
        """The next token: (kind, value); kinds are the punctuation characters, "string",
        "number", "identifier" and "" (the end)."""
        text = self.text
        n = len(text)
        while self.pos < n and text[self.pos] <= " ":
            self.pos += 1
        self.start = self.pos
        if self.pos >= n:
            return _EOF, None
        c = text[self.pos]
        if c in _PUNCTUATION:
            self.pos += 1
            return c, None
        if c == '"':
            return "string", self.string()
        if c == "-" or "0" <= c <= "9":
            match = _NUMBER.match(text, self.pos)
            if match is None:  # Godot reads nothing and stops at the same place next time
                return "number", 0.0
            self.pos = match.end()
            return "number", godot_strtod(match.group())
        match = _IDENTIFIER.match(text, self.pos)
        if match is not None:
            self.pos = match.end()
            return "identifier", match.group()
        raise self.fail(f"unexpected character {c!r}")

    def string(self) -> str:
        text = self.text
        start = self.pos
        self.pos += 1
        parts: list[str] = []
        while True:
            chunk = _PLAIN.match(text, self.pos)
            assert chunk is not None  # the pattern matches the empty string
            parts.append(chunk.group())
            self.pos = chunk.end()
            if self.pos >= len(text):
                raise self.fail("unterminated string", start)
            if text[self.pos] == '"':
                self.pos += 1
                return "".join(parts)
            parts.append(self.escape())

    def escape(self) -> str:
        """The character of the escape at ``pos`` (a backslash); moves past it."""
        text = self.text
        at = self.pos
        if at + 1 >= len(text):
            raise self.fail("unterminated string", at)
        letter = text[at + 1]
        if letter != "u":
            if letter not in _ESCAPES:
                raise self.fail(f"invalid escape sequence \\{letter}", at)
            self.pos = at + 2
            return _ESCAPES[letter]
        code = self.hex4(at + 2)
        self.pos = at + 6
        if 0xDC00 <= code <= 0xDFFF:
            raise self.fail("unpaired trail surrogate in \\u escape", at)
        if 0xD800 <= code <= 0xDBFF:
            if text[self.pos : self.pos + 2] != "\\u":
                raise self.fail("unpaired lead surrogate in \\u escape", at)
            trail = self.hex4(self.pos + 2)
            if not 0xDC00 <= trail <= 0xDFFF:
                raise self.fail("unpaired lead surrogate in \\u escape", at)
            self.pos += 6
            code = 0x10000 + ((code - 0xD800) << 10) + (trail - 0xDC00)
        return chr(code)

    def hex4(self, at: int) -> int:
        if at + 4 > len(self.text):
            raise self.fail("unterminated string", at)
        digits = _HEX4.match(self.text, at)
        if digits is None:
            raise self.fail("malformed hex constant in \\u escape", at)
        return int(digits.group(), 16)

    def value(self, kind: str, token: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(f"JSON nested deeper than {MAX_DEPTH} levels")
        if kind == "{":
            return self.object_(depth + 1)
        if kind == "[":
            return self.array(depth + 1)
        if kind == "identifier":
            if token == "true":
                return True
            if token == "false":
                return False
            if token == "null":
                return None
            raise self.fail(f"expected true, false or null, got {token!r}")
        if kind in ("number", "string"):
            return token
        raise self.fail(f"expected a value, got {_name(kind)}")

    def entries(self, close: str, comma_expected: str) -> Iterator[tuple[str, Any]]:
        """The first token of each entry of an array or object, up to ``close``; a comma
        must come between entries and may come after the last (Godot's loops)."""
        need_comma = False
        while True:
            kind, token = self.token()
            if kind == close:
                return
            if kind == _EOF:
                raise self.fail(f"expected '{close}'")
            if need_comma:
                if kind != ",":
                    raise self.fail(comma_expected)
                need_comma = False
                continue
            yield kind, token
            need_comma = True

    def array(self, depth: int) -> list[Any]:
        return [self.value(kind, token, depth) for kind, token in self.entries("]", "expected ','")]

    def object_(self, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kind, key in self.entries("}", "expected '}' or ','"):
            if kind != "string":
                raise self.fail("expected a key (a string)")
            if self.token()[0] != ":":
                raise self.fail("expected ':'")
            kind, token = self.token()
            if kind == _EOF:
                raise self.fail("expected '}'")
            out[key] = self.value(kind, token, depth)
        return out


def _name(kind: str) -> str:
    return {"": "the end of the text"}.get(kind, f"'{kind}'")


def parse(text: str) -> Any:
    """The JSON tree Godot's ``JSON.parse_string`` makes of ``text`` (numbers are floats);
    :class:`GodotJSONSyntaxError` where it reports an error."""
    reader = _Reader(text)
    kind, token = reader.token()
    value = reader.value(kind, token, 0)
    if reader.token()[0] != _EOF:
        raise reader.fail("expected the end of the text after the value")
    return value
