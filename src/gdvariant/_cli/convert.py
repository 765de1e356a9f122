"""``gdvariant convert``: a file for another engine release, or in another form."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._binary.codec import VariantCodec
from .._files.containers import sniff
from .._files.wrapping import Container, write_container
from .._writes import write_file
from ._common import (
    Unreadable,
    command_parser,
    engine_codec,
    engine_options,
    engine_version,
    max_size_option,
    read_bytes,
    secret_options,
)
from ._forms import (
    Payload,
    from_document,
    json_values,
    read_payload,
    to_document,
    to_json_lines,
    to_lines,
)
from ._portability import problems
from ._progress import Progress, progress_option
from ._show import text_version

EXAMPLES = """\
  gdvariant convert -V 3 examples/godot3_save.sav --to-version 4 -o /tmp/godot4_save.sav
  gdvariant convert examples/user_save.dat --password secret --to text  # the records as text
  gdvariant convert examples/savegame.bin -o /tmp/savegame.txt     # text, from the extension
  gdvariant convert /tmp/savegame.txt -o /tmp/savegame.bin          # and back to the bytes
  gdvariant convert examples/savegame.bin --to-version 3 --json  # (exit 1) what 3.x cannot hold
"""
FORMS = ("bytes", "text", "json")
_TEXT_SUFFIXES = (".txt", ".text", ".gdtext")
_JSON_SUFFIXES = (".json", ".jsonl")
_HEADER = "; gdvariant: "


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "convert",
        help="convert a file between engine versions (Godot 3 -> 4...) or forms (bytes, text)",
        description=(
            "Read a file written for one engine release (-V) and write it for another "
            "(--to-version), keeping its layout (one value, or store_var records and their "
            "byte order) and its container: an encrypted save stays encrypted with the same "
            "password or key (in the target's GDEC layout), a compressed one keeps its "
            "compression and block size. Or change its form (--to bytes|text|json, or from "
            "the -o file's extension: .txt text, .json JSON): text is Godot's text syntax, one "
            "value per line after a ';' comment that says what the file held; text and JSON "
            "convert back to bytes. Every value the target cannot hold is reported with its "
            "record and path, and nothing is written (exit status 1)."
        ),
        examples=EXAMPLES,
        parents=[engine_options()],
    )
    parser.add_argument("input", help="file to read, or '-' for standard input")
    parser.add_argument("-o", "--output", help="file to write (default: standard output)")
    parser.add_argument(
        "--to-version",
        type=engine_version,
        metavar="VERSION",
        help="engine release to write for (default: the -V release)",
    )
    parser.add_argument(
        "--to",
        dest="to_form",
        choices=FORMS,
        help="form to write: bytes, text (Godot's text syntax) or json (default: from the -o "
        "extension, else bytes; text when only printing the same release's bytes)",
    )
    parser.add_argument(
        "--from",
        dest="from_form",
        choices=FORMS,
        help="form of the input (default: from its extension, else bytes or text by content)",
    )
    parser.add_argument(
        "--records",
        action="store_true",
        help="text or JSON input: every value is a store_var record (JSON: one per line)",
    )
    parser.add_argument(
        "--allow-objects",
        action="store_true",
        help="accept full objects (bytes_to_var_with_objects)",
    )
    secret_options(parser)
    max_size_option(parser)
    parser.add_argument("--json", action="store_true", help="report as JSON on standard output")
    progress_option(parser)
    parser.set_defaults(func=run)


def _suffix_form(path: str | None) -> str | None:
    suffix = Path(path).suffix.lower() if path and path != "-" else ""
    if suffix in _TEXT_SUFFIXES:
        return "text"
    return "json" if suffix in _JSON_SUFFIXES else None


def _output_form(args: argparse.Namespace, source_form: str, same_version: bool) -> str:
    """--to, else the -o file's extension, else bytes (text for bytes shown unchanged)."""
    form = args.to_form or _suffix_form(args.output)
    if form is not None:
        return form
    if source_form == "bytes" and same_version and not args.output:
        return "text"
    return "bytes"


