"""benchmarks/bench_multiplayer.py kept from rotting (run as a module from the repository root,
as its README says): its ``--quick`` run must end cleanly over WebSocket and over ENet
(every client got its entities, syncs with the right values and its pongs) against our
server, and against a headless Godot 4.6 server with a Godot client when the engines are
there; and the scale curve's verdict is read from the cells as documented. Timings are
printed, never checked (speed belongs to the benchmark)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import bench_multiplayer
from tests.support.bench_runs import quick_run
from tests.support.engines import Engine


def test_the_benchmark_entity_scene_is_current() -> None:
    """The Godot side's synchronizer config is the one BenchEntity gives."""
    committed = (bench_multiplayer.PROJECT / "bench_entity.tscn").read_text()
    assert committed == bench_multiplayer.entity_tscn()


def quick(*options: str) -> str:
    proc = quick_run("bench_multiplayer", *options)
    assert "PROBLEM" not in proc.stdout
    return proc.stdout


def cell(clients: int, transport: str, **servers: tuple[float, float]) -> dict[str, Any]:
    """A cell of the curve whose servers' median ticks/s and share of a core are given."""
    out: dict[str, Any] = {"clients": clients, "transport": transport, "servers": {}}
    for name, (hz, share) in servers.items():
        summary = {
            "tick_hz": {"median": hz, "min": hz, "max": hz},
            "cpu_share": {"median": share, "min": share, "max": share},
        }
        out["servers"][name] = {"summary": summary, "runs": [{"problems": []}]}
    return out


def test_the_largest_count_held_needs_30_hz_under_a_core_at_every_smaller_count() -> None:
    cells = [
        cell(50, "enet", ours=(30.0, 0.3), godot=(30.0, 0.2)),
        cell(100, "enet", ours=(29.6, 0.6), godot=(29.4, 0.4)),  # godot: too slow
        cell(200, "enet", ours=(30.0, 1.02), godot=(30.0, 0.8)),  # ours: over a core
        cell(400, "enet", ours=(30.0, 0.9), godot=(30.0, 0.9)),  # after a failure: no
        cell(50, "websocket", ours=(20.0, 0.99), godot=(30.0, 0.1)),
    ]
    cells[2]["servers"]["godot"]["runs"][0]["problems"] = ["1 wrong values"]
    assert bench_multiplayer.holds(cells) == {
        "enet": {"ours": 100, "godot": 50},
        "websocket": {"ours": 0, "godot": 50},
    }


def test_a_failed_run_is_a_problem_of_its_cell_whose_medians_come_from_the_others() -> None:
    """A run whose clients could not join (400 joining Godot's server on a loaded machine)
    is kept as a problem of its cell, not the end of the curve: the cell's medians are the
    other runs', and the server does not hold that count."""
    good: dict[str, Any] = {key: 1.0 for _, key, _ in bench_multiplayer.ROWS} | {"problems": []}
    runs = [
        good | {"tick_hz": 30.0, "cpu_share": 0.5},
        bench_multiplayer.failed_run("ours", "websocket", "the client process failed (1)"),
        good | {"tick_hz": 29.8, "cpu_share": 0.4},
    ]
    summary = bench_multiplayer.summarize(runs)
    assert summary["tick_hz"] == {"median": 29.9, "min": 29.8, "max": 30.0}
    assert runs[1]["problems"] == ["the client process failed (1)"]
    shown = bench_multiplayer.table([runs[1]])
    assert "PROBLEM: the client process failed (1)" in shown
    failed: dict[str, Any] = {"clients": 400, "transport": "websocket", "servers": {}}
    failed["servers"]["ours"] = {"summary": summary, "runs": runs}
    assert bench_multiplayer.holds([cell(200, "websocket", ours=(30.0, 0.3)), failed]) == {
        "websocket": {"ours": 200}
    }
    nothing = bench_multiplayer.summarize([runs[1]])
    assert all(figure["median"] != figure["median"] for figure in nothing.values())  # NaN


@pytest.mark.parametrize(
    ("time", "last", "newer"),
    [
        (5, 4, True),
        (4, 4, False),
        (3, 4, False),
        (0, 65535, True),
        (65535, 0, False),
        (40000, 10, False),
    ],
)
def test_a_sync_is_newer_by_wrapping_u16_time(time: int, last: int, newer: bool) -> None:
    assert bench_multiplayer.newer(time, last) is newer


