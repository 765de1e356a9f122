"""The ``gdvariant`` command: decode and encode Godot Variant bytes from the shell."""

from __future__ import annotations

import argparse
import getpass
import json
import pprint
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from ._api import decode, dumps
from ._containers import iter_save, sniff
from ._errors import VariantError
from ._framing import Framing, StreamDecoder, frame
from ._literal import parse_value
from ._profiles import PROFILES, Profile

_EPILOG = """examples:
  gdvariant decode examples/savegame.bin
  gdvariant decode --hex 0c000000040000000300000061626300 --all
  gdvariant encode '[7, "move", Vector3(1, 2, 3), {"seq": 42}]' --hex
  gdvariant encode '{"seq": 42}' --framing StreamPeer --hex
  gdvariant frames capture.bin          # a TCP stream of put_var frames, e.g. from Wireshark
  gdvariant decode user_save.dat --password secret    # an encrypted or compressed save
  gdvariant versions
"""


def _print_value(value: object) -> None:
    """One decoded value, in the key order it was written."""
    print(pprint.pformat(value, width=100, sort_dicts=False))


def _read_input(source: str, as_hex: bool) -> bytes:
    if as_hex:
        text = sys.stdin.read() if source == "-" else source
        return bytes.fromhex("".join(text.split()))
    if source == "-":
        return sys.stdin.buffer.read()
    return Path(source).read_bytes()


def _cmd_save(args: argparse.Namespace, kind: str) -> int:
    """Decode every record of an encrypted or compressed save file."""
    key = bytes.fromhex(args.key) if args.key else None
    password = args.password
    if kind == "GDEC" and key is None and password is None:
        if not sys.stdin.isatty():
            print("gdvariant: this save is encrypted: give --password or --key", file=sys.stderr)
            return 2
        password = getpass.getpass("password: ")
    shown = 0
    for value in iter_save(
        args.input,
        version=args.version,
        double=args.double,
        allow_objects=args.allow_objects,
        key=key,
        password=password,
    ):
        print(f"# record {shown}")
        _print_value(value)
        shown += 1
    print(f"# {shown} records ({kind})", file=sys.stderr)
    return 0


def _cmd_decode(args: argparse.Namespace) -> int:
    if not args.hex and args.input != "-":
        with open(args.input, "rb") as fp:
            kind = sniff(fp.read(4))
        if kind != "plain":
            return _cmd_save(args, kind)
    data = _read_input(args.input, args.hex)
    offset = args.offset
    shown = 0
    while True:
        value, used = decode(
            data,
            version=args.version,
            double=args.double,
            allow_objects=args.allow_objects,
            offset=offset,
        )
        if args.all:
            print(f"# offset {offset}, {used} bytes")
        _print_value(value)
        offset += used
        shown += 1
        if not args.all or offset >= len(data):
            break
    if offset < len(data) and not args.all:
        print(
            f"note: {len(data) - offset} more bytes follow the value (use --all to decode them)",
            file=sys.stderr,
        )
    return 0


def _cmd_frames(args: argparse.Namespace) -> int:
    data = _read_input(args.input, args.hex)
    decoder = StreamDecoder(
        version=args.version,
        double=args.double,
        allow_objects=args.allow_objects,
        framing=args.framing,
        big_endian=args.big_endian,
        max_frame_size=args.max_frame_size,
    )
    shown = 0
    try:
        decoder.feed(data)
    finally:
        for value in decoder:
            print(f"# value {shown}")
            _print_value(value)
            shown += 1
    if decoder.buffered:
        print(f"note: the data ends inside a frame ({decoder.buffered} bytes)", file=sys.stderr)
    print(f"# {shown} values in {len(data)} bytes", file=sys.stderr)
    return 0


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


def _cmd_versions(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({name: p.describe() for name, p in PROFILES.items()}, indent=2))
        return 0
    for name, profile in PROFILES.items():
        alias = f" (= {profile.name})" if name != profile.name else ""
        print(f"{name:<16}{profile.engine}{alias}: {', '.join(_features(profile))}")
    return 0


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
        help="decode var_to_bytes data and print the value",
        description=(
            "Decode Variant bytes (a file, '-' for stdin, or hex text with --hex). An encrypted "
            "(GDEC) or compressed (GCPF) save file is recognised and its store_var records "
            "printed; an encrypted one asks for its password unless --password or --key is given."
        ),
    )
    dec.add_argument("input", help="file to read, or '-' for standard input")
    dec.add_argument("--hex", action="store_true", help="the input is hex text, not raw bytes")
    dec.add_argument("--all", action="store_true", help="decode every value, one after another")
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
            "Nothing is evaluated: only literals and gdvariant types are accepted."
        ),
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

    ver = sub.add_parser("versions", help="list the engine versions gdvariant speaks")
    ver.add_argument("--json", action="store_true", help="machine-readable output")
    ver.set_defaults(func=_cmd_versions)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except VariantError as exc:
        print(f"gdvariant: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"gdvariant: {exc}", file=sys.stderr)
        return 2
