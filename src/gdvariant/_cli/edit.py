"""``gdvariant edit``: change a save in a text editor and write it back the way it was."""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .._errors import DecodeError, EncodeError
from .._savefile import write_container
from ._common import Unreadable, command_parser, engine_codec, engine_options, secret_options
from ._forms import check_lossless, from_document, read_payload, to_document
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
            "the edited text is kept for another try. Values that have no exact text form "
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
    payload, options = read_payload(path.read_bytes(), codec, args)
    if payload.cut:
        raise Unreadable("the file ends inside a frame: a cut capture cannot be written back")
    check_lossless(payload, version, codec)
    what = f"{payload.describe()} for {profile.engine}"
    if payload.container.kind != "plain":
        what += f", {payload.container.describe()}"
    text = to_document(payload, version, [f"gdvariant edit {path.name}: {what}", _USAGE])
    fd, name = tempfile.mkstemp(prefix=f"{path.stem}-", suffix=".txt")
    draft = Path(name)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    status = subprocess.call([*_editor(args.editor), str(draft)])
    if status != 0:
        raise Unreadable(f"the editor exited with status {status}: nothing written ({draft} kept)")
    edited = draft.read_text(encoding="utf-8")
    if edited == text:
        draft.unlink()
        print(f"# no change: {path} left as it was", file=sys.stderr)
        return 0
    try:
        values = from_document(edited, version, records=payload.records, where=str(draft))
        payload.values = values
        plain = payload.plaintext(codec)
    except (DecodeError, EncodeError, ValueError) as exc:
        raise Unreadable(
            f"{exc}; nothing written ({path} is as it was), the edit is kept in {draft}"
        ) from None
    write_container(path, plain, payload.container, **options)
    draft.unlink()
    print(f"# wrote {path}: {payload.describe()} for {profile.engine}", file=sys.stderr)
    return 0
