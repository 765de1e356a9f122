"""The pure twin of the compiled Godot-dialect JSON writer (``_cjson.c``): the reference path
writes it all.

``write(value, plan, fallback)`` is the contract both twins keep (see :mod:`.core`); here the
whole value goes to ``fallback``, the pure path's own text of a value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["write"]


def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any:
    """The text of ``value``: ``fallback(value)`` (``plan`` is for the compiled twin)."""
    return fallback(value)
