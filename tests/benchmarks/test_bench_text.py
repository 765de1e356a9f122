"""``benchmarks/bench_text.py`` runs (``--quick``, without Godot) and times every view on
every implementation that is built."""

from __future__ import annotations

import pytest

from benchmarks import bench_text


def test_the_quick_run_prints_a_row_per_payload_and_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert bench_text.main(["--quick", "--no-godot"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| saves_200")]
    assert [row.split(" | ")[2] for row in rows] == [view for view, _ in bench_text.VIEWS]


def test_the_save_payload_is_the_same_every_time() -> None:
    assert bench_text.saves(50) == bench_text.saves(50)
    assert len(bench_text.saves(50)) == 50
