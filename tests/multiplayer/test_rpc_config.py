"""Reading ``@rpc`` annotations and ``rpc_config`` calls from GDScript
(gdvariant.multiplayer._rpc_config). Whether Godot agrees is checked on the engine:
tests/live/multiplayer/test_api.py reads the client project's scripts and compares with
``get_rpc_config()`` and ``get_node_rpc_config()``."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gdvariant.multiplayer import (
    RpcConfig,
    RpcMode,
    RpcTable,
    ScriptError,
    TransferMode,
    parse_rpc_annotations,
    parse_rpc_config_calls,
    read_script_rpcs,
)
from gdvariant.multiplayer.wire import NODE_RPC_FLAG, rpc_checksum

SCRIPT = """extends "res://base.gd"
# @rpc in a comment is nothing
const X = "@rpc func fake():"
@rpc("any_peer", "call_remote", "unreliable", 2) func fast(a, b := 3, c: int = 4) -> void:
\tpass

@rpc
@warning_ignore("unused_parameter")
func plain(x: Vector2):
\tpass

class Inner:
\t@rpc
\tfunc inner_one():
\t\tpass

@rpc("call_local", "reliable", "authority")
func rest(first, ...others: Array) -> void:
\tpass

@rpc("unreliable_ordered", "call_remote") func ordered(): pass
"""


def test_annotations_modes_and_parameters() -> None:
    found, extends = parse_rpc_annotations(SCRIPT)
    assert extends == "res://base.gd"
    assert found == {
        "fast": RpcConfig("fast", RpcMode.ANY_PEER, False, TransferMode.UNRELIABLE, 2, 1, 3),
        "plain": RpcConfig("plain", min_args=1, max_args=1),
        "rest": RpcConfig("rest", RpcMode.AUTHORITY, True, min_args=1, max_args=255),
        "ordered": RpcConfig(
            "ordered", transfer_mode=TransferMode.UNRELIABLE_ORDERED, min_args=0, max_args=0
        ),
    }


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('@rpc("anybody")\nfunc f(): pass\n', "'anybody' is not one of"),
        ('@rpc("any_peer", "authority")\nfunc f(): pass\n', "permission .* twice"),
        ('@rpc("reliable", "unreliable")\nfunc f(): pass\n', "transfer mode .* twice"),
        ('@rpc("reliable", "authority", 2)\nfunc f(): pass\n', "argument 3 is int .*4th"),
        ('@rpc("unreliable", 2)\nfunc f(): pass\n', "argument 2 is int"),
        ("@rpc(1.5)\nfunc f(): pass\n", "argument 1 is float"),
        ('@rpc("a", "b", "c", "d", "e")\nfunc f(): pass\n', "at most 4"),
        ('@rpc("any_peer", "call_local", "reliable", "2")\nfunc f(): pass\n', "must be an int"),
        ('@rpc("any_peer",, "call_local")\nfunc f(): pass\n', "empty item"),
        ("@rpc(CHANNEL)\nfunc f(): pass\n", "not a literal or a constant of this script"),
        ('@rpc("any_" + "peer")\nfunc f(): pass\n', "all the reader evaluates"),
        ('@rpc("any\\_peer")\nfunc f(): pass\n', "invalid escape"),
        (
            '@rpc("any_peer", "call_local", "reliable", -true)\nfunc f(): pass\n',
            "unary - of a bool",
        ),
        ("@rpc\nvar x = 1\n", "not on a function"),
        ("@rpc\nclass Inner:\n\tfunc f(): pass\n", "not on a function"),
        ('@rpc\n("any_peer")\nfunc f(): pass\n', "not on a function"),
        ("@rpc\nstatic var x = 1\n", "not on a function"),
        ("@rpc\n", "not on a function"),
        ("@rpc\n@rpc\nfunc f(): pass\n", "two @rpc"),
        ("@rpc\nfunc f(): pass\nfunc f(): pass\n", "declared twice"),
        ("class Inner:\n\t@rpc(2)\n\tfunc f(): pass\n", "line 2: @rpc argument 1 is int"),
    ],
)
def test_bad_annotations_are_refused(source: str, message: str) -> None:
    """What Godot 4.6 refuses (tests/live/multiplayer/test_rpc.py runs these shapes and
    more through the engine), and what the reader does not evaluate, refused with the line."""
    with pytest.raises(ScriptError, match=message):
        parse_rpc_annotations(source)


def test_annotation_arguments_take_godots_values() -> None:
    """Values Godot 4.6 gave these (its get_rpc_config()): constants of the script, string
    forms and escapes, the channel from a float, a bool or a wide int; a static function
    and an inner class's function (checked, not the script's)."""
    source = """class_name Probe extends "res://base.gd"
