"""The pure twin of the compiled Godot-dialect JSON writer (``_cjson.c``): the reference path
writes it all.

``write(value, plan, fallback)`` (the Godot dialect) and ``write_tagged(value, plan,
fallback)`` (the tagged form) are the contract both twins keep (see :mod:`.core`); here the
whole value goes to ``fallback``, the pure path's own text of a value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["write", "write_tagged"]


def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any:
    """The text of ``value``: ``fallback(value)`` (``plan`` is for the compiled twin)."""
    return fallback(value)


def write_tagged(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any:
    """The tagged text of ``value``: ``fallback(value)``."""
    return fallback(value)
