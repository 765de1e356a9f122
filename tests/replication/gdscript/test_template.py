"""The generated decoder's fixed text (the template ``gdscript/decoder_template.gd``), its state
view and node application (``gdscript._state_view``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gdvariant.replication import Half, UInt, Vec3, gdscript
from gdvariant.replication.gdscript import _template
from gdvariant.replication.gdscript._lines import Writer
from gdvariant.replication.gdscript._state_view import holds_ieee, node_property
from tests.support.replication_worlds import gdscript_schema

GENERATOR = Path(gdscript.__file__).parent


def test_node_property_names() -> None:
    assert node_property("purse.gold") == "purse_gold"
    assert node_property("ammo[2]") == "ammo_2"


def test_holds_ieee() -> None:
    assert holds_ieee(Half()) and holds_ieee(Vec3(Half()))
    assert not holds_ieee(UInt(3))


def test_runtime_keeps_states_as_columns_and_sparse_entities() -> None:
    # [class + 1 by id, column sets by class, {large id: values}]; the copy flags and the
    # base are left out of what is kept
    runtime = "\n".join(_template.block("decoder"))
    assert "var kept := st.slice(0, 3)\n\t_states[tick] = kept" in runtime
    assert "func _entity(held: Array, id: int)" in runtime


def test_publish_reads_wide_masks_as_several_words() -> None:
    schema = gdscript_schema()
    text = gdscript.generate(schema)
    grid = schema.layout("Grid")  # 71 properties: 3 words of 32
    assert grid.count > 62
    assert f"if rc == {grid.class_id}:\n\t\t\ti += 3" in text
    assert "pending.slice(at, at + 3)" in text


def _constant_emits(path: Path) -> int:
    """The ``emit(indent, "...")`` calls of ``path`` whose text is a constant."""
    return sum(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "emit"
        and len(node.args) == 2
        and isinstance(node.args[1], ast.Constant)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
    )


def test_fixed_text_is_in_the_template_not_in_emit_calls() -> None:
    """The decoder's fixed GDScript is package data; the generator's Python writes only
    what depends on the schema (with a few constant lines between generated ones)."""
    assert (GENERATOR / _template.TEMPLATE).is_file()
    assert sum(_constant_emits(path) for path in GENERATOR.glob("*.py")) <= 60


def test_every_template_block_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    used: set[str] = set()
    real = _template.block

    def block(name: str) -> tuple[str, ...]:
        used.add(name)
        return real(name)

    monkeypatch.setattr("gdvariant.replication.gdscript._lines.block", block)
    gdscript.generate(gdscript_schema())
    assert used == set(_template._blocks())


def test_a_filled_block_needs_each_placeholder_once_given() -> None:
    w = Writer()
    with pytest.raises(KeyError, match=r"baseline: no value for \$name"):
        w.fill(0, "baseline", c=0, raw="00", size=1, count=0, bits=8)
    with pytest.raises(TypeError, match="no placeholder for"):
        w.fill(0, "refill", bits=3, extra=1)
    with pytest.raises(TypeError, match="needs text"):
        w.fill(0, "take", width=3, out=["t1"], mask=7)
    with pytest.raises(KeyError, match="no block"):
        w.fill(0, "nothing")


def test_slots_are_indented_as_their_placeholder() -> None:
    w = Writer()
    w.fill(1, "node_set", sets=["if c == 0:", "\t_n0(node, v, old)", ""])
    assert w.lines[:4] == [
        "\tfunc _node_set(node: Object, v: Array, old: Array) -> void:",
        "\t\tvar c: int = v[-1]",
        "\t\tif c == 0:",
        "\t\t\t_n0(node, v, old)",
    ]
    assert w.lines[4] == ""  # an empty generated line stays empty
