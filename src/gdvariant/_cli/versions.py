"""``gdvariant versions``: the engine releases gdvariant speaks, and what each supports."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._binary import core
from .._compiled import COMPILED, PURE_FORCED
from .._engines.profiles import PROFILES, Profile
from ._common import command_parser

EXAMPLES = """\
  gdvariant versions
  gdvariant versions --json
"""


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "versions",
        help="list the engine versions gdvariant speaks",
        description="List every engine version (-V) and what its format supports.",
        examples=EXAMPLES,
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps({name: p.describe() for name, p in PROFILES.items()}, indent=2))
        print(_core_line(), file=sys.stderr)
        print(_assembler_line(), file=sys.stderr)
        print(_write_path_line(), file=sys.stderr)
        return 0
    for name, profile in PROFILES.items():
        alias = f" (= {profile.name})" if name != profile.name else ""
        print(f"{name:<16}{profile.engine}{alias}: {', '.join(_features(profile))}")
    print(_core_line())
    print(_assembler_line())
    print(_write_path_line())
    return 0


def _core_line() -> str:
    """Which codec core is live, and why not the compiled one when it is not."""
    if core.IMPLEMENTATION == core.COMPILED:
        return "# codec core: c (compiled)"
    return f"# codec core: python (pure Python; {core.compiled_error()})"


def _assembler_line() -> str:
    """Which replication packet assembler is live, and why not the compiled one."""
    from ..replication import IMPLEMENTATION

    if IMPLEMENTATION == COMPILED:
        return "# replication assembler: c (compiled)"
    why = "GDVARIANT_PURE_PYTHON is set" if PURE_FORCED else "compiled assembler not built"
    return f"# replication assembler: python (pure Python; {why})"


def _write_path_line() -> str:
    """Which NetClass write path is live, and why not the compiled one."""
    from ..replication import write_path

    if write_path() == COMPILED:
        return "# replication write path: c (compiled)"
    why = "GDVARIANT_PURE_PYTHON is set" if PURE_FORCED else "compiled write path not built"
    return f"# replication write path: python (pure Python; {why})"


def _features(profile: Profile) -> list[str]:
    """One line's worth of what a profile supports."""
    info = profile.describe()
    features = [f"{len(profile.wire_ids)} types"]
    for key, label in (
        ("typed_arrays", "typed Array"),
        ("typed_dictionaries", "typed Dictionary"),
        ("double_builds", "double builds"),
    ):
        if info[key]:
            features.append(label)
    if not profile.int64:
        features.append("32-bit int and float only")
    if not profile.objects:
        features.append("no objects")
    depth = profile.max_depth
    features.append(f"depth limit {depth}" if depth is not None else "no depth limit")
    return features
