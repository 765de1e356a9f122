"""benchmarks/bench_multiplayer_sync.py kept from rotting: its ``--quick`` run times every
network frame that imports on the bench's scene (caches evicted between ticks, as live), and
each sends the same messages and bytes.
Timings are printed, never checked."""

from __future__ import annotations

from gdvariant.multiplayer import _frame
from tests.support.bench_runs import quick_run


def test_the_quick_run_times_every_frame_with_the_same_traffic() -> None:
    proc = quick_run("bench_multiplayer_sync", "--evict", "1")
    rows = [line for line in proc.stdout.splitlines() if not line.startswith("#")]
    assert [row.split()[4] for row in rows] == list(_frame.implementations())
    traffic = {row.split("ms")[-1] for row in rows}
    assert len(traffic) == 1 and " 5.0 messages" in traffic.pop()  # one SYNC per client a tick
    print(proc.stdout)
