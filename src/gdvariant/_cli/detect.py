"""``gdvariant detect``: which engine releases and container could have written a file."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._files.containers import sniff
from .._files.detect import detect
from ._common import (
    command_parser,
    limits_of,
    max_size_option,
    read_input,
    secret,
    secret_options,
)

EXAMPLES = """\
  gdvariant detect examples/godot3_save.sav              # Godot 3.1-3.6 store_var records
  gdvariant detect examples/savegame.bin                 # Godot 4.3+ writes exactly these bytes
  gdvariant detect examples/user_save.dat                # GDEC, Godot 4 layout: Godot 4.x
  gdvariant detect examples/user_save.dat --password secret --json
"""


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "detect",
        help="which engine releases, container and framing could have written a file",
        description=(
            "Try every engine release on the input and rank them: a release that reads every "
            "byte and writes exactly the same bytes back could have written it; one that only "
            "reads it ranks lower (3.0 writes every int as 64-bit, 4.0-4.2 drop Array types...). "
            "The container counts too: an encrypted "
            "file's header layout says Godot 4 or Godot 2/3, Zstd and GZip are new in Godot 3. "
            "store_var records and StreamPeer put_var frames share one layout; a capture that "
            "stops inside a frame reads as frames. Exit status 1 when no release reads it."
        ),
        examples=EXAMPLES,
    )
    parser.add_argument("input", help="file to read, or '-' for standard input")
    parser.add_argument("--hex", action="store_true", help="the input is hex text, not raw bytes")
    secret_options(parser)
    max_size_option(parser)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = read_input(args.input, args.hex, args.max_size)
    options: dict[str, Any] = {}
    if sniff(data[:4]) == "GDEC" and (args.password is not None or args.key):
        options = secret(args)
    found = detect(data, limits=limits_of(args), **options)
    groups = found.candidates
    if args.json:
        print(json.dumps({"size": len(data), **found.to_json()}, indent=2))
        return 0 if groups else 1
    print(f"# {len(data)} bytes, {found.container}")
    for rank, group in enumerate(groups, 1):
        names = ", ".join(group.releases)
        how = f": {group.reading}" if group.reading else ""
        print(f"{rank}. {group.engine} ({names}){how}")
        for reason in group.reasons:
            print(f"   - {reason}")
    if not groups:
        print("no engine release reads these bytes whole (gdvariant inspect shows where they stop)")
        return 1
    if sniff(data[:4]) == "GDEC" and not options:
        print("# the records are encrypted: --password or --key judges them too", file=sys.stderr)
    return 0
