"""What a node's ``@rpc`` functions are: read from a client project's GDScript, or declared.

Godot numbers a node's RPC methods by sorting their names (``rpc_method_ids``); both sides
must hold the same name set, or every id after the first difference shifts and the wrong
method is called. A server learns the set either by reading the client's ``.gd`` files
(:func:`read_script_rpcs`: the ``@rpc(...)`` annotations of the script and of the scripts
it extends, as the GDScript compiler merges them, and the node-level names its own
``rpc_config("name", {...})`` calls add) or from a Python declaration
(:class:`RpcTable` built from :class:`RpcConfig` entries). Each entry keeps what Godot keeps
per method: who may call it (``mode``), whether the caller runs it too (``call_local``), the
transfer mode and channel, and here also how many arguments the function takes.
docs/multiplayer.md ("The `@rpc` rules of Godot 4.6") lists what the reader accepts.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ._script_syntax import (
    NotEvaluated,
    ScriptError,
    Token,
    Value,
    constant_value,
    constants,
    group,
    number_value,
    string_value,
    tokenize,
    type_name,
)
from .wire import rpc_checksum, rpc_method_ids

__all__ = [
    "RpcConfig",
    "RpcMode",
    "RpcTable",
    "ScriptError",
    "TransferMode",
    "parse_rpc_annotations",
    "parse_rpc_config_calls",
    "read_script_rpcs",
]


class RpcMode(enum.IntEnum):
    """``MultiplayerAPI.RPCMode``: who may call the method."""

    DISABLED = 0
    ANY_PEER = 1
    AUTHORITY = 2


class TransferMode(enum.IntEnum):
    """``MultiplayerPeer.TransferMode``: how a packet travels (ENet honours it; WebSocket is
    always reliable and ordered)."""

    UNRELIABLE = 0
    UNRELIABLE_ORDERED = 1
    RELIABLE = 2


#: The string arguments of ``@rpc`` and what each sets (gdscript_parser.cpp, rpc_annotation).
_WORDS: dict[str, tuple[str, object]] = {
    "any_peer": ("mode", RpcMode.ANY_PEER),
    "authority": ("mode", RpcMode.AUTHORITY),
    "call_local": ("call_local", True),
    "call_remote": ("call_local", False),
    "reliable": ("transfer_mode", TransferMode.RELIABLE),
    "unreliable": ("transfer_mode", TransferMode.UNRELIABLE),
    "unreliable_ordered": ("transfer_mode", TransferMode.UNRELIABLE_ORDERED),
}


@dataclass(frozen=True)
class RpcConfig:
    """One RPC method, with Godot's defaults (authority, call_remote, reliable, channel 0).

    ``min_args``/``max_args`` are the function's parameter counts (without/with the ones that
    have defaults); None when unknown (a Python declaration that does not say).
    """

    name: str
    mode: RpcMode = RpcMode.AUTHORITY
    call_local: bool = False
    transfer_mode: TransferMode = TransferMode.RELIABLE
    channel: int = 0
    min_args: int | None = None
    max_args: int | None = None

    @functools.cached_property
    def arg_counts(self) -> tuple[int, int]:
        """The fewest and the most arguments the function takes (0 and 255 when unknown):
        worked out once, as every call checks them (docs/multiplayer.md, "An RPC's way in
        and out")."""
        low = self.min_args if self.min_args is not None else 0
        high = self.max_args if self.max_args is not None else 255
        return low, high

    def check_args(self, count: int, where: str) -> None:
        """Refuse a call with a number of arguments the function does not take."""
        low, high = self.arg_counts
        if not low <= count <= high:
            takes = str(low) if low == high else f"{low} to {high}"
            raise TypeError(f"{where}: {self.name}() takes {takes} arguments, {count} given")


class RpcTable:
    """A node's RPC methods as Godot numbers them: ids, md5 checksum, configs by name.

    ``configs`` are the script's ``@rpc`` functions; ``node_configs`` the node-level ones
    (``Node.rpc_config`` calls), which Godot numbers first, with ``NODE_RPC_FLAG``.
    """

    def __init__(
        self,
        configs: Iterable[RpcConfig | str] = (),
        node_configs: Iterable[RpcConfig | str] = (),
    ) -> None:
        script, node = _by_name(configs), _by_name(node_configs)
        #: the script's (``@rpc``) and the node-level (``rpc_config``) entries, by name
        self.script_configs, self.node_configs = script, node
        #: by name; a name in both lists is called by its script entry, as in Godot
        self.configs: dict[str, RpcConfig] = {**node, **script}
        self.ids = rpc_method_ids(script, node)
        #: by the id a caller sends (a name in both lists answers to both ids)
        self.by_id = {i: node[n] for n, i in rpc_method_ids((), node).items()}
        self.by_id.update({i: script[n] for n, i in rpc_method_ids(script).items()})
        self.names = {i: config.name for i, config in self.by_id.items()}
        self.checksum = rpc_checksum(script, node)

    def config(self, method: str, where: str) -> RpcConfig:
        """The config of ``method``; a name that is no RPC of this node is refused loudly."""
        config = self.configs.get(method)
        if config is None:
            known = ", ".join(sorted(self.configs)) or "none"
            raise ValueError(f"{where}: {method!r} is not an @rpc method (it has: {known})")
        return config

    def __repr__(self) -> str:
        return f"RpcTable({sorted(self.configs)})"


def _by_name(items: Iterable[RpcConfig | str]) -> dict[str, RpcConfig]:
    configs: dict[str, RpcConfig] = {}
    for item in items:
        config = RpcConfig(item) if isinstance(item, str) else item
        if config.name in configs:
            raise ValueError(f"RPC {config.name!r} is declared twice")
        configs[config.name] = config
    return configs


#: What each ``@rpc`` setting is called in messages (Godot's three kinds of word).
_KINDS = {
    "mode": "permission (any_peer/authority)",
    "call_local": "locality (call_local/call_remote)",
    "transfer_mode": "transfer mode (reliable/unreliable/unreliable_ordered)",
}
_DECLARE_RPCS = "write a literal, or declare the node's RPCs with rpcs=[RpcConfig(...)]"


def _channel(value: Value, line: int) -> int:
    """The 4th ``@rpc`` argument as Godot 4.6 keeps it: an int (a bool or a float converts,
    toward zero) cut to 32 bits; a float beyond 64 bits, an infinity or NaN becomes 0."""
    if isinstance(value, str) or value is None:
        raise ScriptError(
            f"line {line}: @rpc argument 4 (the channel) must be an int, not {type_name(value)}"
        )
    if isinstance(value, float):
        finite = math.isfinite(value) and -(2.0**63) <= value < 2.0**63
        value = int(value) if finite else -(1 << 63)
    number = int(value) & 0xFFFFFFFF
    return number - (1 << 32) if number >= 1 << 31 else number


def _rpc_settings(
    args: list[list[Token]], line: int, consts: Mapping[str, list[Token]], lenient: bool
) -> dict[str, object]:
    """The settings of ``@rpc(args)``, refused where Godot 4.6 refuses them: at most 4
    arguments, constants only; the first three Strings, each one of the words (a kind of
    word at most once, in any order); the 4th the channel. ``lenient`` (an inner class's
    annotation, whose settings nobody reads) lets arguments the reader cannot evaluate pass.
    """
    if len(args) > 4:
        raise ScriptError(f"line {line}: @rpc takes at most 4 arguments, {len(args)} given")
    settings: dict[str, object] = {}
    for number, arg in enumerate(args, 1):
        try:
            value = constant_value(arg, consts, line)
        except NotEvaluated as exc:
            if lenient:
                continue
            raise ScriptError(
                f"line {line}: @rpc argument {number} ({exc}) is not a literal or a constant "
                f"of this script, which is all the reader evaluates; {_DECLARE_RPCS}"
            ) from None
        if number == 4:
            settings["channel"] = _channel(value, line)
            continue
        if not isinstance(value, str):
            text = " ".join(t.text for t in arg[:12])[:60]
            raise ScriptError(
                f"line {line}: @rpc argument {number} is {type_name(value)} ({text}): the "
                "first three are Strings (the permission, locality and transfer mode words); "
                "only the 4th, the channel, is an int"
            )
        if value not in _WORDS:
            choices = ", ".join(_WORDS)
            raise ScriptError(f"line {line}: @rpc argument {value[:40]!r} is not one of {choices}")
        key, setting = _WORDS[value]
        if key in settings:
            raise ScriptError(f"line {line}: @rpc sets its {_KINDS[key]} twice")
        settings[key] = setting
    return settings


def _parameters(tokens: list[Token], start: int) -> tuple[int, int, int]:
    """(required, total) parameter counts of the ``(...)`` at ``start``, and where it ends."""
    params, end = group(tokens, start)
    required = total = 0
    for param in params:
        if param[0].text == "...":  # a rest parameter takes any number
            return required, 255, end
        total += 1
        if not any(t.kind == "op" and t.text == "=" for t in param):
            required += 1
    return required, total, end


@dataclass(frozen=True)
class _Pending:
    """An ``@rpc`` waiting for its function."""

    settings: dict[str, object]
    line: int
    inner: bool  # in an inner class: checked (Godot refuses the script over it), not kept


def _annotation(
    tokens: list[Token],
    i: int,
    pending: _Pending | None,
    consts: Mapping[str, list[Token]],
    zero_lines: set[int],
) -> tuple[int, _Pending | None]:
    """The annotation at ``tokens[i]`` (``@``): where it ends, and the ``@rpc`` waiting."""
    at, name = tokens[i], tokens[i + 1]
    i += 2
    args: list[list[Token]] = []
    if i < len(tokens) and tokens[i].text == "(" and tokens[i].line == name.line:
        args, i = group(tokens, i)
    if name.text != "rpc":
        return i, pending
    if pending is not None:
        raise ScriptError(f"line {at.line}: two @rpc annotations on one function")
    inner = at.line not in zero_lines
    settings = _rpc_settings(args, at.line, {} if inner else consts, lenient=inner)
    return i, _Pending(settings, at.line, inner)


def _extends(tokens: list[Token], i: int) -> str | None:
    """The target of the ``extends`` at ``tokens[i]``: a path, a class name, or None."""
    target = tokens[i + 1] if i + 1 < len(tokens) else None
    if target is not None and target.kind == "string":
        return string_value(target.text, target.line)
    if target is not None and target.kind == "name":
        return target.text
    return None


def parse_rpc_annotations(source: str) -> tuple[dict[str, RpcConfig], str | None]:
    """The ``@rpc`` functions of one GDScript (top-level ones: inner classes have their own,
    though their annotations are checked too, since Godot refuses the whole script over
    them), and its ``extends`` target (a ``"res://..."`` path, a class name, or None). An
    annotation Godot 4.6 refuses raises ScriptError with its line."""
    tokens = tokenize(source)
    consts = constants(tokens)
    zero_lines = {t.line for t in tokens if t.column_zero}  # the script's own statements
    found: dict[str, RpcConfig] = {}
    functions: set[str] = set()  # the top-level ones, for a name declared twice
    extends: str | None = None
    pending: _Pending | None = None
    annotated = -1  # where the last annotation ended: a func there is a declaration
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if pending is not None and tok.text not in ("@", "func", "static"):
            raise ScriptError(f"line {pending.line}: @rpc is not on a function")
        if tok.text == "@" and i + 1 < len(tokens) and tokens[i + 1].kind == "name":
            i, pending = _annotation(tokens, i, pending, consts, zero_lines)
            annotated = i
            continue
        if tok.kind == "name" and tok.text == "extends" and tok.line in zero_lines:
            if tok.column_zero or (i >= 2 and tokens[i - 2].text == "class_name"):
                extends = _extends(tokens, i)
        elif tok.kind == "name" and tok.text == "static" and pending is not None:
            if i + 1 >= len(tokens) or tokens[i + 1].text != "func":
                raise ScriptError(f"line {pending.line}: @rpc is not on a function")
            annotated = i + 1
        elif tok.kind == "name" and tok.text == "func":
            declared = i == 0 or i == annotated or tokens[i - 1].line < tok.line
            declared = declared or tokens[i - 1].text == "static"
            if not declared or i + 2 >= len(tokens) or tokens[i + 1].kind != "name":
                if pending is not None:  # a lambda
                    raise ScriptError(f"line {pending.line}: @rpc is not on a function")
                i += 1
                continue
            method = tokens[i + 1].text
            if tokens[i + 2].text != "(":
                raise ScriptError(f"line {tok.line}: func {method} has no parameter list")
            required, total, i = _parameters(tokens, i + 2)
            if tok.line in zero_lines:
                if method in functions:
                    raise ScriptError(f"line {tok.line}: function {method} is declared twice")
                functions.add(method)
            if pending is not None and not pending.inner:
                config = RpcConfig(method, min_args=required, max_args=total, **pending.settings)  # type: ignore[arg-type]
                found[method] = config
            pending = None
            continue
        i += 1
    if pending is not None:
        raise ScriptError(f"line {pending.line}: @rpc is not on a function")
    return found, extends


#: ``MultiplayerAPI.RPC_MODE_*`` and ``MultiplayerPeer.TRANSFER_MODE_*`` as a config
#: dictionary names them, and the setting each key of the dictionary is
_CONSTANTS: dict[str, int] = {
    **{f"MultiplayerAPI.RPC_MODE_{m.name}": m.value for m in RpcMode},
    **{f"MultiplayerPeer.TRANSFER_MODE_{m.name}": m.value for m in TransferMode},
}
_CONFIG_KEYS = {
    "rpc_mode": RpcMode,
    "transfer_mode": TransferMode,
    "call_local": bool,
    "channel": int,
}
_DECLARE = "declare the node's rpc_config names with SceneMultiplayer.node(..., node_rpcs=[...])"


def _config_value(key: str, tokens: list[Token], line: int) -> object:
    """One value of an ``rpc_config`` dictionary: a named constant, an int, true or false."""
    text = "".join(t.text for t in tokens)
    value: Value = None
    if len(tokens) == 1 and tokens[0].kind == "number":
        with contextlib.suppress(NotEvaluated):  # beyond 64 bits: not a constant here
            value = number_value(text, line)
    if text in ("true", "false"):
        number = int(text == "true")
    elif text in _CONSTANTS:
        number = _CONSTANTS[text]
    elif isinstance(value, int):
        number = value
    else:
        raise ScriptError(
            f"line {line}: rpc_config {key} {text[:40]!r} is not a constant; {_DECLARE}"
        )
    if key == "call_local":
        return bool(number)
    if key == "channel":
        return number
    try:
        return RpcMode(number) if key == "rpc_mode" else TransferMode(number)
    except ValueError:
        raise ScriptError(f"line {line}: rpc_config {key} {number} is not one Godot has") from None


def _config_dict(name: str, tokens: list[Token], line: int) -> RpcConfig:
    """An ``rpc_config`` dictionary literal (``{"key": value}`` or ``{key = value}``)."""
    if len(tokens) < 2 or tokens[0].text != "{" or tokens[-1].text != "}":
        text = " ".join(t.text for t in tokens)
        raise ScriptError(
            f"line {line}: rpc_config({name!r}, {text}) is not a literal dictionary; {_DECLARE}"
        )
    items, end = group(tokens, 0)
    if end != len(tokens):
        raise ScriptError(f"line {line}: rpc_config({name!r}, ...) is not a literal dictionary")
    settings: dict[str, object] = {}
    for item in items:
        split = next((i for i, t in enumerate(item) if t.text in (":", "=")), None)
        key_tokens = item[:split] if split is not None else item
        if split is None or len(key_tokens) != 1 or key_tokens[0].kind not in ("string", "name"):
            text = " ".join(t.text for t in item)
            raise ScriptError(
                f"line {line}: rpc_config entry {text!r} is not a constant; {_DECLARE}"
            )
        key = key_tokens[0].text
        key = string_value(key, line) if key_tokens[0].kind == "string" else key
        if key in _CONFIG_KEYS:  # Godot reads these four and ignores any other key
            settings[key] = _config_value(key, item[split + 1 :], line)
    if "rpc_mode" not in settings:
        raise ScriptError(
            f"line {line}: rpc_config({name!r}) has no rpc_mode: Godot 4.6 skips such an entry "
            "but still counts it when numbering the others, which a server cannot follow"
        )
    mode = settings.pop("rpc_mode")
    return RpcConfig(name, mode=mode, **settings)  # type: ignore[arg-type]


def parse_rpc_config_calls(source: str) -> dict[str, RpcConfig]:
    """The node-level RPCs one GDScript gives its own node: its ``rpc_config("name", {...})``
    (or ``self.rpc_config``, or ``&"name"``) calls outside inner classes, in source order (a
    later call replaces an earlier one, ``null`` removes the name). Calls on other objects
    (``$Child.rpc_config``) configure other nodes and are not this script's. A call whose
    name or dictionary is not a literal raises ScriptError: declare those with
    ``node_rpcs=``."""
    tokens = tokenize(source)
    found: dict[str, RpcConfig] = {}
    inner = False
    for i, tok in enumerate(tokens):
        if tok.column_zero:
            inner = tok.text == "class"
        if inner or tok.kind != "name" or tok.text != "rpc_config":
            continue
        if i + 1 >= len(tokens) or tokens[i + 1].text != "(":
            continue  # not a call (a reference, or this script's own func rpc_config)
        before = tokens[i - 1] if i else None
        if before is not None and before.text == "func":
            continue
        if before is not None and before.text == "." and (i < 2 or tokens[i - 2].text != "self"):
            continue  # another object's rpc_config
        args, _ = group(tokens, i + 1)
        if len(args) != 2:
            raise ScriptError(f"line {tok.line}: rpc_config takes a name and a config")
        name_arg, config = args
        if len(name_arg) != 1 or name_arg[0].kind != "string" or name_arg[0].text[0] in "^r":
            text = " ".join(t.text for t in name_arg)
            raise ScriptError(
                f"line {tok.line}: rpc_config name {text!r} is not a literal; {_DECLARE}"
            )
        name = string_value(name_arg[0].text, tok.line)
        if len(config) == 1 and config[0].text == "null":
            found.pop(name, None)
            continue
        found.pop(name, None)
        found[name] = _config_dict(name, config, tok.line)
    return found


def _class_names(project: Path) -> Mapping[str, Path]:
    names: dict[str, Path] = {}
    for path in sorted(project.rglob("*.gd")):
        match = re.search(r"^class_name\s+([A-Za-z_][A-Za-z_0-9]*)", path.read_text(), re.M)
        if match:
            names[match.group(1)] = path
    return names


def read_script_rpcs(project: str | Path, script: str, *, node_rpcs: bool = True) -> RpcTable:
    """The RPC table of the script ``script`` (``res://...`` or a path inside ``project``),
    its base scripts' ``@rpc`` functions included, as the GDScript compiler merges them
    (a base's entry is replaced by an override with its own annotation). With
    ``node_rpcs``, the node-level names the scripts' own ``rpc_config`` calls add too (the
    base's first, so that the derived script's call wins); without, those calls are not
    read (the caller declares them)."""
    root = Path(project)
    configs: dict[str, RpcConfig] = {}
    node: dict[str, RpcConfig] = {}
    chain: list[Path] = []
    target: str | None = script
    class_names: Mapping[str, Path] | None = None
    while target is not None:
        if target.startswith("res://") or target.endswith(".gd"):
            path = root / target.removeprefix("res://")
        else:
            class_names = class_names if class_names is not None else _class_names(root)
            if target not in class_names:
                break  # a native class (Node, Node2D...): no script RPCs beyond here
            path = class_names[target]
        if path in chain:
            raise ScriptError(f"{script}: extends itself through {path}")
        if not path.is_file():
            raise ScriptError(f"{script}: no script file {path}")
        chain.append(path)
        source = path.read_text(encoding="utf-8")
        try:
            own, target = parse_rpc_annotations(source)
            calls = parse_rpc_config_calls(source) if node_rpcs else {}
        except ScriptError as exc:
            raise ScriptError(f"{path}: {exc}") from None
        configs = {**own, **configs}  # walking up: what the derived script said wins
        node = {**calls, **node}
    return RpcTable(configs.values(), node.values())
