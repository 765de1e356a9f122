"""What every command shares: exit statuses, input reading, hex, secrets, option groups and
the codec the engine options resolve to."""

from __future__ import annotations

import argparse
import getpass
import sys
import textwrap
from pathlib import Path
from typing import Any

from .._codec import Codec, codec_for
from .._profiles import release_name, unknown_version

EXIT_STATUS = """exit status:
  0  done: the whole input was read, the value or file was written
  1  the data is bad: the bytes do not decode (or only partly), the text does not parse, a
     value cannot be encoded or converted for that engine, no engine reads the file
  2  a usage error: an unreadable file, bad hex, a refused expression, a missing password,
     or a missing optional package (the message names the one to install)
  130, 141  interrupted (Ctrl-C), or the output pipe was closed (`| head`)
"""
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


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


def read_input(source: str, as_hex: bool) -> bytes:
    """The bytes of a file, of standard input (``-``), or of hex text (``--hex``)."""
    if as_hex:
        return parse_hex(sys.stdin.read() if source == "-" else source)
    if source == "-":
        return sys.stdin.buffer.read()
    return Path(source).read_bytes()


def secret(args: argparse.Namespace) -> dict[str, Any]:
    """``key=`` or ``password=`` for an encrypted file, asking for a password on a terminal."""
    if getattr(args, "key", None):
        return {"key": parse_hex(args.key, "--key")}
    if getattr(args, "password", None) is not None:
        return {"password": args.password}
    if not sys.stdin.isatty():
        raise ValueError("this save is encrypted: give --password or --key")
    return {"password": getpass.getpass("password: ")}


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


def engine_codec(args: argparse.Namespace, version: str | None = None) -> Codec:
    """The :class:`Codec` a command reads and writes with, resolved once from ``-V``,
    ``--double`` and ``--allow-objects`` (which also writes full objects back, as ``edit``
    and ``convert`` do) or ``--full-objects``; ``version`` stands in for ``-V``
    (``convert --to-version``)."""
    allow = bool(getattr(args, "allow_objects", False))
    full = bool(getattr(args, "full_objects", allow))
    return codec_for(args.version if version is None else version, args.double, allow, full)


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
    return parser


def secret_options(parser: argparse.ArgumentParser) -> None:
    """``--password`` and ``--key`` of an encrypted (GDEC) save."""
    parser.add_argument("--password", help="password of an encrypted (GDEC) save")
    parser.add_argument("--key", help="raw 32-byte key of an encrypted save, as 64 hex digits")
