"""The floor plan: the package's folders and the one-way order of their imports.

Every module's imports are read from its source (``ast``: top-level, function-level and
``if TYPE_CHECKING:`` imports alike, ``.pyi`` stubs too, and the modules the C extensions
import by name) into one graph of gdvariant's modules. The graph must have no cycle, and every
import that leaves its folder must go down the order in :data:`LAYERS`. The order is not a
wish list: it is the graph's own, written down so that a new upward import fails here.
"""

from __future__ import annotations

import ast
import pickle
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant import _old_paths
from tests.support.paths import SRC

#: The package's units, lowest first. A module may import from its own unit and from any unit
#: of an earlier layer; never from a later layer, nor from another unit of its own layer.
LAYERS: list[tuple[str, ...]] = [
    ("leaves",),  # the top-level shared modules: LEAVES
    ("_values",),  # what a Godot value is
    ("_engines",),  # every difference between releases, as data
    ("_binary", "_text", "_json"),  # the three forms a value takes, each on its own
    ("_files", "_net"),  # values at rest (records, save files) and on a socket (framing)
    ("adapters",),  # the public I/O modules: ADAPTERS
    ("package",),  # gdvariant/__init__.py: the public names
    ("replication", "netsim"),  # netsim: a network-condition simulator, needing no codec
    ("multiplayer",),
    ("rooms",),  # many SceneMultiplayer rooms, their directory and matchmaker
    ("_cli",),  # and __main__
]
#: The private modules at the top: leaves every folder may use, which import only each other.
LEAVES = {"_closing", "_compiled", "_errors", "_floats", "_limits", "_old_paths", "_writes"}
#: The public modules at the top that do the I/O over the sans-I/O core in _net.
ADAPTERS = {"asyncio", "sync", "websocket"}
#: The libraries built on the codec reach it only through its public names and the shared
#: modules of servers: never through a folder of the codec's own.
LIBRARY_REACH = {
    "replication": {"leaves", "_net", "adapters", "package"},
    "multiplayer": {"leaves", "_net", "adapters", "package", "replication"},
    "rooms": {"leaves", "_net", "adapters", "package", "replication", "multiplayer"},
    "netsim": {"leaves"},
}
LIBRARIES = set(LIBRARY_REACH)


def _module_name(path: Path) -> str:
    parts = ["gdvariant", *path.relative_to(SRC).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, list[Path]]:
    """Every module of the package by dotted name, with its sources: ``.py``, or a compiled
    module's C source and ``.pyi`` stub."""
    found: dict[str, list[Path]] = {}
    for pattern in ("*.py", "*.pyi", "*.c"):
        for path in sorted(SRC.rglob(pattern)):
            found.setdefault(_module_name(path), []).append(path)
    return found


MODULES = _sources()


def _targets(module: str, path: Path) -> Iterator[str]:
    """The gdvariant modules ``module`` imports (a name imported from a package that is not
    a module of its own counts as the package)."""
    if path.suffix == ".c":
        yield from re.findall(r'PyImport_ImportModule\("(gdvariant[\w.]*)"\)', path.read_text())
        return
    package = module if path.stem == "__init__" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == "gdvariant")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], node.module or ""])
                base = base.rstrip(".")
            else:
                base = node.module or ""
            if base.split(".")[0] != "gdvariant":
                continue
            for alias in node.names:
                name = f"{base}.{alias.name}"
                yield name if name in MODULES else base


def _graph() -> dict[str, set[str]]:
    graph = {}
    for module, paths in MODULES.items():
        targets = set()
        for target in (t for path in paths for t in _targets(module, path)):
            while target not in MODULES:  # gdvariant.x.Name -> gdvariant.x
                target = target.rpartition(".")[0]
            if target != module:
                targets.add(target)
        graph[module] = targets
    return graph


GRAPH = _graph()


def _unit(module: str) -> str | None:
    """The unit of the floor plan ``module`` belongs to (None: it has no place in it)."""
    parts = module.split(".")[1:]
    if not parts:
        return "package"
    top = parts[0]
    if top == "__main__":
        return "_cli"
    if len(parts) == 1 and not (SRC / top).is_dir():
        if top in LEAVES:
            return "leaves"
        return "adapters" if top in ADAPTERS else None
    return top if any(top in layer for layer in LAYERS) else None


RANK = {unit: rank for rank, layer in enumerate(LAYERS) for unit in layer}


def _private_inside(target: str) -> bool:
    """Whether ``target`` is a private module of its library (the package and its public
    submodules, such as ``multiplayer.websocket``, are the library's public face)."""
    return any(part.startswith("_") for part in target.split(".")[2:])


