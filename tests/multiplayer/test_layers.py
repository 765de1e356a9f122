"""The shape of gdvariant.multiplayer, read from its source: imports go one way (the wire at
the bottom, the transports at the top, no cycle, type-only imports included), and the scene,
the replicator and the peer write no other object's state."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import SRC

PACKAGE = SRC / "multiplayer"
#: Each module's layer: a module imports only from its own layer or those below, and the
#: imports within a layer must not form a cycle.
LAYERS = {
    "wire": 0,
    "_script_syntax": 1,
    "_auth": 1,
    "_relay": 1,
    "_stats": 1,
    "_config": 1,
    "_owned": 1,  # what an owner may sync: wire and replication only
    "_loop": 1,  # which event loop runs a server: imports none of the package
    "_rpc_config": 2,
    "_synced": 2,
    "_pysync": 1,
    "_frame": 1,
    "_server": 2,
    "_transport": 3,
    "_replicator": 3,
    "_scene": 4,
    "_endpoint": 4,
    "_renamed": 5,
    "websocket": 5,
    "enet": 5,
    "snapshots": 5,  # replication's packets on a transport (ServerEndpoint, SceneMultiplayer)
    "__init__": 6,
}
#: Where the state of a multiplayer game lives; each writes only its own attributes.
OWNERS = ("_scene.py", "_replicator.py", "_server.py", "_transport.py")


def _name(path: Path) -> str:
    """``_scene``, ``wire._paths``, ``wire`` (its ``__init__``), ``__init__``."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The package's modules that ``path`` imports (as :func:`_name` names them)."""
    folder = path.parent.relative_to(PACKAGE).parts
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(folder)[: len(folder) - node.level + 1] if node.level > 1 else list(folder)
            if node.level > len(folder) + 1:
                continue  # gdvariant itself
            target = [*base, *(node.module.split(".") if node.module else [])]
            for alias in node.names:
                whole = [*target, alias.name]
                if (PACKAGE.joinpath(*whole).with_suffix(".py")).exists():
                    found.add(".".join(whole))
                elif target:
                    found.add(".".join(target))
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                if name.startswith("gdvariant.multiplayer."):
                    found.add(name.removeprefix("gdvariant.multiplayer."))
    found.discard(_name(path))
    return found


def _graph() -> dict[str, set[str]]:
    return {_name(path): _imports(path) for path in sorted(PACKAGE.rglob("*.py"))}


def _layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


def test_every_module_has_a_layer() -> None:
    assert {module.split(".")[0] for module in _graph()} == set(LAYERS)


def test_imports_never_go_up() -> None:
    upward = [
        f"{module} imports {dep}"
        for module, deps in _graph().items()
        for dep in deps
        if _layer(dep) > _layer(module)
    ]
    assert upward == []


def test_the_wire_imports_nothing_of_the_layers_above() -> None:
    graph = _graph()
    wire = {module for module in graph if module.split(".")[0] == "wire"}
    assert len(wire) > 5
    assert {dep for module in wire for dep in graph[module]} <= wire


def test_no_import_cycles() -> None:
    graph = _graph()
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str], done: set[str]) -> None:
        if module in path:
            cycles.append([*path[path.index(module) :], module])
            return
        if module in done:
            return
        done.add(module)
        for dep in sorted(graph.get(module, ())):
            visit(dep, [*path, module], done)

    done: set[str] = set()
    for module in graph:
        visit(module, [], done)
    assert cycles == []


def _foreign_writes(tree: ast.AST) -> list[str]:
    """Assignments into something that is not the method's own object: ``x.a = ...``,
    ``self.a.b = ...``, ``x.a[k] = ...`` (a local ``d[k] = ...`` is the code's own)."""
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if not isinstance(node, ast.stmt):
            continue
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        while targets:
            target = targets.pop()
            if isinstance(target, ast.Tuple | ast.List):
                targets += target.elts
                continue
            if isinstance(target, ast.Subscript):
                target = target.value
                if isinstance(target, ast.Name):
                    continue
            if not isinstance(target, ast.Attribute):
                continue
            owner = target.value
            if not (isinstance(owner, ast.Name) and owner.id == "self"):
                found.append(f"line {node.lineno}: {ast.unparse(target)}")
    return found


def test_the_scene_the_replicator_and_the_peer_write_only_their_own_state() -> None:
    """One owner per piece of state: the scene does not set its transport's callbacks or
    its state machine's checksum, the replicator does not fill the scene's tables (it is
    given what it needs when built, and asked)."""
    writes = {
        name: _foreign_writes(ast.parse((PACKAGE / name).read_text(encoding="utf-8")))
        for name in OWNERS
    }
    assert writes == {name: [] for name in OWNERS}