def test_the_scale_is_a_list_of_client_counts() -> None:
    args = bench_multiplayer.parse(["--scale", "50,100,200,400", "--transport", "both"])
    assert args.counts == [50, 100, 200, 400] and args.transport == "both"
    assert bench_multiplayer.parse(["--clients", "7"]).counts == [7]
    python = sys.executable
    assert bench_multiplayer.parse(["--compare", f"old={python}"]).compare == {
        "gdvariant-old": python
    }
    assert bench_multiplayer.parse(["--gc-threshold", "20000"]).gc_threshold == 20000
    # our server on each event loop: one server per loop in every cell
    assert bench_multiplayer.parse([]).loops == {"gdvariant": "asyncio"}
    assert bench_multiplayer.parse(["--loop", "both"]).loops == {
        "gdvariant": "asyncio",
        "gdvariant-uvloop": "uvloop",
    }
    assert bench_multiplayer.parse(["--loop", "uvloop"]).loops == {"gdvariant-uvloop": "uvloop"}
    bad_options = (
        ["--scale", "50,lots"],
        ["--scale", "0"],
        ["--repeat", "0"],
        ["--compare", "old"],
        ["--compare", f"old={bench_multiplayer.PROJECT}"],  # a folder, no interpreter
        ["--gc-threshold", "-1"],
        ["--serve", "port", "--loop", "both"],  # a server runs on one loop
    )
    for bad in bad_options:
        with pytest.raises(SystemExit):
            bench_multiplayer.parse(bad)


def test_our_server_sets_the_collector_threshold_it_is_given(tmp_path: Path) -> None:
    async def main() -> int:
        port_file = tmp_path / "port"
        task = asyncio.create_task(
            bench_multiplayer.serve(port_file, 1, "websocket", 4, False, 12345)
        )
        while not port_file.exists():
            await asyncio.sleep(0.01)
        threshold = gc.get_threshold()[0]
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return threshold

    saved = gc.get_threshold()
    try:
        assert asyncio.run(asyncio.wait_for(main(), 30)) == 12345
    finally:
        gc.set_threshold(*saved)


@pytest.mark.slow
def test_the_quick_run_against_our_server() -> None:
    out = quick("--no-godot", "--transport", "both", "--profile", "--loop", "both")
    for transport in ("websocket", "enet"):  # both servers in each run's table
        batch = out.split(f"run 1, 4 clients, {transport}:\n", 1)[1]
        assert batch.splitlines()[0].split() == ["gdvariant", "gdvariant-uvloop"]
    assert "sync values/s received" in out and "RPC round trip p99 (ms)" in out
    # a cell per transport, each with its median line, and the verdict of both
    assert "4 clients, websocket, 1 runs each" in out and "4 clients, enet, 1 runs each" in out
    # whether 4 clients were held at 30 Hz in 1.5 s depends on the machine's load (the rule
    # itself is tested above, on given cells): only that each transport has its verdict
    for transport in ("websocket", "enet"):
        for server in ("gdvariant", "gdvariant-uvloop"):
            verdict = rf"^  {transport} +{server} +[04]$"
            assert re.search(verdict, out, re.MULTILINE), (transport, server)
    # --profile: each server's own mp.stats() CPU split in the table of each of its runs
    for transport in ("websocket", "enet"):
        for server in ("gdvariant", "gdvariant-uvloop"):
            run = out.split(f"run 1, {server}, {transport}:\n", 1)[1].split("\nrun ", 1)[0]
            profiles = [line for line in run.splitlines() if "its mp.stats()" in line]
            assert len(profiles) == 1 and " = game " in profiles[0], (transport, server)


@pytest.mark.slow
@pytest.mark.engine
def test_the_quick_run_against_both_servers_with_a_godot_client(godot4: Engine) -> None:
    out = quick("--transport", "both", "--loop", "both")
    build = "release" if "Godot server: release" in out else "editor"
    for transport in ("websocket", "enet"):
        final = out.split(f"run 1, 4 clients, {transport}:\n", 1)[1].split("\n4 clients")[0]
        servers = ["gdvariant", "gdvariant-uvloop", f"godot-{build}"]
        assert final.splitlines()[0].split() == servers
        # one Godot client per server (ours on each event loop too), each holding its 5
        # entities with no wrong value
        assert final.count("Godot client 0: 5 entities") == 3, out
        assert final.count(" 0 bad,") == 3, out
