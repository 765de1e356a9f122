"""Read a Godot value written as a Python expression, without ``eval``.

The CLI's ``encode`` takes text such as ``[7, "move", Vector3(1, 2, 3), {"seq": 42}]``. Only
literals, lists, tuples, dicts, unary minus and calls to gdvariant's own value types are
accepted; anything else is a ``ValueError`` naming what was refused and where.

A Dictionary whose keys Python would merge (``1``, ``1.0`` and ``true`` are three keys in
Godot) becomes a :class:`gdvariant.Dictionary` holding every pair, as the decoder returns it; a
key written twice (the same type and value) is refused, as GDScript refuses it.
"""

from __future__ import annotations

import ast
import inspect
import math
from typing import Any

from .._values import base, collections, packed
from .._values import math as math_types

_CALLABLES: dict[str, Any] = {
    name: getattr(module, name)
    for module in (base, math_types, collections, packed)
    for name in module.__all__
    if name not in ("ContainerKind", "VariantType")
}
#: The math types take no arguments (Godot's zero value) or one number per field, as in
#: GDScript, where ``Vector2(1)`` is an error; ``Color(r, g, b)`` (alpha 1) is GDScript too.
_MATH_ARGS: dict[Any, tuple[int, ...]] = {
    t: (0, len(t._fields))
    for t in (
        math_types.Vector2,
        math_types.Vector2i,
        math_types.Rect2,
        math_types.Rect2i,
        math_types.Vector3,
        math_types.Vector3i,
        math_types.Transform2D,
        math_types.Vector4,
        math_types.Vector4i,
        math_types.Plane,
        math_types.Quaternion,
        math_types.AABB,
        math_types.Basis,
        math_types.Transform3D,
        math_types.Projection,
    )
}
_MATH_ARGS[math_types.Color] = (0, 3, 4)
_NAMES: dict[str, Any] = {
    "inf": math.inf,
    "nan": math.nan,
    "null": None,
    "true": True,
    "false": False,
    "VariantType": base.VariantType,
    "ContainerKind": collections.ContainerKind,
}


def parse_value(text: str) -> Any:
    """The value that ``text`` spells, e.g. ``'{"hp": 10, "pos": Vector2(1, 2)}'``."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
        return _eval(tree.body)
    except SyntaxError as exc:
        raise ValueError(f"not a value expression: {exc.msg} (column {exc.offset})") from None
    except (RecursionError, MemoryError):
        raise ValueError("value expression is nested too deeply") from None


def _eval(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        items = [_eval(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict):
        return _eval_dict(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _eval(node.operand)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = _NAMES.get(node.value.id) or _CALLABLES.get(node.value.id)
        if owner is not None and not node.attr.startswith("_") and hasattr(owner, node.attr):
            return getattr(owner, node.attr)
    if isinstance(node, ast.Call):
        func = _eval_callee(node.func)
        args = [_eval(a) for a in node.args]
        kwargs = {kw.arg: _eval(kw.value) for kw in node.keywords if kw.arg is not None}
        if len(kwargs) != len(node.keywords):
            raise ValueError("'**' is not allowed in a value expression")
        _check_arguments(node, func, args, kwargs)
        try:
            return func(*args, **kwargs)
        except (TypeError, ValueError, AttributeError) as exc:
            name = ast.unparse(node.func)
            why = _mismatch(func, args, kwargs) or str(exc).removeprefix(f"{name}: ")
            raise ValueError(f"{name}: {why}{_at(node)}") from None
    raise ValueError(f"not allowed in a value expression: {ast.unparse(node)!r}{_at(node)}")


def _at(node: ast.expr) -> str:
    """Where ``node`` starts, for error messages (columns count from 1, as SyntaxError's)."""
    return f" (at column {node.col_offset + 1})"


def _eval_dict(node: ast.Dict) -> Any:
    """A ``dict``, or a :class:`Dictionary` when a ``dict`` would merge or refuse keys."""
    if any(k is None for k in node.keys):
        raise ValueError(f"'**' is not allowed in a value expression{_at(node)}")
    pairs = [(_eval(k), _eval(v)) for k, v in zip(node.keys, node.values, strict=True) if k]
    try:
        merged = dict(pairs)
    except TypeError:  # an Array or Dictionary key: Godot allows it, a dict cannot hold it
        merged = {}
    if len(merged) == len(pairs):
        return merged
    seen: set[tuple[type, Any]] = set()
    unhashable: list[Any] = []
    for key_node, (key, _) in zip(node.keys, pairs, strict=True):
        try:
            typed = (type(key), key)
            repeated = typed in seen
            seen.add(typed)
        except TypeError:
            repeated = key in unhashable
            unhashable.append(key)
        if repeated:
            assert key_node is not None
            raise ValueError(f"the key {ast.unparse(key_node)} is repeated{_at(key_node)}")
    return collections.Dictionary(pairs)


def _check_arguments(node: ast.Call, func: Any, args: list[Any], kwargs: dict[str, Any]) -> None:
    """Refuse a call the type cannot take, in our words rather than Python's."""
    name = ast.unparse(node.func)
    counts = _MATH_ARGS.get(func)
    if counts is not None and not kwargs and len(args) not in counts:
        fields = ", ".join(func._fields)
        allowed = ", ".join(str(n) for n in counts[:-1]) + f" or {counts[-1]}"
        raise ValueError(f"{name} takes {allowed} arguments ({fields}), got {len(args)}{_at(node)}")
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # a builtin base (StringName is a str) has none
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        params = ", ".join(signature.parameters)
        raise ValueError(f"{name}({params}): {exc}{_at(node)}") from None


#: What each parameter annotation of the value types asks for, in words, and its check.
_KINDS: dict[str, tuple[str, Any]] = {
    "SupportsFloat": ("a number", lambda v: isinstance(v, int | float)),
    "SupportsIndex": ("an integer", lambda v: isinstance(v, int)),
    "str": ("a string", lambda v: isinstance(v, str)),
    "Iterable": ("a list or tuple", lambda v: isinstance(v, list | tuple | dict)),
    "Mapping": ("a dict or a list of pairs", lambda v: isinstance(v, list | tuple | dict)),
}


def _mismatch(func: Any, args: list[Any], kwargs: dict[str, Any]) -> str | None:
    """The first argument of the wrong kind, named in our words; None if none is found."""
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    for name, value in bound.arguments.items():
        annotation = str(bound.signature.parameters[name].annotation)
        if value is None and annotation.endswith("| None"):
            continue
        kind = _KINDS.get(annotation.partition("[")[0])
        if kind is not None and not kind[1](value):
            return f"{name} must be {kind[0]}, not {type(value).__name__} {value!r}"
    return None


def _eval_callee(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in _CALLABLES:
        return _CALLABLES[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = _CALLABLES.get(node.value.id)
        if owner is not None and node.attr in ("builtin", "class_name", "script", "from_parts"):
            return getattr(owner, node.attr)
    raise ValueError(f"not a gdvariant type: {ast.unparse(node)!r}{_at(node)}")
