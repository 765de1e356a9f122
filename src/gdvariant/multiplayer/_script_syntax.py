"""Just enough of GDScript's syntax for the RPC reader: tokens, bracket groups, and the values
of constant expressions written as literals.

The reader looks at a few shapes only (``@rpc(...)`` lines, ``func`` headers,
``rpc_config(...)`` calls, top-level ``const``), so the tokenizer only has to keep strings
and comments from being misread. Values follow what Godot 4.6 makes of them, as checked
against the engine (tests/live/multiplayer/test_rpc.py): escapes in strings, ``_`` in
numbers, ``+``/``-`` and brackets around a constant, the constants ``PI``, ``TAU``, ``INF``
and ``NAN``, and the script's own top-level ``const NAME = ...``. Anything more (an operator
between two values, an enum value, a constant of another class) is :class:`NotEvaluated`:
the caller says so rather than guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

__all__ = ["ScriptError"]


class ScriptError(ValueError):
    """A GDScript the RPC reader cannot follow (bad ``@rpc`` arguments, a missing base)."""


class NotEvaluated(Exception):
    """A constant expression beyond what :func:`constant_value` follows (Godot may take it)."""


#: A constant's value: String (StringName and NodePath literals too), int, float, bool, null.
Value = str | int | float | bool | None

# A GDScript token: strings first (so that '#' or '@' inside them count for nothing), then
# comments, then the pieces the reader needs.
_TOKEN = re.compile(
    r'''(?P<string>[&^r]?(?:"""(?:\\.|[^\\])*?"""|\'\'\'(?:\\.|[^\\])*?\'\'\''''
    r"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))"""
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<newline>\n[ \t]*)"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<number>0[xX][0-9a-fA-F_]+|0[bB][01_]+"
    r"|(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9_]+)?)"
    r"|(?P<space>[ \t\r]+|\\\n)"
    r"|(?P<op>[^\s])"
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    line: int
    column_zero: bool  # the first token of a line with no indentation


def tokenize(source: str) -> list[Token]:
    """The tokens of ``source`` without comments, blank space and ``;``; ``...`` is one."""
    tokens = [t for t in _tokens(source) if t.kind != "op" or t.text != ";"]
    _merge_dots(tokens)
    return tokens


def _tokens(source: str) -> Iterator[Token]:
    line, at_line_start, indent = 1, True, ""
    for match in _TOKEN.finditer(source):
        kind, text = match.lastgroup or "op", match.group()
        if kind == "newline":
            line += 1
            at_line_start, indent = True, text[1:]
            continue
        if kind in ("space", "comment"):
            line += text.count("\n")
            continue
        yield Token(kind, text, line, at_line_start and not indent)
        at_line_start = False
        line += text.count("\n")


def _merge_dots(tokens: list[Token]) -> None:
    """Join three ``.`` tokens into the rest-parameter ``...``."""
    i = 0
    while i + 2 < len(tokens):
        if all(t.kind == "op" and t.text == "." for t in tokens[i : i + 3]):
            tokens[i : i + 3] = [Token("op", "...", tokens[i].line, tokens[i].column_zero)]
        i += 1


def group(tokens: Sequence[Token], start: int) -> tuple[list[list[Token]], int]:
    """The comma-separated items between the bracket at ``start`` and its match, and the
    index after it. A trailing comma is allowed, an empty item elsewhere is not."""
    items: list[list[Token]] = [[]]
    depth, i = 0, start
    while i < len(tokens):
        tok = tokens[i]
        if tok.text in "([{" and tok.kind == "op":
            depth += 1
            if depth > 1:
                items[-1].append(tok)
        elif tok.text in ")]}" and tok.kind == "op":
            depth -= 1
            if depth == 0:
                if not items[-1]:
                    items.pop()  # "()" or a trailing comma
                if any(not item for item in items):
                    raise ScriptError(f"line {tok.line}: an empty item between commas")
                return items, i + 1
            items[-1].append(tok)
        elif tok.text == "," and depth == 1:
            items.append([])
        else:
            items[-1].append(tok)
        i += 1
    raise ScriptError(f"line {tokens[start].line}: unclosed bracket")


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    '"': '"',
    "'": "'",
    "\\": "\\",
    "\n": "",  # a backslash at the end of a line continues the string
}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{6}|.)", re.S)


