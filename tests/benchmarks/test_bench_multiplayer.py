"""benchmarks/bench_multiplayer.py kept from rotting (run as a module from the repository root,
as its README says): its ``--quick`` run must end cleanly
(every client got its entities, syncs with the right values and its pongs) against our
server, and against a headless Godot 4.6 server with a Godot client when the engines are
there. Timings are printed, never checked (speed belongs to the benchmark)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks import bench_multiplayer
from tests.support.engines import Engine
from tests.support.paths import ROOT


def test_the_benchmark_entity_scene_is_current() -> None:
    """The Godot side's synchronizer config is the one BenchEntity gives."""
    committed = (bench_multiplayer.PROJECT / "bench_entity.tscn").read_text()
    assert committed == bench_multiplayer.entity_tscn()


def quick(*options: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_multiplayer", "--quick", *options],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PROBLEM" not in proc.stdout
    return proc.stdout


@pytest.mark.slow
def test_the_quick_run_against_our_server() -> None:
    out = quick("--no-godot")
    header = next(line for line in out.splitlines() if "gdvariant" in line and ":" not in line)
    assert header.split() == ["gdvariant"]
    assert "sync values/s received" in out and "RPC round trip p99 (ms)" in out


@pytest.mark.slow
@pytest.mark.engine
def test_the_quick_run_against_both_servers_with_a_godot_client(godot4: Engine) -> None:
    out = quick()
    final = out.rsplit("run 1:\n", 1)[1]  # the table of both servers side by side
    assert final.splitlines()[0].split() == ["gdvariant", "godot"]
    # one Godot client per server, each holding its 5 entities with no wrong value
    assert final.count("Godot client 0: 5 entities") == 2, out
    assert final.count(" 0 bad,") == 2, out
