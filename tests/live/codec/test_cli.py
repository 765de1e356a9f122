"""The ``gdvariant`` command against the real engines: what ``encode`` writes, the engines
read as written; the save files Godot 3.6 writes, in every container mode, converted to
Godot 4 and read by Godot 4.6.

Godot 3.6 writes its random values (``savefiles`` in ``godot3_oracle.gd``) plain,
big-endian, encrypted with a key or a password, and compressed four ways. Each file goes
through ``convert -V 3.6 --to-version 4`` under the same name, and Godot 4.6 opens it the same
way (``readsaves``): the records it reads must be the values Godot 3.6 stored. Godot 3 keeps
two Dictionary keys that hold equal Dictionaries apart (it compares them by identity), Godot 4
holds them as one: when the values have such keys (``merge_keys``, the suite's own engine-checked
rule, says so), ``convert`` must refuse the file and name them, and writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._cli import main
from gdvariant._files.wrapping import open_container
from gdvariant._text.writer import to_text_line
from tests.support.engines import (
    SEED,
    Engine,
    engine_decode,
    engine_read_saves,
    engine_text,
    engine_write_saves,
)
from tests.support.godot_describe import canon, merge_keys, same_but_padding

pytestmark = [pytest.mark.engine, pytest.mark.slow]

COUNT = 40
#: Godot 3.6's modes (no fixed IV there) and how we give each one's secret.
SECRETS: dict[str, list[str]] = {
    "plain": [],
    "plain_be": [],
    "key": ["--key", bytes(range(32)).hex()],
    "pass": ["--password", "secret"],
    "pass_utf8": ["--password", "pässwörd"],
    "fastlz": [],
    "deflate": [],
    "zstd": [],
    "gzip": [],
}
CONTENTS = ("values", "empty", "exact")


def _secret(args: list[str]) -> dict[str, Any]:
    if not args:
        return {}
    return {"key": bytes.fromhex(args[1])} if args[0] == "--key" else {"password": args[1]}


def test_godot46_reads_what_convert_makes_of_godot36_saves(
    godot36: Engine, godot4: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = SEED
    with godot36.workdir() as (here3, inside3), godot4.workdir() as (here4, inside4):
        manifest = engine_write_saves(godot36, (here3, inside3), seed, COUNT)
        expected = {
            "values": [gd.loads(b, version="3.6") for b in manifest],
            "empty": [],
            "exact": [bytes(4096 - 12)],
        }
        folds = {
            content: any(canon(merge_keys(v)) != canon(v) for v in values)
            for content, values in expected.items()
        }
        converted = here4 / "ours"
        converted.mkdir()
        for mode, secret in SECRETS.items():
            for content in CONTENTS:
                name = f"{mode}_{content}.sav"
                source, target = here3 / name, converted / name
                argv = ["convert", "-V", "3.6", str(source), "--to-version", "4", "-o", str(target)]
                status = main([*argv, *secret])
                err = capsys.readouterr().err
                if folds[content]:
                    assert status == 1, (name, seed)
                    assert "Godot 4.6 holds this key and key #" in err, (name, seed, err)
                    assert not target.exists(), name
                    continue
                assert status == 0, (name, seed, err)
                before = open_container(source.read_bytes(), **_secret(secret))[0]
                after = open_container(target.read_bytes(), **_secret(secret))[0]
                assert after.kind == before.kind, name
                assert after.compression == before.compression, name
                assert after.layout == (4 if before.kind == "GDEC" else None), name
        results = engine_read_saves(godot4, (here4, inside4), "ours")
    assert len(results) == len(SECRETS) * sum(not f for f in folds.values())
    for name, result in results.items():
        where = f"{name} (seed {seed})"
        assert result["ok"], (where, result)
        theirs = [gd.loads(bytes.fromhex(r)) for r in result["records"]]
        wanted = expected[name.rsplit("_", 1)[1].removesuffix(".sav")]
        assert [canon(v) for v in theirs] == [canon(v) for v in wanted], where


def test_convert_reports_what_godot3_cannot_hold_and_godot3_reads_the_rest(
    godot36: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Godot 4 save with Godot-4-only values is refused value by value; without them, the
    converted file is one Godot 3.6 reads."""
    bad = [{"name": gd.StringName("Ayla"), "cell": gd.Vector2i(3, 4)}, 7]
    gd.write_save(tmp_path / "four.sav", bad, password="secret")
    argv = ["convert", str(tmp_path / "four.sav"), "--password", "secret", "--to-version", "3"]
    assert main([*argv, "-o", str(tmp_path / "three.sav")]) == 1
    err = capsys.readouterr().err
    assert 'record 0 at ["name"]: Godot 3.6 has no STRING_NAME type' in err
    assert 'record 0 at ["cell"]: Godot 3.6 has no VECTOR2I type' in err
    assert not (tmp_path / "three.sav").exists()
    good = [{"name": "Ayla", "cell": gd.Vector2(3, 4)}, 7, gd.PackedStringArray(["a"])]
    with godot36.workdir() as (here, inside):
        (here / "ours").mkdir()
        gd.write_save(here / "four.sav", good, password="secret")
        target = here / "ours" / "pass_values.sav"
        argv = ["convert", str(here / "four.sav"), "--password", "secret", "--to-version", "3"]
        assert main([*argv, "-o", str(target)]) == 0, capsys.readouterr().err
        (result,) = engine_read_saves(godot36, (here, inside), "ours").values()
    assert result["ok"], result
    theirs = [gd.loads(bytes.fromhex(r), version="3.6") for r in result["records"]]
    assert [canon(v) for v in theirs] == [canon(v) for v in good]


