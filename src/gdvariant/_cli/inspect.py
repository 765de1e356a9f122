"""``gdvariant inspect``: an annotated dump, one line per field, as a protocol analyser shows it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._files.containers import sniff
from .._files.guess import other_engine_note
from .._files.wrapping import open_container
from .._text.writer import to_text_line
from ._common import (
    command_parser,
    engine_codec,
    engine_options,
    input_options,
    read_input,
    secret,
)
from ._fields import Field, Listener, Section, field_json, inspect_into
from ._show import colour_wanted, colourize, text_version

EXAMPLES = """\
  gdvariant inspect --hex 0c000000040000000300000061626300  # a record: length, header, string
  gdvariant inspect examples/savegame.bin                # every field of a var_to_bytes value
  gdvariant inspect -V 3 examples/godot3_save.sav --json  # the fields as JSON
  gdvariant inspect examples/user_save.dat --password secret  # GDEC header, then the records
  gdvariant inspect --hex 1c0000000300000002000000  # (exit 1) broken: where and why it stops
"""
#: Bytes shown per field; longer fields end with "...".
SHOWN_BYTES = 12
#: The path column grows to the longest path, up to this.
PATH_WIDTH = 40
#: Fields of a section read before its first line is printed, to size the path column.
PREVIEW = 1000


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "inspect",
        help="an annotated dump: offset, bytes and meaning of every field",
        description=(
            "Show the bytes field by field: offset, raw bytes, and what each field is (a "
            "value's type header and flags, lengths, counts, payloads, padding), with the "
            "path of the value it belongs to; a save's GDEC or GCPF header comes first. On "
            "broken input the dump shows how far the bytes are good, and where and why they "
            "stop (exit status 1)."
        ),
        examples=EXAMPLES,
        parents=[engine_options(), input_options()],
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--records", action="store_true", help="read store_var records")
    how.add_argument("--value", action="store_true", help="read one var_to_bytes value")
    parser.add_argument("--big-endian", action="store_true", help="records with big-endian lengths")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--color", choices=["auto", "always", "never"], default="auto", help="colour the values"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = read_input(args.input, args.hex, args.max_size)
    codec = engine_codec(args)
    version = text_version(codec.profile)

    def render(value: Any) -> str:
        if version is None:
            return repr(value)
        return to_text_line(value, version=version, max_items=8, display=True)

    options: dict[str, Any] = {}
    kind = sniff(data[:4])
    if kind == "GDEC" and (args.password is not None or args.key):
        options = secret(args)
    records = True if args.records or args.big_endian else False if args.value else None
    listener = _Json() if args.json else _Text(colour_wanted(args.color), codec.profile.engine)
    inspect_into(
        listener,
        data,
        codec.profile,
        allow_objects=codec.allow_objects,
        render=render,
        records=records,
        big_endian=True if args.big_endian else None,
        limits=codec.limits,
        **options,
    )
    sections = listener.sections
    ok = all(s.problem is None and not s.unread_records for s in sections)
    listener.close(ok)
    if kind == "GDEC" and not options:
        print("# the records are encrypted: --password or --key shows them", file=sys.stderr)
    elif not ok and (kind == "plain" or len(sections) == 2):  # the plaintext was walked
        plain = data if kind == "plain" else open_container(data, **options)[1]
        note = other_engine_note(plain, codec)
        if note is not None:
            print(f"note: {note}", file=sys.stderr)
    return 0 if ok else 1


class _Text(Listener):
    """Prints each field as a line as soon as it is found (in chunks of :data:`PREVIEW`
    lines); the path column is as wide as the longest path among a section's first
    :data:`PREVIEW` fields, up to :data:`PATH_WIDTH`."""

    def __init__(self, colour: bool, engine: str) -> None:
        super().__init__()
        self.colour = colour
        self.engine = engine
        self.waiting: list[Field] = []
        self.rows: list[str] = []
        self.width: int | None = None

    def begin(self, title: str, size: int) -> None:
        print(f"# {title}: {size} bytes")
        self.waiting, self.width = [], None

    def field(self, found: Field) -> None:
        if self.width is not None:
            self.rows.append(self._row(found))
            if len(self.rows) >= PREVIEW:
                self._write()
            return
        self.waiting.append(found)
        if len(self.waiting) >= PREVIEW:
            self._size()

    def _size(self) -> None:
        """The path column's width, from the fields so far; then their lines."""
        self.width = min(max((len(f.path) for f in self.waiting), default=4), PATH_WIDTH)
        self.rows.append(f"{'offset':>8}  {'bytes':<30}  {'path':<{self.width}}  field\n")
        self.rows += [self._row(found) for found in self.waiting]
        self.waiting = []
        self._write()

    def _write(self) -> None:
        sys.stdout.write("".join(self.rows))
        self.rows = []

    def _row(self, found: Field) -> str:
        what = colourize(found.what) if self.colour else found.what
        indent = "  " * min(found.depth, 8)
        path = found.path or "."
        return f"{found.offset:>8}  {_raw(found):<30}  {path:<{self.width}}  {indent}{what}\n"

    def end(self, section: Section) -> None:
        if self.width is None:
            self._size()
        self._write()
        self.sections.append(section)
        if section.problem is None:
            print(f"# all {section.size} bytes read")
        else:
            print(f"# good: {section.good} of {section.size} bytes")
            print(f"# stops at offset {section.problem_offset}: {section.problem}")
        if section.unread_records:
            print(
                f"# {section.unread_records} of the records hold bytes after their value: "
                f"store_var leaves none, so these are not {self.engine} records"
            )

    def close(self, ok: bool) -> None:
        """The dump is over."""


class _Json(Listener):
    """Writes the JSON report as the dump is walked: ``{"sections": [...], "ok": ...}``,
    each section's fields one per line."""

    def __init__(self) -> None:
        super().__init__()
        self.first_field = True
        sys.stdout.write('{"sections": [')

    def begin(self, title: str, size: int) -> None:
        comma = "," if self.sections else ""
        head = json.dumps({"title": title, "size": size})[:-1]
        sys.stdout.write(f'{comma}\n  {head}, "fields": [')
        self.first_field = True

    def field(self, found: Field) -> None:
        comma = "" if self.first_field else ","
        sys.stdout.write(f"{comma}\n    {json.dumps(field_json(found))}")
        self.first_field = False

    def end(self, section: Section) -> None:
        self.sections.append(section)
        rest = json.dumps(section.summary())[1:]
        sys.stdout.write(f"\n  ], {rest}")

    def close(self, ok: bool) -> None:
        """The dump is over: whether it read whole."""
        sys.stdout.write(f'\n], "ok": {json.dumps(ok)}}}\n')


def _raw(field: Field) -> str:
    text = field.raw[:SHOWN_BYTES].hex(" ", -4)
    return text + " ..." if len(field.raw) > SHOWN_BYTES else text
