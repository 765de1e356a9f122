"""``from_text``: read Godot's text syntax as that release's ``str_to_var`` / ``str2var`` does.

A regex tokenizer feeds a recursive-descent parser. Everything the engine's parser accepts is
read: aliases and legacy names (``Quat``, ``Matrix32``, ``PoolIntArray``...), ``;`` comments,
trailing commas where Godot allows them, ``nil``/``inf_neg``. Numbers go
through Godot's own ``built_in_strtod`` so a float reads to the engine's bits. Anything else
raises :class:`TextError` with its line, column and what was expected. Like the engine, one
value is read and any text after it is ignored. Facts: ``docs/text-format.md``.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from .._engines.text_syntax import SCALAR_NAMES, TextSyntax, text_syntax
from .._errors import TextError
from .._floats import f32, godot_strtod
from .._limits import DEFAULT_LIMITS, Limits
from .._values.base import RID, Callable, GodotObject, NodePath, Signal, StringName, VariantType
from .._values.collections import ContainerKind, Dictionary, ElementType, TypedArray, index_key
from .._values.layouts import LAYOUTS
from .._values.packed import (
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    _PackedNumbers,
)
from . import core

__all__ = ["from_text"]

T = VariantType
_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
#: Nesting cap of this recursive parser (below Python's recursion limit); Godot's own writer
#: never goes past 101 levels.
TEXT_MAX_DEPTH = 200


_WS = re.compile(r"(?:[\x01-\x20]+|;[^\n\x00]*)*")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER_LOWER = re.compile(r"-?[0-9]*(?:\.[0-9]*)?(?:e[+-]?[0-9]*)?")
_NUMBER_ANY = re.compile(r"-?[0-9]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?")
_STRING = re.compile(r'"((?:[^"\\\x00]|\\[^\x00])*)"')
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{6}|.)", re.DOTALL)
_ESCAPE_3 = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)", re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_SIMPLE_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r"}

#: Variant names usable as typed-container element types (``Array[int]``).
_ELEMENT_NAMES: dict[str, VariantType] = {n: t for t, n in SCALAR_NAMES.items()}

#: Each packed numeric type: the Python class and how one component is converted.
_PACKED: dict[VariantType, tuple[type[_PackedNumbers], str]] = {
    T.PACKED_INT32_ARRAY: (PackedInt32Array, "i32"),
    T.PACKED_INT64_ARRAY: (PackedInt64Array, "i64"),
    T.PACKED_FLOAT32_ARRAY: (PackedFloat32Array, "f32"),
    T.PACKED_FLOAT64_ARRAY: (PackedFloat64Array, "f64"),
    T.PACKED_VECTOR2_ARRAY: (PackedVector2Array, "f32"),
    T.PACKED_VECTOR3_ARRAY: (PackedVector3Array, "f32"),
    T.PACKED_VECTOR4_ARRAY: (PackedVector4Array, "f32"),
    T.PACKED_COLOR_ARRAY: (PackedColorArray, "f32"),
}

_KEYWORDS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "nil": None,
    "inf": math.inf,
    "inf_neg": -math.inf,
    "nan": math.nan,
}
_REAL_WORDS = {"inf": math.inf, "inf_neg": -math.inf, "-inf": -math.inf, "nan": math.nan}


def _wrap(value: int, bits: int) -> int:
    """A C cast of an int64 to a signed ``bits``-bit int."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _to_int(text: str) -> int:
    """``String::to_int``: decimal, clamped to int64 on overflow ("-" alone is 0)."""
    digits = text.lstrip("-")
    value = int(digits) if digits else 0
    value = -value if text.startswith("-") else value
    return max(_INT64_MIN, min(_INT64_MAX, value))


def _convert(value: int | float, kind: str) -> int | float:
    """One constructor argument converted to its component type."""
    if kind in ("i32", "i64", "u8"):
        if isinstance(value, float):
            if not math.isfinite(value):
                value = _INT64_MIN
            else:
                value = max(_INT64_MIN, min(_INT64_MAX, int(value)))
        if kind == "u8":
            return value & 0xFF
        return _wrap(value, 32 if kind == "i32" else 64)
    return f32(float(value)) if kind in ("f32", "real") else float(value)


