"""The pure twin of the compiled text writer (``_ctext.c``): the reference writer does it all.

``write(value, plan, fallback)`` is the contract both twins keep (see :mod:`.core`); here the
whole value goes to ``fallback``, the pure writer's own ``write(value, depth)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["write"]


def write(value: Any, plan: tuple[Any, ...], fallback: Callable[[Any, int], str]) -> str:
    """The text of ``value``: ``fallback(value, 0)`` (``plan`` is for the compiled twin)."""
    return fallback(value, 0)
