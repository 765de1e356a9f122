"""A pytest of its own, for the tests of the test suite's own settings: it runs the test files
of one folder with this repository's settings (pyproject.toml), as a hung test would meet them."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.paths import ROOT


def command(folder: Path, *options: str) -> list[str]:
    """The command line of a pytest over the test files in ``folder`` (its root: no conftest
    or cache outside it), with this repository's settings and ``options``."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        str(ROOT / "pyproject.toml"),
        "--rootdir",
        str(folder),
        "--confcutdir",
        str(folder),
        "-p",
        "no:cacheprovider",
        *options,
    ]