@pytest.mark.parametrize("fixture", ["godot4", "godot36"])
def test_the_engine_reads_decodes_lines_as_the_values(
    fixture: str, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each line ``decode`` prints for a save is Godot text: the engine's ``str_to_var`` reads
    it to the record's value (the lines that have an exact text; ``edit`` refuses the rest)."""
    engine: Engine = request.getfixturevalue(fixture)
    version = engine.name
    with engine.workdir() as (here, inside):
        engine_write_saves(engine, (here, inside), SEED, COUNT)
        path = here / "plain_values.sav"
        assert main(["decode", str(path), "-V", version, "--full"]) == 0
        lines = capsys.readouterr().out.splitlines()
        values = gd.read_save(path, version=version)
    exact = [i for i, v in enumerate(values) if _has_exact_text(v, version)]
    assert len(exact) > COUNT // 2
    verdicts = engine_text(engine, [lines[i] for i in exact])
    for i, verdict in zip(exact, verdicts, strict=True):
        ours = gd.dumps(values[i], version=version, full_objects=True)
        theirs = bytes.fromhex(verdict["bytes"])  # Godot 3 leaves NodePath padding unwritten
        assert same_but_padding(ours, theirs), (i, lines[i][:300], SEED)


def _has_exact_text(value: Any, version: str) -> bool:
    try:
        to_text_line(value, version=version)
    except gd.EncodeError:
        return False
    return True


def test_godot4_keeps_the_three_keys_encode_writes(
    godot4: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    _check_the_engine_keeps_three_keys(godot4, "4", capsys)


def test_godot3_keeps_the_three_keys_encode_writes(
    godot3: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    _check_the_engine_keeps_three_keys(godot3, "3", capsys)


def _check_the_engine_keeps_three_keys(
    engine: Engine, version: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine decodes encode's Dictionary to three keys and writes the same bytes back."""
    assert main(["encode", "-V", version, "--hex", '{1: "a", 1.0: "b", true: "c"}']) == 0
    data = bytes.fromhex(capsys.readouterr().out.strip())
    (verdict,) = engine_decode(engine, engine.oracle, [data], False)
    assert verdict["ok"] and verdict["size"] == len(data), verdict
    assert bytes.fromhex(verdict["bytes"]) == data
