"""``gdvariant inspect``: an annotated dump, one line per field, as a protocol analyser shows it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._containers import sniff
from .._guess import other_engine
from .._inspect import Field, Section, inspect_data
from .._text_writer import to_text_line
from ._common import (
    command_parser,
    engine_codec,
    engine_options,
    input_options,
    read_input,
    secret,
)
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
    data = read_input(args.input, args.hex)
    codec = engine_codec(args)
    version = text_version(codec.profile)

    def render(value: Any) -> str:
        if version is None:
            return repr(value)
        return to_text_line(value, version=version, max_items=8, display=True)

    options: dict[str, Any] = {}
    if sniff(data[:4]) == "GDEC" and (args.password is not None or args.key):
        options = secret(args)
    records = True if args.records or args.big_endian else False if args.value else None
    sections = inspect_data(
        data,
        codec.profile,
        allow_objects=codec.allow_objects,
        render=render,
        records=records,
        big_endian=True if args.big_endian else None,
        **options,
    )
    ok = all(s.problem is None for s in sections)
    if args.json:
        print(json.dumps({"ok": ok, "sections": [s.to_json() for s in sections]}, indent=2))
        return 0 if ok else 1
    colour = colour_wanted(args.color)
    for section in sections:
        _print_section(section, colour)
    if sniff(data[:4]) == "GDEC" and not options:
        print("# the records are encrypted: --password or --key shows them", file=sys.stderr)
    unread = any(f.what.startswith("unread:") for s in sections for f in s.fields)
    if (unread or not ok) and sniff(data[:4]) == "plain":
        other = other_engine(data, codec)
        if other is not None:
            line, reading = other
            print(
                f"note: -V {line} reads the whole input, as {reading.describe()}", file=sys.stderr
            )
    return 0 if ok else 1


def _raw(field: Field) -> str:
    shown = field.raw[:SHOWN_BYTES]
    text = " ".join(shown[i : i + 4].hex() for i in range(0, len(shown), 4))
    return text + " ..." if len(field.raw) > SHOWN_BYTES else text


def _print_section(section: Section, colour: bool) -> None:
    print(f"# {section.title}: {section.size} bytes")
    width = min(max((len(f.path) for f in section.fields), default=4), PATH_WIDTH)
    print(f"{'offset':>8}  {'bytes':<30}  {'path':<{width}}  field")
    for field in section.fields:
        what = colourize(field.what) if colour else field.what
        indent = "  " * min(field.depth, 8)
        path = field.path or "."
        print(f"{field.offset:>8}  {_raw(field):<30}  {path:<{width}}  {indent}{what}")
    if section.problem is None:
        print(f"# all {section.size} bytes read")
        return
    print(f"# good: {section.good} of {section.size} bytes")
    print(f"# stops at offset {section.problem_offset}: {section.problem}")
