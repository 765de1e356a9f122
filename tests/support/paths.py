"""Where things are in the repository, for the tests, tools, benchmarks and fuzzers: one
place instead of each module counting ``parent`` steps from its own file."""

from __future__ import annotations

from pathlib import Path

#: The repository (or the unpacked sdist): the folder that holds ``src/``, ``tests/``...
ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
#: The engine-written and derived vectors (``tests/vectors/``).
VECTORS = TESTS / "vectors"
#: The tests that run the real engines, beside their GDScript.
LIVE = TESTS / "live"
SRC = ROOT / "src" / "gdvariant"
DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
BENCHMARKS = ROOT / "benchmarks"
