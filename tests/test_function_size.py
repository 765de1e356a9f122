"""No function in gdvariant longer than a reader can follow in one sitting: 120 lines.

A long function is a sign that a table or a helper is missing: the pure decoder, once 384
lines, is a loop of the common kinds plus a table of per-kind readers for that reason
(``tests/binary/test_decoder_table.py``).

Lines are counted from a function's first decorator to its last line, docstring included;
a nested function counts inside its parent and on its own. Every ``.py`` file of the package
is read, none is generated. The compiled cores (``.c``) are held to the same limit, counted
from the first line of a function's signature to its closing brace.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import gdvariant

MAX_LINES = 120
PACKAGE = Path(gdvariant.__file__).parent
#: the package's sources beside the tests (an installed package, as the sdist's run has, holds
#: no ``.c`` files)
SOURCES = Path(__file__).resolve().parents[1] / "src" / "gdvariant"


def function_sizes(source: str) -> Iterator[tuple[str, int, int]]:
    """(qualified name, first line, line count) of every function and method in ``source``."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                last = child.end_lineno or child.lineno
                yield f"{prefix}{child.name}", first, last - first + 1
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(ast.parse(source), "")


#: a C comment, or a string or character literal: blanked before braces are counted
C_NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
#: the first line of a top-level function's signature: at the margin, up to its parenthesis
C_SIGNATURE = re.compile(r"(?=[A-Za-z_])([^;=(]*)\(")


def c_function_sizes(source: str) -> Iterator[tuple[str, int, int]]:
    """(name, first line, line count) of every top-level function defined in C ``source``:
    a line at the margin naming a function, up to the brace that closes its body. A
    declaration (ending in ``;``) and a braced initializer (``=``) are not functions."""
    code = C_NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    depth, name, first = 0, "", 0
    for number, line in enumerate(code.split("\n"), 1):
        if depth == 0 and not name and (match := C_SIGNATURE.match(line)):
            name, first = re.findall(r"\w+", match.group(1))[-1], number
        if depth == 0 and name and line.rstrip().endswith(";"):
            name = ""  # a prototype
        depth += line.count("{") - line.count("}")
        if depth == 0 and name and "}" in line:
            yield name, first, number - first + 1
            name = ""


def test_the_package_has_its_modules() -> None:
    files = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")}
    assert {"__init__.py", "replication/__init__.py", "multiplayer/__init__.py"} <= files
    assert len(files) > 50


def test_the_count_sees_methods_decorators_and_nested_functions() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    source = (
        "class A:\n"
        "    @staticmethod\n"
        "    @functools.cache\n"
        f"    def long():\n{body.replace('    ', '        ')}"
        "def outer():\n"
        f"    def inner():\n{body.replace('    ', '        ')}"
        "    return inner\n"
        "def short():\n    pass\n"
    )
    sizes = {name: size for name, _, size in function_sizes(source)}
    assert sizes == {
        "A.long": MAX_LINES + 3,
        "outer": MAX_LINES + 3,
        "outer.inner": MAX_LINES + 1,
        "short": 2,
    }


def test_no_function_is_over_120_lines() -> None:
    too_long = [
        f"{path.relative_to(PACKAGE).as_posix()}:{line} {name}: {size} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, line, size in function_sizes(path.read_text(encoding="utf-8"))
        if size > MAX_LINES
    ]
    reason = f"over {MAX_LINES} lines: split each into a table of functions or helpers"
    assert not too_long, reason + "\n" + "\n".join(too_long)


def test_the_c_count_sees_signatures_bodies_and_not_comments_or_strings() -> None:
    body = "".join(f"    x += {i};\n" for i in range(MAX_LINES))
    source = (
        "/* a comment with a brace { and a call f() */\n"
        "static int prototype(int a);\n"
        'static const char *table[] = {"}", "{"};\n'
        "static int\n"
        "long_one(int a,\n"
        "         int b) {\n"
        f"{body}"
        "    if (a) {\n        return '}';\n    }\n"
        "    return 0;\n"
        "}\n"
        "static void short_one(void) { /* } */ }\n"
    )
    sizes = {name: (line, size) for name, line, size in c_function_sizes(source)}
    assert sizes == {"long_one": (5, MAX_LINES + 7), "short_one": (MAX_LINES + 12, 1)}


def test_no_c_function_is_over_120_lines() -> None:
    sources = sorted(SOURCES.rglob("*.c"))
    assert {p.name for p in sources} >= {"_cgdvariant.c", "_cassemble.c", "_csync.c"}
    sizes = {path: list(c_function_sizes(path.read_text(encoding="utf-8"))) for path in sources}
    walk = [
        size for path, found in sizes.items() for name, _, size in found if name == "walk_entity"
    ]
    assert len(walk) == 1 and walk[0] > 50  # the count finds a function it knows
    too_long = [
        f"{path.relative_to(SOURCES).as_posix()}:{line} {name}: {size} lines"
        for path, found in sizes.items()
        for name, line, size in found
        if size > MAX_LINES
    ]
    reason = f"over {MAX_LINES} lines: split each into helpers"
    assert not too_long, reason + "\n" + "\n".join(too_long)