class _Parser:
    def __init__(self, text: str, syntax: TextSyntax, limits: Limits) -> None:
        self.text = text
        self.syntax = syntax
        self.pos = 0
        self.max_depth = min(limits.max_depth or TEXT_MAX_DEPTH, TEXT_MAX_DEPTH)
        self.number = _NUMBER_ANY if syntax.upper_exponent else _NUMBER_LOWER
        self.escape = _ESCAPE if syntax.long_escapes else _ESCAPE_3

    # ---- errors --------------------------------------------------------------------------

    def fail(self, expected: str, at: int | None = None, got: str = "") -> TextError:
        offset = self.pos if at is None else at
        line = self.text.count("\n", 0, offset) + 1
        column = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return TextError(expected, offset, line, column, got)

    # ---- tokens --------------------------------------------------------------------------

    def token(self) -> tuple[str, Any, int]:
        """The next token: (kind, value, start offset). Kinds: a punctuation character, "str",
        "sname", "num", "id", "eof". (``#rrggbb`` colours are not values here: the engines'
        ``str_to_var`` rejects them.)"""
        text = self.text
        pos = _WS.match(text, self.pos).end()  # type: ignore[union-attr]
        if pos >= len(text) or text[pos] == "\0":
            self.pos = pos
            return "eof", None, pos
        ch = text[pos]
        if ch in "{}[]():,":
            self.pos = pos + 1
            return ch, ch, pos
        if ch == '"':
            return "str", self.string(pos), pos
        if ch in "&@" and self.syntax.godot4_values:
            if not text.startswith('"', pos + 1):
                raise self.fail("'\"' after '" + ch + "'", pos + 1)
            return "sname", StringName(self.string(pos + 1)), pos
        if ch == "-" and self.syntax.minus_identifiers:
            ident = _IDENT.match(text, pos + 1)
            if ident:
                self.pos = ident.end()
                return "id", "-" + ident.group(), pos
            if not text[pos + 1 : pos + 2].isdigit():
                raise self.fail("a digit or a name after '-'", pos + 1)
        if ch == "-" or "0" <= ch <= "9":
            match = self.number.match(text, pos)
            assert match is not None
            self.pos = match.end()
            word = match.group()
            if any(c in word for c in ".eE"):
                return "num", godot_strtod(word), pos
            return "num", _to_int(word), pos
        ident = _IDENT.match(text, pos)
        if ident:
            self.pos = ident.end()
            return "id", ident.group(), pos
        raise self.fail("a value", pos, got=f"unexpected character {ch!r}")

    def string(self, start: int) -> str:
        match = _STRING.match(self.text, start)
        if match is None:
            raise self.fail("a closing '\"' (unterminated string)", start)
        self.pos = match.end()
        body = match.group(1)
        if "\\" not in body:
            return body
        try:
            decoded = self.escape.sub(self.unescape, body)
        except ValueError as exc:
            raise self.fail(str(exc), start) from None
        if self.syntax.join_surrogates:
            return self.join_surrogates(decoded, start)
        return decoded

    def unescape(self, match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) > 1:
            return chr(int(code[1:], 16))
        if code == "u" or (code == "U" and self.syntax.long_escapes):
            raise ValueError("a valid hex constant (malformed hex constant in string)")
        return _SIMPLE_ESCAPES.get(code, code)

    def join_surrogates(self, text: str, start: int) -> str:
        """Godot 4 combines a ``\\u`` surrogate pair and rejects a lone surrogate."""
        if not _SURROGATE.search(text):
            return text
        try:
            return text.encode("utf-16", "surrogatepass").decode("utf-16")
        except UnicodeDecodeError:
            if self.syntax.lone_surrogate_error:
                raise self.fail(
                    "a valid UTF-16 string (unpaired lead/trail surrogate)", start
                ) from None
        return _PAIR.sub(
            lambda m: m.group().encode("utf-16", "surrogatepass").decode("utf-16"), text
        )

    def peek(self, kind: str) -> bool:
        """Whether the next token is ``kind`` (nothing is consumed)."""
        save = self.pos
        try:
            return self.token()[0] == kind
        except TextError:
            return False
        finally:
            self.pos = save

    def expect(self, kind: str, what: str) -> tuple[str, Any, int]:
        tok = self.token()
        if tok[0] != kind:
            raise self.fail(what, tok[2], got=_describe(tok))
        return tok

    # ---- values --------------------------------------------------------------------------

    def value(self, depth: int) -> Any:
        return self.value_from(self.token(), depth)

    def value_from(self, tok: tuple[str, Any, int], depth: int) -> Any:
        kind, val, at = tok
        if kind in ("num", "str", "sname"):
            return val
        if kind == "[":
            return self.array_body(self.deeper(depth, at))
        if kind == "{":
            return self.dict_body(self.deeper(depth, at))
        if kind == "id":
            return self.identifier(val, at, depth)
        if kind == "eof":
            raise self.fail("a value", at, got="end of text")
        raise self.fail("a value", at, got=_describe(tok))

    def deeper(self, depth: int, at: int) -> int:
        if depth >= self.max_depth:
            raise self.fail(f"at most {self.max_depth} nested containers", at)
        return depth + 1

    def array_body(self, depth: int) -> list[Any]:
        items: list[Any] = []
        need_comma = False
        while True:
            tok = self.token()
            if tok[0] == "eof":
                raise self.fail("']' (end of text inside an array)", tok[2])
            if tok[0] == "]":
                return items
            if need_comma:
                if tok[0] != ",":
                    raise self.fail("',' or ']'", tok[2], got=_describe(tok))
                need_comma = False
                continue
            items.append(self.value_from(tok, depth))
            need_comma = True

    def dict_body(self, depth: int) -> Any:
        pairs: list[tuple[Any, Any]] = []
        need_comma = False
        while True:
            tok = self.token()
            if tok[0] == "eof":
                raise self.fail("'}' (end of text inside a dictionary)", tok[2])
            if tok[0] == "}":
                return _dictionary(pairs, self.syntax.godot4_values)
            if need_comma:
                if tok[0] != ",":
                    raise self.fail("'}' or ','", tok[2], got=_describe(tok))
                need_comma = False
                continue
            key = self.value_from(tok, depth)
            self.expect(":", "':' after a dictionary key")
            pairs.append((key, self.value(depth)))
            need_comma = True

    def identifier(self, name: str, at: int, depth: int) -> Any:
        syntax = self.syntax
        if name == "inf_neg" and not syntax.real_words:
            raise self.fail("a value", at, got=f"unexpected identifier {name!r}")
        if name in _KEYWORDS or (name == "-inf" and syntax.minus_identifiers):
            return _REAL_WORDS.get(name, _KEYWORDS.get(name))
        vtype = syntax.read_names.get(name)
        if vtype is not None:
            if vtype in LAYOUTS:
                return self.math(vtype, name)
            if vtype is T.PACKED_BYTE_ARRAY:
                return self.byte_array()
            if vtype is T.PACKED_STRING_ARRAY:
                return self.string_array()
            cls, kind = _PACKED[vtype]
            flat = self.arguments(kind)
            width = getattr(cls, "_width", 1)
            flat = flat[: len(flat) - len(flat) % width]
            return cls(zip(*[iter(flat)] * width, strict=True) if width > 1 else flat)
        if name == "NodePath":
            self.expect("(", "'(' after NodePath")
            path = self.expect("str", "a string as argument for NodePath()")[1]
            self.token()  # the engine reads one more token and does not check it is ')'
            return NodePath(path)
        if name == "Object":
            return self.object_(depth)
        if name in ("Resource", "ExtResource", "SubResource"):
            raise self.fail(
                "a value that needs no resource loader (str_to_var would load the resource)", at
            )
        if syntax.godot4_values:
            if name == "RID" and syntax.writes_rid:
                return self.rid()
            if name in ("Callable", "Signal") and syntax.writes_rid:
                self.expect("(", f"'(' after {name}")
                self.expect(")", f"')' after {name}(")
                return Callable() if name == "Callable" else Signal()
            if name == "Array" or (name == "Dictionary" and syntax.typed_dictionaries):
                return self.typed(name, depth)
        if name == "RID" and not syntax.godot4_values:
            return self.rid().id  # Godot 3 reads RID(n) as the int n
        raise self.fail("a value", at, got=f"unexpected identifier {name!r}")

    def rid(self) -> RID:
        """``RID()`` or ``RID(n)``; like the engine, the token after ``n`` is not checked."""
        self.expect("(", "'(' after RID")
        tok = self.token()
        if tok[0] == ")" and self.syntax.godot4_values:
            return RID()
        if tok[0] != "num" or not isinstance(tok[1], int):
            raise self.fail("an integer in RID()", tok[2], got=_describe(tok))
        self.token()
        return RID(tok[1] & ((1 << 64) - 1)) if self.syntax.godot4_values else RID(tok[1])

    def arguments(self, kind: str) -> list[Any]:
        """``( number, number, ... )``: no trailing comma; inf/inf_neg/nan allowed."""
        self.expect("(", "'(' after a constructor name")
        args: list[Any] = []
        while True:
            tok = self.token()
            if tok[0] == ")" and not args:
                return args
            if tok[0] == "num":
                number = tok[1]
            elif (
                tok[0] == "id"
                and tok[1] in _REAL_WORDS
                and self.syntax.real_words
                and (tok[1] != "-inf" or self.syntax.minus_identifiers)
            ):
                number = _REAL_WORDS[tok[1]]
            else:
                raise self.fail("a number in the constructor", tok[2], got=_describe(tok))
            args.append(_convert(number, kind))
            tok = self.token()
            if tok[0] == ")":
                return args
            if tok[0] != ",":
                raise self.fail("',' or ')' in the constructor", tok[2], got=_describe(tok))

    def math(self, vtype: VariantType, name: str) -> Any:
        layout = LAYOUTS[vtype]
        start = self.pos
        args = self.arguments("i32" if layout.kind == "i32" else "f32")
        if len(args) != layout.components:
            raise self.fail(f"{layout.components} arguments for {name}()", start)
        return layout.unflatten(tuple(args))

    def byte_array(self) -> bytes:
        self.expect("(", "'(' after a constructor name")
        save = self.pos
        tok = self.token()
        if tok[0] == "str" and self.syntax.base64_bytes:
            self.expect(")", "')' after the base64 string")
            try:
                return base64.b64decode(tok[1], validate=True)
            except (binascii.Error, ValueError):
                raise self.fail("a valid base64-encoded string", tok[2]) from None
        self.pos = save - 1
        return bytes(self.arguments("u8"))

    def string_array(self) -> PackedStringArray:
        self.expect("(", "'(' after a constructor name")
        items: list[str] = []
        while True:
            tok = self.token()
            if tok[0] == ")":
                return PackedStringArray(items)
            if tok[0] != "str":
                raise self.fail("a string in the constructor", tok[2], got=_describe(tok))
            items.append(tok[1])
            tok = self.token()
            if tok[0] == ")":
                return PackedStringArray(items)
            if tok[0] != ",":
                raise self.fail("',' or ')' in the constructor", tok[2], got=_describe(tok))

    def object_(self, depth: int) -> GodotObject:
        self.expect("(", "'(' after Object")
        cls = self.expect("id", "a class name after Object(")[1]
        props: list[tuple[str, Any]] = []
        tok = self.token()
        while tok[0] != ")":
            if tok[0] != ",":
                raise self.fail("',' or ')' in Object()", tok[2], got=_describe(tok))
            tok = self.token()
            if tok[0] == ")":
                break
            if tok[0] != "str":
                raise self.fail("a property name string in Object()", tok[2], got=_describe(tok))
            self.expect(":", "':' after a property name")
            props.append((tok[1], self.value(self.deeper(depth, tok[2]))))
            tok = self.token()
        return GodotObject(cls, props)

    def element_type(self) -> ElementType | None:
        tok = self.expect("id", "a type name")
        name = tok[1]
        if name in ("Resource", "ExtResource", "SubResource") and self.peek("("):
            self.expect("(", "'(' after Resource")
            path = self.expect("str", "a script path")[1]
            self.expect(")", "')' after the script path")
            return ElementType.script(path)
        if name == "Variant":
            return None
        vtype = _ELEMENT_NAMES.get(name)
        if vtype is None:
            vtype = self.syntax.read_names.get(name)
            if vtype is not None and self.syntax.names.get(vtype) != name:
                vtype = None
        if vtype is not None:
            return ElementType.builtin(vtype)
        return ElementType(ContainerKind.CLASS_NAME, T.OBJECT, name)

    def typed(self, name: str, depth: int) -> Any:
        self.expect("[", f"'[' after {name}")
        key = self.element_type()
        value: ElementType | None = None
        if name == "Dictionary":
            self.expect(",", "',' between the key and value types")
            value = self.element_type()
        self.expect("]", "']' after the element type")
        self.expect("(", "'(' after the container type")
        opener = "[" if name == "Array" else "{"
        tok = self.expect(opener, f"'{opener}'")
        inner = self.deeper(depth, tok[2])
        if name == "Array":
            items = self.array_body(inner)
            self.expect(")", "')' after the typed array")
            return TypedArray(key, items) if key is not None else items
        body = self.dict_body(inner)
        self.expect(")", "')' after the typed dictionary")
        if key is None and value is None:
            return body
        pairs = body.items_list if isinstance(body, Dictionary) else tuple(body.items())
        return Dictionary(pairs, key, value)


