"""Test ids for parametrized values that are the same in every process.

``repr`` of a plain ``object()`` holds its address, which differs between pytest-xdist's
workers, and workers that collect different ids refuse to run.
"""

from __future__ import annotations

import re
from typing import Any

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def value_id(value: Any) -> str:
    """``repr(value)`` without the addresses of objects inside it."""
    return _ADDRESS.sub("", repr(value))
