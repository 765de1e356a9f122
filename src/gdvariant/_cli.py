"""The ``gdvariant`` command: decode and encode Godot Variant bytes from the shell."""

from __future__ import annotations

import argparse
import getpass
import io
import json
import os
import pprint
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from . import __version__, _core
from ._api import dumps
from ._codec import Codec, codec_for
from ._containers import GcpfReader, decrypt, sniff
from ._errors import DecodeError, VariantError
from ._framing import Framing, StreamDecoder, frame
from ._guess import (
    engine_for_frames,
    loose_frame,
    other_engine,
    read_whole,
    record_trouble,
    records_only,
)
from ._literal import parse_value
from ._profiles import PROFILES, Profile
from ._records import load_all

_EXIT_STATUS = """exit status:
  0  the whole input was read, or the value was written
  1  the bytes do not decode, or only partly; the value cannot be encoded for that engine;
     the schema is invalid (the message names the class and property)
  2  a usage error: an unreadable file, bad hex, a refused expression, a missing password,
     or a missing optional package (the message names the one to install)
  130, 141  interrupted (Ctrl-C), or the output pipe was closed (`| head`)
"""
_DECODE_EXAMPLES = """examples:
  gdvariant decode examples/savegame.bin                 # var_to_bytes of a Dictionary
  gdvariant decode --hex 0c000000040000000300000061626300  # -> 'abc' (a store_var record)
  gdvariant decode --hex 0c000000040000000300000061626300 --offset 4  # -> 'abc' (the value)
  gdvariant decode --all --hex 0200000007000000040000000300000061626300  # -> 7 'abc'
  gdvariant decode -V 3 examples/godot3_save.sav         # store_var records Godot 3.6 wrote
  gdvariant decode examples/user_save.dat --password secret  # an encrypted save
"""
_ENCODE_EXAMPLES = """examples:
  gdvariant encode '[7, "move", Vector3(1, 2, 3), {"seq": 42}]' --hex
  gdvariant encode '"abc"' --hex                          # -> 040000000300000061626300
  gdvariant encode '{"seq": 42}' --framing StreamPeer --hex
  gdvariant encode '{1: "a", 1.0: "b", true: "c"}' --hex  # three keys, as in Godot
"""
_FRAMES_EXAMPLES = """examples:
  gdvariant frames examples/capture.bin                  # put_var frames of a TCP stream
  gdvariant frames --hex 080000000200000005000000         # -> 5
"""
_SCHEMA_EXAMPLES = """examples:
  gdvariant schema explain examples/arena/arena_schema.py:Player  # one class's flat table
  gdvariant schema explain examples/arena/arena_schema.py         # every class, fingerprint
  gdvariant schema gdscript examples/arena/arena_schema.py -o /tmp/arena_decoder.gd
"""
_VERSIONS_EXAMPLES = """examples:
  gdvariant versions
  gdvariant versions --json
"""
_EPILOG = f"""examples:
  gdvariant decode examples/savegame.bin
  gdvariant decode --hex 0c000000040000000300000061626300  # -> 'abc'
  gdvariant encode '[7, "move", Vector3(1, 2, 3), {{"seq": 42}}]' --hex
  gdvariant frames examples/capture.bin
  gdvariant versions
  gdvariant schema explain examples/arena/arena_schema.py:Player
  gdvariant decode --help                                # and encode, frames, schema, versions

{_EXIT_STATUS}"""
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


class _Unreadable(ValueError):
    """Bytes that no reading accounts for; the message says what was tried (exit status 1)."""


def _print_value(value: object) -> None:
    """One decoded value, in the key order it was written."""
    print(pprint.pformat(value, width=100, sort_dicts=False))


def _parse_hex(text: str, what: str = "--hex") -> bytes:
    """Bytes from hex digits, spaces allowed; a ValueError in our words otherwise."""
    digits = "".join(text.split())
    for column, char in enumerate(text, 1):
        if not char.isspace() and char not in _HEX_DIGITS:
            raise ValueError(f"{what}: {char!r} at character {column} is not a hex digit")
    if len(digits) % 2:
        raise ValueError(f"{what}: an odd number of hex digits ({len(digits)}): a byte is cut")
    return bytes.fromhex(digits)


def _read_input(source: str, as_hex: bool) -> bytes:
    if as_hex:
        return _parse_hex(sys.stdin.read() if source == "-" else source)
    if source == "-":
        return sys.stdin.buffer.read()
    return Path(source).read_bytes()


