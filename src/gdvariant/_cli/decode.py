"""``gdvariant decode``: print the values in some bytes, whatever they turn out to be."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Iterable
from typing import Any

from .._binary.codec import VariantCodec
from .._files.guess import read_frames, read_whole, records_only
from .._files.store_var import decode_records
from ._common import (
    Unreadable,
    command_parser,
    engine_codec,
    engine_options,
    input_options,
    read_input,
)
from ._forms import open_input, why_unreadable
from ._show import Show, colour_wanted, format_options

EXAMPLES = """\
  gdvariant decode examples/savegame.bin                 # var_to_bytes of a Dictionary
  gdvariant decode --hex 0c000000040000000300000061626300  # -> "abc" (a store_var record)
  gdvariant decode --hex 0c000000040000000300000061626300 --offset 4  # -> "abc" (the value)
  gdvariant decode --all --hex 0200000007000000040000000300000061626300  # -> 7 "abc"
  gdvariant decode -V 3 examples/godot3_save.sav         # store_var records Godot 3.6 wrote
  gdvariant decode examples/user_save.dat --password secret  # an encrypted save
  gdvariant decode examples/capture.bin --format python  # put_var frames, as Python values
  gdvariant decode examples/savegame.bin --format godot  # exactly what var_to_str prints
"""


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "decode",
        help="print the values in var_to_bytes data, a save file or a capture",
        description=(
            "Print the values in Variant bytes (a file, '-' for stdin, or hex text with --hex): "
            "one var_to_bytes value, store_var records (u32 lengths, little- or big-endian, "
            "chaining exactly to the end), or put_var frames of a captured stream (which may stop"
            " inside its last frame), inside an encrypted (GDEC) or compressed (GCPF) save or "
            "not; gdvariant works out which, no option needed. A reading is printed only if it "
            "accounts for every byte, else the error says how much decoded and which engine "
            "version (-V) reads the whole input. Values print in Godot's text syntax, one per "
            "line; containers over 20 items are shortened unless --full. An encrypted save asks "
            "for its password unless --password or --key is given."
        ),
        examples=EXAMPLES,
        parents=[engine_options(), input_options()],
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--all",
        action="store_true",
        help="var_to_bytes values back to back (no length prefixes); each one's offset and "
        "size go to stderr",
    )
    how.add_argument(
        "--records",
        action="store_true",
        help="read store_var records (as FileAccess.get_var does), whatever the bytes look like",
    )
    parser.add_argument(
        "--big-endian",
        action="store_true",
        help="store_var records with big-endian lengths (FileAccess.big_endian); implies --records",
    )
    parser.add_argument("--offset", type=int, default=0, help="start at this byte offset")
    format_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = read_input(args.input, args.hex, args.max_size)
    container, data, _ = open_input(data, args)
    if not 0 <= args.offset <= len(data):
        raise ValueError(f"--offset {args.offset} is outside the {len(data)} bytes")
    codec = engine_codec(args)
    show = Show(args.format, codec.profile, full=args.full, colour=colour_wanted(args.color))
    notes = [] if container.kind == "plain" else [container.kind]
    try:
        return _decode(data, args, codec, show, notes)
    finally:
        show.note()


def _decode(
    data: bytes, args: argparse.Namespace, codec: VariantCodec, show: Show, notes: list[str]
) -> int:
    if args.all:
        return _in_a_row(data, args.offset, codec, show)
    view = data[args.offset :]
    if args.records or args.big_endian:
        values = decode_records(io.BytesIO(view), codec, args.big_endian)
        order = ["big-endian lengths"] if args.big_endian else []
        _print_records(values, show, [*notes, *order])
        return 0
    reading = read_whole(view, codec, records_first=bool(notes))
    reading = reading or read_frames(view, codec)
    if reading is None:
        raise Unreadable(why_unreadable(data, args.offset, codec))
    if reading.records:
        if reading.big_endian:
            notes.append("big-endian lengths")
        if reading.cut:
            notes.append(f"then {reading.cut} bytes of a frame the capture cuts")
        _print_records(reading.values, show, notes, reading.cut > 0)
        return 0
    print(show(reading.values[0]))
    also = records_only(view, codec)
    if also is not None:
        print(
            f"note: the bytes also read whole as {also.describe()}: --records prints them",
            file=sys.stderr,
        )
    return 0


def _print_records(
    values: Iterable[Any], show: Show, notes: list[str], frames: bool = False
) -> None:
    """Each record's value on its own line, and their count on stderr."""
    shown = 0
    for value in values:
        print(show(value))
        shown += 1
    about = f" ({', '.join(notes)})" if notes else ""
    plural = "" if shown == 1 else "s"
    kind = f"put_var frame{plural}" if frames else f"store_var record{plural}"
    print(f"# {shown} {kind}{about}", file=sys.stderr)


def _in_a_row(data: bytes, offset: int, codec: VariantCodec, show: Show) -> int:
    """``--all``: values one after another, each one line on stdout; its offset and size go
    on stderr, so stdout holds only values (JSON Lines with ``--format json``)."""
    while offset < len(data):
        value, end = codec.decode(data, offset)
        sys.stdout.flush()
        print(f"# offset {offset}, {end - offset} bytes", file=sys.stderr)
        print(show(value))
        offset = end
    return 0