def string_value(text: str, line: int) -> str:
    """The value of a string token: quotes and prefix (``&``, ``^``, ``r``) removed, escapes
    replaced (none in a raw string); an escape GDScript does not have is an error there."""
    raw = text.startswith("r")
    body = text.lstrip("&^r")
    quote = 3 if body[:3] in ('"""', "'''") else 1
    body = body[quote:-quote]
    if raw:
        return body

    def escape(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "uU" and len(code) > 1:
            return chr(int(code[1:], 16))
        if code not in _ESCAPES:
            raise ScriptError(f"line {line}: invalid escape \\{code} in {text}")
        return _ESCAPES[code]

    return _ESCAPE.sub(escape, body)


def number_value(text: str, line: int) -> int | float:
    """The value of a number token (``0x``/``0b``, ``_`` separators, floats). An int beyond
    64 bits is NotEvaluated: Godot 4.6 reports it and goes on with a value of its own."""
    digits = text[2:] if text[:2].lower() in ("0x", "0b") else text
    if "__" in text or digits.startswith("_"):
        raise ScriptError(f"line {line}: {text} is not a number GDScript reads")
    plain = text.replace("_", "")
    based = plain[:2].lower() in ("0x", "0b")
    if not based and any(c in plain for c in ".eE"):
        return float(plain)
    if len((plain[2:] if based else plain).lstrip("0")) <= 64:  # more: beyond 64 bits
        number = int(plain, 0) if based else int(plain)
        if number < 1 << 63:
            return number
    raise NotEvaluated(f"{text[:24]} does not fit in a 64-bit int")


_NAMED: dict[str, Value] = {
    "true": True,
    "false": False,
    "null": None,
    "PI": math.pi,
    "TAU": math.tau,
    "INF": math.inf,
    "NAN": math.nan,
}


def type_name(value: Value) -> str:
    """The GDScript type name of a constant's value, for messages."""
    if value is None:
        return "null"
    return {str: "String", bool: "bool", int: "int", float: "float"}[type(value)]


def constants(tokens: Sequence[Token]) -> dict[str, list[Token]]:
    """The script's top-level ``const NAME [: Type] = value`` (``:=`` too): the value's
    tokens by name, for :func:`constant_value` (a value on one line only)."""
    found: dict[str, list[Token]] = {}
    for i, tok in enumerate(tokens):
        if not (tok.column_zero and tok.kind == "name" and tok.text == "const"):
            continue
        if i + 1 >= len(tokens) or tokens[i + 1].kind != "name":
            continue
        j = i + 2
        while j < len(tokens) and tokens[j].line == tok.line and tokens[j].text != "=":
            j += 1
        if j >= len(tokens) or tokens[j].text != "=":
            continue
        end = j + 1
        while end < len(tokens) and tokens[end].line == tokens[j].line:
            end += 1
        found[tokens[i + 1].text] = list(tokens[j + 1 : end])
    return found


def constant_value(
    tokens: Sequence[Token], consts: Mapping[str, Sequence[Token]], line: int, depth: int = 0
) -> Value:
    """The value of a constant expression: a literal, ``true``/``false``/``null``, ``PI``,
    ``TAU``, ``INF``, ``NAN``, a name in ``consts``, in brackets, or ``+``/``-`` before a
    number. What GDScript refuses raises ScriptError; what is beyond this, NotEvaluated."""
    text = " ".join(t.text for t in tokens[:12])[:60]  # for messages
    if not tokens or depth > 32:
        raise NotEvaluated(text)
    first = tokens[0]
    if first.kind == "op" and first.text in "+-":
        value = constant_value(tokens[1:], consts, line, depth + 1)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScriptError(f"line {line}: unary {first.text} of a {type_name(value)} ({text})")
        return -value if first.text == "-" else value
    if first.kind == "op" and first.text == "(":
        items, end = group(tokens, 0)
        if end != len(tokens) or len(items) != 1:
            raise NotEvaluated(text)
        return constant_value(items[0], consts, line, depth + 1)
    if len(tokens) != 1:
        raise NotEvaluated(text)
    if first.kind == "string":
        return string_value(first.text, line)
    if first.kind == "number":
        return number_value(first.text, line)
    if first.kind == "name" and first.text in _NAMED:
        return _NAMED[first.text]
    if first.kind == "name" and first.text in consts:
        return constant_value(consts[first.text], consts, line, depth + 1)
    raise NotEvaluated(text)
