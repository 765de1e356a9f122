"""Save files against the real engine, both ways: Godot writes every container mode and we
read the exact records (and rebuild the exact container bytes where they are deterministic);
we write the same set and Godot reads them back to the same values."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._cli import main
from gdvariant._files.containers import write_gcpf
from tests.support.engines import SEED, Engine, engine_read_saves, engine_write_saves
from tests.support.godot_describe import as_engine_holds, canon, same_but_padding

pytestmark = [pytest.mark.engine, pytest.mark.slow]

KEY = bytes(range(32))
IV = bytes(range(0xA0, 0xB0))
C = gd.Compression
#: How the oracle opens each mode, as our options (tests/live/codec/godot4_oracle.gd, _open_save).
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
CLI_SEED = 2026  # the files gdvariant decode reads (a fixed set: the CLI is not the codec's test)


def _modes(engine: Engine) -> dict[str, dict[str, Any]]:
    """The modes the engine's oracle writes (Godot 3 has no IV to fix)."""
    if engine.name.startswith("4"):
        return MODES
    return {mode: options for mode, options in MODES.items() if mode != "key_iv"}


def _reading(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in ("key", "password", "big_endian")}


def _secret(options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in ("key", "password")}


def _expected(manifest: list[bytes], content: str, version: str) -> list[bytes]:
    if content == "values":
        return manifest
    return [] if content == "empty" else [gd.dumps(bytes(4096 - 12), version=version)]


def _same_records(ours: list[bytes], theirs: list[bytes]) -> bool:
    """Equal, but where Godot 3 left NodePath padding unwritten and we wrote zeros."""
    return len(ours) == len(theirs) and all(
        same_but_padding(a, b) for a, b in zip(ours, theirs, strict=True)
    )


def _rebuilt(data: bytes, plaintext: bytes, options: dict[str, Any], layout: int) -> bytes:
    """The container bytes we make for ``plaintext`` with the file's own random parts."""
    if "compression" in options:
        out = io.BytesIO()
        write_gcpf([plaintext], out, compression=options["compression"])
        return out.getvalue()
    if "key" in options or "password" in options:
        iv = data[28:44] if layout == 4 else None
        return gd.encrypt(plaintext, layout=layout, iv=iv, **_secret(options))
    return plaintext


def _engine_files(engine: Engine, here: Path, inside: str, seed: int) -> list[bytes]:
    """Have the engine write every save file into ``here``; return its manifest."""
    return engine_write_saves(engine, (here, inside), seed, COUNT)


def _check_we_read(engine: Engine) -> None:
    seed = SEED
    version = engine.name
    layout = gd.get_profile(version).encrypted_layout
    with engine.workdir() as (here, inside):
        manifest = _engine_files(engine, here, inside, seed)
        for mode, options in _modes(engine).items():
            for content in CONTENTS:
                path = here / f"{mode}_{content}.sav"
                where = f"Godot {version} {path.name} (seed {seed})"
                values = gd.read_save(path, version=version, **_reading(options))
                ours = [gd.dumps(v, version=version) for v in values]
                assert _same_records(ours, _expected(manifest, content, version)), where
                with gd.open_save(path, **_secret(options)) as fp:
                    plaintext = fp.read()
                data = path.read_bytes()
                if version == "3.2" and mode == "zstd":
                    continue  # 3.2.3 bundles zstd 1.4, whose bytes differ (containers.md §5)
                assert _rebuilt(data, plaintext, options, layout) == data, where


def _check_engine_reads(engine: Engine) -> None:
    seed = SEED
    version = engine.name
    with engine.workdir() as (here, inside):
        manifest = _engine_files(engine, here, inside, seed)
        ours = here / "ours"
        ours.mkdir()
        for mode, options in _modes(engine).items():
            for content in CONTENTS:
                values = [
                    gd.loads(b, version=version) for b in _expected(manifest, content, version)
                ]
                gd.write_save(ours / f"{mode}_{content}.sav", values, version=version, **options)
        results = engine_read_saves(engine, (here, inside), "ours")
    assert len(results) == len(_modes(engine)) * len(CONTENTS)
    for mode in _modes(engine):
        for content in CONTENTS:
            name = f"{mode}_{content}.sav"
            result = results[name]
            assert result["ok"], result
            got = [bytes.fromhex(r) for r in result["records"]]
            sent = [gd.loads(b, version=version) for b in _expected(manifest, content, version)]
            where = f"Godot {version} {name} (seed {seed})"
            assert len(got) == len(sent), where
            for value, theirs in zip(sent, got, strict=True):
                if not same_but_padding(gd.dumps(value, version=version), theirs):
                    # Godot 3 reads a NodePath with no names as relative (godot3.md §5.1).
                    held = as_engine_holds(value, version.startswith("3"))
                    assert canon(gd.loads(theirs, version=version)) == canon(held), where


def _cli_arguments(options: dict[str, Any]) -> list[str]:
    """How a user gives the secret on the command line (the byte order is left to find out)."""
    if "key" in options:
        return ["--key", options["key"].hex()]
    if "password" in options:
        return ["--password", options["password"]]
    return []


def _check_the_cli_reads(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    """``gdvariant decode`` finds the records in every file, big-endian ones included."""
    version = engine.name
    with engine.workdir() as (here, inside):
        _engine_files(engine, here, inside, CLI_SEED)
        for mode, options in _modes(engine).items():
            for content in CONTENTS:
                path = here / f"{mode}_{content}.sav"
                status = main(["decode", str(path), "-V", version, *_cli_arguments(options)])
                captured = capsys.readouterr()
                assert status == 0, (path.name, captured.err)
                values = gd.read_save(path, version=version, **_reading(options))
                assert len(captured.out.splitlines()) == len(values), path.name  # one a line
                argv = ["decode", str(path), "-V", version, "--format", "python", "--full"]
                assert main([*argv, *_cli_arguments(options)]) == 0
                shown = capsys.readouterr().out.splitlines()
                assert shown == [repr(v) for v in values], path.name
                assert f"# {len(values)} store_var record" in captured.err, path.name
                flipped = mode == "plain_be" and content != "empty"  # no length to tell by
                assert ("big-endian" in captured.err) == flipped, path.name


def test_the_cli_reads_every_save_file_godot4_writes(
    godot4: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    _check_the_cli_reads(godot4, capsys)


def test_the_cli_reads_every_save_file_godot3_writes(
    godot3: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    _check_the_cli_reads(godot3, capsys)


def test_we_read_every_save_file_godot4_writes(godot4: Engine) -> None:
    _check_we_read(godot4)


def test_godot4_reads_every_save_file_we_write(godot4: Engine) -> None:
    _check_engine_reads(godot4)


def test_we_read_every_save_file_godot3_writes(godot3: Engine) -> None:
    _check_we_read(godot3)


def test_godot3_reads_every_save_file_we_write(godot3: Engine) -> None:
    _check_engine_reads(godot3)
