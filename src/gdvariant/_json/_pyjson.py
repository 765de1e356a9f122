"""The pure twin of the compiled JSON writers and readers (``_cjson.c``): the reference path
writes and reads it all.

``write(value, plan, fallback)`` (the Godot dialect) and ``write_tagged(value, plan,
fallback)`` (the tagged form) are the contract both twins keep (see :mod:`.core`); here the
whole value goes to ``fallback``, the pure path's own text of a value. The readers
``read_tagged(text, plan)`` and ``read_godot(text, plan)`` return ``NotImplemented``: the pure
reader reads the whole text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["read_godot", "read_tagged", "write", "write_tagged"]


def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any:
    """The text of ``value``: ``fallback(value)`` (``plan`` is for the compiled twin)."""
    return fallback(value)


def write_tagged(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any], str]) -> Any:
    """The tagged text of ``value``: ``fallback(value)``."""
    return fallback(value)


def read_tagged(text: str, plan: tuple[Any, ...]) -> Any:
    """``NotImplemented``: the pure reader reads the whole text."""
    return NotImplemented


def read_godot(text: str, plan: tuple[Any, ...]) -> Any:
    """``NotImplemented``: the pure reader reads the whole text."""
    return NotImplemented
