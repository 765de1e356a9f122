"""The pure twin of the compiled text writer and reader (``_ctext.c``): the reference writer
and parser do it all.

``write(value, plan, fallback)``, ``read(text, plan)`` and ``read_from(text, plan, start)``
are the contract both twins keep (see :mod:`.core`); here the whole value goes to
``fallback``, the pure writer's own ``write(value, depth)``, and every text to the pure parser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["read", "read_from", "write"]


def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any, int], str]) -> str:
    """The text of ``value``: ``fallback(value, 0)`` (``plan`` is for the compiled twin)."""
    return fallback(value, 0)


def read(text: str, plan: tuple[Any, ...]) -> Any:
    """``NotImplemented``: the pure parser, the reference, reads every text itself."""
    return NotImplemented


def read_from(text: str, plan: tuple[Any, ...], start: int) -> Any:
    """``NotImplemented``: the pure parser reads every value of a text of records itself."""
    return NotImplemented
