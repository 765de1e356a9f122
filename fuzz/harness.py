"""The command line every fuzz target shares: ``--seed-corpus DIR``, ``--replay DIR``, or
libFuzzer's own arguments for atheris."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


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
