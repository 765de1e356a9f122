"""What every fuzz target shares: the command line (``--seed-corpus DIR``, ``--replay DIR``,
or libFuzzer's own arguments for atheris) and the round-trip check of a decoded value."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def written_back(value: Any, profile: Any, objects: bool) -> None:
    """What ``profile`` decoded (``objects``: with full objects), its encoder must write back,
    and reading that must give the value as the engine holds it after its own write and read
    (``random_wire.reread``). An EncodeError is a crash like any other exception."""
    # Imported here, at first use: each target has its gdvariant import instrumented first.
    import gdvariant as gd
    from tests.support.godot_describe import canon
    from tests.support.random_wire import reread

    again = gd.dumps(value, version=profile, full_objects=objects)
    if objects:  # without, an object-typed container's class is written as EncodedObjectAsID
        back = gd.loads(again, version=profile, allow_objects=True)
        if canon(back) != canon(reread(value, profile)):
            raise AssertionError(f"{profile.name}: {value!r:.200} reads back as {back!r:.200}")


def replay(folder: Path, test_one_input: Callable[[bytes], None]) -> None:
    """Run every input of a corpus once (for a coverage report); a crash raises."""
    files = sorted(folder.iterdir())
    for path in files:
        if path.exists():  # a running fuzzer may have replaced it with a smaller one
            test_one_input(path.read_bytes())
    print(f"replayed {len(files)} inputs from {folder}: no crash")


def main(test_one_input: Callable[[bytes], None], seed_corpus: Callable[[Path], None]) -> None:
    """Write the seed corpus, replay a corpus, or fuzz with atheris."""
    if sys.argv[1:2] == ["--seed-corpus"]:
        seed_corpus(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["--replay"]:
        replay(Path(sys.argv[2]), test_one_input)
    else:
        try:
            import atheris
        except ImportError:
            sys.exit("atheris is not installed: pip install -e '.[fuzz]'")
        atheris.Setup(sys.argv, test_one_input)
        atheris.Fuzz()
