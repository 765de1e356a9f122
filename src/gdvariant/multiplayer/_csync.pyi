"""Types of the compiled network frame (``_csync.c``); ``_pysync`` is the reference."""

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

def frame(
    roster: Iterable[list[Any]],
    slots: Mapping[int, int],
    clocks: list[Any],
    encoder: tuple[Any, ...],
) -> tuple[list[tuple[int, list[bytes], list[bytes]]], list[tuple[int, int, str]]]: ...
def tally(
    counts: tuple[dict[Any, int], array[int], Callable[[Any], int]], peer: Any, data: bytes
) -> None: ...
def hand_over(
    links: Mapping[int, Any],
    packets: Sequence[tuple[int, bytes, int, int]],
    start: int,
    counts: tuple[dict[Any, int], array[int], Callable[[Any], int]],
    largest: int,
    routes: Sequence[tuple[int, int]],
    make: Callable[[bytes, int], Any],
) -> int: ...
def read_call(
    data: bytes, allow_objects: bool, limits: Any, cls: type, general: Callable[..., Any]
) -> Any: ...
def write_call(
    node_id: int, method_id: int, args: tuple[Any, ...], general: Callable[..., Any]
) -> bytes | None: ...
