"""``gdvariant._files.detect`` and ``gdvariant detect``: which releases could have written bytes."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main
from tests.support.paths import ROOT


def _records(values: list[object], **options: object) -> bytes:
    return b"".join(gd.records(values, **options))  # type: ignore[arg-type]


def test_godot3_records_rank_the_3x_releases_that_write_them() -> None:
    groups = gd.detect(_records([{"hp": 10}, 7], version="3")).candidates
    best = groups[0]
    assert best.engine == "Godot 3"
    assert best.releases == ["3.6", "3.5", "3.4", "3.3", "3.2", "3.1"]
    assert "writes exactly these bytes" in best.reasons
    # 3.0 writes every int as 64-bit (godot3.md): it reads these bytes but did not write them.
    three_oh = next(g for g in groups if g.releases == ["3.0"])
    assert three_oh.score < best.score
    assert any(r.startswith("would write them differently") for r in three_oh.reasons)
    assert all(not g.engine.startswith("Godot 4") for g in groups)


def test_a_godot_3_0_file_ranks_3_0_first() -> None:
    data = struct.pack("<Iq", 2 | 1 << 16, 5)  # int 5 written as 64-bit: only 3.0 does that
    groups = gd.detect(data).candidates
    assert groups[0].releases == ["3.0"]


def test_a_typed_array_is_godot_4_3_or_later() -> None:
    groups = gd.detect(gd.dumps(gd.TypedArray(gd.VariantType.INT, [1]))).candidates
    assert groups[0].releases == ["4.6", "4.5", "4.4", "4.3"]
    assert groups[0].reading == "one value"


def test_a_gdec_layout_rules_out_the_other_engine_line(tmp_path: Path) -> None:
    path = tmp_path / "g3.sav"
    gd.write_save(path, [1, "x"], password="pw", version="3")
    found = gd.detect(path.read_bytes(), password="pw")
    assert found.container == "GDEC (Godot 2/3 layout, AES-256-ECB)"
    assert found.candidates[0].releases[0] == found.version == "3.6"
    assert all(g.score <= 1 for g in found.candidates if g.engine.startswith("Godot 4"))
    groups = gd.detect(path.read_bytes()).candidates  # no password: the header alone
    assert [(g.engine, g.reading) for g in groups] == [
        ("Godot 3", "encrypted"),
        ("Godot 2", "encrypted"),
        ("Pandemonium", "encrypted"),
    ]
    assert not any(r.startswith("4.") for g in groups for r in g.releases)


def test_a_capture_cut_mid_frame_reads_as_frames() -> None:
    data = gd.frame({"seq": 1}) + gd.frame([1, 2, 3])[:-5]
    groups = gd.detect(data).candidates
    assert groups[0].reading.startswith("1 put_var frame, then ")


def test_cli_detect(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["detect", str(ROOT / "examples" / "godot3_save.sav")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "1. Godot 3 (3.6, 3.5, 3.4, 3.3, 3.2, 3.1): 3 store_var records"
    # an encrypted save without its password: the header's layout names the engine line
    assert main(["detect", str(ROOT / "examples" / "user_save.dat")]) == 0
    captured = capsys.readouterr()
    godot4 = "4.6, 4.5, 4.4, 4.3, 4.2, 4.1, 4.0"
    assert captured.out.splitlines()[1] == f"1. Godot 4 ({godot4}): encrypted"
    assert captured.err == "# the records are encrypted: --password or --key judges them too\n"
    assert main(["detect", "--hex", "ffffffff", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["candidates"] == []


def test_the_framing_is_named() -> None:
    groups = gd.detect(gd.dumps([1])).candidates
    assert "the layout of var_to_bytes, or one PacketPeer packet" in groups[0].reasons[1]
    groups = gd.detect(_records([1, 2], big_endian=True)).candidates
    assert "both with big_endian set" in groups[0].reasons[1]
