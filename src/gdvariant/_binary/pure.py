"""The pure-Python core: the reference implementation of the codec contract in :mod:`.core`.

It is complete on its own (the compiled core is optional) and canonical: where the two differ,
this one is right unless the engine says otherwise.
"""

from __future__ import annotations

from typing import Any

from .._engines.profiles import Profile
from .._errors import DecodeError
from .._limits import Limits
from .decoder import _CALLABLE as CALLABLE
from .decoder import decode_value
from .encoder import encode_value

__all__ = [
    "CALLABLE",
    "decode_value",
    "decode_whole",
    "encode_value",
]
# CALLABLE (the one Callable value) is what the compiled core's tables (ctables) read from
# this core; how each profile reads math types and packed arrays they take from
# :mod:`gdvariant._engines.reals`.


def decode_whole(
    data: Any, profile: Profile, allow_objects: bool, limits: Limits, packed_views: bool = False
) -> Any:
    """The one value ``data`` holds, with no bytes left over (``bytes_to_var``)."""
    value, end = decode_value(data, profile, allow_objects, 0, limits, packed_views)
    size = memoryview(data).nbytes
    if end < size:
        raise DecodeError(f"{size - end} bytes of trailing data after the value", end)
    return value
