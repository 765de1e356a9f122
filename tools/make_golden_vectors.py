"""Regenerate golden vectors from a real Godot engine: ``tests/vectors/godot<ENGINE>/golden.jsonl``.

Runs the engine's oracle script (``tests/live/codec/godot4_oracle.gd`` for 4.6,
``tests/live/codec/godot3_oracle.gd`` for 3.6 and 3.2) in ``generate SEED COUNT OUT`` mode on
the real engine (see ``tests/support/engines.py``; install it with ``sudo bash
tools/setup-engines.sh``). The first line of the output names the engine version; each further
line is one value with its encodings without and with full objects (``var_to_bytes`` /
``var_to_bytes_with_objects``, or ``var2bytes(v)`` / ``var2bytes(v, true)`` in Godot 3), its
text form (``var_to_str`` / ``var2str``) and an exact description.

Godot 3 leaves NodePath padding bytes uninitialised, so those bytes may differ between runs.

Usage: python -m tools.make_golden_vectors [--engine {4.6,3.6,3.2}] [--seed N] [--count N]
       [--out PATH]   (from the repository root)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from tests.support.engines import ORACLES, find_engine
from tests.support.paths import VECTORS

SCRIPTS = {"4.6": "godot4_oracle.gd", "3.6": "godot3_oracle.gd", "3.2": "godot3_oracle.gd"}
DEFAULT_ENGINE = "4.6"
DEFAULT_SEED = 20261121
DEFAULT_COUNT = 1000


def default_out(engine: str) -> Path:
    return VECTORS / f"godot{engine}" / "golden.jsonl"


def log(message: str) -> None:
    print(f"[make_golden_vectors] {message}", file=sys.stderr, flush=True)


def _text_may_be_empty(entry: dict[str, object], engine: str) -> bool:
    # Godot 3's var2str writes nothing at all for an RID.
    return engine.startswith("3") and entry.get("value") == ["RID", "0"]


def check(path: Path, count: int, engine: str = DEFAULT_ENGINE) -> int:
    """Parse the file; return the number of value lines, raise ValueError if it is unusable."""
    lines = path.read_text(encoding="utf-8").split("\n")
    lines = [line for line in lines if line]
    if not lines:
        raise ValueError(f"{path} is empty")
    header = json.loads(lines[0])
    values = [json.loads(line, strict=False) for line in lines[1:]]
    if not str(header.get("engine", "")).startswith(engine):
        raise ValueError(f"header names engine {header.get('engine')!r}, wanted {engine}")
    if header.get("count") != len(values):
        raise ValueError(f"header says {header.get('count')} values, found {len(values)}")
    if len(values) < count:
        raise ValueError(f"only {len(values)} values, wanted at least {count}")
    for entry in values:
        for key in ("text", "bytes", "bytes_objects"):
            if not entry.get(key) and not (key == "text" and _text_may_be_empty(entry, engine)):
                where = f"value {entry.get('i')} ({entry.get('name')})"
                raise ValueError(f"{where} has an empty {key!r}")
    return len(values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--engine", choices=sorted(SCRIPTS), default=DEFAULT_ENGINE)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT)
    parser.add_argument(
        "--out", type=Path, default=None, help="default: tests/vectors/godot<ENGINE>/golden.jsonl"
    )
    args = parser.parse_args(argv)
    name: str = args.engine
    script = SCRIPTS[name]

    engine, why = find_engine(name)
    if engine is None:
        log(f"cannot run Godot {name}: {why}")
        return 1
    log(f"engine: {engine.version()}")
    out: Path = args.out if args.out is not None else default_out(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    with engine.workdir() as wd:
        shutil.copy(ORACLES / script, wd[0] / script)
        log(f"generating {args.count} values with seed {args.seed} ({script})")
        gen_args = ["generate", str(args.seed), str(args.count), f"{wd[1]}/out.jsonl"]
        started = time.monotonic()
        engine.run(script, gen_args, cwd=wd)
        log(f"the engine took {time.monotonic() - started:.1f} s")
        produced = wd[0] / "out.jsonl"
        if not produced.exists():
            log("the engine wrote no output")
            return 1
        try:
            n = check(produced, args.count, name)
        except ValueError as exc:
            log(f"bad output: {exc}")
            return 1
        shutil.copyfile(produced, out)
    log(f"wrote {n} values, {out.stat().st_size} bytes, to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
