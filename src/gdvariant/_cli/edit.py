"""``gdvariant edit``: change a save in a text editor and write it back the way it was."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .._errors import DecodeError, EncodeError
from .._files.wrapping import write_container
from ._common import (
    Unreadable,
    command_parser,
    engine_codec,
    engine_options,
    max_size_option,
    read_bytes,
    secret_options,
)
from ._forms import check_lossless, from_document, read_payload, to_document
from ._progress import Progress, progress_option
from ._show import text_version

EXAMPLES = """\
  gdvariant convert examples/user_save.dat --password secret -o /tmp/edit_me.sav  # a copy
  gdvariant edit /tmp/edit_me.sav --password secret --editor "sed -i s/12/13/"  # level 13
  gdvariant decode /tmp/edit_me.sav --password secret     # the first record says 13
"""
_USAGE = (
    "One value per line, in Godot's text syntax; lines starting with ';' are comments. "
    "Save and quit to write the file back; a text that does not parse writes nothing."
)


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "edit",
        help="edit a save file's values as text in $EDITOR and write it back",
        description=(
            "Open a save's values in $VISUAL or $EDITOR (default vi) as Godot text, one record "
            "per line, and write the edited values back in the same container: the same "
            "password or key, compression and block size, byte order and engine version (-V). "
            "The file is replaced atomically (a temporary file, then a rename). If the edited "
            "text does not parse, or a value cannot be written for the engine, nothing is "
            "written, the old file stays as it was, the error names the line and column, and "
            "the edited text is kept for another try (not an encrypted save's: its text is "
            "never left on disk). Values that have no exact text form "
            "(object ids, Signals) are refused before the editor opens. --editor (or $EDITOR) "
            "may be any command that changes the file it is given, for scripts."
        ),
        examples=EXAMPLES,
        parents=[engine_options()],
    )
    parser.add_argument("save", help="the save file to edit (plain, GDEC or GCPF)")
    parser.add_argument("--editor", help="the editor command (default: $VISUAL, $EDITOR, then vi)")
    parser.add_argument(
        "--allow-objects",
        action="store_true",
        help="accept full objects (bytes_to_var_with_objects)",
    )
    secret_options(parser)
    max_size_option(parser)
    progress_option(parser)
    parser.set_defaults(func=run)


def _editor(given: str | None) -> list[str]:
    command = given or os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    return shlex.split(command)


def run(args: argparse.Namespace) -> int:
    path = Path(args.save)
    codec = engine_codec(args)
    profile = codec.profile
    version = text_version(profile)
    if version is None:
        raise ValueError(f"{profile.engine} has no text syntax here: edit needs one")
    payload, options = read_payload(read_bytes(args.save, args.max_size), codec, args)
    if payload.cut:
        raise Unreadable("the file ends inside a frame: a cut capture cannot be written back")
    progress = Progress.of(args)
    lines, known = check_lossless(payload, version, codec, progress)
    what = f"{payload.describe()} for {profile.engine}"
    if payload.container.kind != "plain":
        what += f", {payload.container.describe()}"
    text = to_document(lines, [f"gdvariant edit {path.name}: {what}", _USAGE])
    # The draft lives in a folder of its own that only this user can enter (mkdtemp: 0700),
    # removed whatever happens (Ctrl-C, SIGTERM: the command unwinds), except to keep a
    # failed edit of an unencrypted save for another try: a decrypted text never stays.
    folder = Path(tempfile.mkdtemp(prefix="gdvariant-edit-"))
    draft = folder / f"{path.stem}.txt"
    secret, keep = payload.container.kind == "GDEC", False
    try:
        draft.write_text(text, encoding="utf-8")
        status = subprocess.call([*_editor(args.editor), str(draft)])
        if status != 0:
            keep = not secret
            raise Unreadable(
                f"the editor exited with status {status}: nothing written{_fate(draft, keep)}"
            )
        edited = draft.read_text(encoding="utf-8")
        if edited == text:
            print(f"# no change: {path} left as it was", file=sys.stderr)
            return 0
        try:
            payload.values = from_document(
                edited,
                version,
                records=payload.records,
                where=str(draft),
                known=known,
                progress=progress,
                expected=len(lines),
            )
            plain = payload.plaintext(codec)
        except (DecodeError, EncodeError, ValueError) as exc:
            keep = not secret
            raise Unreadable(
                f"{exc}; nothing written ({path} is as it was){_fate(draft, keep)}"
            ) from None
        try:
            write_container(path, plain, payload.container, **options)
        except Exception:
            keep = not secret
            print(f"note: {path} is as it was{_fate(draft, keep)}", file=sys.stderr)
            raise
    finally:
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"# wrote {path}: {payload.describe()} for {profile.engine}", file=sys.stderr)
    return 0


def _fate(draft: Path, keep: bool) -> str:
    """What became of the edited text, for the message of a failed edit."""
    if keep:
        return f", the edit is kept in {draft}"
    return "; the edit is discarded (the save is encrypted: its text is not left on disk)"
