"""``benchmarks/bench_replication_writes.py`` runs (``--quick``) and measures every write path."""

from __future__ import annotations

import pytest

from benchmarks import bench_replication_writes
from gdvariant.replication import _write_path


def test_the_quick_run_measures_every_write_path(capsys: pytest.CaptureFixture[str]) -> None:
    bench_replication_writes.main(["--quick"])
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("µs per write"))
    assert header.split()[-len(_write_path.implementations()) :] == list(
        _write_path.implementations()
    )
    assert "ent.position = v" in out and "game tick: 200 position writes" in out
    assert out.startswith("load before: ") and "load after: " in out
