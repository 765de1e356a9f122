"""Types of the compiled network frame (``_csync.c``); ``_pysync`` is the reference."""

from collections.abc import Iterable, Mapping
from typing import Any

def frame(
    roster: Iterable[list[Any]],
    slots: Mapping[int, int],
    clocks: list[Any],
    encoder: tuple[Any, ...],
) -> tuple[list[tuple[int, list[bytes], list[bytes]]], list[tuple[int, int, str]]]: ...
def tally(
    counts: tuple[dict[int, int], dict[int, int], list[int], list[int]], peer: int, data: bytes
) -> None: ...
