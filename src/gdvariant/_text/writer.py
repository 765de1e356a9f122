"""``to_text``: a value in Godot's text syntax, exactly as ``var_to_str`` / ``var2str`` prints it.

Layout, spellings and float printing follow the release's :class:`TextSyntax`. With
``exact=True`` floats are written so that both Godot's reader and Python's read back the same
bits (a text Godot itself would never print, but reads). Facts: ``docs/text-format.md``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from typing import Any

from .._engines.text_syntax import SCALAR_NAMES, TextSyntax, text_syntax
from .._errors import EncodeError
from .._floats import f32, godot_strtod, grisu2_text, is_float32, percent_g
from .._values.base import (
    RID,
    Callable,
    GodotObject,
    NodePath,
    ObjectID,
    Signal,
    StringName,
    VariantType,
)
from .._values.collections import ContainerKind, Dictionary, ElementType, TypedArray
from .._values.layouts import LAYOUTS, MATH_CLASSES, PACKED_CLASSES
from .._values.packed import PackedStringArray, _PackedNumbers
from . import core
from .godot_sort import godot_sort

__all__ = ["to_text"]

T = VariantType


_ESCAPE_MULTILINE = str.maketrans({"\\": "\\\\", '"': '\\"'})
_ESCAPE = str.maketrans(
    {
        "\\": "\\\\",
        "\a": "\\a",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
        "\v": "\\v",
        "'": "\\'",
        '"': '\\"',
    }
)
_ESCAPE_3 = str.maketrans({**{chr(k): v for k, v in _ESCAPE.items()}, "?": "\\?"})
#: Exact mode leaves BEL and VT raw: Godot's reader turns ``\a`` and ``\v`` into letters.
_ESCAPE_EXACT = str.maketrans({chr(k): v for k, v in _ESCAPE.items() if chr(k) not in "\a\v"})
#: One-line text also writes every other character that some readers take as a line break
#: (Python's ``splitlines``, Unicode) as a ``\u`` escape, which every Godot reader knows.
_ESCAPE_LINE = str.maketrans(
    {
        **{chr(k): v for k, v in _ESCAPE.items() if chr(k) not in "\a\v"},
        **{c: f"\\u{ord(c):04x}" for c in "\v\x1c\x1d\x1e\x85\u2028\u2029"},
    }
)

_SIMPLE: dict[type, VariantType] = {
    type(None): T.NIL,
    bool: T.BOOL,
    int: T.INT,
    float: T.FLOAT,
    str: T.STRING,
    StringName: T.STRING_NAME,
    NodePath: T.NODE_PATH,
    RID: T.RID,
    GodotObject: T.OBJECT,
    ObjectID: T.OBJECT,
    Callable: T.CALLABLE,
    Signal: T.SIGNAL,
    dict: T.DICTIONARY,
    Dictionary: T.DICTIONARY,
    list: T.ARRAY,
    tuple: T.ARRAY,
    TypedArray: T.ARRAY,
    bytes: T.PACKED_BYTE_ARRAY,
    bytearray: T.PACKED_BYTE_ARRAY,
    memoryview: T.PACKED_BYTE_ARRAY,
    PackedStringArray: T.PACKED_STRING_ARRAY,
    **MATH_CLASSES,
    **PACKED_CLASSES,
}


def variant_type(value: Any) -> VariantType:
    """The Godot type a Python value stands for; ``EncodeError`` if none."""
    for cls in type(value).__mro__:
        vtype = _SIMPLE.get(cls)
        if vtype is not None:
            return vtype
    raise EncodeError(f"cannot write a {type(value).__qualname__} as Godot text")


def _op_less(a: Any, b: Any, vtype: VariantType) -> bool:
    """``a < b`` for two values of one type, where Godot defines it; False where it doesn't."""
    if vtype in (T.BOOL, T.INT, T.FLOAT, T.STRING, T.STRING_NAME):
        return bool(a < b)
    if vtype in (T.VECTOR2, T.VECTOR2I, T.VECTOR3, T.VECTOR3I, T.VECTOR4, T.VECTOR4I):
        return tuple(a) < tuple(b)
    if vtype is T.RID:
        return bool(a.id < b.id)
    return False