def _describe(tok: tuple[str, Any, int]) -> str:
    kind, val = tok[0], tok[1]
    if kind == "eof":
        return "end of text"
    if kind in ("str", "sname"):
        return "a string"
    if kind == "num":
        return f"number {val!r}"
    return repr(val)


def _key_slot(key: Any, strings_merge: bool) -> Any:
    """Which keys Godot treats as the same: same type and value (4.x: String = StringName)."""
    return index_key(key, str if strings_merge and isinstance(key, str) else None)


def _dictionary(pairs: list[tuple[Any, Any]], strings_merge: bool) -> Any:
    """Assign pairs in order (a repeated key keeps its first spelling and its last value);
    a plain dict when that loses nothing, else a :class:`Dictionary`."""
    index: dict[Any, int] = {}
    merged: list[tuple[Any, Any]] = []
    for key, value in pairs:
        slot = _key_slot(key, strings_merge)
        if slot is None:
            found = next(
                (i for i, (k, _) in enumerate(merged) if type(k) is type(key) and k == key), None
            )
        else:
            found = index.get(slot)
        if found is None:
            if slot is not None:
                index[slot] = len(merged)
            merged.append((key, value))
        else:
            merged[found] = (merged[found][0], value)
    try:
        plain = dict(merged)
    except TypeError:  # an unhashable key (Array, Dictionary)
        return Dictionary(merged)
    # 1, 1.0 and true are three keys in Godot but one in a dict.
    return plain if len(plain) == len(merged) else Dictionary(merged)


