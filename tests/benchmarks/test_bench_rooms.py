"""benchmarks/bench_rooms.py kept from rotting: its ``--quick`` run (two room processes and
one alone, behind two matchmakers, on a Redis of its own) seats every client, and they all
get the syncs their rooms' ticks promise. Figures are printed, never checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.bench_runs import quick_run
from tests.support.redis_server import find_redis, redis_required


@pytest.mark.slow  # a Redis and five processes
def test_the_quick_run_seats_and_syncs_every_client(tmp_path: Path) -> None:
    program, why = find_redis()
    if program is None:
        if redis_required():
            pytest.fail(why)
        pytest.skip(why)
    pytest.importorskip("gdvariant.rooms.redis", reason="the rooms extra is missing")
    figures = tmp_path / "figures.json"
    # redis-server's folder goes in TMPDIR
    proc = quick_run("bench_rooms", "--json", str(figures), env={"TMPDIR": str(tmp_path)})
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("# load average before") and lines[-1].startswith("# load")
    runs = [line for line in lines if "joins/s" in line]
    assert [line.split()[0] for line in runs] == ["2", "1"]
    assert all(", 24 clients:" in line for line in runs)
    assert figures.exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "figures.json"]
    assert leftovers == []  # redis-server's folder removed
    print(proc.stdout)
