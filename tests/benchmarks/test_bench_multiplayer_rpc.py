"""benchmarks/bench_multiplayer_rpc.py kept from rotting: its ``--quick`` run times both
cases and each answers every ping with one message, the pong in its form (the cache id once
the path is confirmed, the path before). Timings are printed, never checked."""

from __future__ import annotations

from tests.support.bench_runs import quick_run


def test_the_quick_run_times_both_cases_and_answers_each_ping() -> None:
    proc = quick_run("bench_multiplayer_rpc")
    rows = [line.split() for line in proc.stdout.splitlines() if not line.startswith("#")]
    assert [row[0] for row in rows] == ["confirmed", "unconfirmed"]
    assert all(row[2:5] == ["us", "per", "RPC"] and float(row[1]) > 0 for row in rows)
    assert [row[5] for row in rows] == ["1.00", "1.00"]  # one pong per ping
    # the pong by cache id is shorter than the one that carries the node's path
    assert float(rows[0][7]) < float(rows[1][7])
    print(proc.stdout)
