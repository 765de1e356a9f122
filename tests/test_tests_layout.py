"""The tests' floor plan: tests/ mirrors src/gdvariant, read from the files themselves.

- Every module of the package with code in it (a function or class, or C) has its tests at
  the mirrored path: ``src/gdvariant/_binary/decoder.py`` -> ``tests/binary/test_decoder.py``
  (a folder's leading underscore dropped, ``__init__.py`` -> ``test_<folder>.py``), or is in
  :data:`TESTED_ELSEWHERE`, which names the test modules that test it.
- Every test folder mirrors a package folder, or is one of :data:`OTHER_FOLDERS`; each is a
  package (its ``__init__.py``), so two ``test_api.py`` in two folders are two modules.
- At the top of tests/ only the top-level modules' tests, and :data:`WHOLE_PACKAGE`.
- Helpers live in tests/support/ alone, and a test imports helpers from there, never from
  another test module.
- The tests that run an engine are in tests/live/, each module marked ``engine`` and ``slow``.
- Nothing in the repository edits ``sys.path``: tools, benchmarks, fuzzers and examples run as
  modules from the repository's root and import ``tests.support`` like any package. The one
  exception is the command line's schema loader (:data:`SYS_PATH_ALLOWED`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT, SRC, TESTS

#: Package modules whose tests are not at the mirrored path, with the test modules (under
#: tests/) that test them: each must exist.
TESTED_ELSEWHERE: dict[str, tuple[str, ...]] = {
    "_compiled.py": ("binary/test_core.py", "files/test_fastlz.py"),  # through both pickers
    "_errors.py": ("binary/test_decoder.py", "test_limits.py", "binary/test_encoder.py"),
    "_old_paths.py": ("test_layout.py",),  # old pickles load
    "_values/color_names.py": ("text/test_parser.py", "json/test_tagged.py"),
    "_values/layouts.py": ("binary/test_decoder_table.py", "values/math/test_records.py"),
    "_engines/text_syntax.py": ("text/test_writer.py", "text/test_parser.py"),
    "_binary/api.py": ("binary/test_decoder.py", "binary/test_encoder.py", "binary/test_golden.py"),
    "_binary/ctables.py": ("binary/test_cgdvariant.py", "binary/test_core.py"),
    "_binary/parts.py": ("binary/test_decoder.py", "binary/test_decoder_table.py"),
    "_binary/pure.py": ("binary/test_core.py", "binary/test_core_differential.py"),
    "_text/_ctext.c": ("text/test_core.py",),
    "_text/_pytext.py": ("text/test_core.py",),
    "_json/_cjson.c": ("json/test_core.py",),
    "_json/_pyjson.py": ("json/test_core.py",),
    "_json/api.py": ("json/test_tagged.py", "json/test_godot.py"),
    "_json/tagged_read.py": ("json/test_tagged.py",),
    "_json/tagged_write.py": ("json/test_tagged.py",),
    "_json/godot_parse.py": ("json/test_godot.py", "live/codec/test_json.py"),
    "_files/fastlz_pure.py": ("files/test_fastlz.py",),
    "_files/_cfastlz.c": ("files/test_fastlz.py",),
    "_values/_cvalues.c": ("values/test_constructors.py",),
    "_files/wrapping.py": ("files/test_containers.py", "test_writes.py"),
    "_net/ws_connections.py": ("test_websocket.py", "multiplayer/test_websocket.py"),
    "_net/_pywsframes.py": ("net/test_ws_frames.py",),
    "_net/_cwsframes.c": ("net/test_ws_frames.py",),
    "_cli/_common.py": ("cli/test_cli.py", "cli/test_inputs.py"),
    "_cli/_fields.py": ("cli/test_inspect.py",),
    "_cli/_forms.py": ("cli/test_inputs.py", "cli/test_decode.py"),
    "_cli/_portability.py": ("cli/test_convert.py",),
    "_cli/detect.py": ("files/test_detect.py",),  # with the library's detect
    "replication/_assembler.py": ("replication/test_cassemble.py",),
    "replication/_cwrite.c": ("replication/test_write_path.py",),
    "replication/_pyassemble.py": ("replication/test_cassemble.py", "replication/test_snapshot.py"),
    "replication/_bits.py": ("replication/test_codecs.py", "replication/test_snapshot.py"),
    "replication/_declarations.py": ("replication/test_schema.py",),
    "replication/_float_codecs.py": ("replication/test_codecs.py",),
    "replication/_load.py": ("cli/test_schema.py", "cli/test_writes.py"),
    "replication/_packet_format.py": ("replication/test_snapshot.py",),
    "replication/_snapshot_decoder.py": (
        "replication/test_snapshot.py",
        "replication/test_interpolation.py",
    ),
    "replication/_snapshot_encoder.py": ("replication/test_snapshot.py",),
    "replication/gdscript/_lines.py": ("replication/gdscript/test_template.py",),
    "replication/gdscript/_state_view.py": ("replication/gdscript/test_template.py",),
    "multiplayer/__init__.py": ("test_exports.py",),  # the renamed names it still answers
    "multiplayer/_renamed.py": ("test_exports.py",),
    "multiplayer/_frame.py": ("multiplayer/test_csync.py",),
    "multiplayer/_transport.py": ("multiplayer/test_websocket.py", "multiplayer/test_enet.py"),
    "multiplayer/_script_syntax.py": ("multiplayer/test_rpc_config.py",),
    "multiplayer/wire/_errors.py": ("multiplayer/wire/test_packets.py",),
    "multiplayer/wire/_reader.py": ("multiplayer/wire/test_packets.py",),
    "multiplayer/wire/_version.py": ("multiplayer/wire/test_packets.py",),
}
#: Test folders that mirror no package folder.
OTHER_FOLDERS = {
    "support": "the helpers, and their own tests",
    "live": "the tests that run the real engines, beside their GDScript",
    "docs": "what README.md and docs/ show runs as shown",
    "examples": "examples/",
    "benchmarks": "benchmarks/ kept from rotting",
    "vectors": "data: engine-written and derived vectors",
}
#: Test modules at the top of tests/ that are about the whole package, not one top module.
WHOLE_PACKAGE = {
    "test_exports.py": "the public names (gdvariant/__init__.py and every __all__)",
    "test_layout.py": "the package's floor plan",
    "test_function_size.py": "no function over 120 lines",
    "test_tests_layout.py": "this file",
    "test_suite_config.py": "the test suite's own settings (a hung test's time limit)",
}
#: The files that may edit sys.path, and why.
SYS_PATH_ALLOWED = {
    # `gdvariant schema MODULE` finds MODULE from the current folder, as `python -m` does.
    "src/gdvariant/replication/_load.py",
    # Runs the fuzzers on a sanitizer build of the package: its PYTHONPATH puts that copy first.
    "tools/build-asan.sh",
}
#: The repository's own code (not .venv*, build/ or caches).
CODE_FOLDERS = ("src", "tests", "tools", "benchmarks", "fuzz", "examples", "docs")
#: An edit of sys.path, in Python or through the environment (written in parts, so that this
#: file does not match itself).
SYS_PATH_EDIT = re.compile(
    r"\bsys\.path\s*(\.\s*(insert|append|extend|remove)\b|\[|\+=|=(?!=))"
    + "|sys"
    + "path_prepend"
    + "|PYTHON"
    + r"PATH\b[\"']?\s*[=:\]]"
)


def _has_code(path: Path) -> bool:
    if path.suffix == ".c":
        return True
    tree = ast.parse(path.read_text(encoding="utf-8"))
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(node, kinds) for node in ast.walk(tree))


def _mirror(path: Path) -> Path:
    """Where the tests of the package module ``path`` belong."""
    folders = [part.lstrip("_") for part in path.relative_to(SRC).parts[:-1]]
    if path.stem == "__init__":
        name = folders[-1] if folders else "gdvariant"
    else:
        name = path.stem.lstrip("_")
    return TESTS.joinpath(*folders, f"test_{name}.py")


def _package_modules() -> Iterator[Path]:
    for path in sorted([*SRC.rglob("*.py"), *SRC.rglob("*.c")]):
        if "__pycache__" not in path.parts and _has_code(path):
            yield path


def _test_folders() -> list[Path]:
    return sorted(
        folder
        for folder in TESTS.rglob("*")
        if folder.is_dir() and any(folder.glob("*.py")) and "__pycache__" not in folder.parts
    )


def test_every_module_has_its_tests_at_the_mirrored_path_or_names_them() -> None:
    missing, stale = [], []
    for path in _package_modules():
        name = path.relative_to(SRC).as_posix()
        exists = _mirror(path).exists()
        if name in TESTED_ELSEWHERE:
            if exists:  # it has its own now: the entry goes
                stale.append(name)
        elif not exists:
            missing.append(f"{name} -> {_mirror(path).relative_to(ROOT)}")
    assert missing == [], "write these tests, or name where they are in TESTED_ELSEWHERE"
    assert stale == [], "these have tests at the mirrored path: drop them from TESTED_ELSEWHERE"


def test_the_tests_named_for_a_module_exist() -> None:
    modules = {path.relative_to(SRC).as_posix() for path in _package_modules()}
    assert set(TESTED_ELSEWHERE) <= modules, set(TESTED_ELSEWHERE) - modules
    named = {test for tests in TESTED_ELSEWHERE.values() for test in tests}
    assert [test for test in sorted(named) if not (TESTS / test).is_file()] == []


def test_every_test_folder_mirrors_a_package_folder_and_is_a_package() -> None:
    package_folders = {
        Path(*(part.lstrip("_") for part in folder.relative_to(SRC).parts))
        for folder in SRC.rglob("*")
        if folder.is_dir() and (folder / "__init__.py").exists()
    }
    for folder in _test_folders():
        if folder == TESTS:
            continue
        relative = folder.relative_to(TESTS)
        assert relative in package_folders or relative.parts[0] in OTHER_FOLDERS, relative
        assert (folder / "__init__.py").exists(), f"{relative} has no __init__.py"


def test_the_top_of_tests_holds_the_top_level_modules_tests() -> None:
    top_modules = {path.stem.lstrip("_") for path in SRC.glob("*.py")}
    for path in sorted(TESTS.glob("test_*.py")):
        module = path.stem.removeprefix("test_")
        assert module in top_modules or path.name in WHOLE_PACKAGE, path.name


def test_helpers_live_in_support_and_tests_import_only_from_there() -> None:
    for path in sorted(TESTS.rglob("*.py")):
        relative = path.relative_to(TESTS)
        kind_ok = path.name in ("__init__.py", "conftest.py") or path.name.startswith("test_")
        assert relative.parts[0] == "support" or kind_ok, f"a helper outside support/: {relative}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            for name in names:
                if name.split(".")[0] == "tests":
                    assert name.startswith("tests.support"), f"{relative} imports {name}"


def _marks(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The marks a test module gives all its tests (``pytestmark``), and those it gives some
    (decorators), by name."""

    def named(node: ast.AST) -> set[str]:
        return {
            n.attr
            for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Attribute)
            if n.value.attr == "mark"
        }

    module, some = set(), set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytestmark" for target in node.targets
        ):
            module |= named(node.value)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            some |= {mark for decorator in node.decorator_list for mark in named(decorator)}
    return module, some


