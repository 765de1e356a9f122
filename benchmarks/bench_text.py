"""Time the text and JSON views, on each text core, against Godot 4.6's own in the same run.

Run on demand (not a test):  .venv/bin/python -m benchmarks.bench_text [--no-godot]
gdvariant is timed through the public ``gd.to_text``/``gd.from_text`` and ``gd.to_json``/
``gd.from_json`` (tagged, and ``dialect="godot"``) on each implementation that is built: ``c``
(the compiled text and JSON writers and readers) and ``python`` (the pure
ones, which are also the code before them). Godot times ``var_to_str``/``str_to_var`` and
``JSON.stringify(JSON.from_native(v))``/``JSON.to_native(JSON.parse_string(t))`` inside the
engine (``benchmarks/text/bench_text.gd``) on the same values, handed over as ``var_to_bytes``
data. Payloads: the text issue's save (20,000 small Dictionaries) and the codec benchmark's.
Every time is a median of ``--repeats`` rounds; the load is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gdvariant as gd
from benchmarks.payloads import PAYLOADS
from benchmarks.timing import median_time
from gdvariant._json import core as json_core
from gdvariant._text import core as text_core
from tests.support.engines import find_engine

SCRIPT = Path(__file__).parent / "text" / "bench_text.gd"
#: (column, the call timed on a value and its texts)
VIEWS: list[tuple[str, Callable[[Any, dict[str, str]], Any]]] = [
    ("to_text", lambda v, t: gd.to_text(v)),
    ("from_text", lambda v, t: gd.from_text(t["text"])),
    ("to_json", lambda v, t: gd.to_json(v)),
    ("from_json", lambda v, t: gd.from_json(t["json"])),
    ("to_json godot", lambda v, t: gd.to_json(v, dialect="godot")),
    ("from_json godot", lambda v, t: gd.from_json(t["godot"], dialect="godot")),
]
#: Godot's figure for each column (the engine has one JSON form: its own dialect)
GODOT_COLUMN = {
    "to_text": "to_text_us",
    "from_text": "from_text_us",
    "to_json godot": "to_json_us",
    "from_json godot": "from_json_us",
}


def saves(count: int = 20_000) -> list[dict[str, Any]]:
    """The text issue's payload: a save of ``count`` small Dictionaries (about 2.4 MB of
    ``var_to_str`` text and 3.1 MB of bytes at 20,000)."""
    rng = random.Random(27)
    return [
        {
            "id": i,
            "name": f"player_{i:05d}",
            "hp": rng.randrange(100),
            "score": round(rng.uniform(0, 1e4), 2),
            "alive": rng.random() < 0.9,
            "pos": gd.Vector2(rng.uniform(-1e3, 1e3), rng.uniform(-1e3, 1e3)),
        }
        for i in range(count)
    ]


def payloads(quick: bool) -> dict[str, Any]:
    if quick:
        return {"saves_200": saves(200), "small_message": PAYLOADS["small_message"]()}
    return {"saves_20000": saves(), **{name: make() for name, make in PAYLOADS.items()}}


def godot_times(values: dict[str, Any], rounds: int) -> dict[str, dict[str, Any]]:
    engine, why = find_engine("4.6")
    if engine is None:
        print(f"(no Godot timings: {why})", file=sys.stderr)
        return {}
    with engine.workdir() as (here, inside):
        shutil.copy(SCRIPT, here)
        (here / "payloads").mkdir()
        for name, value in values.items():
            (here / "payloads" / f"{name}.bin").write_bytes(gd.dumps(value))
        print(f"timing Godot {engine.version()} ({rounds} rounds each)...", file=sys.stderr)
        engine.run(
            SCRIPT.name,
            [f"{inside}/payloads", str(rounds), f"{inside}/bench.jsonl"],
            cwd=(here, inside),
        )
        lines = (here / "bench.jsonl").read_text().splitlines()
    return {row["name"]: row for row in map(json.loads, lines)}


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e3:,.3f}" if seconds >= 1e-3 else f"{seconds * 1e3:.5f}"


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-godot", action="store_true", help="time gdvariant only")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="rounds per measurement")
    parser.add_argument("--quick", action="store_true", help="small payloads, short rounds")
    args = parser.parse_args(argv)
    if args.quick:
        args.budget, args.repeats = 0.05, 3

    values = payloads(args.quick)
    print(f"load before: {_load()}", file=sys.stderr)
    cores = [c for c in text_core.implementations() if c in json_core.implementations()]
    times: dict[tuple[str, str, str], float] = {}
    sizes: dict[str, int] = {}
    for name, value in values.items():
        texts = {
            "text": gd.to_text(value),
            "json": gd.to_json(value),
            "godot": gd.to_json(value, dialect="godot"),
        }
        sizes[name] = len(texts["text"].encode("utf-8", "surrogatepass"))
        for core in cores:
            with text_core.use(core), json_core.use(core):
                assert gd.to_text(value) == texts["text"], f"{core} core: other text"
                print(f"timing the {core} implementation on {name}...", file=sys.stderr)
                for column, call in VIEWS:
                    fn = partial(call, value, texts)
                    times[name, core, column] = median_time(fn, args.budget, args.repeats)

    godot = {} if args.no_godot else godot_times(values, args.repeats)
    print(
        f"\ngdvariant {gd.__version__}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs; medians in milliseconds; Godot 4.6 timed in the engine, "
        "same run; JSON = tagged, JSON godot = dialect='godot' (Godot: JSON.from_native)"
    )
    print(f"load after: {_load()}")
    print("| payload | text bytes | view | ours " + " | ours ".join(cores) + " | Godot 4.6 |")
    print("|---|---:|---|" + "---:|" * (len(cores) + 1))
    for name in values:
        for column, _ in VIEWS:
            ours = " | ".join(_ms(times.get((name, core, column))) for core in cores)
            key = GODOT_COLUMN.get(column)
            engine = godot.get(name, {}).get(key) if key else None
            shown = _ms(None if engine is None else engine / 1e6)
            print(f"| {name} | {sizes[name]:,} | {column} | {ours} | {shown} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