_PLANS: dict[str, tuple[dict[str, Any], Any] | None] = {}
#: The compiled reader's whole plan per (version, nesting cap)
_FAST: dict[tuple[str, int], tuple[Any, ...]] = {}
#: ... and per version under the default limits (frozen, so their plan never changes)
_DEFAULT_FAST: dict[str, tuple[Any, ...]] = {}
_DEFAULT_MAX_SIZE = DEFAULT_LIMITS.max_size if DEFAULT_LIMITS.max_size is not None else 1 << 62


def _merged(pairs: list[tuple[Any, Any]]) -> Any:
    return _dictionary(pairs, True)


def compiled_plan(version: str) -> tuple[dict[str, Any], Any] | None:
    """What the compiled reader (:mod:`.core`) needs to know of ``version``'s syntax, or None
    where it does not read it (releases before 4.5).

    The pair is ``(names, dictionary)``: ``names`` maps each constructor name it reads (aliases
    included) to ``(kind, count, build)``: a math type's component kind (``"i32"``/``"f32"``),
    count and ``unflatten`` (or its class, when the value is its components in order); a
    numeric packed array's kind, minus its width and ``frombuffer``;
    ``("str", 0, PackedStringArray)``. ``dictionary`` makes a Dictionary of pairs whose keys
    are not all ``str`` or all ``int``, as this parser does.
    """
    syntax = text_syntax(version)
    if version in _PLANS:
        return _PLANS[version]
    plan = None
    if syntax.minus_identifiers and syntax.godot4_values and syntax.real_words:
        names: dict[str, Any] = {}
        for name, vtype in syntax.read_names.items():
            if vtype in LAYOUTS:
                layout = LAYOUTS[vtype]
                kind = "i32" if layout.kind == "i32" else "f32"
                flat = layout.flatten is tuple  # its components in order: C builds it itself
                names[name] = (kind, layout.components, layout.cls if flat else layout.unflatten)
            elif vtype in _PACKED:
                cls, kind = _PACKED[vtype]
                names[name] = (kind, -cls._width, cls.frombuffer)
            elif vtype is T.PACKED_STRING_ARRAY:
                names[name] = ("str", 0, PackedStringArray)
        plan = (names, _merged)
    _PLANS[version] = plan
    return plan