def _plaintext(data: bytes, kind: str, args: argparse.Namespace) -> bytes:
    """The records inside an encrypted (GDEC) or compressed (GCPF) save."""
    if kind == "GCPF":
        with io.BufferedReader(GcpfReader(io.BytesIO(data))) as plain:
            return plain.read()
    key = _parse_hex(args.key, "--key") if args.key else None
    password = args.password
    if key is None and password is None:
        if not sys.stdin.isatty():
            raise ValueError("this save is encrypted: give --password or --key")
        password = getpass.getpass("password: ")
    return decrypt(data, key=key, password=password)


def _print_records(values: Iterable[Any], notes: Sequence[str]) -> None:
    """Each record's value under a ``# record N`` line, and their count on stderr."""
    shown = 0
    for value in values:
        print(f"# record {shown}")
        _print_value(value)
        shown += 1
    about = f" ({', '.join(notes)})" if notes else ""
    print(f"# {shown} store_var record{'' if shown == 1 else 's'}{about}", file=sys.stderr)


def _notes(kind: str, big_endian: bool) -> list[str]:
    """What to say about records: their container and the byte order of their lengths."""
    notes = [] if kind == "plain" else [kind]
    return [*notes, "big-endian lengths"] if big_endian else notes


def _cmd_decode(args: argparse.Namespace) -> int:
    data = _read_input(args.input, args.hex)
    kind = sniff(data[:4])
    if kind != "plain":
        data = _plaintext(data, kind, args)
    if not 0 <= args.offset <= len(data):
        raise ValueError(f"--offset {args.offset} is outside the {len(data)} bytes")
    codec = codec_for(args.version, args.double, args.allow_objects)
    if args.all:
        return _decode_in_a_row(data, args.offset, codec)
    view = data[args.offset :]
    if args.records or args.big_endian:
        records = load_all(
            io.BytesIO(view),
            version=codec.profile,
            allow_objects=args.allow_objects,
            big_endian=args.big_endian,
        )
        _print_records(records, _notes(kind, args.big_endian))
        return 0
    reading = read_whole(view, codec, records_first=kind != "plain")
    if reading is None:
        raise _Unreadable(_why_unreadable(data, args.offset, codec))
    if reading.records:
        _print_records(reading.values, _notes(kind, reading.big_endian))
        return 0
    _print_value(reading.values[0])
    also = records_only(view, codec)
    if also is not None:
        print(
            f"note: the bytes also read whole as {also.describe()}: --records prints them",
            file=sys.stderr,
        )
    return 0


def _why_unreadable(data: bytes, offset: int, codec: Codec) -> str:
    """How the bytes from ``offset`` fail as one value and as records, and which engine reads
    them whole."""
    view = data[offset:]
    try:
        value, end = codec.decode(data, offset)
    except DecodeError as exc:
        as_value = str(exc)
    else:
        name = type(value).__name__
        article = "an" if name[0] in "aeiouAEIOU" else "a"
        as_value = f"only {end - offset} of {len(view)} bytes decode ({article} {name})"
    as_records = record_trouble(view, codec) or (
        "the length prefixes do not chain to the end of the input"
    )
    lines = [
        f"the bytes are not {codec.profile.engine} data: neither one value nor store_var records",
        f"  as one value: {as_value}",
        f"  as records: {as_records}",
    ]
    other = other_engine(view, codec)
    if other is not None:
        line, reading = other
        lines.append(f"note: -V {line} reads the whole input, as {reading.describe()}")
    elif _reads_in_a_row(view, codec):
        lines.append("note: they read whole as values one after another: --all prints them")
    return "\n".join(lines)


def _reads_in_a_row(data: bytes, codec: Codec) -> bool:
    offset = 0
    while offset < len(data):
        try:
            _, offset = codec.decode(data, offset)
        except DecodeError:
            return False
    return offset == len(data) > 0


def _decode_in_a_row(data: bytes, offset: int, codec: Codec) -> int:
    """``--all``: values one after another, each with its offset and size."""
    while offset < len(data):
        value, end = codec.decode(data, offset)
        print(f"# offset {offset}, {end - offset} bytes")
        _print_value(value)
        offset = end
    return 0


def _cmd_frames(args: argparse.Namespace) -> int:
    data = _read_input(args.input, args.hex)
    codec = codec_for(args.version, args.double, args.allow_objects)
    big_endian = args.big_endian or False
    decoder = StreamDecoder(
        version=codec.profile,
        allow_objects=args.allow_objects,
        framing=args.framing,
        big_endian=big_endian,
        max_frame_size=args.max_frame_size,
    )
    loose = loose_frame(data, codec, big_endian)
    if loose is not None:
        index, offset, used = loose
        raise _Unreadable(
            f"the value in frame {index} (offset {offset}) ends after {used} bytes, before its "
            f"frame does: these are not {codec.profile.engine} put_var frames"
            + _engine_note(data, codec, big_endian)
        )
    shown = 0
    try:
        decoder.feed(data)
    except DecodeError as exc:
        raise _Unreadable(f"{exc}{_engine_note(data, codec, big_endian)}") from None
    finally:
        for value in decoder:
            print(f"# value {shown}")
            _print_value(value)
            shown += 1
    if decoder.buffered:
        print(f"note: the data ends inside a frame ({decoder.buffered} bytes)", file=sys.stderr)
    print(f"# {shown} values in {len(data)} bytes", file=sys.stderr)
    return 0


