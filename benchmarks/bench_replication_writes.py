"""What a NetClass property write costs, on each write path: the pure-Python ``__setattr__``
and the compiled one (``gdvariant.replication._cwrite``), against a plain ``__slots__`` write.

The writes are those of ``bench_multiplayer``'s game tick: ``entity.position = Vector2(...)``
on a ``Vec2(Float32())`` property and ``entity.hp = n`` on an ``Int(32)``, plus a Float32, a
Quant, a tuple written to a ``Vec2(Coord())`` (the interest benchmark's positions), a read, and
the codec's own encode. Then the game phase of that benchmark's tick at 100 clients x 20
entities: 2,000 position writes of new vectors. Each figure is the median of ``--runs`` runs
(each the median of 7 rounds), with the machine's load. A checkout without the compiled write
path (before it was written) measures its one path, as ``live``.

Run: ``python -m benchmarks.bench_replication_writes [--runs N] [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from benchmarks.timing import median_time
from gdvariant import Vector2
from gdvariant.replication import Coord, Float32, Int, NetClass, Prop, Quant, Schema, Vec2, World

try:
    from gdvariant.replication import _write_path
except ImportError:  # a checkout from before the compiled write path
    _write_path = None  # type: ignore[assignment]


class Entity(NetClass):
    position = Prop(Vec2(Float32()), hot=True)
    hp = Int(32)
    mass = Float32()
    ratio = Quant(0.0, 1.0, 10)
    place = Vec2(Coord(10, 4, clamp=True))


class Slots:
    __slots__ = ("position",)
    position: Any


def paths() -> dict[str, Callable[[], AbstractContextManager[None]]]:
    """The write paths to measure, by name: each makes its path live inside a block."""
    if _write_path is None:
        return {"live": nullcontext}
    found = _write_path.implementations()
    return {name: _live(name) for name in found}


def _live(name: str) -> Callable[[], AbstractContextManager[None]]:
    assert _write_path is not None
    return lambda: _write_path.use(name)


def cases(ent: Any) -> dict[str, Callable[[], Any]]:
    """One write (or encode) per case, on ``ent``."""
    v = Vector2(5.0, 3.0)
    codec = Vec2(Float32())
    plain = Slots()

    def position() -> None:
        ent.position = v

    def hp() -> None:
        ent.hp = 7

    def mass() -> None:
        ent.mass = 1.5

    def ratio() -> None:
        ent.ratio = 0.25

    def place() -> None:
        ent.place = (12.5, -3.25)

    def read() -> Any:
        return ent.position

    def slot() -> None:
        plain.position = v

    return {
        "ent.position = v": position,
        "ent.hp = 7": hp,
        "ent.mass = 1.5 (Float32)": mass,
        "ent.ratio = 0.25 (Quant)": ratio,
        "ent.place = (x, y) (Vec2(Coord))": place,
        "v = ent.position (a read)": read,
        "Vec2(Float32()).encode(v)": lambda: codec.encode(v),
        "plain __slots__ write": slot,
    }


def game_tick(world: World, count: int) -> Callable[[], None]:
    """bench_multiplayer's game phase: every entity's position set to a new vector."""
    ents = [world.spawn(Entity) for _ in range(count)]
    tick = [0]

    def run() -> None:
        tick[0] += 1
        t = tick[0]
        for i, ent in enumerate(ents):
            ent.position = Vector2(t, i)

    return run


def measure(runs: int, budget: float, entities: int) -> dict[str, dict[str, float]]:
    """``{case: {path: median µs}}`` (the game tick in ms)."""
    out: dict[str, dict[str, list[float]]] = {}
    for _ in range(runs):
        for name, live in paths().items():
            with live():
                world = World(Schema.build([Entity]))
                for case, fn in cases(world.spawn(Entity)).items():
                    out.setdefault(case, {}).setdefault(name, []).append(
                        median_time(fn, budget) * 1e6
                    )
                tick = game_tick(world, entities)
                label = f"game tick: {entities:,} position writes (ms)"
                out.setdefault(label, {}).setdefault(name, []).append(
                    median_time(tick, budget * 4) * 1e3
                )
    return {case: {k: statistics.median(v) for k, v in by.items()} for case, by in out.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs to take the median of")
    parser.add_argument("--quick", action="store_true", help="one short run (a smoke test)")
    args = parser.parse_args(argv)
    runs, budget = (1, 0.02) if args.quick else (args.runs, 0.4)
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    figures = measure(runs, budget, 200 if args.quick else 2000)
    names = list(next(iter(figures.values())))
    head = f"µs per write (median of {runs} runs)"
    print(f"{head:48}" + "".join(f"{n:>10}" for n in names))
    for case, by in figures.items():
        print(f"{case:48}" + "".join(f"{by[n]:>10.3f}" for n in names))
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    main()
