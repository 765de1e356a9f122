"""``gdvariant frames``: every put_var frame of a captured stream, as ``get_var`` reads them."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._binary.codec import VariantCodec
from .._errors import DecodeError
from .._files.guess import engine_for_frames, loose_frame
from .._net.framing import Framing, StreamDecoder
from ._common import (
    Unreadable,
    command_parser,
    engine_codec,
    engine_options,
    max_size_option,
    read_input,
)
from ._show import Show, colour_wanted, format_options

EXAMPLES = """\
  gdvariant frames examples/capture.bin                  # put_var frames of a TCP stream
  gdvariant frames --hex 080000000200000005000000         # -> 5
"""


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "frames",
        help="decode a stream of put_var frames (a TCP capture, a store_var file)",
        description=(
            "Decode every length-prefixed value in a byte stream, as StreamPeer.get_var or "
            "PacketPeerStream read them: a captured TCP stream, or a file of store_var "
            "records. Unlike decode, a frame that does not decode stops the stream with the "
            "values before it printed, as the engine's reader does."
        ),
        examples=EXAMPLES,
        parents=[engine_options()],
    )
    parser.add_argument("input", help="file to read, or '-' for standard input")
    parser.add_argument("--hex", action="store_true", help="the input is hex text, not raw bytes")
    max_size_option(parser)
    parser.add_argument(
        "--framing",
        choices=[f.value for f in Framing if f is not Framing.PACKET_PEER],
        default=Framing.STREAM_PEER.value,
        help="how the values are cut apart (default: StreamPeer)",
    )
    parser.add_argument("--big-endian", action="store_true", help="the lengths are big-endian")
    parser.add_argument(
        "--max-frame-size", type=int, help="refuse larger frames (default: the framing's own)"
    )
    parser.add_argument(
        "--allow-objects",
        action="store_true",
        help="accept full objects (bytes_to_var_with_objects)",
    )
    format_options(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = read_input(args.input, args.hex, args.max_size)
    codec = engine_codec(args)
    profile = codec.profile
    show = Show(args.format, profile, full=args.full, colour=colour_wanted(args.color))
    big_endian = args.big_endian or False
    decoder = StreamDecoder._with_codec(codec, args.framing, big_endian, args.max_frame_size)
    loose = loose_frame(data, codec, big_endian)
    if loose is not None:
        index, offset, used = loose
        raise Unreadable(
            f"the value in frame {index} (offset {offset}) ends after {used} bytes, before its "
            f"frame does: these are not {profile.engine} put_var frames"
            + _engine_note(data, codec, big_endian)
        )
    shown = 0
    try:
        decoder.feed(data)
    except DecodeError as exc:
        raise Unreadable(f"{exc}{_engine_note(data, codec, big_endian)}") from None
    finally:
        for value in decoder:
            print(show(value))
            shown += 1
        show.note()
    if decoder.buffered:
        print(f"note: the data ends inside a frame ({decoder.buffered} bytes)", file=sys.stderr)
    print(f"# {shown} values in {len(data)} bytes", file=sys.stderr)
    return 0


def _engine_note(data: bytes, codec: VariantCodec, big_endian: bool) -> str:
    line = engine_for_frames(data, codec, big_endian)
    return f"\nnote: -V {line} reads every whole frame" if line is not None else ""
