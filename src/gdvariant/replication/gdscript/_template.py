"""The decoder's fixed text: ``decoder_template.gd``, read once, in named blocks.

The template is package data beside this module. A line ``#@ name: what`` starts the block
``name``, which runs to the next such line, blank lines included; the lines before the first
one describe the file. In a block, ``$word`` is a placeholder (see ``Writer.fill``).
"""

from __future__ import annotations

import functools
import re
from importlib import resources

__all__ = ["PLACEHOLDER", "TEMPLATE", "block"]

#: The template's file name, in this package.
TEMPLATE = "decoder_template.gd"
#: A placeholder in a block: ``$`` and a name.
PLACEHOLDER = re.compile(r"\$(\w+)")
_START = "#@ "


@functools.cache
def _blocks() -> dict[str, tuple[str, ...]]:
    text = resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    blocks: dict[str, list[str]] = {}
    lines: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(_START):
            name = line[len(_START) :].partition(":")[0]
            if name in blocks:
                raise ValueError(f"{TEMPLATE}: block {name!r} twice")
            lines = blocks[name] = []
        elif lines is not None:
            lines.append(line)
    return {name: tuple(lines) for name, lines in blocks.items()}


def block(name: str) -> tuple[str, ...]:
    """The lines of the block ``name``, as written (tab-indented)."""
    try:
        return _blocks()[name]
    except KeyError:
        raise KeyError(f"{TEMPLATE} has no block {name!r}") from None