def _fast(version: str, depth: int) -> tuple[Any, ...] | None:
    """The compiled reader's whole plan for ``version`` and nesting cap ``depth`` (None: the
    pure path)."""
    try:
        return _FAST[version, depth]
    except (KeyError, TypeError):
        plan = compiled_plan(version)  # a bad version raises here, as text_syntax does
        if plan is None:
            return None
        fast = _FAST[version, depth] = (depth, *plan, StringName)
        return fast


def from_text(text: str, *, version: str = "4", limits: Limits | None = DEFAULT_LIMITS) -> Any:
    """The value of Godot text ``text``, as that release's ``str_to_var`` (Godot 4) or
    ``str2var`` (Godot 3) reads it: aliases, legacy names and ``;`` comments included, floats
    read by Godot's own algorithm. Only the first value is read (as in Godot). Raises
    :class:`TextError` (a :class:`DecodeError`) with the line and column of anything the
    engine rejects, and where a ``Resource(...)`` would need the engine's loader.
    """
    if limits is DEFAULT_LIMITS and type(text) is str and type(version) is str:  # the common call
        fast = _DEFAULT_FAST.get(version)
        if fast is not None and len(text) <= _DEFAULT_MAX_SIZE:
            value = core.read(text, fast)
            if value is not NotImplemented:
                return value
    if not isinstance(text, str):
        raise TypeError(f"from_text() needs a str, not {type(text).__name__}")
    max_size = limits.max_size if limits is not None else None
    too_big = max_size is not None and len(text) > max_size
    if not too_big:
        depth = min((limits.max_depth if limits else None) or TEXT_MAX_DEPTH, TEXT_MAX_DEPTH)
        fast = _fast(version, depth)
        if limits is DEFAULT_LIMITS and fast is not None:
            _DEFAULT_FAST[version] = fast
        if fast is not None:
            value = core.read(text, fast)
            if value is not NotImplemented:
                return value
    parser = _Parser(text, text_syntax(version), limits or Limits(None, None, None, None))
    if too_big:
        raise parser.fail(f"at most {max_size} characters (Limits.max_size)", 0)
    return parser.value(0)


