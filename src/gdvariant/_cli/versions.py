"""``gdvariant versions``: the engine releases gdvariant speaks, and what each supports."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .._binary import core
from .._compiled import COMPILED, PURE_FORCED
from .._engines.profiles import PROFILES, Profile
from .._json import core as json_core
from .._text import core as text_core
from .._values import constructors
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
        for line in _compiled_lines():
            print(line, file=sys.stderr)
        return 0
    for name, profile in PROFILES.items():
        alias = f" (= {profile.name})" if name != profile.name else ""
        print(f"{name:<16}{profile.engine}{alias}: {', '.join(_features(profile))}")
    for line in _compiled_lines():
        print(line)
    return 0


def _compiled_lines() -> list[str]:
    """Which of each compiled part and its pure-Python twin is live, and why not the
    compiled one when it is not."""
    from ..replication import IMPLEMENTATION, write_path

    parts = [
        ("value constructors", constructors.IMPLEMENTATION, constructors.compiled_error()),
        ("codec core", core.IMPLEMENTATION, core.compiled_error()),
        ("text writer and reader", text_core.IMPLEMENTATION, "compiled text not built"),
        ("JSON writer and reader", json_core.IMPLEMENTATION, "compiled JSON not built"),
        ("replication assembler", IMPLEMENTATION, "compiled assembler not built"),
        ("replication write path", write_path(), "compiled write path not built"),
    ]
    lines = []
    for what, live, error in parts:
        if live == COMPILED:
            lines.append(f"# {what}: c (compiled)")
        else:
            why = "GDVARIANT_PURE_PYTHON is set" if PURE_FORCED else error
            lines.append(f"# {what}: python (pure Python; {why})")
    return lines


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
