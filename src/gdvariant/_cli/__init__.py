"""The ``gdvariant`` command: read, write, inspect, convert and edit Godot Variant data.

One module per command (``decode``, ``encode``, ``inspect``...), each with ``add_parser`` and
``run``; ``_common`` holds what they share, ``_show`` how values are printed, ``_forms`` how a
file's values move between bytes and text and ``_progress`` the counts of long work. What only
the command line uses sits here too: ``_fields`` (the field-by-field walk behind ``inspect``),
``_portability`` (what one release's values cannot hold in another, for ``convert``) and
``_literal`` (the safe Python-expression reader behind ``encode``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import __version__
from .._errors import VariantError
from .._writes import terminations_unwind
from . import (
    convert,
    decode,
    detect,
    edit,
    encode,
    frames,
    inspect,
    netsim,
    rooms,
    schema,
    versions,
)
from ._common import EXIT_STATUS, Unreadable

__all__ = ["build_parser", "main"]

_EPILOG = f"""examples:
  gdvariant decode examples/savegame.bin
  gdvariant decode --hex 0c000000040000000300000061626300  # -> "abc"
  gdvariant encode '[7, "move", Vector3(1, 2, 3), {{"seq": 42}}]' --hex
  gdvariant inspect examples/savegame.bin
  gdvariant detect examples/godot3_save.sav
  gdvariant convert -V 3 examples/godot3_save.sav --to-version 4 -o /tmp/godot4_save.sav
  gdvariant frames examples/capture.bin
  gdvariant versions
  gdvariant schema explain examples/arena/arena_schema.py:Player
  gdvariant netsim --udp 7000 --to 127.0.0.1:7001 --loss 2%  # (until Ctrl-C)
  gdvariant decode --help                                # and encode, inspect, edit...

{EXIT_STATUS}"""
COMMANDS = (decode, encode, inspect, detect, convert, edit, frames, versions, schema, netsim, rooms)


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command."""
    parser = argparse.ArgumentParser(
        prog="gdvariant",
        description=(
            "Read and write Godot's Variant binary serialization: var_to_bytes values,\n"
            "store_var save files (plain, encrypted or compressed) and put_var captures.\n"
            "-V (or --version after a command) picks the Godot release (default: Godot 4);\n"
            "`gdvariant --version` is gdvariant's own."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gdvariant {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit status (0, 1 or 2, as ``--help`` lists them).
    No command is a usage error that shows the help (on stderr: stdout stays for data)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        with terminations_unwind():  # SIGTERM and SIGHUP unwind, removing temporary files
            return int(args.func(args))
    except KeyboardInterrupt:  # e.g. at the password prompt
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped (`| head`): say nothing, as `cat` would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (VariantError, Unreadable) as exc:
        print(f"gdvariant: {exc}", file=sys.stderr)
        return 1
    except RecursionError:  # a path not yet made iterative: still one line, not a traceback
        print("gdvariant: the data nests deeper than Python's recursion limit", file=sys.stderr)
        return 1
    except ImportError as exc:  # an optional package: the message names its extra
        print(f"gdvariant: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        print(f"gdvariant: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"gdvariant: {exc}", file=sys.stderr)
        return 2
