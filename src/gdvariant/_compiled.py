"""How gdvariant picks a compiled module over its pure-Python twin: once, at import.

Every compiled part follows one policy, as msgpack's accelerator does: the codec core
(``gdvariant._binary._cgdvariant``, chosen by :mod:`gdvariant._binary.core`), FastLZ
(``gdvariant._files._cfastlz``, chosen by :mod:`gdvariant._files.fastlz`), replication's packet
assembler (``gdvariant.replication._cassemble``, chosen by ``replication._assembler``) and
SceneMultiplayer's network frame (``gdvariant.multiplayer._csync``, chosen by
``multiplayer._frame``), replication's NetClass write path (``replication._cwrite``, chosen by
``replication._write_path``), the math value types' constructors (``_values._cvalues``, chosen
by ``_values.constructors``) and the WebSocket server's frame reader (``_net._cwsframes``,
chosen by ``_net.ws_frames``). The compiled module is live when it imports, else the pure-Python
code; ``GDVARIANT_PURE_PYTHON=1`` forces pure Python, and the compiled module is then not even
imported (tests can still load it, to compare the two). :class:`Switch` is the choice between a
pure module and its compiled twin of the same functions, with a block that makes the other one
live, for tests, and :func:`load_build` loads another build of a compiled module (a worktree's,
say) beside the live one, for a benchmark that compares the two builds in one process. This
module knows nothing of codecs: it only loads modules.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from types import ModuleType

__all__ = ["COMPILED", "PURE_FORCED", "PYTHON", "Compiled", "Switch", "load_build"]

#: The names of the two implementations.
PYTHON = "python"
COMPILED = "c"
#: ``GDVARIANT_PURE_PYTHON=1`` (any value but empty or ``0``) forces pure Python.
PURE_FORCED = os.environ.get("GDVARIANT_PURE_PYTHON", "") not in ("", "0")


class Compiled:
    """The compiled module ``name`` (``what`` names it in messages), loaded unless forced off."""

    def __init__(self, name: str, what: str) -> None:
        self.name, self.what = name, what
        self.module, self._error = (None, None) if PURE_FORCED else self._load()

    def _load(self) -> tuple[ModuleType | None, str | None]:
        try:
            return importlib.import_module(self.name), None
        except ImportError as exc:
            return None, f"compiled {self.what} not built ({exc})"

    @property
    def implementation(self) -> str:
        """What is live at import: ``"c"`` (compiled) or ``"python"``."""
        return COMPILED if self.module is not None else PYTHON

    def available(self) -> ModuleType | None:
        """The compiled module if it imports, even under ``GDVARIANT_PURE_PYTHON`` (for tests)."""
        if self.module is None and PURE_FORCED:
            return self._load()[0]
        return self.module

    def error(self) -> str | None:
        """Why the compiled module is not live (None when it is)."""
        if self.module is not None:
            return None
        if PURE_FORCED:
            error = self._load()[1]
            return "GDVARIANT_PURE_PYTHON is set" + (f"; {error}" if error else "")
        return self._error


class Switch:
    """A pure-Python module and its compiled twin (the same functions, the same results):
    ``module`` is the live one and ``implementation`` its name, chosen by ``compiled``."""

    def __init__(self, compiled: Compiled, pure: ModuleType) -> None:
        self.compiled, self.pure = compiled, pure
        self.implementation = compiled.implementation
        self.module: ModuleType = compiled.module or pure

    def implementations(self) -> dict[str, ModuleType]:
        """Every twin that imports, by name; the compiled one even under
        ``GDVARIANT_PURE_PYTHON``, for tests."""
        found = {PYTHON: self.pure}
        compiled = self.compiled.available()
        if compiled is not None:
            found[COMPILED] = compiled
        return found

    def error(self) -> str | None:
        """Why the compiled twin is not live (None when it is)."""
        return self.compiled.error()

    @contextmanager
    def use(self, name: str) -> Iterator[None]:
        """Make the twin ``name`` (``"python"`` or ``"c"``) live inside the block. For tests:
        it swaps a process-wide choice, so it is not for threads."""
        found = self.implementations()
        if name not in found:
            raise LookupError(f"no {name!r} {self.compiled.what}: {self.error()}")
        with self._live(name, found[name]):
            yield

    def use_build(self, module: ModuleType) -> AbstractContextManager[None]:
        """Make ``module``, another build of the compiled twin (:func:`load_build`), live
        inside the block: what is made inside (a world, its tables) must be used inside it
        only, since the two builds' objects may be laid out differently. Not for threads."""
        return self._live(COMPILED, module)

    @contextmanager
    def _live(self, name: str, module: ModuleType) -> Iterator[None]:
        saved = self.implementation, self.module
        self.implementation, self.module = name, module
        try:
            yield
        finally:
            self.implementation, self.module = saved


def load_build(name: str, path: str | os.PathLike[str]) -> ModuleType:
    """The compiled module ``name`` loaded from the file ``path`` (another build of it, e.g. a
    worktree's), beside the one ``import`` gives and not in ``sys.modules``. The file is
    loaded from a copy, so that even the live build's own file loads as a second module with
    state of its own."""
    if not os.fspath(path).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
        raise ImportError(f"{os.fspath(path)!r} is not a compiled module", path=os.fspath(path))
    live = sys.modules.get(name)
    try:
        with tempfile.TemporaryDirectory(prefix="gdvariant-build-") as folder:
            copy = shutil.copy(path, folder)
            loader = importlib.machinery.ExtensionFileLoader(name, copy)
            spec = importlib.util.spec_from_file_location(name, copy, loader=loader)
            assert spec is not None  # (a loader given, a spec is made)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
    finally:  # loading a module of one-phase init puts it in sys.modules: the import's stays
        if live is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = live
    return module
