"""``benchmarks/bench_replication_interest.py`` runs, on a smaller world, and measures past the
encoder's history by default (the steady state of a server that has run a while)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from benchmarks import bench_replication_interest as bench
from gdvariant.replication import _assembler as assembler


@pytest.fixture
def small_world(monkeypatch: pytest.MonkeyPatch) -> None:
    """300 entities and 8 clients instead of 10,000 and 256: the same code, in a second."""
    monkeypatch.setattr(bench, "ENTITIES", 300)
    monkeypatch.setattr(bench, "CLIENTS", 8)


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    monkeypatch.setattr(sys, "argv", ["bench_replication_interest", *args])
    bench.main()
    return capsys.readouterr().out


@pytest.mark.usefixtures("small_world")
def test_the_default_warmup_fills_every_history(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run(monkeypatch, capsys, "--area", "radius", "--ticks", "2")
    assert f"2 ticks measured after {bench.HISTORY + 2}," in out
    seen = re.search(r"entities seen per client: mean (\d+)", out)
    assert seen and int(seen.group(1)) >= 1  # at least the entity each client follows
    per_tick = re.search(r"bytes per client: (\d+) per tick", out)
    assert per_tick and int(per_tick.group(1)) > 0
    out = run(monkeypatch, capsys, "--area", "cells", "--ticks", "1", "--warmup", "12")
    assert "1 ticks measured after 12," in out and "cells area" in out


def test_fishnet_measures_after_the_same_warmup(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run(monkeypatch, capsys, "--fishnet", "--ticks", "2")
    assert f"2 ticks measured after {bench.HISTORY + 2}," in out
    per_second = re.search(r"(\d+) B/s \((\d\.\d\d) of FishNet's 5.5 KB/s\)", out)
    assert per_second and int(per_second.group(1)) > 0


@pytest.mark.usefixtures("small_world")
@pytest.mark.parametrize("args", [("--area", "radius"), ("--fishnet",)])
def test_the_digest_is_the_same_with_either_assembler(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: tuple[str, ...]
) -> None:
    """``--digest`` names the bytes, not the code that made them: the pure and the compiled
    assembler make the same packets, so the same digest, and another seed another one."""
    if "c" not in assembler.implementations():
        pytest.skip(f"the compiled assembler does not import: {assembler.compiled_error()}")
    common = ("--ticks", "2", "--warmup", "6", "--digest", *args)
    digests = []
    for name, seed in (("python", "13"), ("c", "13"), ("c", "14")):
        with assembler.use(name):
            out = run(monkeypatch, capsys, *common, "--seed", seed)
        found = re.findall(r"packets digest \(\w+\): ([0-9a-f]{16})", out)
        assert len(found) == 1, out
        digests.append(found[0])
    assert digests[0] == digests[1] != digests[2]


@pytest.mark.usefixtures("small_world")
def test_against_runs_two_builds_tick_by_tick_and_checks_their_packets(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--against`` with this tree's own build: both worlds make the same packets at every
    tick, and each part's ticks are all counted; a folder without a build is refused."""
    if "c" not in assembler.implementations():
        pytest.skip(f"the compiled assembler does not import: {assembler.compiled_error()}")
    own = Path(assembler.implementations()["c"].__file__ or "").parent
    with assembler.use("c"):
        out = run(monkeypatch, capsys, "--area", "radius", "--ticks", "4", "--against", str(own))
    assert "packets: the same bytes at every tick" in out
    assert len(re.findall(r"lower in \d of 4$", out, re.MULTILINE)) == 2, out
    with assembler.use("c"), pytest.raises(SystemExit, match="no compiled assembler"):
        run(monkeypatch, capsys, "--ticks", "1", "--against", str(own.parent))
