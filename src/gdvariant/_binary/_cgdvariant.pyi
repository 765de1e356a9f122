"""Types of the compiled core (``_cgdvariant.c``); the pure-Python core is the reference."""

from typing import Any

from .._engines.profiles import Profile
from .._limits import Limits

def decode_value(
    data: bytes | bytearray | memoryview,
    profile: Profile,
    allow_objects: bool,
    offset: int,
    limits: Limits,
) -> tuple[Any, int]: ...
def decode_whole(
    data: bytes | bytearray | memoryview, profile: Profile, allow_objects: bool, limits: Limits
) -> Any: ...
def encode_value(value: Any, profile: Profile, full_objects: bool) -> bytes: ...
def fast_path_decode(
    data: bytes | bytearray | memoryview, profile: Profile, limits: Limits
) -> tuple[Any, int] | None: ...
def fast_path_encode(value: Any, profile: Profile) -> bytes | None: ...
def decode_frames(
    buffer: bytes | bytearray | memoryview,
    start: int,
    big_endian: bool,
    max_frame_size: int,
    profile: Profile,
    limits: Limits,
) -> tuple[list[Any], int]: ...
