"""Coverage-guided fuzzing of ``from_json`` in both dialects (atheris). Run by hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python -m fuzz.fuzz_json fuzz/corpus-json -atheris_runs=10000000

The first input byte picks the dialect (even: tagged, odd: godot); the rest is the JSON text.
Any exception other than :class:`gdvariant.JSONError` is a crash. A tagged text that reads
must write again (``to_json``) and read back to a value with the same bytes; a value the
encoder refuses must be refused with :class:`gdvariant.EncodeError`. A crash becomes a test
in ``tests/json/test_tagged.py``. The seed corpus holds both dialects' texts of the engine-made
golden values: ``python -m fuzz.fuzz_json --seed-corpus fuzz/corpus-json``.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import atheris

from fuzz import harness
from tests.support.paths import VECTORS

with atheris.instrument_imports():
    import gdvariant as gd


def test_one_input(raw: bytes) -> None:
    if not raw:
        return
    godot = bool(raw[0] & 1)
    try:
        value = gd.from_json(raw[1:], dialect="godot" if godot else "tagged", allow_objects=True)
    except gd.JSONError:
        return
    with contextlib.suppress(gd.EncodeError):  # readable but not writable: the encoder says why
        data = gd.dumps(value, full_objects=True)
        if not godot:
            again = gd.from_json(gd.to_json(value))
            if gd.dumps(again, full_objects=True) != data:
                raise AssertionError("to_json of a value read from JSON does not read back")


def seed_corpus(folder: Path) -> None:
    """Both dialects' texts of every engine-made Godot 4.6 golden value."""
    root = VECTORS
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    lines = (root / "godot4.6" / "golden.jsonl").read_text().splitlines()[1:]
    for line in lines:
        value = gd.loads(bytes.fromhex(json.loads(line)["bytes_objects"]), allow_objects=True)
        for flag, dialect in ((0, "tagged"), (1, "godot")):
            try:
                text = gd.to_json(value, dialect=dialect, full_objects=True)  # type: ignore[arg-type]
            except gd.EncodeError:
                continue
            (folder / f"{dialect}-{count}").write_bytes(bytes([flag]) + text.encode())
            count += 1
    print(f"wrote {count} seed inputs to {folder}")


if __name__ == "__main__":
    harness.main(test_one_input, seed_corpus)