def from_text_all(
    text: str, *, version: str = "4", limits: Limits | None = DEFAULT_LIMITS
) -> list[tuple[Any, int]]:
    """Every value in ``text``, one after another, each with the line it starts on.

    This is the text form of a file of records (one per line on the command line, though
    any white space or ``;`` comment separates them). Unlike :func:`from_text`, nothing is
    ignored: text that is not a value is a :class:`TextError` with its line and column.
    """
    return list(iter_text_all(text, version=version, limits=limits))


def iter_text_all(
    text: str,
    *,
    version: str = "4",
    limits: Limits | None = DEFAULT_LIMITS,
    known: Mapping[str, Any] | None = None,
) -> Iterator[tuple[Any, int]]:
    """:func:`from_text_all` one value at a time, in time linear in the text's length.

    ``known`` maps whole lines to their values (the lines a document was written with, each
    already read back alone to its value): a value that starts a line which is one of them is
    taken from there instead of being parsed again, so reading an edited document costs what
    changed in it.
    """
    parser = _Parser(text, text_syntax(version), limits or Limits(None, None, None, None))
    plan = compiled_plan(version)
    fast = None if plan is None else (parser.max_depth, *plan, StringName)
    line, counted = 1, 0
    while True:
        tok = parser.token()
        if tok[0] == "eof":
            if parser.pos < len(text):  # a NUL: Godot's reader stops there, we refuse
                raise parser.fail("a value or the end of the text", parser.pos, got="U+0000")
            return
        start = tok[2]
        line += text.count("\n", counted, start)
        counted = start
        if known and (start == 0 or text[start - 1] == "\n"):
            stop = text.find("\n", start)
            stop = len(text) if stop < 0 else stop
            whole = text[start:stop]
            if whole in known:
                parser.pos = stop
                yield known[whole], line
                continue
        found = NotImplemented if fast is None else core.read_from(text, fast, start)
        if found is not NotImplemented:
            value, parser.pos = found
            yield value, line
            continue
        yield parser.value_from(tok, 0), line
