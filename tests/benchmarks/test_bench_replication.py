"""``benchmarks/bench_replication.py``'s rewind reads run on a small world and name each cost."""

from __future__ import annotations

import random

import pytest

from benchmarks import bench_replication
from gdvariant.replication import Schema, World


def test_rewind_reads_time_whole_entities_and_one_property(
    capsys: pytest.CaptureFixture[str],
) -> None:
    schema = Schema.build([bench_replication.Soldier])
    paths = [p.path for p in schema.layout(bench_replication.Soldier).props]
    rng = random.Random(2)
    world = World(schema, rewind=8)
    ents = [world.spawn(bench_replication.Soldier) for _ in range(5)]
    for _ in range(10):
        for ent in ents:
            path = rng.choice(paths)
            bench_replication.set_path(ent, path, bench_replication.random_value(path, rng))
        world.commit(32)
    bench_replication.rewind_reads(world, 8)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["world.at(2)", "world.at(2.5)"]
    assert all("all 5 entities" in line and "the origin of all" in line for line in lines)