def test_the_engine_tests_are_in_live_and_marked_engine_and_slow() -> None:
    for path in sorted(TESTS.rglob("test_*.py")):
        relative = path.relative_to(TESTS)
        module, some = _marks(ast.parse(path.read_text(encoding="utf-8")))
        if relative.parts[0] == "live":
            assert {"engine", "slow"} <= module, f"{relative}: pytestmark needs engine and slow"
        elif relative.parts[0] not in ("examples", "benchmarks"):  # they run their folders' own
            assert "engine" not in module | some, f"{relative}: an engine test belongs in live/"


#: What starts a process: each must be wrapped in ``processes.watch(...)``.
STARTERS = {"Popen", "create_subprocess_exec", "create_subprocess_shell"}
#: What starts a process and waits for it: ``processes.run`` instead.
WAITING_STARTERS = {"run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"}


def _unwatched_starts(tree: ast.Module) -> Iterator[int]:
    """The lines of ``tree`` that start a process the guard of tests/support/processes.py
    is not told of."""
    watched = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            if name == "watch":
                for arg in node.args:
                    watched.add(id(arg.value if isinstance(arg, ast.Await) else arg))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        module = node.func.value
        from_subprocess = isinstance(module, ast.Name) and module.id == "subprocess"
        if (node.func.attr in STARTERS and id(node) not in watched) or (
            from_subprocess and node.func.attr in WAITING_STARTERS
        ):
            yield node.lineno


