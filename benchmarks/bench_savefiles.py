"""Read and write a large save file in every container mode: MB/s and peak memory.

Run on demand (not a test):

    .venv/bin/python -m benchmarks.bench_savefiles               # 50 MB, every mode
    .venv/bin/python -m benchmarks.bench_savefiles --mb 5 --modes plain deflate

The save is ``--mb`` MB of ``store_var`` records (game-state chunks of about 2.8 KB: entity
dictionaries, vectors, strings, packed arrays). Each mode is written with ``gd.write_save``
and read back with ``gd.iter_save`` in a fresh child process, so the peak memory reported is
the process's peak RSS (``VmHWM``) above its RSS when the operation began, not what earlier runs
left behind. MB/s counts the plaintext record bytes. Baselines in the same run: reading the
plain file's bytes without decoding (``raw read``), and ``gd.dumps``/``gd.loads`` of the same
records in memory without any file (``codec only``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gdvariant as gd
from benchmarks.payloads import entities

KEY = bytes(range(32))
IV = bytes(16)
#: Short name -> (label, write_save options); reading needs only the key or password.
MODES: dict[str, tuple[str, dict[str, Any]]] = {
    "plain": ("plain", {}),
    "plain-be": ("plain, big-endian", {"big_endian": True}),
    "gdec4-key": ("GDEC Godot 4 (AES-CFB), key", {"key": KEY, "iv": IV}),
    "gdec4-password": ("GDEC Godot 4 (AES-CFB), password", {"password": "pässwörd", "iv": IV}),
    "gdec3-key": ("GDEC Godot 3 (AES-ECB), key", {"key": KEY, "version": "3"}),
    "fastlz": ("GCPF FastLZ", {"compression": gd.Compression.FASTLZ}),
    "deflate": ("GCPF Deflate", {"compression": gd.Compression.DEFLATE}),
    "zstd": ("GCPF Zstd", {"compression": gd.Compression.ZSTD}),
    "gzip": ("GCPF GZip", {"compression": gd.Compression.GZIP}),
}
POOL = 64  # distinct records, cycled: values stay small while the file grows


def chunks() -> list[dict[str, Any]]:
    """Distinct save records of about 2.8 KB each."""
    rows = entities(POOL * 10)
    return [
        {
            "chunk": i,
            "entities": rows[i * 10 : (i + 1) * 10],
            "heights": gd.PackedFloat32Array(float((i * 7 + j) % 31) for j in range(64)),
            "note": f"zone {i} — ok",
        }
        for i in range(POOL)
    ]


def values(total: int) -> Iterator[Any]:
    """Records until ``total`` plaintext bytes, generated lazily."""
    pool = chunks()
    sizes = [len(gd.dumps(v)) + 4 for v in pool]
    written = i = 0
    while written < total:
        yield pool[i % POOL]
        written += sizes[i % POOL]
        i += 1


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1])
    raise SystemExit(f"no {field} in /proc/self/status (this benchmark needs Linux)")


def rss_kib() -> int:
    """The process's resident memory now, the floor a peak is measured from."""
    return _status_kib("VmRSS:")


def peak_kib() -> int:
    """The process's peak resident memory so far."""
    return _status_kib("VmHWM:")


def child(op: str, mode: str, path: str, total: int) -> dict[str, Any]:
    """One measured operation in this (fresh) process."""
    options = MODES[mode][1] if mode in MODES else {}
    secret = {k: v for k, v in options.items() if k in ("key", "password")}
    version = options.get("version", "4")
    big = options.get("big_endian", False)
    warm = f"{path}.warm"  # load the mode's libraries before measuring
    gd.write_save(warm, [1], **options)
    gd.read_save(warm, version=version, big_endian=big, **secret)
    os.unlink(warm)
    if op == "write":
        gen = values(total)
        before = rss_kib()
        start = time.perf_counter()
        count = gd.write_save(path, gen, **options)
    elif op == "read":
        before = rss_kib()
        start = time.perf_counter()
        count = sum(1 for _ in gd.iter_save(path, version=version, big_endian=big, **secret))
    elif op == "raw":
        before = rss_kib()
        start = time.perf_counter()
        count = 0
        with open(path, "rb") as fp:
            while fp.read(1 << 20):
                pass
    elif op == "codec":
        blobs = [gd.dumps(v) for v in chunks()]
        n = -(-total // sum(len(b) + 4 for b in blobs)) * POOL
        before = rss_kib()
        start = time.perf_counter()
        for i in range(n):
            gd.loads(blobs[i % POOL])
        read = time.perf_counter() - start
        pool = chunks()
        start = time.perf_counter()
        for i in range(n):
            gd.dumps(pool[i % POOL])
        return {"read": read, "write": time.perf_counter() - start, "count": n}
    else:
        raise SystemExit(f"unknown op {op}")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "count": count, "peak_kib": peak_kib() - before}


def run_child(op: str, mode: str, path: Path, total: int) -> dict[str, Any]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_savefiles",
            "--child",
            op,
            mode,
            str(path),
            str(total),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="plaintext size in MB (10^6)")
    parser.add_argument(
        "--modes", nargs="+", choices=list(MODES), help="modes to run (default: all)"
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        op, mode, path, total = args.child
        print(json.dumps(child(op, mode, path, int(total))))
        return 0

    total = int(args.mb * 1e6)
    modes = args.modes or list(MODES)
    print(f"gdvariant {gd.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print(f"save: {total / 1e6:.0f} MB of store_var records (~2.8 KB each)\n", flush=True)
    print("| mode | file MB | write MB/s | write peak MiB | read MB/s | read peak MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        plain_size = None
        for mode in modes:
            path = Path(tmp) / "save.dat"
            label = MODES[mode][0]
            print(f"  {label}: writing...", end="", file=sys.stderr, flush=True)
            w = run_child("write", mode, path, total)
            size = path.stat().st_size
            if plain_size is None and mode == "plain":
                plain_size = size
            print(" reading...", file=sys.stderr, flush=True)
            r = run_child("read", mode, path, total)
            if r["count"] != w["count"]:
                raise SystemExit(f"{label}: wrote {w['count']} records, read {r['count']}")
            plain = plain_size or total
            print(
                f"| {label} | {size / 1e6:.1f} | {plain / w['seconds'] / 1e6:.1f} "
                f"| {w['peak_kib'] / 1024:.1f} | {plain / r['seconds'] / 1e6:.1f} "
                f"| {r['peak_kib'] / 1024:.1f} |",
                flush=True,
            )
            if mode == "plain":
                raw = run_child("raw", mode, path, total)
                print(
                    f"| baseline: raw read of the plain file | {size / 1e6:.1f} | - | - "
                    f"| {size / raw['seconds'] / 1e6:.0f} | {raw['peak_kib'] / 1024:.1f} |"
                )
            path.unlink()
    codec = run_child("codec", "-", Path(tmp), total)
    rate = codec["count"] / POOL * sum(len(gd.dumps(v)) + 4 for v in chunks())
    print(
        f"| baseline: codec only (dumps/loads in memory, no file) | - "
        f"| {rate / codec['write'] / 1e6:.1f} | - | {rate / codec['read'] / 1e6:.1f} | - |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
