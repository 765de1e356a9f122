"""Save files against the real engine, both ways: Godot writes every container mode and we
read the exact records (and rebuild the exact container bytes where they are deterministic);
we write the same set and Godot reads them back to the same values."""

from __future__ import annotations

import io
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from engines import ENGINE_SCRIPTS, Engine

import gdvariant as gd
from gdvariant._containers import write_gcpf

pytestmark = pytest.mark.engine

KEY = bytes(range(32))
IV = bytes(range(0xA0, 0xB0))
C = gd.Compression
#: How the oracle opens each mode, as our options (tests/engine/godot4_oracle.gd, _open_save).
MODES: dict[str, dict[str, Any]] = {
    "plain": {},
    "plain_be": {"big_endian": True},
    "key": {"key": KEY},
    "key_iv": {"key": KEY, "iv": IV},
    "pass": {"password": "secret"},
    "pass_utf8": {"password": "pässwörd"},
    "fastlz": {"compression": C.FASTLZ},
    "deflate": {"compression": C.DEFLATE},
    "zstd": {"compression": C.ZSTD},
    "gzip": {"compression": C.GZIP},
}
CONTENTS = ("values", "empty", "exact")
COUNT = 60  # about 10 KB of records: several GCPF blocks


def _reading(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in ("key", "password", "big_endian")}


def _expected(manifest: list[bytes], content: str) -> list[bytes]:
    if content == "values":
        return manifest
    return [] if content == "empty" else [gd.dumps(bytes(4096 - 12))]


def _rebuilt(data: bytes, plaintext: bytes, options: dict[str, Any]) -> bytes:
    """The container bytes we make for ``plaintext`` with the file's own random parts."""
    if "compression" in options:
        out = io.BytesIO()
        write_gcpf([plaintext], out, compression=options["compression"])
        return out.getvalue()
    if "key" in options or "password" in options:
        secret = {k: options[k] for k in ("key", "password") if k in options}
        return gd.encrypt(plaintext, layout=4, iv=data[28:44], **secret)
    return plaintext


def test_we_read_every_save_file_godot4_writes(godot4: Engine) -> None:
    seed = random.randrange(2**31)
    with godot4.workdir() as (here, inside):
        shutil.copy(ENGINE_SCRIPTS / "godot4_oracle.gd", here)
        godot4.run(
            "godot4_oracle.gd", ["savefiles", inside, str(seed), str(COUNT)], cwd=(here, inside)
        )
        manifest = [bytes.fromhex(x) for x in (here / "manifest.txt").read_text().split()]
        assert len(manifest) == COUNT
        for mode, options in MODES.items():
            for content in CONTENTS:
                path = here / f"{mode}_{content}.sav"
                where = f"{path.name} (seed {seed})"
                values = gd.read_save(path, version="4.6", **_reading(options))
                assert [gd.dumps(v) for v in values] == _expected(manifest, content), where
                with gd.open_save(
                    path, **{k: v for k, v in options.items() if k in ("key", "password")}
                ) as fp:
                    plaintext = fp.read()
                data = path.read_bytes()
                assert _rebuilt(data, plaintext, options) == data, where


def test_godot4_reads_every_save_file_we_write(godot4: Engine) -> None:
    seed = random.randrange(2**31)
    with godot4.workdir() as (here, inside):
        shutil.copy(ENGINE_SCRIPTS / "godot4_oracle.gd", here)
        godot4.run(
            "godot4_oracle.gd", ["savefiles", inside, str(seed), str(COUNT)], cwd=(here, inside)
        )
        manifest = [bytes.fromhex(x) for x in (here / "manifest.txt").read_text().split()]
        ours = here / "ours"
        ours.mkdir()
        for mode, options in MODES.items():
            for content in CONTENTS:
                values = [gd.loads(b) for b in _expected(manifest, content)]
                gd.write_save(ours / f"{mode}_{content}.sav", values, version="4.6", **options)
        out = Path(here / "read.jsonl")
        godot4.run(
            "godot4_oracle.gd",
            ["readsaves", f"{inside}/ours", f"{inside}/read.jsonl"],
            cwd=(here, inside),
        )
        results = {r["name"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert len(results) == len(MODES) * len(CONTENTS)
    for mode in MODES:
        for content in CONTENTS:
            name = f"{mode}_{content}.sav"
            result = results[name]
            assert result["ok"], result
            got = [bytes.fromhex(r) for r in result["records"]]
            assert got == _expected(manifest, content), f"{name} (seed {seed})"
