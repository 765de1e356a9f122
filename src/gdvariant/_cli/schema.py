"""``gdvariant schema``: explain a replication schema, or write its GDScript decoder."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._writes import write_file
from ._common import command_parser

EXAMPLES = """\
  gdvariant schema explain examples/arena/arena_schema.py:Player  # one class's flat table
  gdvariant schema explain examples/arena/arena_schema.py         # every class, fingerprint
  gdvariant schema gdscript examples/arena/arena_schema.py -o /tmp/arena_decoder.gd
"""


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "schema",
        help="explain a gdvariant.replication schema, or write its GDScript decoder",
        description=(
            "Load the networked classes of a Python module (MODULE is a dotted name or a .py "
            "file; MODULE:CLASS names one class by its Python or table name) and print their "
            "flat property tables (explain), or the GDScript decoder for Godot 4 (gdscript)."
        ),
        examples=EXAMPLES,
    )
    parser.add_argument("action", choices=["explain", "gdscript"], help="what to print")
    parser.add_argument("target", metavar="MODULE[:CLASS]", help="the module (and class)")
    parser.add_argument(
        "--order",
        choices=["spec", "source"],
        default="spec",
        help="flat order: ours (default) or Source 2013's own",
    )
    parser.add_argument("-o", "--output", help="gdscript: write the decoder to this file")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..replication import gdscript, load_schema  # only this command needs replication

    schema, layout = load_schema(args.target, order=args.order)
    if args.action == "gdscript":
        if layout is not None:
            raise ValueError("the decoder covers the whole schema: name a module, not a class")
        code = gdscript.generate(schema)
        if args.output:
            write_file(args.output, code.encode("utf-8"))
            print(f"# wrote {args.output} (schema {schema.fingerprint.hex()})", file=sys.stderr)
        else:
            sys.stdout.write(code)
        return 0
    layouts = schema.classes if layout is None else (layout,)
    print("\n\n".join(schema.explain(c.name) for c in layouts))
    if layout is None:
        print(f"\nschema fingerprint {schema.fingerprint.hex()} ({len(layouts)} classes)")
    return 0
