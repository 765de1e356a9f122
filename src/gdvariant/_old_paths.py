"""The module paths of the flat layout, still importable, so that older pickles load.

A pickle names a class by the module that defines it (``gdvariant._math.Vector2``). When the
private modules moved into folders, those paths went away; :func:`install` puts a finder at
the end of ``sys.meta_path`` that answers an import of an old path with the module now at
its new one, and nothing else. Nothing in gdvariant imports an old path: they are for data
written before the move, not for code.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["OLD_PATHS", "install"]

#: Each old module path and the module that now holds its contents.
OLD_PATHS = {
    "gdvariant._api": "gdvariant._binary.api",
    "gdvariant._codec": "gdvariant._binary.codec",
    "gdvariant._collections": "gdvariant._values.collections",
    "gdvariant._color_names": "gdvariant._values.color_names",
    "gdvariant._containers": "gdvariant._files.containers",
    "gdvariant._convert": "gdvariant._cli._portability",
    "gdvariant._core": "gdvariant._binary.core",
    "gdvariant._ctables": "gdvariant._binary.ctables",
    "gdvariant._decoder": "gdvariant._binary.decoder",
    "gdvariant._detect": "gdvariant._files.detect",
    "gdvariant._element_rules": "gdvariant._engines.element_rules",
    "gdvariant._encoder": "gdvariant._binary.encoder",
    "gdvariant._fastlz": "gdvariant._files.fastlz_pure",
    "gdvariant._framing": "gdvariant._net.framing",
    "gdvariant._godot_sort": "gdvariant._text.godot_sort",
    "gdvariant._guess": "gdvariant._files.guess",
    "gdvariant._inspect": "gdvariant._cli._fields",
    "gdvariant._json_godot": "gdvariant._json.godot",
    "gdvariant._json_godot_parse": "gdvariant._json.godot_parse",
    "gdvariant._json_tagged": "gdvariant._json.tagged",
    "gdvariant._json_tagged_read": "gdvariant._json.tagged_read",
    "gdvariant._json_tagged_write": "gdvariant._json.tagged_write",
    "gdvariant._key_rules": "gdvariant._engines.key_rules",
    "gdvariant._layouts": "gdvariant._values.layouts",
    "gdvariant._legacy": "gdvariant._values.godot2",
    "gdvariant._literal": "gdvariant._cli._literal",
    "gdvariant._math": "gdvariant._values.math",
    "gdvariant._outbox": "gdvariant._net.outbox",
    "gdvariant._packed": "gdvariant._values.packed",
    "gdvariant._parts": "gdvariant._binary.parts",
    "gdvariant._peerlog": "gdvariant._net.peerlog",
    "gdvariant._profiles": "gdvariant._engines.profiles",
    "gdvariant._pure": "gdvariant._binary.pure",
    "gdvariant._reals": "gdvariant._engines.reals",
    "gdvariant._records": "gdvariant._files.store_var",
    "gdvariant._savefile": "gdvariant._files.wrapping",
    "gdvariant._text_float": "gdvariant._floats",
    "gdvariant._text_parser": "gdvariant._text.parser",
    "gdvariant._text_syntax": "gdvariant._engines.text_syntax",
    "gdvariant._text_writer": "gdvariant._text.writer",
    "gdvariant._types": "gdvariant._values.base",
    "gdvariant._websockets": "gdvariant._net.ws_connections",
}


class _Moved(Loader):
    """Gives the module at the new path for an import of the old one, unchanged."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.spec: ModuleSpec | None = None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.new)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run; only give back the module's own spec, which the import system
        replaced with the old path's."""
        module.__spec__ = self.spec


class _OldPaths(MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        new = OLD_PATHS.get(fullname)
        return None if new is None else ModuleSpec(fullname, _Moved(new))


def install() -> None:
    """Answer imports of the old paths (once per process; last, after every real finder)."""
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(_OldPaths())