const MODE := &"any_peer"
const CHANNEL = -WIDE
@rpc(MODE, ^"call_local", r"unreliable", CHANNEL)
func a(): pass
@rpc("any_pe\\u0065r", "call_local", "reliable", 2.5e9)
static func b(): pass
@rpc('authority', '''call_remote''', "unreliable_ordered", true)
func c(): pass
@rpc("any_peer", "call_local", "reliable", +-(NAN))
func d(): pass
class Inner:
\tconst C = 2
\t@rpc("any_peer", "call_local", "reliable", C)
\tfunc inner(): pass
const WIDE = 9999999999
"""
    found, extends = parse_rpc_annotations(source)
    assert extends == "res://base.gd"
    modes = {name: (c.mode, c.call_local, c.transfer_mode, c.channel) for name, c in found.items()}
    assert modes == {
        "a": (RpcMode.ANY_PEER, True, TransferMode.UNRELIABLE, -1410065407),
        "b": (RpcMode.ANY_PEER, True, TransferMode.RELIABLE, -1794967296),
        "c": (RpcMode.AUTHORITY, False, TransferMode.UNRELIABLE_ORDERED, 1),
        "d": (RpcMode.ANY_PEER, True, TransferMode.RELIABLE, 0),
    }


def test_numbers_python_would_choke_on_are_refused_clearly() -> None:
    """A decimal literal of thousands of digits (beyond Python's int conversion limit) and
    one beyond 64 bits are refused with a message; a long float is a float."""
    for digits in ("9" * 5000, "9223372036854775808"):
        source = f'@rpc("any_peer", "call_local", "reliable", {digits})\nfunc f(): pass\n'
        with pytest.raises(ScriptError, match="does not fit in a 64-bit int"):
            parse_rpc_annotations(source)
    source = f'@rpc("any_peer", "call_local", "reliable", {"9" * 5000}.0)\nfunc f(): pass\n'
    assert parse_rpc_annotations(source)[0]["f"].channel == 0  # inf, as Godot keeps it


def test_a_bad_annotation_names_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "base.gd").write_text(
        'extends Node\n\n@rpc("reliable", "authority", 2)\nfunc f(): pass\n'
    )
    (tmp_path / "leaf.gd").write_text('extends "res://base.gd"\n')
    with pytest.raises(ScriptError) as info:
        read_script_rpcs(tmp_path, "res://leaf.gd")
    assert str(info.value).startswith(f"{tmp_path / 'base.gd'}: line 3: @rpc argument 3 is int")


def test_base_scripts_merge_derived_wins(tmp_path: Path) -> None:
    (tmp_path / "base.gd").write_text(
        'extends Node\n@rpc("any_peer")\nfunc shared(a): pass\n@rpc\nfunc only_base(): pass\n'
    )
    (tmp_path / "mid.gd").write_text(
        'class_name Mid\nextends "res://base.gd"\n@rpc("call_local")\nfunc shared(a, b): pass\n'
    )
    (tmp_path / "leaf.gd").write_text("extends Mid\n@rpc\nfunc Zed(): pass\n")
    table = read_script_rpcs(tmp_path, "res://leaf.gd")
    assert table.ids == {"Zed": 0, "only_base": 1, "shared": 2}  # code-point order: Z < o < s
    assert table.configs["shared"] == RpcConfig("shared", call_local=True, min_args=2, max_args=2)
    assert table.checksum == rpc_checksum(["Zed", "only_base", "shared"])
    with pytest.raises(ScriptError, match="no script file"):
        read_script_rpcs(tmp_path, "res://missing.gd")
    (tmp_path / "loop.gd").write_text('extends "res://loop.gd"\n')
    with pytest.raises(ScriptError, match="extends itself"):
        read_script_rpcs(tmp_path, "res://loop.gd")


@pytest.mark.parametrize(("low", "high"), [(None, None), (1, None), (None, 2), (2, 2), (0, 3)])
def test_arg_counts_are_what_check_args_lets_through(low: int | None, high: int | None) -> None:
    """The bounds a call is checked against without a message; worked out once, and not
    part of the config's value (equal, hashed and shown as before it was read)."""
    config = RpcConfig("a", min_args=low, max_args=high)
    fresh = RpcConfig("a", min_args=low, max_args=high)
    fewest, most = config.arg_counts
    assert config.arg_counts is config.arg_counts
    for count in range(258):
        try:
            config.check_args(count, "here")
            taken = True
        except TypeError:
            taken = False
        assert taken == (fewest <= count <= most), count
    assert config == fresh and hash(config) == hash(fresh) and repr(config) == repr(fresh)


def test_table_refuses_unknown_names_and_argument_counts() -> None:
    table = RpcTable(["b", RpcConfig("a", min_args=1, max_args=2)])
    assert table.ids == {"a": 0, "b": 1} and table.names == {0: "a", 1: "b"}
    with pytest.raises(ValueError, match=r"'c' is not an @rpc method \(it has: a, b"):
        table.config("c", "here")
    with pytest.raises(TypeError, match=r"a\(\) takes 1 to 2 arguments, 3 given"):
        table.configs["a"].check_args(3, "here")
    table.configs["b"].check_args(255, "here")  # unknown arity: anything Godot can send
    with pytest.raises(ValueError, match="declared twice"):
        RpcTable(["a", "a"])


def test_node_level_rpcs_come_first_with_the_flag() -> None:
    """``Node.rpc_config`` names: numbered before the script's, with 0x8000; a name in both
    lists is sent with its script id and its config is the script's."""
    both = RpcConfig("both", mode=RpcMode.ANY_PEER)
    table = RpcTable(["s", both], node_configs=["n", "both"])
    assert table.ids == {"both": 0, "n": NODE_RPC_FLAG | 1, "s": 1}
    assert table.by_id[NODE_RPC_FLAG] == RpcConfig("both")  # the node-level entry
    assert table.by_id[0] == both and table.configs["both"] == both
    assert table.names == {NODE_RPC_FLAG: "both", NODE_RPC_FLAG | 1: "n", 0: "both", 1: "s"}
    assert table.checksum == rpc_checksum(["s", "both"], ["n", "both"])


NODE_SCRIPT = """extends "res://base.gd"
const CONFIG = {"rpc_mode": MultiplayerAPI.RPC_MODE_ANY_PEER}


func _init() -> void:
\trpc_config(&"spin", {
\t\t"rpc_mode": MultiplayerAPI.RPC_MODE_ANY_PEER,
\t\t"transfer_mode": MultiplayerPeer.TRANSFER_MODE_UNRELIABLE_ORDERED,
\t\t"call_local": true,
\t\t"channel": 3,
\t\t"note": "Godot ignores keys it does not know",
\t})
\tself.rpc_config("jump", {rpc_mode = 2, channel = 0x1})  # a Lua-style dictionary
\trpc_config("gone", {"rpc_mode": 1})
\trpc_config("gone", null)  # null removes the name again
\t$Child.rpc_config("elsewhere", CONFIG)  # another node's: not this script's
\tvar s := "rpc_config('fake', x)"


class Inner:
\tfunc _init() -> void:
\t\trpc_config("inner", CONFIG)  # an inner class's node, not this one
"""


def test_rpc_config_calls_are_read_as_node_level_rpcs(tmp_path: Path) -> None:
    """A script's own ``rpc_config("name", {...})`` calls with literal dictionaries, read as
    Godot parses them: missing keys take Godot's defaults (reliable, call_remote, 0)."""
    found = parse_rpc_config_calls(NODE_SCRIPT)
    assert found == {
        "spin": RpcConfig(
            "spin",
            mode=RpcMode.ANY_PEER,
            transfer_mode=TransferMode.UNRELIABLE_ORDERED,
            call_local=True,
            channel=3,
        ),
        "jump": RpcConfig("jump", mode=RpcMode.AUTHORITY, channel=1),
    }
    (tmp_path / "base.gd").write_text(
        'extends Node\nfunc _ready():\n\trpc_config("jump", {"rpc_mode": 1})\n'
        '\trpc_config("base_only", {"rpc_mode": 0})\n@rpc\nfunc jump(): pass\n'
    )
    (tmp_path / "node.gd").write_text(NODE_SCRIPT)
    table = read_script_rpcs(tmp_path, "res://node.gd")
    # the derived script's call wins; a name with an @rpc too is called by its script id
    assert table.node_configs["jump"] == found["jump"]
    assert table.ids == {"base_only": NODE_RPC_FLAG, "jump": 0, "spin": NODE_RPC_FLAG | 2}
    assert table.checksum == rpc_checksum(["jump"], ["base_only", "jump", "spin"])
    assert read_script_rpcs(tmp_path, "res://node.gd", node_rpcs=False).node_configs == {}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("rpc_config(name, {})", "name 'name' is not a literal"),
        ('rpc_config(^"n", {"rpc_mode": 1})', "is not a literal"),
        ('rpc_config("n", CONFIG)', "is not a literal dictionary"),
        ('rpc_config("n", {"rpc_mode": mode})', "rpc_mode 'mode' is not a constant"),
        ('rpc_config("n", {"rpc_mode": MultiplayerAPI.RPC_MODE_SOMETIMES})', "not a constant"),
        ('rpc_config("n", {"rpc_mode": 7})', "rpc_mode 7 is not one Godot has"),
        ('rpc_config("n", {"transfer_mode": 1})', "no rpc_mode: Godot 4.6 skips such"),
        ('rpc_config("n", {"rpc_mode": 1} if a else null)', "is not a literal dictionary"),
        ('rpc_config("n", {KEYS[0]: 1})', "is not a constant"),
        ('rpc_config("n")', "takes a name and a config"),
        ('rpc_config("n", {"rpc_mode": 1e0})', "rpc_mode '1e0' is not a constant"),
        ('rpc_config("n", {"rpc_mode": 1, "channel": 0x__1})', "not a number GDScript reads"),
        ('rpc_config("n", {"rpc_mode": ' + "9" * 5000 + "})", "rpc_mode '9999"),
    ],
)
def test_rpc_config_calls_it_cannot_read_are_errors(call: str, message: str) -> None:
    with pytest.raises(ScriptError, match=message) as info:
        parse_rpc_config_calls(f"extends Node\nfunc _ready():\n\t{call}\n")
    assert "line 3" in str(info.value)
    if "literal" in message or "constant" in message:
        assert "node_rpcs=" in str(info.value)


