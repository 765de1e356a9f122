"""The command line on big saves: ``edit`` and ``inspect``, wall time and peak memory.

Run on demand (not a test):

    .venv/bin/python -m benchmarks.bench_cli                      # edit 20k/100k, inspect 7.8 MB
    .venv/bin/python -m benchmarks.bench_cli --edit 20000 --inspect-mb 2 --timeout 120

Every save holds game-entity dictionaries (``payloads.entities``, about 280 bytes a record).
Each command runs in its own child process (``gdvariant._cli.main``), with standard output
to a file in the temporary folder; its peak memory is that child's own peak RSS (``VmHWM``,
which starts at its exec: ``wait4``'s figure would include the parent it was forked from).
``edit`` runs with a non-interactive editor that changes one record, so the whole edited text
is parsed and the file written back. A run over ``--timeout`` seconds is stopped and reported
as such. The machine's load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gdvariant as gd
from benchmarks.payloads import entities


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} CPUs)"


#: Runs the command line in the child, then writes the child's own peak RSS (VmHWM: its
#: memory since exec, not the parent's image it was forked from) to the file named first.
_CHILD = """
import sys
from pathlib import Path
from gdvariant._cli import main
try:
    status = main(sys.argv[2:])
finally:
    lines = Path("/proc/self/status").read_text().splitlines()
    Path(sys.argv[1]).write_text(next(l for l in lines if l.startswith("VmHWM:")).split()[1])
sys.exit(status)
"""


def run(argv: list[str], out: Path, timeout: float) -> tuple[float | None, float, int]:
    """(seconds or None if stopped at ``timeout``, peak MiB, exit status) of one command;
    its standard output and error go to ``out`` and ``out.err``."""
    peak = out.with_suffix(".peak")
    peak.unlink(missing_ok=True)
    with out.open("wb") as sink, out.with_suffix(".err").open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(peak), *argv], stdout=sink, stderr=err
        )
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None, 0.0, proc.returncode
        seconds = time.perf_counter() - start
    return seconds, int(peak.read_text()) / 1024, proc.returncode


def edit(tmp: Path, count: int, timeout: float) -> None:
    save = tmp / f"edit_{count}.sav"
    gd.write_save(save, entities(count))
    editor = f"sed -i {shlex.quote('s/entity_00001/entity_00001x/')}"
    figures = run(["edit", str(save), "--editor", editor], tmp / "out", timeout)
    print(
        f"| edit, {count:,} records ({save.stat().st_size / 1e6:.1f} MB) {_row(figures, timeout)}"
    )


def inspect(tmp: Path, megabytes: float, timeout: float) -> None:
    save = tmp / "inspect.sav"
    count = int(megabytes * 1e6 / (len(gd.dumps(entities(1)[0])) + 4))
    gd.write_save(save, entities(count))
    figures = run(["inspect", str(save)], tmp / "out", timeout)
    lines = sum(1 for _ in (tmp / "out").open("rb"))
    size = f"{save.stat().st_size / 1e6:.1f} MB, {lines:,} lines"
    print(f"| inspect, {count:,} records ({size}) {_row(figures, timeout)}")


def _row(figures: tuple[float | None, float, int], timeout: float) -> str:
    """The time, peak and exit columns of a table row."""
    seconds, peak, status = figures
    if seconds is None:
        return f"| > {timeout:.0f} s (stopped) | - | - |"
    return f"| {seconds:.2f} s | {peak:.0f} MiB | {status} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--edit",
        type=int,
        nargs="*",
        default=[20_000, 100_000],
        help="record counts of the saves to edit",
    )
    parser.add_argument("--inspect-mb", type=float, default=7.8, help="size of the save inspected")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a run stops")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    print(f"gdvariant {gd.__version__} ({gd.IMPLEMENTATION} core), Python {sys.version.split()[0]}")
    print(f"before: {load()}\n")
    print("| command | time | peak memory | exit |")
    print("|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for count in args.edit:
            edit(tmp, count, args.timeout)
        if args.inspect_mb:
            inspect(tmp, args.inspect_mb, args.timeout)
    print(f"\nafter: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
