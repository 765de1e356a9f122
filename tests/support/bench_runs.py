"""A benchmark's ``--quick`` run as the benchmark tests start it: ``python -m
benchmarks.<name> --quick ...`` from the repository, its output captured, in one place instead
of each test spelling out the subprocess call."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support import processes
from tests.support.paths import ROOT


def quick_run(
    name: str, *options: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``benchmarks.<name> --quick *options`` (at most five minutes) and return it, with a
    failure's output in the assertion message: a non-zero exit fails the test here."""
    proc = processes.run(
        [sys.executable, "-m", f"benchmarks.{name}", "--quick", *options],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=None if env is None else {**os.environ, **env},
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc
