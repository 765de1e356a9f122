"""How ``gdvariant.replication`` is laid out: module names that say one thing each.

Read from the source files, not imported: a module named like one of the codec's for a
different thing (``_records`` held the codec's ``store_var`` records and replication's packet
format) sends a reader to the wrong file.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support.paths import SRC

REPLICATION = SRC / "replication"


def _module_names(folder: Path, *, recursive: bool) -> dict[str, Path]:
    """Module (and package) names under ``folder``, without leading underscores."""
    found = folder.rglob("*") if recursive else folder.iterdir()
    names: dict[str, Path] = {}
    for path in found:
        if "__pycache__" in path.parts or path.name.startswith("__"):
            continue
        if path.suffix in (".py", ".c") or (path.is_dir() and (path / "__init__.py").exists()):
            names[path.stem.lstrip("_")] = path
    return names


def test_replication_module_names_are_not_the_codecs() -> None:
    codec = _module_names(SRC, recursive=False)
    # (_cli/ is left out: its modules are named for the commands, and `schema` is ours.)
    for sub in SRC.iterdir():  # the codec family's own folders, once it has them
        if sub.is_dir() and sub.name.startswith("_") and sub.name not in ("_cli", "__pycache__"):
            codec.update(_module_names(sub, recursive=True))
    ours = _module_names(REPLICATION, recursive=True)
    shared = {name: (ours[name], codec[name]) for name in ours.keys() & codec.keys()}
    assert not shared, f"replication modules named like the codec's: {shared}"


def test_schema_lives_in_the_schema_module() -> None:
    """``Schema`` is in ``_schema.py`` and the declarations (``NetClass``...) in
    ``_declarations.py``: each file is named for what it holds."""
    from gdvariant import replication

    assert replication.Schema.__module__ == "gdvariant.replication._schema"
    assert replication.ClassLayout.__module__ == "gdvariant.replication._schema"
    for name in ("NetClass", "Prop", "Array", "Embed", "Exclude", "SchemaError"):
        assert getattr(replication, name).__module__ == "gdvariant.replication._declarations"
    assert replication.SnapshotEncoder.__module__ == "gdvariant.replication._snapshot_encoder"


def _module_of(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports: at the top, in functions, under TYPE_CHECKING."""
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # `from . import _x` imports the module _x
                sub = f"{base}.{alias.name}"
                found.add(sub if _exists(sub) else base)
    return found


def _exists(module: str) -> bool:
    path = SRC.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _graph() -> dict[str, set[str]]:
    """The import graph of ``gdvariant.replication``'s own modules."""
    modules = {_module_of(p): p for p in REPLICATION.rglob("*.py")}
    return {name: _imports(path) & modules.keys() for name, path in modules.items()}


def test_replication_imports_have_no_cycle() -> None:
    graph = _graph()
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            cycle = [*path[path.index(name) :], name]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_the_model_does_not_import_the_gdscript_generator() -> None:
    """Schema, layouts, records, encoder and decoder work without the generator: only the
    package's public face (``__init__``) re-exports it."""
    wing = "gdvariant.replication.gdscript"
    for name, targets in _graph().items():
        if name.startswith(wing) or name == "gdvariant.replication":
            continue
        assert not {t for t in targets if t == wing or t.startswith(wing + ".")}, name


def test_no_module_outside_imports_replications_private_modules() -> None:
    """The command line and multiplayer use replication's public names (the CLI used to
    import ``replication._assemble`` to learn which assembler is live)."""
    for path in SRC.rglob("*.py"):
        if REPLICATION in path.parents:
            continue
        private = {
            target
            for target in _imports(path)
            if target.startswith("gdvariant.replication.")
            and any(part.startswith("_") for part in target.split(".")[2:])
        }
        assert not private, f"{_module_of(path)} imports {sorted(private)}"


def test_docstrings_cite_the_repositorys_docs() -> None:
    """References go to ``docs/`` in the repository (the wire doc's sections by number),
    never to notes outside it."""
    root = SRC.parent.parent
    wire = (root / "docs" / "replication-wire.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#+ (\d+(?:\.\d+)*)\.? ", wire, re.M))
    for path in REPLICATION.rglob("*"):
        if path.suffix not in (".py", ".c", ".gd"):
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"spec [\w-]+\.md|spec §|shared/spec", text), path
        for doc in re.findall(r"docs/[\w/-]+\.md", text):
            assert (root / doc).is_file(), (path, doc)
        for section in re.findall(r"§(\d+(?:\.\d+)*)", text):
            assert section in sections, (path, section)


def test_gdscript_subpackage_exports() -> None:
    from gdvariant.replication import gdscript

    namespace: dict[str, object] = {}
    exec("from gdvariant.replication.gdscript import *", namespace)
    namespace.pop("__builtins__")
    assert (
        set(namespace)
        == set(gdscript.__all__)
        == {
            "changes_values",
            "generate",
            "godot_state",
            "godot_value",
        }
    )
    for name in gdscript.__all__:
        assert getattr(gdscript, name).__module__.startswith("gdvariant.replication.gdscript.")
