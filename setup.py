"""Builds the optional compiled core; every other setting lives in pyproject.toml.

A machine without a C compiler (or without Python's headers) still installs gdvariant: the
build of ``gdvariant._cgdvariant`` is allowed to fail, and the pure-Python core is used.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing: the compiled core is an optimisation."""

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
        f"warning: gdvariant's compiled core was not built ({exc}); "
        "the pure-Python core will be used",
        file=sys.stderr,
    )


def _extensions() -> list[Extension]:
    if os.environ.get("GDVARIANT_PURE_PYTHON") == "1":  # build without the compiled core
        return []
    flags = [] if sys.platform == "win32" else ["-O2", "-std=c99"]
    return [
        Extension(
            "gdvariant._cgdvariant",
            ["src/gdvariant/_cgdvariant.c"],
            extra_compile_args=flags + os.environ.get("GDVARIANT_CFLAGS", "").split(),
            extra_link_args=os.environ.get("GDVARIANT_LDFLAGS", "").split(),
            optional=True,
        )
    ]


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