def test_every_process_a_test_starts_ends_with_its_pytest() -> None:
    """A time limit ends pytest with ``os._exit``: a process started any other way than
    through tests/support/processes.py would outlive it."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path == TESTS / "support" / "processes.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(ROOT)}:{line}" for line in _unwatched_starts(tree)]
    assert found == [], "start it with processes.watch(...) or processes.run(...)"


def test_an_unwatched_start_is_found() -> None:
    source = """
proc = subprocess.Popen(["true"])
done = subprocess.run(["true"])
fine = processes.watch(subprocess.Popen(["true"]))
also = processes.watch(await asyncio.create_subprocess_exec("true"))
"""
    assert list(_unwatched_starts(ast.parse(source))) == [2, 3]


@pytest.mark.parametrize("folder", CODE_FOLDERS)
def test_nothing_edits_sys_path(folder: str) -> None:
    found = []
    for path in sorted((ROOT / folder).rglob("*")):
        if path.suffix not in (".py", ".sh") or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SYS_PATH_EDIT.search(line) and relative not in SYS_PATH_ALLOWED:
                found.append(f"{relative}:{number}: {line.strip()}")
    assert found == [], "run it as a module from the repository's root instead"


def test_the_ci_script_and_setup_edit_no_sys_path_either() -> None:
    for name in (".ci/run", "setup.py"):
        path = ROOT / name
        if path.exists():  # .ci/ is not in the sdist
            assert not SYS_PATH_EDIT.search(path.read_text(encoding="utf-8")), name