_PIECES = [
    "@rpc", "@rpc(", "@abstract", "@warning_ignore(", "func", "static", "var", "const", "class",
    "extends", "class_name", "f", "g", "Inner", "C", "(", ")", ",", ":", "=", ":=", "-", "+",
    "...", ".", "[", "]", "{", "}", '"any_peer"', '"call_local"', '"reliable"', "'x'",
    '&"authority"', '"\\u0065"', '"\\q"', '"""', "2", "1.5", "0x1f", "1e999", "0b2", "1__0",
    "true", "null", "PI", "NAN", "rpc_config", '"n"', '{"rpc_mode": 1}', "self", "#", "\\",
]  # fmt: skip


@given(
    st.lists(
        st.tuples(st.sampled_from(_PIECES), st.sampled_from([" ", "", "\n", "\n\t", "\n\t\t"])),
        max_size=40,
    )
)
@settings(max_examples=400, deadline=None)
def test_any_script_is_read_or_refused_with_a_script_error(pieces: list[tuple[str, str]]) -> None:
    """GDScript-like token soup: the reader answers or raises ScriptError, nothing else."""
    source = "".join(piece + gap for piece, gap in pieces)
    for read in (parse_rpc_annotations, parse_rpc_config_calls):
        with contextlib.suppress(ScriptError):
            read(source)
