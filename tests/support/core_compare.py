"""Run one call on both cores and say whether they agree: same value (type included, NaN equal
to NaN) and end offset, or the same error (message, offset, path, Godot code, limit).

Shared by the differential tests of the two cores and by the fuzz harness.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import gdvariant as gd
from gdvariant._binary import pure as _pure
from gdvariant._limits import DEFAULT_LIMITS

__all__ = ["compare_decode", "compare_encode", "compiled", "same_value"]


def _compiled() -> ModuleType | None:
    try:
        return importlib.import_module("gdvariant._binary._cgdvariant")
    except ImportError:  # no compiler where this was installed: nothing to compare
        return None


compiled = _compiled()


def same_value(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down; NaN equals NaN, -0.0 differs from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, dict):
        return len(a) == len(b) and all(
            same_value(ka, kb) and same_value(va, vb)
            for (ka, va), (kb, vb) in zip(a.items(), b.items(), strict=True)
        )
    if isinstance(a, gd.Dictionary):
        return (
            a.key_type == b.key_type
            and a.value_type == b.value_type
            and same_value(a.items_list, b.items_list)
        )
    if isinstance(a, list | tuple):
        if isinstance(a, gd.TypedArray) and a.element_type != b.element_type:
            return False
        return len(a) == len(b) and all(map(same_value, a, b))
    return bool(a == b)


def _error_fields(exc: BaseException) -> tuple[Any, ...]:
    return (type(exc), str(exc), *(getattr(exc, n, None) for n in ("offset", "path", "code")))


def compare_decode(
    data: bytes, profile: gd.Profile, allow_objects: bool = True, limits: gd.Limits = DEFAULT_LIMITS
) -> str | None:
    """``None`` when both cores decode ``data`` alike, else what differs."""
    assert compiled is not None
    results = []
    for decode in (_pure.decode_value, compiled.decode_value):
        try:
            results.append(("value", decode(data, profile, allow_objects, 0, limits)))
        except (gd.DecodeError, ValueError) as exc:
            results.append(("error", (*_error_fields(exc), getattr(exc, "limit", None))))
    (kind_a, a), (kind_b, b) = results
    if kind_a != kind_b:
        return f"pure gave {kind_a} {a!r}, compiled gave {kind_b} {b!r}"
    if kind_a == "error":
        return None if a == b else f"errors differ: {a!r} vs {b!r}"
    return None if same_value(a, b) else f"values differ: {a!r} vs {b!r}"


def compare_encode(value: Any, profile: gd.Profile, full_objects: bool = True) -> str | None:
    """``None`` when both cores encode ``value`` to the same bytes or the same error."""
    assert compiled is not None
    results: list[tuple[str, Any]] = []
    for encode in (_pure_encoder(profile), _compiled_encoder(profile)):
        try:
            results.append(("bytes", encode(value, full_objects)))
        except gd.EncodeError as exc:
            results.append(("error", _error_fields(exc)))
    return None if results[0] == results[1] else f"pure {results[0]!r}, compiled {results[1]!r}"


def _pure_encoder(profile: gd.Profile) -> Callable[[Any, bool], bytes]:
    return lambda value, full_objects: _pure.encode_value(value, profile, full_objects)


def _compiled_encoder(profile: gd.Profile) -> Callable[[Any, bool], bytes]:
    assert compiled is not None
    encode_value: Callable[[Any, gd.Profile, bool], bytes] = compiled.encode_value
    return lambda value, full_objects: encode_value(value, profile, full_objects)
