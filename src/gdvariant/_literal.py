"""Read a Godot value written as a Python expression, without ``eval``.

The CLI's ``encode`` takes text such as ``[7, "move", Vector3(1, 2, 3), {"seq": 42}]``. Only
literals, lists, tuples, dicts, unary minus and calls to gdvariant's own value types are
accepted; anything else is a ``ValueError`` naming what was refused.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from . import _packed, _types

_CALLABLES: dict[str, Any] = {
    name: getattr(module, name)
    for module in (_types, _packed)
    for name in module.__all__
    if name not in ("ContainerKind", "VariantType")
}
_NAMES: dict[str, Any] = {
    "inf": math.inf,
    "nan": math.nan,
    "null": None,
    "true": True,
    "false": False,
    "VariantType": _types.VariantType,
    "ContainerKind": _types.ContainerKind,
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
        if any(k is None for k in node.keys):
            raise ValueError("'**' is not allowed in a value expression")
        try:
            return {_eval(k): _eval(v) for k, v in zip(node.keys, node.values, strict=True) if k}
        except TypeError as exc:  # an unhashable key
            raise ValueError(f"bad dictionary key: {exc}") from None
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
        try:
            return func(*args, **kwargs)
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"{ast.unparse(node.func)}(...): {exc}") from None
    raise ValueError(f"not allowed in a value expression: {ast.unparse(node)!r}")


def _eval_callee(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id in _CALLABLES:
        return _CALLABLES[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = _CALLABLES.get(node.value.id)
        if owner is not None and node.attr in ("builtin", "class_name", "script", "from_parts"):
            return getattr(owner, node.attr)
    raise ValueError(f"not a gdvariant type: {ast.unparse(node)!r}")