def _engine_note(data: bytes, codec: Codec, big_endian: bool) -> str:
    line = engine_for_frames(data, codec, big_endian)
    return f"\nnote: -V {line} reads every whole frame" if line is not None else ""


def _cmd_encode(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.expression == "-" else args.expression
    options = {"version": args.version, "double": args.double, "full_objects": args.full_objects}
    value = parse_value(text)
    if args.framing:
        data = frame(value, framing=args.framing, big_endian=args.big_endian, **options)
    else:
        data = dumps(value, **options)
    if args.output:
        Path(args.output).write_bytes(data)
    elif args.hex or sys.stdout.isatty():
        print(data.hex())
    else:
        sys.stdout.buffer.write(data)
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    """Explain a networked schema's flat tables, or write its GDScript decoder."""
    from .replication import load_schema  # only this command needs the replication layer

    schema, layout = load_schema(args.target, order=args.order)
    if args.action == "gdscript":
        if layout is not None:
            raise ValueError("the decoder covers the whole schema: name a module, not a class")
        code = schema.to_gdscript()
        if args.output:
            Path(args.output).write_text(code)
            print(f"# wrote {args.output} (schema {schema.fingerprint.hex()})", file=sys.stderr)
        else:
            sys.stdout.write(code)
        return 0
    layouts = schema.classes if layout is None else (layout,)
    print("\n\n".join(schema.explain(c.name) for c in layouts))
    if layout is None:
        print(f"\nschema fingerprint {schema.fingerprint.hex()} ({len(layouts)} classes)")
    return 0


def _cmd_versions(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({name: p.describe() for name, p in PROFILES.items()}, indent=2))
        print(_core_line(), file=sys.stderr)
        return 0
    for name, profile in PROFILES.items():
        alias = f" (= {profile.name})" if name != profile.name else ""
        print(f"{name:<16}{profile.engine}{alias}: {', '.join(_features(profile))}")
    print(_core_line())
    return 0


def _core_line() -> str:
    """Which codec core is live, and why not the compiled one when it is not."""
    if _core.IMPLEMENTATION == _core.COMPILED:
        return "# codec core: c (compiled)"
    return f"# codec core: python (pure Python; {_core.compiled_error()})"


def _features(profile: Profile) -> list[str]:
    """One line's worth of what a profile supports."""
    info = profile.describe()
    features = [f"{len(profile.wire_ids)} types"]
    for key, label in (
        ("typed_arrays", "typed Array"),
        ("typed_dictionaries", "typed Dictionary"),
        ("double_builds", "double builds"),
    ):
        if info[key]:
            features.append(label)
    if not profile.int64:
        features.append("32-bit int and float only")
    if not profile.objects:
        features.append("no objects")
    depth = profile.max_depth
    features.append(f"depth limit {depth}" if depth is not None else "no depth limit")
    return features


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gdvariant",
        description="Read and write Godot's Variant binary serialization (var_to_bytes).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gdvariant {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    engine = argparse.ArgumentParser(add_help=False)
    engine.add_argument(
        "-V",
        "--engine-version",
        dest="version",
        default="4",
        choices=list(PROFILES),
        metavar="VERSION",
        help="engine release whose format to speak (default: 4 = newest 4.x); see `versions`",
    )
    engine.add_argument(
        "--double",
        action="store_true",
        help="the engine is a precision=double build (Godot 4): math types are 64-bit",
    )

    dec = sub.add_parser(
        "decode",
        parents=[engine],
        help="decode var_to_bytes data or store_var records and print the values",
        description=(
            "Decode Variant bytes (a file, '-' for stdin, or hex text with --hex). The bytes "
            "may be one var_to_bytes value or a file of store_var records (u32 lengths, "
            "little- or big-endian, chaining exactly to the end); a reading is printed only "
            "if it accounts for every byte, else the error says how much decoded and which "
            "engine version (-V) reads the whole input. An encrypted (GDEC) or compressed "
            "(GCPF) save is opened first; an encrypted one asks for its password unless "
            "--password or --key is given."
        ),
        epilog=f"{_DECODE_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dec.add_argument("input", help="file to read, or '-' for standard input")
    dec.add_argument("--hex", action="store_true", help="the input is hex text, not raw bytes")
    how = dec.add_mutually_exclusive_group()
    how.add_argument(
        "--all", action="store_true", help="bare values one after another (no length prefixes)"
    )
    how.add_argument(
        "--records",
        action="store_true",
        help="read store_var records (as FileAccess.get_var does), whatever the bytes look like",
    )
    dec.add_argument(
        "--big-endian",
        action="store_true",
        help="store_var records with big-endian lengths (FileAccess.big_endian); implies --records",
    )
    dec.add_argument("--offset", type=int, default=0, help="start at this byte offset")
    dec.add_argument(
        "--allow-objects",
        action="store_true",
        help="accept full objects (bytes_to_var_with_objects); they stay inert records",
    )
    dec.add_argument("--password", help="password of an encrypted (GDEC) save")
    dec.add_argument("--key", help="raw 32-byte key of an encrypted save, as 64 hex digits")
    dec.set_defaults(func=_cmd_decode)

    enc = sub.add_parser(
        "encode",
        parents=[engine],
        help="encode a value written as an expression",
        description=(
            "Encode a value written as a Python-style expression using gdvariant's types, "
            'e.g. \'[1, "a", Vector2(1, 2), {"k": PackedInt32Array([1, 2])}]\'. '
            "Nothing is evaluated: only literals and gdvariant types are accepted. A "
            "Dictionary whose keys Python would merge (1, 1.0, true) keeps them all, as Godot "
            "does; a key written twice is refused."
        ),
        epilog=f"{_ENCODE_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    enc.add_argument("expression", help="the value, or '-' to read it from standard input")
    enc.add_argument("-o", "--output", help="write the bytes to this file")
    enc.add_argument("--hex", action="store_true", help="print hex instead of raw bytes")
    enc.add_argument("--full-objects", action="store_true", help="as var_to_bytes_with_objects")
    enc.add_argument(
        "--framing",
        choices=list(Framing),
        help="write what put_var sends with this framing (default: bare var_to_bytes)",
    )
    enc.add_argument(
        "--big-endian", action="store_true", help="StreamPeer.big_endian: a big-endian length"
    )
    enc.set_defaults(func=_cmd_encode)

    frm = sub.add_parser(
        "frames",
        parents=[engine],
        help="decode a stream of put_var frames (a TCP capture, a store_var file)",
        description=(
            "Decode every length-prefixed value in a byte stream, as StreamPeer.get_var or "
            "PacketPeerStream read them: a captured TCP stream, or a file of store_var records."
        ),
        epilog=f"{_FRAMES_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    frm.add_argument("input", help="file to read, or '-' for standard input")
    frm.add_argument("--hex", action="store_true", help="the input is hex text, not raw bytes")
    frm.add_argument(
        "--framing",
        choices=[f.value for f in Framing if f is not Framing.PACKET_PEER],
        default=Framing.STREAM_PEER.value,
        help="how the values are cut apart (default: StreamPeer)",
    )
    frm.add_argument("--big-endian", action="store_true", help="the lengths are big-endian")
    frm.add_argument(
        "--max-frame-size", type=int, help="refuse larger frames (default: the framing's own)"
    )
    frm.add_argument("--allow-objects", action="store_true", help="accept full objects")
    frm.set_defaults(func=_cmd_frames)

    sch = sub.add_parser(
        "schema",
        help="explain a gdvariant.replication schema, or write its GDScript decoder",
        description=(
            "Load the networked classes of a Python module (MODULE is a dotted name or a .py "
            "file; MODULE:CLASS names one class by its Python or table name) and print their "
            "flat property tables (explain), or the GDScript decoder for Godot 4 (gdscript)."
        ),
        epilog=f"{_SCHEMA_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sch.add_argument("action", choices=["explain", "gdscript"], help="what to print")
    sch.add_argument("target", metavar="MODULE[:CLASS]", help="the module (and class)")
    sch.add_argument(
        "--order",
        choices=["spec", "source"],
        default="spec",
        help="flat order: ours (default) or Source 2013's own",
    )
    sch.add_argument("-o", "--output", help="gdscript: write the decoder to this file")
    sch.set_defaults(func=_cmd_schema)

    ver = sub.add_parser(
        "versions",
        help="list the engine versions gdvariant speaks",
        description="List every engine version (-V) and what its format supports.",
        epilog=f"{_VERSIONS_EXAMPLES}\n{_EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ver.add_argument("--json", action="store_true", help="machine-readable output")
    ver.set_defaults(func=_cmd_versions)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit status (0, 1 or 2, as ``--help`` lists them)."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:  # e.g. at the password prompt
        print(file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped (`| head`): say nothing, as `cat` would
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (VariantError, _Unreadable) as exc:
        print(f"gdvariant: {exc}", file=sys.stderr)
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
