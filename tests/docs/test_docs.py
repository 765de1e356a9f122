"""The documentation: the recipes run as written, and the API reference lists every public name.

The reference test builds the site with Sphinx (the docs extra, part of dev) as
``tools/build-docs.sh`` does, warnings as errors, and reads the names it documented from the
built inventory, so a name added to an ``__all__`` without a page fails here.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import re
import tempfile
from pathlib import Path

import pytest

import gdvariant
from tests.support.doc_commands import gdvariant_commands, run_example
from tests.support.paths import DOCS, ROOT

RECIPES = (DOCS / "recipes.md").read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", RECIPES, re.S)
COMMANDS = [
    command
    for block in re.findall(r"```sh\n(.*?)```", RECIPES, re.S)
    for command in gdvariant_commands(block)
]
# The modules whose __all__ is public API: the package and its public submodules.
PUBLIC_MODULES = [
    "gdvariant",
    "gdvariant.asyncio",
    "gdvariant.multiplayer",
    "gdvariant.multiplayer.enet",
    "gdvariant.multiplayer.snapshots",
    "gdvariant.multiplayer.websocket",
    "gdvariant.multiplayer.wire",
    "gdvariant.netsim",
    "gdvariant.replication",
    "gdvariant.replication.gdscript",
    "gdvariant.rooms",
    "gdvariant.rooms.agones",
    "gdvariant.rooms.cluster",
    "gdvariant.rooms.httpapi",
    "gdvariant.rooms.redis",
    "gdvariant.rooms.serve",
    "gdvariant.sync",
    "gdvariant.websocket",
]


def test_the_recipes_cover_the_common_jobs() -> None:
    headings = re.findall(r"^## (.*)$", RECIPES, re.M)
    assert headings == [
        "Read a save file",
        "Edit a save and write it back",
        "Convert a Godot 3 save to Godot 4",
        "Serve Godot clients",
        "Inspect a capture",
    ]
    assert len(PYTHON_BLOCKS) >= 5
    assert len(COMMANDS) >= 4


@pytest.mark.parametrize(
    "code", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))]
)
def test_recipe_runs(
    code: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(ROOT)  # the recipes name files in examples/
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # and write in tempfile.mkdtemp()
    with caplog.at_level(logging.WARNING):
        exec(compile(code, "docs/recipes.md", "exec"), {})
    # Quiet as well as correct: no server log of a dropped client, no asyncio complaint.
    assert [r.getMessage() for r in caplog.records] == []


@pytest.mark.parametrize("example", COMMANDS)
def test_recipe_command_runs(
    example: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    example_tmp: Path,
) -> None:
    run_example(example, capsys, monkeypatch, example_tmp)


def test_public_modules_are_all_listed() -> None:
    """A new public module (no leading underscore) must join PUBLIC_MODULES and the reference."""
    found = {"gdvariant"}
    for info in pkgutil.walk_packages(gdvariant.__path__, "gdvariant."):
        parts = info.name.split(".")
        if not any(part.startswith("_") for part in parts):
            found.add(info.name)
    assert found == set(PUBLIC_MODULES)


# myst-parser's own uses of APIs Sphinx deprecates (the second from its include directive,
# which docs/guide.md uses), not ours.
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:'myst_parser.*' is deprecated")
@pytest.mark.filterwarnings("ignore:'sphinx.environment.BuildEnvironment.app' is deprecated")
def test_the_reference_documents_every_public_name(tmp_path: Path) -> None:
    pytest.importorskip("myst_parser", reason="the docs extra is not installed")
    from sphinx.cmd.build import build_main
    from sphinx.util.inventory import InventoryFile

    out = tmp_path / "html"
    args = ["-E", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)]
    assert build_main(args) == 0, "the docs build warned (run tools/build-docs.sh)"
    with open(out / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", lambda base, uri: uri)
    documented = {name for entries in inventory.values() for name in entries}
    missing = [
        f"{module}.{name}"
        for module in PUBLIC_MODULES
        for name in importlib.import_module(module).__all__
        if f"{module}.{name}" not in documented
    ]
    assert missing == [], "add these to a page under docs/reference/"
