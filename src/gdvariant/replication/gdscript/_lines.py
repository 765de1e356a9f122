"""The lines of a generated decoder: fixed text from the template, generated code between.

:class:`Writer` collects GDScript lines. :meth:`Writer.fill` copies a block of the template
(``decoder_template.gd``) with its placeholders filled; :meth:`Writer.emit` writes one
generated line. It also hands out the generated code's names: fresh locals (``t1``, ``t2``...)
and float members set once in ``_init`` (``_k0``...), and it writes the bit reader's two
moves, a read and a restart. The reader's state is four locals of the generated function
(``acc``, ``n``, ``bp``, ``buf``; wire doc ``docs/replication-wire.md`` §4): the next bit is
bit ``bp * 8 - n`` of ``buf``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import gdvariant

from ._template import PLACEHOLDER, block

if TYPE_CHECKING:
    from .._schema import ClassLayout

__all__ = ["Slot", "Writer"]

#: What a placeholder alone on its line stands for: generated lines (indented as the
#: placeholder), or a function that emits them at the indent it is given.
Slot = Sequence[str] | Callable[[int], None]


class Writer:
    """Emits GDScript lines with fresh local names (see the module doc)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0
        self.members: dict[str, str] = {}  # init expression -> member name
        self.member_lines: list[str] = []
        # While set, a failed check returns this expression instead of the error (the fast
        # path of a record hands over to its checked twin, which names the error).
        self.bail: str | None = None

    def tmp(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("\t" * indent + text)

    def fill(self, indent: int, name: str, /, **values: str | int | Slot) -> None:
        """Copy the template block ``name``, ``indent`` tabs deeper. A placeholder alone on
        its line given a :data:`Slot` is replaced by its lines, in the block's order (so
        that generated names come in that order); any other placeholder by its value, as
        text. A placeholder without a value, or a value without a placeholder, is an
        error."""
        used: set[str] = set()

        def text(match: re.Match[str]) -> str:
            if match[1] not in values:
                raise KeyError(f"{name}: no value for ${match[1]}")
            value = values[match[1]]
            if not isinstance(value, str | int):
                raise TypeError(f"{name}: ${match[1]} is in a line, so it needs text")
            used.add(match[1])
            return str(value)

        for line in block(name):
            body = line.lstrip("\t")
            depth = indent + len(line) - len(body)
            slot = values.get(body[1:]) if body.startswith("$") else None
            if slot is not None and not isinstance(slot, str | int):
                used.add(body[1:])
                if callable(slot):
                    slot(depth)
                else:
                    self.lines.extend("\t" * depth + piece if piece else "" for piece in slot)
            elif body:
                self.emit(depth, PLACEHOLDER.sub(text, body))
            else:
                self.lines.append("")
        if used != values.keys():
            raise TypeError(f"{name} has no placeholder for {sorted(values.keys() - used)}")

    def member(self, expr: str) -> str:
        """A float member set once in ``_init`` to ``expr`` (shared by equal expressions)."""
        name = self.members.get(expr)
        if name is None:
            name = self.members[expr] = f"_k{len(self.members)}"
            self.member_lines.append(f"{name} = {expr}")
        return name

    def exact(self, x: float) -> str:
        """A member holding exactly the double ``x`` (decoded from its Variant bytes)."""
        return self.member(f'bytes_to_var("{gdvariant.dumps(float(x)).hex()}".hex_decode())')

    def read(self, indent: int, width: int) -> str:
        """Inline read of ``width`` bits (two reads, low part first, above 32); returns the
        expression holding them."""
        if width == 0:
            return "0"
        if width > 32:
            low = self.read(indent, 32)
            high = self.read(indent, width - 32)
            out = self.tmp()
            self.emit(indent, f"var {out} := {low} | ({high} << 32)")
            return out
        out = self.tmp()
        self.fill(indent, "refill", bits=width)
        self.fill(indent, "take", width=width, out=out, mask=(1 << width) - 1)
        return out

    def cases(
        self, var: str, layouts: Iterable[ClassLayout], line: Callable[[ClassLayout], str]
    ) -> list[str]:
        """``if``/``elif {var} == <class id>:`` per layout, each with its one ``line`` (for a
        slot of :meth:`fill`)."""
        out: list[str] = []
        for k, lay in enumerate(layouts):
            out += [f"{'if' if k == 0 else 'elif'} {var} == {lay.class_id}:", "\t" + line(lay)]
        return out

    def by_class(
        self, indent: int, var: str, layouts: Iterable[ClassLayout]
    ) -> Iterator[ClassLayout]:
        """Emit ``if``/``elif {var} == <class id>:`` per layout and yield it, for the caller
        to fill in the branch (one indent deeper)."""
        for k, lay in enumerate(layouts):
            self.emit(indent, f"{'if' if k == 0 else 'elif'} {var} == {lay.class_id}:")
            yield lay

    def resync(self, indent: int, bit: str) -> None:
        """Restart the reader at bit position ``bit``."""
        self.fill(indent, "resync", bit=bit)

    def fail(self, indent: int, where: tuple[str, str], message: str) -> None:
        """Return the error ``message`` (a GDScript expression) for the property ``where``."""
        if self.bail is not None:
            self.emit(indent, f"return {self.bail}")
            return
        cls, path = where
        self.emit(indent, f"return _bad(id, {json.dumps(cls)}, {json.dumps(path)}, {message})")

    def check_end(self, indent: int, where: tuple[str, str]) -> None:
        """Fail with "packet truncated" if the reader has passed ``end``."""
        self.emit(indent, "if (bp << 3) - n > end:")
        self.fail(indent + 1, where, '"packet truncated"')
