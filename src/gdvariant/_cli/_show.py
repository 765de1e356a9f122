"""How values are printed: Godot's text syntax (one line each), Godot's own ``var_to_str``
layout, JSON or Python; long containers shortened; colour on a terminal."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from .._engines.profiles import Profile
from .._engines.text_syntax import text_syntax
from .._json.api import to_json
from .._text.writer import to_text, to_text_line

FORMATS = ("text", "godot", "json", "godot-json", "python")
#: Containers longer than this are shortened unless ``--full``.
SHOWN_ITEMS = 20

_TOKENS = re.compile(
    r'(?P<name>&"(?:[^"\\]|\\.)*")'
    r'|(?P<string>"(?:[^"\\]|\\.)*")'
    r"|(?P<more>\.\.\. \d+ more)"
    r"|(?P<word>\b(?:true|false|null|nan|inf|inf_neg)\b)"
    r"|(?P<type>\b[A-Z][A-Za-z0-9_]*(?=[(\[]))"
    r"|(?P<number>-?\b\d+(?:\.\d*)?(?:e[+-]?\d+)?\b)"
)
_COLOURS = {
    "name": "33",  # yellow: StringName
    "string": "32",  # green
    "more": "2",  # dim: the shortening mark
    "word": "35",  # magenta: true, false, null
    "type": "34",  # blue: constructors
    "number": "36",  # cyan
}


def colour_wanted(choice: str) -> bool:
    """``--color``: always, never, or auto (a terminal, and no ``NO_COLOR`` set)."""
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def colourize(text: str) -> str:
    """``text`` with ANSI colours on its strings, numbers, words and type names."""

    def paint(match: re.Match[str]) -> str:
        kind = match.lastgroup or ""
        return f"\x1b[{_COLOURS[kind]}m{match.group()}\x1b[0m"

    return _TOKENS.sub(paint, text)


def text_version(profile: Profile) -> str | None:
    """The text syntax of ``profile``'s release, or None (Godot 2, Pandemonium have none here)."""
    name = profile.name.removesuffix("+double")
    try:
        text_syntax(name)
    except ValueError:
        return None
    return name


class Show:
    """Turns values into the lines a command prints."""

    def __init__(
        self, fmt: str, profile: Profile, *, full: bool = False, colour: bool = False
    ) -> None:
        self.version = text_version(profile)
        if fmt in ("text", "godot") and self.version is None:
            raise ValueError(
                f"{profile.engine} has no text syntax here: use --format json or python"
            )
        self.format = fmt
        self.max_items = None if full else SHOWN_ITEMS
        self.colour = colour and fmt in ("text", "godot")
        self.shortened = False

    def __call__(self, value: Any) -> str:
        if self.format == "python":
            try:
                return repr(value)
            except RecursionError:
                raise ValueError(
                    "the value nests too deep for a Python repr: use --format text or json"
                ) from None
        if self.format in ("json", "godot-json"):
            return json_line(value, "godot" if self.format == "godot-json" else "tagged")
        assert self.version is not None
        if self.format == "godot":
            text = to_text(value, version=self.version)
        else:
            text = to_text_line(value, version=self.version, max_items=self.max_items, display=True)
            if self.max_items is not None and " more" in text and _cut(text):
                self.shortened = True
        return colourize(text) if self.colour else text

    def note(self) -> None:
        """Say on stderr that something was shortened."""
        if self.shortened:
            print(
                f"note: containers over {SHOWN_ITEMS} items shortened: --full prints them whole",
                file=sys.stderr,
            )


def json_line(value: Any, dialect: str = "tagged") -> str:
    """``value`` as one line of JSON (objects in full), with the characters some readers
    take as line breaks escaped."""
    text = to_json(value, dialect="godot" if dialect == "godot" else "tagged", full_objects=True)
    return text.translate(_JSON_BREAKS)


_JSON_BREAKS = str.maketrans({c: f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"})


def _cut(text: str) -> bool:
    """Whether ``text`` holds a shortening mark outside its strings."""
    return re.search(r"\.\.\. \d+ more", re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)) is not None


def format_options(parser: argparse.ArgumentParser, *, default: str = "text") -> None:
    """``--format``, ``--full`` and ``--color``."""
    parser.add_argument(
        "-f",
        "--format",
        choices=FORMATS,
        default=default,
        help="text: Godot's text syntax, one value per line, floats exact (default); godot: "
        "exactly what var_to_str prints (it may round floats); json: gdvariant's lossless "
        "JSON, one value per line (JSON Lines); "
        "godot-json: what Godot's JSON.from_native makes of it (lossy); python: reprs",
    )
    parser.add_argument(
        "--full", action="store_true", help=f"print containers over {SHOWN_ITEMS} items whole"
    )
    parser.add_argument(
        "--color",
        choices=["auto", "always", "never"],
        default="auto",
        help="colour the text: auto (default) on a terminal unless NO_COLOR is set",
    )
