"""Builds the optional compiled modules; every other setting lives in pyproject.toml.

A machine without a C compiler (or without Python's headers) still installs gdvariant: the
builds of ``gdvariant._binary._cgdvariant`` (the codec core), ``gdvariant._files._cfastlz``
(FastLZ), ``gdvariant.replication._cassemble`` (the replication packet assembler),
``gdvariant.replication._cwrite`` (its NetClass write path), ``gdvariant.multiplayer._csync``
(SceneMultiplayer's network frame), ``gdvariant._text._ctext`` (the text writer and reader) and
``gdvariant._json._cjson`` (the Godot-dialect JSON writer) are allowed to fail, and the
pure-Python code is used.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing: the compiled modules are optimisations."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any build failure leaves the pure core
            _warn(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            _warn(exc)


def _warn(exc: Exception) -> None:
    print(
        f"warning: a compiled module of gdvariant was not built ({exc}); "
        "its pure-Python counterpart will be used",
        file=sys.stderr,
    )


def _extensions() -> list[Extension]:
    if os.environ.get("GDVARIANT_PURE_PYTHON") == "1":  # build without the compiled core
        return []
    flags = [] if sys.platform == "win32" else ["-O2", "-std=c99"]
    # the modules that include the shared header (by a path relative to their source): a
    # change to it rebuilds them, and the sdist carries it
    shared = ("gdvariant.replication._cassemble", "gdvariant.multiplayer._csync")
    return [
        Extension(
            name,
            [source],
            depends=["src/gdvariant/_cints.h"] if name in shared else [],
            extra_compile_args=flags + os.environ.get("GDVARIANT_CFLAGS", "").split(),
            extra_link_args=os.environ.get("GDVARIANT_LDFLAGS", "").split(),
            optional=True,
        )
        for name, source in (
            ("gdvariant._binary._cgdvariant", "src/gdvariant/_binary/_cgdvariant.c"),
            ("gdvariant._files._cfastlz", "src/gdvariant/_files/_cfastlz.c"),
            ("gdvariant._values._cvalues", "src/gdvariant/_values/_cvalues.c"),
            ("gdvariant.replication._cassemble", "src/gdvariant/replication/_cassemble.c"),
            ("gdvariant.replication._cwrite", "src/gdvariant/replication/_cwrite.c"),
            ("gdvariant.multiplayer._csync", "src/gdvariant/multiplayer/_csync.c"),
            ("gdvariant._text._ctext", "src/gdvariant/_text/_ctext.c"),
            ("gdvariant._json._cjson", "src/gdvariant/_json/_cjson.c"),
            ("gdvariant._net._cwsframes", "src/gdvariant/_net/_cwsframes.c"),
        )
    ]


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