class _Writer:
    def __init__(
        self,
        syntax: TextSyntax,
        exact: bool,
        *,
        line: bool = False,
        max_items: int | None = None,
        display: bool = False,
    ) -> None:
        self.syntax = syntax
        self.exact = exact
        #: One line per value, keys in stored order (``to_text_line``).
        self.line = line
        self.max_items = max_items
        #: Shown to a person: no refusals, values with no text get a readable stand-in.
        self.display = display
        self.ids = syntax.profile.wire_ids
        self.escape = _ESCAPE_3 if syntax.escape_question else _ESCAPE
        if exact:
            self.escape = _ESCAPE_LINE if line else _ESCAPE_EXACT
        self.open, self.close = ("( ", " )") if syntax.spaced else ("(", ")")
        self.empty = "(  )" if syntax.spaced else "()"
        self.brackets = ("[ ", " ]", "[  ]") if syntax.spaced else ("[", "]", "[]")

    # ---- numbers ---------------------------------------------------------------------------

    def real(self, value: float, *, component: bool) -> str:
        """``rtos_fix``: the text of one float (a FLOAT, or a real_t/float32 component)."""
        syntax = self.syntax
        if component:
            value = f32(value)
        if self.line and math.isfinite(value) and not component and value:
            shortest = repr(value)  # Python's shortest digits, when Godot reads them right
            if godot_strtod(shortest) == value:
                return shortest
        if self.exact and (not self.display or math.isfinite(value) or syntax.real_words):
            if math.isfinite(value) and component:
                return _exact_single(value)
            if math.isfinite(value) or syntax.real_words:
                try:
                    return _exact_float(value)
                except EncodeError:
                    if self.display:
                        return repr(value)
                    raise
            if math.isnan(value):
                raise EncodeError(f"{syntax.engine}'s reader has no spelling of NaN here")
            return "1e+999" if value > 0 else "-1e+999"  # its reader overflows to +-inf
        if syntax.narrow_floats:
            value = f32(value)
        if value == 0:
            return "0"
        if syntax.printf_specials:
            return percent_g(value)
        if math.isnan(value):
            return "nan"
        if value == -math.inf:
            return "inf_neg"
        if syntax.float_style == "%g":
            return percent_g(value)
        return grisu2_text(value, is_float32(value))

    def float_(self, value: float) -> str:
        text = self.real(value, component=False)
        if text not in ("inf", "nan") and not any(c in text for c in ".eE"):
            text += ".0"
        return text

    def components(self, values: Iterable[Any], kind: str) -> str:
        if kind == "i32":
            return ", ".join(str(int(v)) for v in values)
        return ", ".join(self.real(v, component=kind != "f64") for v in values)

    def construct(self, name: str, body: str) -> str:
        return f"{name}{self.open}{body}{self.close}" if body else f"{name}{self.empty}"

    # ---- values ----------------------------------------------------------------------------

    def name_of(self, vtype: VariantType, value: Any) -> str:
        name = self.syntax.names.get(vtype)
        if name is None or vtype not in self.ids:
            raise EncodeError(f"{self.syntax.engine} has no {vtype.name} type in its text syntax")
        return name

    def write(self, value: Any, depth: int) -> str:
        vtype = variant_type(value)
        if vtype is T.NIL:
            return "null"
        if vtype is T.BOOL:
            return "true" if value else "false"
        if vtype is T.INT:
            return str(int(value))
        if vtype is T.FLOAT:
            return self.float_(float(value))
        if self.exact and isinstance(value, str | NodePath) and "\0" in str(value):
            raise EncodeError("a string with U+0000 has no text form (Godot's reader stops there)")
        if vtype is T.STRING:
            escape = self.escape if self.line else _ESCAPE_MULTILINE
            return '"' + str(value).translate(escape) + '"'
        if vtype is T.STRING_NAME:
            self.name_of_4(vtype)
            return '&"' + str(value).translate(self.escape) + '"'
        if vtype is T.NODE_PATH:
            return 'NodePath("' + str(value).translate(self.escape) + '")'
        if vtype in (T.RID, T.CALLABLE, T.SIGNAL):
            return self.opaque(vtype, value)
        if vtype is T.OBJECT:
            return self.object_(value, depth)
        if vtype is T.ARRAY:
            return self.array(value, depth)
        if vtype is T.DICTIONARY:
            return self.dictionary(value, depth)
        if vtype in LAYOUTS:
            layout = LAYOUTS[vtype]
            return self.construct(
                self.name_of(vtype, value), self.components(layout.flatten(value), layout.kind)
            )
        return self.packed(vtype, value)

    def name_of_4(self, vtype: VariantType) -> None:
        if vtype not in self.ids:
            raise EncodeError(f"{self.syntax.engine} has no {vtype.name} type in its text syntax")

    def opaque(self, vtype: VariantType, value: Any) -> str:
        self.name_of_4(vtype)
        if not self.syntax.writes_rid and not self.display:
            if self.exact:
                raise EncodeError(f"{self.syntax.engine} writes a {vtype.name} as nothing")
            return ""
        if vtype is T.SIGNAL and self.line and not self.display and tuple(value) != ("", 0):
            raise EncodeError("a Signal's name and object have no text form (Godot: Signal())")
        if vtype is T.RID:
            rid = value.id - (1 << 64) if value.id >= 1 << 63 else value.id
            return f"RID({rid})" if rid else "RID()"
        return "Callable()" if vtype is T.CALLABLE else "Signal()"

    def object_(self, value: Any, depth: int) -> str:
        if isinstance(value, ObjectID):
            if self.display:  # what Godot makes of it: an EncodedObjectAsID holding the id
                return f'Object(EncodedObjectAsID,"object_id":{value.id})'
            raise EncodeError("an Object sent as an id has no text form; decode with objects")
        props = ",".join(f'"{k}":{self.write(v, depth + 1)}' for k, v in value.properties)
        sep = "," if props else ""
        return f"Object({value.class_name}{sep}{props})" + ("" if self.line else "\n")

    def items(self, texts: Iterable[str], count: int, sep: str = ", ") -> str:
        """``texts`` joined, cut after ``max_items`` with a count of the rest (display only)."""
        limit = self.max_items
        if limit is None or count <= limit:
            return sep.join(texts)
        shown = [text for text, _ in zip(texts, range(limit), strict=False)]
        return sep.join([*shown, f"... {count - limit} more"])

    def element_name(self, spec: ElementType | None) -> str:
        if spec is None or spec.kind is ContainerKind.NONE:
            return "Variant"
        if spec.kind is ContainerKind.BUILTIN:
            name = SCALAR_NAMES.get(spec.type) or self.syntax.names.get(spec.type)
            if name is None:
                raise EncodeError(f"no text name for element type {spec.type.name}")
            return name
        if spec.kind is ContainerKind.CLASS_NAME:
            return spec.name
        return 'Resource("' + spec.name.translate(_ESCAPE_MULTILINE) + '")'

    def too_deep(self, depth: int) -> bool:
        """Godot prints a container past ``MAX_RECURSION`` as empty (and logs an error)."""
        limit = self.syntax.max_depth
        if limit is None or depth <= limit:
            return False
        if self.exact and not self.display:
            raise EncodeError(f"containers nested deeper than the text writer's {limit} levels")
        return True

    def array(self, value: Any, depth: int) -> str:
        if self.too_deep(depth):
            return "[]"
        inner = depth + 1
        texts = (self.write(v, inner) for v in value)
        items = ", ".join(texts) if self.max_items is None else self.items(texts, len(value))
        body = f"{self.brackets[0]}{items}{self.brackets[1]}" if items else self.brackets[2]
        if isinstance(value, TypedArray):
            if not self.syntax.godot4_values:
                raise EncodeError(f"{self.syntax.engine} has no typed Arrays")
            return f"Array[{self.element_name(value.element_type)}]({body})"
        return body

    def dictionary(self, value: Any, depth: int) -> str:
        if self.too_deep(depth):
            return "{}"
        inner = depth + 1
        pairs = list(value.items_list if isinstance(value, Dictionary) else value.items())
        if not self.line:
            godot_sort(pairs, self.key_less)
        texts = (f"{self.write(k, inner)}: {self.write(v, inner)}" for k, v in pairs)
        if self.line:
            shown = ", ".join(texts) if self.max_items is None else self.items(texts, len(pairs))
            body = "{" + shown + "}"
        else:
            lines = ",\n".join(texts)
            body = "{\n" + lines + "\n}" if lines else self.syntax.empty_dict
        typed = isinstance(value, Dictionary) and (
            value.key_type is not None or value.value_type is not None
        )
        if typed:
            if not self.syntax.typed_dictionaries:
                raise EncodeError(f"{self.syntax.engine} has no typed Dictionaries")
            k = self.element_name(value.key_type)
            v = self.element_name(value.value_type)
            return f"Dictionary[{k}, {v}]({body})"
        return body

    def key_less(self, a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
        """The key order (4.4+: ``StringLikeVariantOrder``) on two (key, value) pairs."""
        x, y = a[0], b[0]
        if self.syntax.string_like_order and isinstance(x, str) and isinstance(y, str):
            return str(x) < str(y)
        return self.less(x, y)

    def less(self, a: Any, b: Any) -> bool:
        """``Variant::operator<``: type id first, then the type's own ``<`` if it has one."""
        ta, tb = variant_type(a), variant_type(b)
        if ta is not tb:
            return self.ids.get(ta, 0) < self.ids.get(tb, 0)
        if ta is T.ARRAY and self.syntax.array_less == "godot3":
            return len(b) >= len(a) and any(not self.less(x, y) for x, y in zip(a, b, strict=False))
        if ta is T.ARRAY:
            for x, y in zip(a, b, strict=False):
                if self.less(x, y):
                    return True
                if self.less(y, x):
                    return False
            return len(a) < len(b)
        return _op_less(a, b, ta)

    def packed(self, vtype: VariantType, value: Any) -> str:
        name = self.name_of(vtype, value)
        if vtype is T.PACKED_BYTE_ARRAY:
            data = bytes(value)
            return self.construct(name, self.items(map(str, data), len(data)))
        if vtype is T.PACKED_STRING_ARRAY:
            texts = ('"' + s.translate(self.escape) + '"' for s in value)
            return self.construct(name, self.items(texts, len(value)))
        assert isinstance(value, _PackedNumbers)
        numbers = value._numbers()
        kind = "f64" if value._code == "d" else "f32"
        if vtype in (T.PACKED_INT32_ARRAY, T.PACKED_INT64_ARRAY):
            kind = "i32"
        if self.max_items is None:
            return self.construct(name, self.components(numbers, kind))
        width = len(numbers) // max(len(value), 1) or 1  # components per element
        texts = (
            self.components(numbers[i : i + width], kind) for i in range(0, len(numbers), width)
        )
        return self.construct(name, self.items(texts, len(numbers) // width))


def _exact_float(value: float) -> str:
    """Digits that Godot's ``built_in_strtod`` and Python's ``float`` both read as ``value``."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "inf_neg"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0"
    for digits in range(1, 19):  # Godot's reader keeps 18 mantissa digits
        text = f"{value:.{digits - 1}e}"
        if float(text) != value:
            continue
        mantissa, _, exp = text.partition("e")
        # This spelling and its neighbours of the same length: Godot's reader is often a
        # few units in the last place off, so a neighbour may be the one it reads right.
        for nudge in (0, -1, 1, -2, 2, -3, 3):
            candidate = _nudge(mantissa, nudge) + "e" + exp
            if float(candidate) == value and godot_strtod(candidate) == value:
                return candidate
    # About 1 % of doubles have no such text: Godot's power-of-ten table is several units
    # in the last place off, further than Python's reading allows. Then the text only
    # Godot's reader (and from_text, which follows it) reads as ``value``.
    for digits in (18, 17, 16):
        mantissa, _, exp = f"{value:.{digits - 1}e}".partition("e")
        for step in range(1, 400):
            for nudge in (step, -step):
                candidate = _nudge(mantissa, nudge) + "e" + exp
                if godot_strtod(candidate) == value:
                    return candidate
    raise EncodeError(f"{value!r} has no decimal text that Godot's str_to_var reads back exactly")


def _exact_single(value: float) -> str:
    """Digits of a float32 component that both readers round back to it: its shortest float32
    digits (Godot's reader may be a unit off in the double, but the cast to float32 absorbs
    that), else a text exact as a double."""
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0"
    text = grisu2_text(value, True)
    if f32(godot_strtod(text)) == value and f32(float(text)) == value:
        return text
    return _exact_float(value)


def _nudge(mantissa: str, step: int) -> str:
    """``mantissa`` with its last digit moved by ``step`` units (same length)."""
    negative = mantissa.startswith("-")
    digits = mantissa.lstrip("-").replace(".", "")
    number = int(digits) + step
    text = str(number).rjust(len(digits), "0")
    if len(text) != len(digits):
        return mantissa
    body = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return ("-" if negative else "") + body


_PLANS: dict[str, tuple[Any, ...] | None] = {}
#: Per version with a plan: the plan and the default writer's ``write``, its fallback (a
#: writer holds no state between calls, so one serves every call).
_FAST: dict[str, tuple[tuple[Any, ...], Any]] = {}


def compiled_plan(version: str) -> tuple[Any, ...] | None:
    """What the compiled writer (:mod:`.core`) needs to know of ``version``'s default layout,
    or None where it does not write it (Godot 3 and 4.0-4.4: ``%g`` floats, spaced brackets).

    The tuple is ``(max_depth, empty_dict, maths, packed, byte_array_name,
    string_array_name, StringName, PackedStringArray)``: ``maths`` maps each math class to its
    name, component kind (0 int, 1 float32) and ``flatten`` (None when the value is its own
    flat tuple), ``packed`` each numeric packed class to its name and array typecode. A type
    the release has no name for is left out, so the pure writer refuses it as before.
    """
    syntax = text_syntax(version)
    if version in _PLANS:
        return _PLANS[version]
    writer = _Writer(syntax, False)
    plain = (
        syntax.float_style == "grisu2"
        and not (syntax.narrow_floats or syntax.printf_specials or syntax.spaced)
        and not syntax.escape_question
        and syntax.max_depth is not None
        and sys.byteorder == "little"
    )
    plan = None
    if plain:
        known = {t for t in syntax.names if t in writer.ids}
        maths = {
            layout.cls: (
                syntax.names[vtype],
                0 if layout.kind == "i32" else 1,
                None
                if layout.flatten is tuple and issubclass(layout.cls, tuple)
                else layout.flatten,
            )
            for vtype, layout in LAYOUTS.items()
            if vtype in known
        }
        packed = {
            cls: (syntax.names[vtype], cls._code)
            for cls, vtype in PACKED_CLASSES.items()
            if vtype in known
        }
        plan = (
            syntax.max_depth,
            syntax.empty_dict,
            maths,
            packed,
            syntax.names[T.PACKED_BYTE_ARRAY] if T.PACKED_BYTE_ARRAY in known else None,
            syntax.names[T.PACKED_STRING_ARRAY] if T.PACKED_STRING_ARRAY in known else None,
            StringName if T.STRING_NAME in writer.ids else None,
            PackedStringArray,
        )
        _FAST[version] = (plan, writer.write)
    _PLANS[version] = plan
    return plan


def to_text(value: Any, *, version: str = "4", exact: bool = False) -> str:
    """``value`` in Godot's text syntax, exactly as that release's ``var_to_str`` (Godot 4) or
    ``var2str`` (Godot 3) prints it.

    Godot's text loses some floats (``-0.0``, doubles printed with float32 digits, digits
    Godot's reader rounds wrongly, and in 3.x and before 4.5 everything past 6 digits).
    ``exact=True`` writes floats that read back bit-identical in Godot and in
    :func:`from_text` instead; it raises :class:`EncodeError` for the few doubles (below about
    1e-292) that Godot's reader cannot get back from any text.
    """
    fast = None if exact else _fast(version)
    if fast is not None:
        return core.write(value, *fast)
    return _Writer(text_syntax(version), exact).write(value, 0)


def _fast(version: str) -> tuple[tuple[Any, ...], Any] | None:
    """The compiled writer's plan and fallback for ``version`` (None: the pure path)."""
    try:
        return _FAST[version]
    except (KeyError, TypeError):
        compiled_plan(version)  # a bad version raises here, as text_syntax does
        return _FAST.get(version)


def to_text_line(
    value: Any, *, version: str = "4", max_items: int | None = None, display: bool = False
) -> str:
    """``value`` as one line of exact text, Dictionary keys in their stored order.

    This is the form of one save record on the command line: :func:`from_text` reads it back
    to the same value (and so to the same bytes), which Godot's own layout, sorted and spread
    over lines, does not promise. ``max_items`` shortens longer containers with a
    ``... N more`` mark and ``display`` gives values with no text a readable stand-in; both
    are for showing values to a person, and their text may not read back.
    """
    writer = _Writer(text_syntax(version), True, line=True, max_items=max_items, display=display)
    return writer.write(value, 0)
