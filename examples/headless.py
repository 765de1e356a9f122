"""What the three one-command demos share: how they start headless Godot 4 clients.

The options that say which Godot to run (``--godot``, or the ``GODOT`` environment variable;
``--chroot`` for the test engines) and ``-v``; one line naming what is missing when Godot
cannot start, instead of a traceback once the server is up; and a scratch folder for the
client's files, seen from here and from the engine, with the command that starts the engine.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def parser(doc: str) -> argparse.ArgumentParser:
    """A demo's argument parser (described by the first line of ``doc``) with the shared
    options; the demo adds its own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument(
        "--godot",
        default=os.environ.get("GODOT", "godot"),
        help="the Godot 4 binary (default: $GODOT, else godot on PATH)",
    )
    parser.add_argument("--chroot", type=Path, help="run Godot inside this chroot (test setup)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log the server's events")
    return parser


def parse(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The demo's arguments, with logging as ``-v`` says; exits with one line (status 2) when
    Godot cannot be started."""
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(name)s: %(message)s",
    )
    missing = godot_missing(args.godot, args.chroot)
    if missing:
        parser.exit(2, f"{parser.prog}: {missing}\n")
    return args


def godot_missing(godot: str, chroot: Path | None) -> str | None:
    """What is missing to start the clients, and the flag that gives it, or None."""
    if chroot is not None:
        if not (chroot / "tmp").is_dir():
            return f"--chroot {chroot}: no such chroot (it needs a tmp folder)"
        return None
    if shutil.which(godot) is None:
        return (
            f"no Godot 4 binary {godot!r} found: install Godot 4 on PATH, or give it with "
            "--godot PATH (or the GODOT environment variable)"
        )
    return None


@contextmanager
def scratch(args: argparse.Namespace) -> Iterator[tuple[Path, str, list[str]]]:
    """A temporary folder for the clients' files (in the chroot's ``/tmp`` with ``--chroot``):
    its path here, the same folder as the engine sees it, and the command that starts the
    engine. Removed when the demo ends."""
    base = args.chroot / "tmp" if args.chroot else None
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        if args.chroot:
            godot = ["chroot", str(args.chroot), "env", "HOME=/tmp", args.godot]
            yield Path(tmp), f"/tmp/{Path(tmp).name}", godot
        else:
            yield Path(tmp), tmp, [args.godot]
