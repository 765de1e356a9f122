"""Picking the codec core (``gdvariant._binary.core``) and the contract every core meets."""

from __future__ import annotations

import ast
import inspect
import os
import sys
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._binary import core as _core
from gdvariant._binary import pure as _pure
from tests.support import processes
from tests.support.cores import core

SRC = Path(gd.__file__).parent


def _run(code: str, **env: str) -> str:
    """Run ``code`` in a fresh interpreter (the core is picked at import) and return stdout."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GDVARIANT_PURE")}
    result = processes.run(
        [sys.executable, "-c", code],
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


def test_the_live_core_is_named() -> None:
    assert gd.IMPLEMENTATION == _core.IMPLEMENTATION
    assert gd.IMPLEMENTATION in ("c", "python")
    # The compiled core is live exactly when it imports (and the pure one is not forced).
    compiled = "c" in _core.implementations() and not _core.PURE_FORCED
    assert (gd.IMPLEMENTATION == "c") == compiled


def test_the_pure_core_is_always_there() -> None:
    cores = _core.implementations()
    assert cores["python"] is _pure
    assert set(cores) <= {"python", "c"}


def test_without_the_compiled_core_the_reason_is_given() -> None:
    if "c" in _core.implementations():
        assert _core.compiled_error() is None or _core.PURE_FORCED
    else:
        assert "compiled core not built" in str(_core.compiled_error())


@pytest.mark.parametrize("value", ["1", "yes"])
def test_gdvariant_pure_python_forces_the_pure_core(value: str) -> None:
    out = _run(
        "import gdvariant, gdvariant._binary.core as c;"
        "print(gdvariant.IMPLEMENTATION, c.compiled_error())",
        GDVARIANT_PURE_PYTHON=value,
    )
    assert out.startswith("python GDVARIANT_PURE_PYTHON is set")


@pytest.mark.parametrize("value", ["", "0"])
def test_an_empty_or_zero_switch_forces_nothing(value: str) -> None:
    out = _run("import gdvariant; print(gdvariant.IMPLEMENTATION)", GDVARIANT_PURE_PYTHON=value)
    assert out == ("c" if "c" in _core.implementations() else "python")


def test_use_runs_the_public_api_on_a_chosen_core() -> None:
    calls: list[str] = []

    class Spy:
        @staticmethod
        def decode_value(*args: object) -> tuple[object, int]:
            calls.append("decode")
            return _pure.decode_value(*args)  # type: ignore[arg-type]

        @staticmethod
        def encode_value(*args: object) -> bytes:
            calls.append("encode")
            return _pure.encode_value(*args)  # type: ignore[arg-type]

        @staticmethod
        def decode_whole(*args: object) -> object:
            calls.append("decode")
            return _pure.decode_whole(*args)  # type: ignore[arg-type]

    cores = _core.implementations()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_core, "implementations", lambda: {**cores, "spy": Spy})
        with _core.use("spy"):
            assert _core.IMPLEMENTATION == "spy"
            assert gd.loads(gd.dumps([1, "a"])) == [1, "a"]
            gd.StreamDecoder().feed(gd.frame(5))
    assert calls == ["encode", "decode", "encode", "decode"]
    assert _core.IMPLEMENTATION == gd.IMPLEMENTATION  # restored on leaving the block


def test_use_refuses_an_unknown_core() -> None:
    with pytest.raises(LookupError, match="no 'fortran' core"), _core.use("fortran"):
        pass


@pytest.mark.parametrize("name", ["decode_value", "decode_whole", "encode_value"])
def test_the_pure_core_has_the_contract_signatures(name: str) -> None:
    expected = {
        "decode_value": ["data", "profile", "allow_objects", "offset", "limits", "packed_views"],
        "decode_whole": ["data", "profile", "allow_objects", "limits", "packed_views"],
        "encode_value": ["value", "profile", "full_objects"],
    }[name]
    assert list(inspect.signature(getattr(_pure, name)).parameters) == expected


def _imports(path: Path) -> set[str]:
    """The gdvariant modules ``path`` imports, as dotted names relative to the package."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            parts = path.parent.relative_to(SRC).parts
            package = parts[: len(parts) - (node.level - 1)]
            base = ".".join((*package, *([node.module] if node.module else [])))
            names.add(base.strip("."))
            names.update(f"{base}.{alias.name}".strip(".") for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gdvariant"):
            names.add(node.module.removeprefix("gdvariant").strip("."))  # type: ignore[union-attr]
    return names


def test_only_the_pure_core_imports_the_decoder_and_encoder() -> None:
    importers = {
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if _imports(path) & {"_binary.decoder", "_binary.encoder"}
    }
    assert importers == {"_binary/pure.py"}


def test_only_the_codec_object_calls_the_core() -> None:
    importers = {
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if _imports(path) & {"_binary.core", "_binary.pure"}
    }
    # __init__ reads the name of the live core; the CLI prints it; loads/dumps with the default
    # options go straight to the core (a small message costs no more than the decoding); the
    # compiled core's tables are read from the pure core.
    assert importers == {
        "_binary/codec.py",
        "_binary/core.py",
        "__init__.py",
        "_cli/versions.py",
        "_binary/api.py",
        "_binary/ctables.py",
    }


def test_a_missing_compiled_core_skips_or_fails_when_required(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_core, "implementations", lambda: {"python": _pure})
    monkeypatch.setattr(_core, "compiled_error", lambda: "compiled core not built (test)")
    monkeypatch.delenv("GDVARIANT_REQUIRE_COMPILED", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"compiled core not built \(test\)"):
        core("c")
    monkeypatch.setenv("GDVARIANT_REQUIRE_COMPILED", "1")
    with pytest.raises(pytest.fail.Exception, match="GDVARIANT_REQUIRE_COMPILED is set but"):
        core("c")
    assert core("python") is _pure
