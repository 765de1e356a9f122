"""What every command shares: exit statuses, input reading, hex, secrets, option groups and
the codec the engine options resolve to."""

from __future__ import annotations

import argparse
import getpass
import os
import re
import stat
import sys
import textwrap
from typing import Any, BinaryIO

from .._binary.codec import VariantCodec, codec_for
from .._engines.profiles import release_name, unknown_version
from .._limits import DEFAULT_LIMITS, Limits

EXIT_STATUS = """exit status:
  0  done: the whole input was read, the value or file was written
  1  the data is bad: the bytes do not decode (or only partly), the text does not parse, a
     value cannot be encoded or converted for that engine, no engine reads the file, or
     the input is over --max-size
  2  a usage error: an unreadable file, bad hex, a refused expression, a missing password,
     or a missing optional package (the message names the one to install)
  130, 141  interrupted (Ctrl-C), or the output pipe was closed (`| head`)
"""
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_SIZE = re.compile(r"(\d+)\s*([kKmMgG]?)(?:i?[bB])?")
_UNITS = {"": 0, "K": 10, "M": 20, "G": 30}


class Unreadable(ValueError):
    """Data that no reading accounts for; the message says what was tried (exit status 1)."""


def parse_hex(text: str, what: str = "--hex") -> bytes:
    """Bytes from hex digits, spaces allowed; a ValueError in our words otherwise."""
    digits = "".join(text.split())
    for column, char in enumerate(text, 1):
        if not char.isspace() and char not in _HEX_DIGITS:
            raise ValueError(f"{what}: {char!r} at character {column} is not a hex digit")
    if len(digits) % 2:
        raise ValueError(f"{what}: an odd number of hex digits ({len(digits)}): a byte is cut")
    return bytes.fromhex(digits)


def read_input(source: str, as_hex: bool, limit: int) -> bytes:
    """The bytes of a file, of standard input (``-``), or of hex text (``--hex``); more than
    ``limit`` bytes are refused after reading one more (an endless stream stops there)."""
    if not as_hex:
        return read_bytes(source, limit)
    text = sys.stdin.read(3 * limit + 1) if source == "-" else source  # 2 digits, 1 space
    if len(text) > 3 * limit:
        raise too_big(limit)
    data = parse_hex(text)
    if len(data) > limit:
        raise too_big(limit)
    return data


def read_bytes(source: str, limit: int) -> bytes:
    """At most ``limit`` bytes of a file or of standard input (``-``); more is refused, after
    reading exactly one byte more (unbuffered reads: no read-ahead past it)."""
    if source == "-":
        stdin = sys.stdin.buffer
        data = _read_at_most(getattr(stdin, "raw", stdin), limit + 1)
    else:
        with open(source, "rb", buffering=0) as fp:
            data = _read_at_most(fp, limit + 1)
    if len(data) > limit:
        raise too_big(limit)
    return data


def read_text(source: str, limit: int) -> str:
    """The UTF-8 text of a file, or standard input's text (``-``), up to ``limit`` bytes
    (characters, from standard input)."""
    if source != "-":
        return read_bytes(source, limit).decode("utf-8")
    text = sys.stdin.read(limit + 1)
    if len(text) > limit:
        raise too_big(limit)
    return text


def _read_at_most(fp: BinaryIO, most: int) -> bytes:
    """Up to ``most`` bytes; memory grows with what arrives (a regular file is read in
    pieces of its own size, anything else in pieces of 1 MiB at most)."""
    try:
        info = os.fstat(fp.fileno())
    except (OSError, ValueError):  # no file descriptor (an in-memory stream)
        info = None
    piece = info.st_size + 1 if info is not None and stat.S_ISREG(info.st_mode) else 1 << 20
    parts = []
    while most > 0 and (part := fp.read(min(most, piece))):
        parts.append(part)
        most -= len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def too_big(limit: int) -> Unreadable:
    """The error for input over ``--max-size``."""
    return Unreadable(
        f"the input is over {_size_text(limit)} (--max-size {limit}): only that much is read; "
        "give a larger --max-size to read it"
    )


