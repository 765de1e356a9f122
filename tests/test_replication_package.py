"""How ``gdvariant.replication`` is laid out: module names that say one thing each.

Read from the source files, not imported: a module named like one of the codec's for a
different thing (``_records`` held the codec's ``store_var`` records and replication's packet
format) sends a reader to the wrong file.
"""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "gdvariant"
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
