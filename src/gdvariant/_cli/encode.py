"""``gdvariant encode``: bytes for values written in Godot's text syntax, JSON or Python."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._engines.profiles import Profile
from .._files.store_var import encode_records
from .._net.framing import Framing, encode_frame
from .._writes import write_file
from ._common import command_parser, engine_codec, engine_options, max_size_option, read_text
from ._forms import from_document, json_values
from ._literal import parse_value
from ._show import text_version

EXAMPLES = """\
  gdvariant encode '[7, "move", Vector3(1, 2, 3), {"seq": 42}]' --hex
  gdvariant encode '"abc"' --hex                          # -> 040000000300000061626300
  gdvariant encode '{"seq": 42}' --framing StreamPeer --hex
  gdvariant encode '{1: "a", 1.0: "b", true: "c"}' --hex  # three keys, as in Godot
  gdvariant encode 'Array[int]([1, 2])' --hex             # a typed Array (Godot 4.3+)
  gdvariant encode --records '1 "two" Vector2(3, 4)' --hex  # three store_var records
  gdvariant encode --from python 'GodotObject("Node")' --full-objects --hex
  gdvariant encode --from json '{"$type": "Vector2i", "args": [1, 2]}' --hex
"""
INPUT_FORMS = ("text", "json", "godot-json", "python")


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "encode",
        help="encode values written in Godot's text syntax (or JSON, or Python)",
        description=(
            "Encode a value written in Godot's text syntax (what var_to_str prints and "
            'str_to_var reads: Vector2(1, 2), &"name", Array[int]([1]), ; comments), in '
            "gdvariant's JSON (--from json; godot-json: Godot's JSON.from_native form) or as a "
            "Python expression of gdvariant's types "
            "(--from python; nothing is evaluated). The value comes from the argument, from a "
            "file (-i FILE) or from standard input ('-' or nothing). With --records every "
            "value in the text becomes a store_var record, as a save file holds them."
        ),
        examples=EXAMPLES,
        parents=[engine_options()],
    )
    parser.add_argument("value", nargs="?", default="-", help="the value, or '-' for stdin")
    parser.add_argument("-i", "--input", help="read the value(s) from this file")
    max_size_option(parser)
    parser.add_argument(
        "--from", dest="form", choices=INPUT_FORMS, default="text", help="how the value is written"
    )
    parser.add_argument("-o", "--output", help="write the bytes to this file")
    parser.add_argument("--hex", action="store_true", help="print hex instead of raw bytes")
    parser.add_argument(
        "--full-objects",
        action="store_true",
        help="write Objects whole, as var_to_bytes_with_objects (else only ObjectIDs encode)",
    )
    parser.add_argument(
        "--records", action="store_true", help="every value in the text as a store_var record"
    )
    parser.add_argument(
        "--framing",
        choices=list(Framing),
        help="write what put_var sends with this framing (default: bare var_to_bytes)",
    )
    parser.add_argument(
        "--big-endian", action="store_true", help="a big-endian length (StreamPeer, records)"
    )
    parser.set_defaults(func=run)


def read_values(text: str, form: str, profile: Profile, *, many: bool, where: str) -> list[Any]:
    """The value(s) written in ``text`` in ``form``."""
    if form == "python":
        if many:
            raise ValueError("--records reads Godot text or JSON, not Python expressions")
        return [parse_value(text)]
    if form in ("json", "godot-json"):
        return json_values(text, "godot" if form == "godot-json" else "tagged", many=many)
    version = text_version(profile)
    if version is None:
        raise ValueError(f"{profile.engine} has no text syntax here: use --from json or python")
    return from_document(text, version, records=many, where=where)


def run(args: argparse.Namespace) -> int:
    if args.input is not None or args.value == "-":
        source = "-" if args.input is None else args.input
        text = read_text(source, args.max_size)
        where = "<stdin>" if args.input is None else args.input
    else:
        text, where = args.value, "<argument>"
    codec = engine_codec(args)
    values = read_values(text, args.form, codec.profile, many=args.records, where=where)
    if args.records:
        data = b"".join(encode_records(codec, values, args.big_endian))
    elif args.framing:
        data = encode_frame(codec, values[0], args.framing, args.big_endian, None)
    else:
        data = codec.encode(values[0])
    if args.output:
        write_file(args.output, data)
    elif args.hex or sys.stdout.isatty():
        print(data.hex())
    else:
        sys.stdout.buffer.write(data)
    return 0