def byte_size(text: str) -> int:
    """``--max-size``'s value: bytes, or with a K, M or G suffix (powers of 1024)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size: give bytes, or e.g. 64M, 1G")
    return int(match[1]) << _UNITS[match[2].upper()]


def _size_text(size: int) -> str:
    for unit in "GMK":
        shift = _UNITS[unit]
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}iB"
    return f"{size:,} bytes"


def limits_of(args: argparse.Namespace) -> Limits:
    """The codec limits a command decodes with: the defaults, with ``--max-size``."""
    size = getattr(args, "max_size", DEFAULT_LIMITS.max_size)
    return DEFAULT_LIMITS if size == DEFAULT_LIMITS.max_size else Limits(max_size=size)


def max_size_option(parser: argparse.ArgumentParser) -> None:
    """``--max-size``: how much input is read, and how large one value may be."""
    parser.add_argument(
        "--max-size",
        type=byte_size,
        default=DEFAULT_LIMITS.max_size,
        metavar="SIZE",
        help="read at most this much input (and decode values up to this size): bytes, or "
        f"with K, M, G (default: {_size_text(DEFAULT_LIMITS.max_size or 0)}, Limits.max_size)",
    )


def secret(args: argparse.Namespace) -> dict[str, Any]:
    """``key=`` or ``password=`` for an encrypted file, asking for a password on a terminal."""
    if getattr(args, "key", None):
        return {"key": parse_hex(args.key, "--key")}
    if getattr(args, "password", None) is not None:
        return {"password": args.password}
    if not sys.stdin.isatty():
        raise ValueError("this save is encrypted: give --password or --key")
    try:
        return {"password": getpass.getpass("password: ")}
    except EOFError:  # Ctrl-D: the prompt's line is left open
        print(file=sys.stderr)
        raise ValueError("no password given (end of input): give --password or --key") from None


def command_parser(
    sub: Any,
    name: str,
    *,
    help: str,  # noqa: A002 - argparse's name
    description: str,
    examples: str,
    parents: list[argparse.ArgumentParser] | None = None,
) -> argparse.ArgumentParser:
    """A subcommand whose ``--help`` ends with its examples and the exit statuses."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        parents=parents or [],
        help=help,
        description=textwrap.fill(description, 88),
        epilog=f"examples:\n{examples}\n{EXIT_STATUS}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def engine_codec(args: argparse.Namespace, version: str | None = None) -> VariantCodec:
    """The :class:`VariantCodec` a command reads and writes with, resolved once from ``-V``,
    ``--double`` and ``--allow-objects`` (which also writes full objects back, as ``edit``
    and ``convert`` do) or ``--full-objects``; ``version`` stands in for ``-V``
    (``convert --to-version``)."""
    allow = bool(getattr(args, "allow_objects", False))
    full = bool(getattr(args, "full_objects", allow))
    engine = args.version if version is None else version
    return codec_for(engine, args.double, allow, full, limits_of(args))


def engine_version(text: str) -> str:
    """``-V``'s value: a ``gdvariant versions`` name, or a version as Godot prints it
    (``4.6.3.stable``), which names its release (``4.6``)."""
    name = release_name(text)
    if name is None:
        raise argparse.ArgumentTypeError(unknown_version(text))
    return name


def engine_options(default: str | None = "4") -> argparse.ArgumentParser:
    """``-V VERSION`` and ``--double``."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(
        "-V",
        "--engine-version",
        "--version",
        dest="version",
        default=default,
        type=engine_version,
        metavar="VERSION",
        help="the Godot release that wrote the data or will read it (default: 4 = newest 4.x; "
        "also 3, 2, 4.2, pandemonium...: see `gdvariant versions`; or the version Godot "
        "prints, such as 4.6.3.stable)",
    )
    parser.add_argument(
        "--double",
        action="store_true",
        help="the engine is a precision=double build (Godot 4): math types are 64-bit",
    )
    return parser


def input_options() -> argparse.ArgumentParser:
    """INPUT, ``--hex``, ``--allow-objects`` and the secret of an encrypted save."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("input", help="file to read, or '-' for standard input")
    parser.add_argument("--hex", action="store_true", help="the input is hex text, not raw bytes")
    parser.add_argument(
        "--allow-objects",
        action="store_true",
        help="accept full objects (bytes_to_var_with_objects); they stay inert records",
    )
    secret_options(parser)
    max_size_option(parser)
    return parser


def secret_options(parser: argparse.ArgumentParser) -> None:
    """``--password`` and ``--key`` of an encrypted (GDEC) save."""
    parser.add_argument("--password", help="password of an encrypted (GDEC) save")
    parser.add_argument("--key", help="raw 32-byte key of an encrypted save, as 64 hex digits")