def _crossings() -> Iterator[tuple[str, str, str]]:
    """(importer, imported, why) for every import the floor plan forbids."""
    for module, targets in sorted(GRAPH.items()):
        unit = _unit(module)
        for target in sorted(targets):
            other = _unit(target)
            if unit is None or other is None:  # test_every_module_has_a_place_in_the_floor_plan
                yield module, target, "outside the floor plan"
                continue
            if other == unit:
                continue
            if other in LIBRARIES and _private_inside(target):
                yield module, target, f"a private module of {other} from {unit}"
            elif unit in LIBRARIES and other not in LIBRARY_REACH[unit]:
                yield module, target, f"{unit} may use only {sorted(LIBRARY_REACH[unit])}"
            elif unit not in LIBRARIES and RANK[other] >= RANK[unit]:
                relation = "beside" if RANK[other] == RANK[unit] else "above"
                yield module, target, f"{other} is {relation} {unit} in the order"


def _cycles() -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(GRAPH):
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(GRAPH[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_every_module_has_a_place_in_the_floor_plan() -> None:
    homeless = sorted(module for module in MODULES if _unit(module) is None)
    assert homeless == [], (
        "each of these belongs in a folder of the floor plan (LAYERS), or among the shared "
        "leaves or the adapters at the top"
    )


def test_every_folder_of_the_plan_exists_and_says_what_it_holds() -> None:
    for unit in RANK:
        if unit in ("leaves", "adapters", "package"):
            continue
        init = SRC / unit / "__init__.py"
        assert init.is_file(), f"{unit}/ is missing"
        assert ast.get_docstring(ast.parse(init.read_text())), f"{unit}/__init__.py: no docstring"
    for name in LEAVES | ADAPTERS:
        assert (SRC / f"{name}.py").is_file(), name


def test_the_shared_leaves_import_only_each_other() -> None:
    for module, targets in GRAPH.items():
        if _unit(module) == "leaves":
            assert {_unit(t) for t in targets} <= {"leaves"}, (module, targets)


def test_imports_go_down_the_order() -> None:
    crossings = {(a, b): why for a, b, why in _crossings()}
    assert crossings == {}, "imports against the floor plan's order (LAYERS, LIBRARY_REACH)"


def test_no_import_cycles() -> None:
    assert [sorted(c) for c in _cycles()] == [], "import cycles"


def test_the_graph_sees_every_kind_of_import() -> None:
    """The reader must count type-only, function-level, relative and C imports, or the order
    above would pass on a graph with holes."""
    assert "gdvariant._files.fastlz_pure" in GRAPH["gdvariant._files._cfastlz"]  # C, by name
    assert "gdvariant._binary.ctables" in GRAPH["gdvariant._binary._cgdvariant"]
    assert "gdvariant._engines.profiles" in GRAPH["gdvariant._binary._cgdvariant"]  # .pyi
    assert "gdvariant._net.ws_connections" in GRAPH["gdvariant.websocket"]  # in a function
    assert "gdvariant._binary.core" in GRAPH["gdvariant"]  # from . import x as y
    assert "gdvariant" in GRAPH["gdvariant.replication._bits"]  # from .. import Name
    assert GRAPH["gdvariant._values.base"] == set()


@pytest.mark.parametrize("old", sorted(_old_paths.OLD_PATHS))
def test_old_module_paths_still_load_their_pickles(old: str) -> None:
    """A pickle names a class by its module: those written before the move name old paths."""
    new = _old_paths.OLD_PATHS[old]
    assert new in MODULES and old not in MODULES
    module = __import__(new, fromlist=["_"])
    assert __import__(old, fromlist=["_"]) is module
    assert module.__spec__ is not None and module.__spec__.name == new
    classes = [getattr(module, name) for name in getattr(module, "__all__", ())]
    for cls in classes:
        if isinstance(cls, type) and cls.__module__ == new:
            data = pickle.dumps(cls, protocol=2)
            assert pickle.loads(data.replace(new.encode(), old.encode())) is cls


def test_a_value_pickled_under_the_old_paths_loads() -> None:
    value = [gd.Vector2(1.5, -2), gd.Dictionary({gd.StringName("a"): gd.PackedInt32Array([1])})]
    data = pickle.dumps(value, protocol=2)
    for old, new in _old_paths.OLD_PATHS.items():
        data = data.replace(f"{new}\n".encode(), f"{old}\n".encode())
    assert b"gdvariant._math\n" in data and b"gdvariant._types\n" in data
    assert pickle.loads(data) == value


def test_the_source_cites_only_files_in_the_repository() -> None:
    """Docstrings and comments cite the repository's own docs/, never notes kept elsewhere."""
    cited: set[str] = set()
    for paths in MODULES.values():
        for path in paths:
            text = path.read_text()
            assert "shared/spec" not in text, path
            cited.update(re.findall(r"\bdocs/[\w.-]+\.md", text))
    missing = sorted(page for page in cited if not (SRC.parent.parent / page).is_file())
    assert missing == []
    assert "docs/binary-format.md" in cited and "docs/save-files.md" in cited
