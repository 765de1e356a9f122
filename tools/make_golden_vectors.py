"""Regenerate the Godot 4.6 golden vectors: ``tests/vectors/godot4.6/golden.jsonl``.

Runs ``tests/engine/godot4_oracle.gd generate SEED COUNT OUT`` on the real engine (see
``tests/engines.py``; install it with ``sudo bash tools/setup-engines.sh``). The first line of the
output names the engine version; each further line is one value with its ``var_to_bytes`` and
``var_to_bytes_with_objects`` bytes, its ``var_to_str`` text and an exact description.

Usage: python tools/make_golden_vectors.py [--seed N] [--count N] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from engines import ENGINE_SCRIPTS, find_engine  # noqa: E402

SCRIPT = "godot4_oracle.gd"
DEFAULT_SEED = 20261121
DEFAULT_COUNT = 1000
DEFAULT_OUT = ROOT / "tests/vectors/godot4.6/golden.jsonl"


def log(message: str) -> None:
    print(f"[make_golden_vectors] {message}", file=sys.stderr, flush=True)


def check(path: Path, count: int) -> int:
    """Parse the file; return the number of value lines, raise ValueError if it is unusable."""
    lines = path.read_text(encoding="utf-8").split("\n")
    lines = [line for line in lines if line]
    if not lines:
        raise ValueError(f"{path} is empty")
    header = json.loads(lines[0])
    values = [json.loads(line) for line in lines[1:]]
    if header.get("count") != len(values):
        raise ValueError(f"header says {header.get('count')} values, found {len(values)}")
    if len(values) < count:
        raise ValueError(f"only {len(values)} values, wanted at least {count}")
    for entry in values:
        for key in ("text", "bytes", "bytes_objects"):
            if not entry.get(key):
                where = f"value {entry.get('i')} ({entry.get('name')})"
                raise ValueError(f"{where} has an empty {key!r}")
    return len(values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    engine, why = find_engine("4.6")
    if engine is None:
        log(f"cannot run Godot 4.6: {why}")
        return 1
    log(f"engine: {engine.version()}")
    out: Path = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    with engine.workdir() as wd:
        shutil.copy(ENGINE_SCRIPTS / SCRIPT, wd[0] / SCRIPT)
        log(f"generating {args.count} values with seed {args.seed}")
        gen_args = ["generate", str(args.seed), str(args.count), f"{wd[1]}/out.jsonl"]
        engine.run(SCRIPT, gen_args, cwd=wd)
        produced = wd[0] / "out.jsonl"
        if not produced.exists():
            log("the engine wrote no output")
            return 1
        try:
            n = check(produced, args.count)
        except ValueError as exc:
            log(f"bad output: {exc}")
            return 1
        shutil.copyfile(produced, out)
    log(f"wrote {n} values, {out.stat().st_size} bytes, to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
