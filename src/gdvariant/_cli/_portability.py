"""Values of one engine release for another: every value the target cannot hold, and where.

The value model is the same for every release, so converting is decoding with one profile and
encoding with the other. What cannot convert (a ``StringName`` or ``Vector2i`` for Godot 3, Godot
2's ``Image`` for Godot 4, a typed Array before 4.3, a lone surrogate for Godot 4...) is an
:class:`EncodeError` from the target's encoder. A Dictionary the target can write but would read
back shorter is one too: Godot 4 holds two ``{}`` keys that Godot 3 kept apart as one key
(:mod:`gdvariant._engines.key_rules`). :func:`problems` finds every one of them, not just the first,
each with its path inside the value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .._binary.codec import VariantCodec, codec_for
from .._engines.key_rules import RULES, KeyRules, key_token
from .._engines.profiles import Profile
from .._errors import EncodeError, key_repr
from .._values.base import GodotObject
from .._values.collections import Dictionary, TypedArray

__all__ = ["Problem", "problems"]


@dataclass(frozen=True)
class Problem:
    """A value that cannot convert: which record (or None for a lone value), where, and why."""

    record: int | None
    path: str
    reason: str

    def __str__(self) -> str:
        where = f"record {self.record}" if self.record is not None else "the value"
        return f"{where}{' at ' + self.path if self.path else ''}: {self.reason}"


def _children(value: Any) -> list[tuple[str, Any]]:
    """(path step, child) of a container; keys get their own step."""
    if isinstance(value, GodotObject):
        return [(f".{name}", child) for name, child in value.properties]
    if isinstance(value, dict | Dictionary):
        pairs = value.items_list if isinstance(value, Dictionary) else list(value.items())
        steps: list[tuple[str, Any]] = []
        for index, (key, child) in enumerate(pairs):
            steps.append((f"{{key #{index}}}", key))
            steps.append((f"[{key_repr(key)}]", child))
        return steps
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        return [(f"[{index}]", child) for index, child in enumerate(value)]
    return []


def _shell(value: Any) -> Any:
    """The container with nothing in it: whether the target has the container type at all."""
    if isinstance(value, TypedArray):
        return TypedArray(value.element_type)
    if isinstance(value, Dictionary):
        return Dictionary({}, value.key_type, value.value_type)
    if isinstance(value, GodotObject):
        return GodotObject(value.class_name)
    return None


@dataclass
class _Frame:
    """A container being walked: its children left, its path, and its own problem, which
    counts only if none of its children has one (``before``: problems found until then)."""

    children: Iterator[tuple[str, Any]]
    path: str
    whole: tuple[str, str] | None
    before: int


def _walk(value: Any, path: str, profile: Profile, full: bool) -> list[tuple[str, str]]:
    """(path, reason) of every part of ``value`` the target cannot hold, depth first: a leaf's
    own error, a container type the target lacks, or a container that fails as a whole (too
    deep, too large...). Walks without recursion, since values nest to Godot's depth limit."""
    codec = codec_for(profile, False, False, full)
    found: list[tuple[str, str]] = []
    frames: list[_Frame] = []
    _enter(value, path, codec, found, frames)
    while frames:
        frame = frames[-1]
        step = next(frame.children, None)
        if step is None:
            frames.pop()
            if frame.whole is not None and len(found) == frame.before:
                found.append(frame.whole)
            continue
        name, child = step
        _enter(child, frame.path + name, codec, found, frames)
    return found


def _enter(
    value: Any, path: str, codec: VariantCodec, found: list[tuple[str, str]], frames: list[_Frame]
) -> None:
    """Check one value: a problem of its own, or a frame to walk its children."""
    try:
        codec.encode(value)
        return
    except EncodeError as exc:
        reason = exc.reason
    children = _children(value)
    if not children:
        found.append((path, reason))
        return
    shell = _shell(value)
    if shell is not None:
        try:
            codec.encode(shell)
        except EncodeError as inner:
            found.append((path, inner.reason))
    whole = (path, reason) if shell is None else None
    frames.append(_Frame(iter(children), path, whole, len(found)))


def _folded(value: Any, path: str, rules: KeyRules, engine: str) -> Iterator[tuple[str, str]]:
    """Every Dictionary key, at any depth, that the engine would hold as one with an earlier key
    of the same Dictionary (and so keep one pair of the two). Walks without recursion, since
    values nest to Godot's depth limit."""
    stack = [(value, path)]
    while stack:
        node, where = stack.pop()
        children = _children(node)
        if isinstance(node, dict | Dictionary):
            seen: dict[tuple[Any, ...], int] = {}
            for index, (step, key) in enumerate(children[0::2]):
                token = key_token(key, rules)
                if token in seen:
                    yield (
                        where + step,
                        f"{engine} holds this key and key #{seen[token]} as one key, "
                        "so it would keep one of the two pairs",
                    )
                else:
                    seen[token] = index
        stack.extend((child, where + step) for step, child in reversed(children))


def problems(
    values: Iterable[Any], profile: Profile, *, records: bool = True, full_objects: bool = False
) -> list[Problem]:
    """Every value in ``values`` (records, or one lone value) that ``profile`` cannot encode,
    or whose Dictionary keys the engine would fold into fewer."""
    found = []
    for index, value in enumerate(values):
        record = index if records else None
        for path, reason in _walk(value, "", profile, full_objects):
            found.append(Problem(record, path, reason))
        if profile.key_rules:
            for path, reason in _folded(value, "", RULES[profile.key_rules], profile.engine):
                found.append(Problem(record, path, reason))
    return found
