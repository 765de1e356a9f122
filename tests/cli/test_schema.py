"""``gdvariant schema`` (``gdvariant._cli.schema``): a replication schema's flat tables and
its generated GDScript decoder, from a module or a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdvariant._cli import main
from tests.support.paths import EXAMPLES

ARENA = str(EXAMPLES / "arena" / "arena_schema.py")


def test_schema_explain_prints_one_class_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "explain", f"{ARENA}:Shot"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("DT_Shot: class 1, 4 properties, fingerprint ")
    # By hand from the flattening rules: the base's position (hot) and velocity, then the
    # class's own props; heat's priority 200 sorts it after shooter's default 100.
    assert [line.split()[:2] for line in lines[2:]] == [
        ["0", "position"],
        ["1", "velocity"],
        ["2", "shooter"],
        ["3", "heat"],
    ]
    assert lines[-1].split()[-1] == "prio=200"


def test_schema_explain_of_a_module_names_every_class(capsys: pytest.CaptureFixture[str]) -> None:
    from gdvariant.replication import load_schema

    assert main(["schema", "explain", ARENA]) == 0
    out = capsys.readouterr().out
    schema, _ = load_schema(ARENA)
    assert "DT_Player: class 0" in out and "DT_Shot: class 1" in out
    assert out.rstrip().endswith(f"schema fingerprint {schema.fingerprint.hex()} (2 classes)")


def test_schema_gdscript_writes_the_decoder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gdvariant.replication import gdscript, load_schema

    schema, _ = load_schema(ARENA)
    out = tmp_path / "decoder.gd"
    assert main(["schema", "gdscript", ARENA, "-o", str(out)]) == 0
    assert out.read_text() == gdscript.generate(schema)
    assert schema.fingerprint.hex() in capsys.readouterr().err
    assert main(["schema", "gdscript", ARENA]) == 0
    assert capsys.readouterr().out == gdscript.generate(schema)


def test_schema_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad_schema.py"
    bad.write_text(
        "from gdvariant.replication import Exclude, NetClass, UInt\n"
        "class Base(NetClass, table='DT_Base'):\n"
        "    hp = UInt(8)\n"
        "class Child(Base, table='DT_Child'):\n"
        "    excludes = (Exclude(Base, 'armor'),)\n"
    )
    assert main(["schema", "explain", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Child" in err and "armor" in err, err
    assert main(["schema", "explain", f"{ARENA}:Nope"]) == 2
    assert "has no networked class 'Nope'" in capsys.readouterr().err
    assert main(["schema", "explain", "no_such_module_here"]) == 2
    assert "cannot import no_such_module_here" in capsys.readouterr().err
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    assert main(["schema", "gdscript", str(empty)]) == 2
    assert "no networked (NetClass) classes" in capsys.readouterr().err
