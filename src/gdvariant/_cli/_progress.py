"""A count on stderr for work that takes a while: ``checking 12,000 of 100,000 records``.

Shown on a terminal once a step has run for :data:`DELAY` seconds (short work prints
nothing), or from the start with ``--progress``. On a terminal the line rewrites itself
and is cleared when the step ends; elsewhere (``--progress`` into a log) each step ends with
its final count on a line of its own. Nothing is ever written to standard output.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from time import monotonic
from typing import TextIO, TypeVar

__all__ = ["DELAY", "Progress", "progress_option"]

T = TypeVar("T")
#: Seconds a step runs before a terminal shows its count (without ``--progress``).
DELAY = 1.0
#: Seconds between two redraws on a terminal, and between two lines elsewhere.
EVERY = 0.2
LOG_EVERY = 5.0


class Progress:
    """Counts the items of a step on ``stream``: always (``forced``), or on a terminal once
    the step has run for :data:`DELAY` seconds."""

    def __init__(self, forced: bool = False, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.forced = forced
        self.terminal = self.stream.isatty()

    @classmethod
    def of(cls, args: argparse.Namespace) -> Progress:
        """The progress a command's ``--progress`` option asks for."""
        return cls(bool(getattr(args, "progress", False)))

    def over(
        self, items: Iterable[T], what: str, total: int | None, unit: str = "records"
    ) -> Iterator[T]:
        """``items``, counted as ``what N of TOTAL unit`` (``what N unit`` when the total is
        not known) while they are taken."""
        if not (self.forced or self.terminal):
            yield from items
            return
        every = EVERY if self.terminal else LOG_EVERY
        start = monotonic()
        last = start - every if self.forced else start + DELAY - every
        drawn = False
        done = 0
        for item in items:
            now = monotonic()
            if now - last >= every:
                self._line(_count(what, done, total, unit))
                last, drawn = now, True
            yield item
            done += 1
        if not self.terminal:
            self._line(_count(what, done, total, unit) + ": done")
        elif drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def _line(self, text: str) -> None:
        """One count: rewriting the line on a terminal, a line of its own elsewhere."""
        if self.terminal:
            self.stream.write(f"\r\x1b[K# {text}")
        else:
            self.stream.write(f"# {text}\n")
        self.stream.flush()


def _count(what: str, done: int, total: int | None, unit: str) -> str:
    return (
        f"{what} {done:,} of {total:,} {unit}" if total is not None else f"{what} {done:,} {unit}"
    )


def progress_option(parser: argparse.ArgumentParser) -> None:
    """``--progress``: counts on stderr even when it is not a terminal."""
    parser.add_argument(
        "--progress",
        action="store_true",
        help="show counts of long work on stderr even when it is not a terminal (on a "
        "terminal they show by themselves after a second)",
    )