def _read(
    args: argparse.Namespace, codec: VariantCodec, progress: Progress
) -> tuple[Payload, dict[str, Any], str]:
    data = read_bytes(args.input, args.max_size)
    binary = sniff(data[:4]) != "plain" or b"\0" in data[:256] or not data
    form = args.from_form or _suffix_form(args.input) or ("bytes" if binary else "text")
    if form == "bytes":
        payload, options = read_payload(data, codec, args)
        return payload, options, form
    if form == "json":
        text = data.decode("utf-8")
        lines = [line for line in text.split("\n") if line.strip()]
        records = args.records or Path(args.input).suffix.lower() == ".jsonl" or len(lines) != 1
        return Payload(json_values(text, "tagged", many=records), records), {}, form
    source = codec.profile
    version = text_version(source)
    if version is None:
        raise ValueError(f"{source.engine} has no text syntax here")
    text = data.decode("utf-8")
    header = text.split("\n", 1)[0]
    one = header.startswith(_HEADER) and " one value " in f"{header} "
    values = from_document(text, version, records=not one, where=args.input, progress=progress)
    records = args.records or (not one and (len(values) != 1 or header.startswith(_HEADER)))
    big_endian = header.startswith(_HEADER) and "big-endian lengths" in header
    return Payload(values, records, big_endian), {}, form


def run(args: argparse.Namespace) -> int:
    source_codec = engine_codec(args)
    target_codec = engine_codec(args, args.to_version or None)
    source, target = source_codec.profile, target_codec.profile
    progress = Progress.of(args)
    payload, options, source_form = _read(args, source_codec, progress)
    checked = progress.over(payload.values, "checking", len(payload.values))
    found = problems(
        checked, target, records=payload.records, full_objects=target_codec.full_objects
    )
    if found:
        if args.json:
            report = [{"record": p.record, "path": p.path, "reason": p.reason} for p in found]
            print(json.dumps({"ok": False, "problems": report}, indent=2))
        lines = [f"cannot convert to {target.engine}: {len(found)} values"]
        lines += [f"  {problem}" for problem in found]
        raise Unreadable("\n".join(lines))
    form = _output_form(args, source_form, target is source)
    container = payload.container
    if container.kind == "GDEC":
        container = replace(container, layout=target.encrypted_layout)
    what = f"{payload.describe()} for {target.engine}"
    if container.kind != "plain":
        what += f", {container.describe()}"
    if form == "text":
        version = text_version(target)
        if version is None:
            raise ValueError(f"{target.engine} has no text syntax here: use --to json")
        lines = to_lines(payload, version, progress)
        _write_text(args.output, to_document(lines, [f"gdvariant: {what}"]))
    elif form == "json":
        _write_text(args.output, to_json_lines(payload))
    else:
        plain = payload.plaintext(target_codec)
        _write_bytes(args.output, plain, container, options)
    if payload.cut:
        print(f"note: the {payload.cut} bytes of the cut last frame are left out", file=sys.stderr)
    if args.json:
        print(json.dumps({"ok": True, "wrote": args.output or "-", "form": form, "what": what}))
    elif args.output:
        print(f"# wrote {args.output}: {what}", file=sys.stderr)
    return 0


def _write_text(output: str | None, text: str) -> None:
    if output is None or output == "-":
        sys.stdout.write(text)
    else:
        write_file(output, text.encode("utf-8"))


def _write_bytes(
    output: str | None, plain: bytes, container: Container, options: dict[str, Any]
) -> None:
    if output is None or output == "-":
        if sys.stdout.isatty():
            raise ValueError("binary output: give -o FILE, or pipe it")
        if container.kind != "plain":
            raise ValueError("a container is written to a file: give -o FILE")
        sys.stdout.buffer.write(plain)
        return
    write_container(output, plain, container, **options)
