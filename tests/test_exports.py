"""The public surface: ``gdvariant.__all__`` is exactly the public names."""

from __future__ import annotations

import importlib
import types
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._binary import core as _core

# The private modules whose __all__ is public API. (_binary.encoder/decoder, _values.layouts
# and the rest export machinery for the other private modules — Encoder, decode_value —
# reached through _binary.api; _files.fastlz is used by _files.containers only.)
API_MODULES: list[types.ModuleType] = [
    importlib.import_module(f"gdvariant.{name}")
    for name in (
        "_errors",
        "_limits",
        "_values.base",
        "_values.collections",
        "_values.godot2",
        "_values.math",
        "_values.packed",
        "_engines.profiles",
        "_binary.api",
        "_text.parser",
        "_text.writer",
        "_json.api",
        "_files.containers",
        "_files.detect",
        "_files.store_var",
        "_net.framing",
    )
]
# Names defined in __init__ itself.
OWN_NAMES = {"IMPLEMENTATION", "__version__"}


def test_all_has_no_duplicates() -> None:
    assert len(gd.__all__) == len(set(gd.__all__))


def test_every_name_in_all_exists() -> None:
    for name in gd.__all__:
        assert hasattr(gd, name), name


def test_private_modules_are_re_exported() -> None:
    for module in API_MODULES:
        for name in module.__all__:
            assert name in gd.__all__, f"{module.__name__}.{name} is not exported"
            assert getattr(gd, name) is getattr(module, name)


def test_all_is_exactly_the_api_modules_plus_own_names() -> None:
    from_modules = {name for module in API_MODULES for name in module.__all__}
    assert set(gd.__all__) == from_modules | OWN_NAMES


def test_no_private_names_in_all() -> None:
    for name in gd.__all__:
        assert not name.startswith("_") or name == "__version__", name


def test_no_public_name_outside_all() -> None:
    public = {
        name
        for name, value in vars(gd).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    # `annotations` is the __future__ feature object from `from __future__ import annotations`.
    assert public - set(gd.__all__) <= {"annotations"}


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, Any] = {}
    exec("from gdvariant import *", namespace)
    namespace.pop("__builtins__")
    assert set(namespace) == set(gd.__all__)


def test_exported_classes_and_functions_live_in_the_package() -> None:
    for name in gd.__all__:
        value = getattr(gd, name)
        if isinstance(value, type | types.FunctionType):
            assert value.__module__.startswith("gdvariant."), name


def test_module_metadata() -> None:
    assert isinstance(gd.__version__, str)
    assert gd.__version__.count(".") >= 2
    # The compiled core when it is built (and not switched off), else the pure one.
    built = "c" in _core.implementations() and not _core.PURE_FORCED
    assert ("c" if built else "python") == gd.IMPLEMENTATION


def test_error_hierarchy() -> None:
    assert issubclass(gd.DecodeError, gd.VariantError)
    assert issubclass(gd.EncodeError, gd.VariantError)
    assert issubclass(gd.DecodeError, ValueError)
    assert issubclass(gd.EncodeError, ValueError)
    assert issubclass(gd.VariantError, Exception)
    assert int(gd.GodotError.ERR_INVALID_DATA) == 30  # core/error/error_list.h (spec §7)
    assert int(gd.GodotError.ERR_UNAUTHORIZED) == 4
    assert int(gd.GodotError.ERR_FILE_EOF) == 18
    assert int(gd.GodotError.ERR_OUT_OF_MEMORY) == 6


def test_variant_type_numbers() -> None:
    # Spec §1: Godot 4 Variant::Type numbering.
    t = gd.VariantType
    assert [t.NIL, t.BOOL, t.INT, t.FLOAT, t.STRING] == [0, 1, 2, 3, 4]
    assert (t.TRANSFORM2D, t.VECTOR4, t.VECTOR4I, t.PROJECTION) == (11, 12, 13, 19)
    assert (t.COLOR, t.STRING_NAME, t.NODE_PATH, t.OBJECT) == (20, 21, 22, 24)
    assert (t.DICTIONARY, t.ARRAY, t.PACKED_BYTE_ARRAY) == (27, 28, 29)
    assert (t.PACKED_COLOR_ARRAY, t.PACKED_VECTOR4_ARRAY) == (37, 38)
    assert len([m for m in t if m < 100]) == 39
    # Types Godot 4 lacks (Godot 2, Pandemonium) are numbered from 100 up.
    assert (t.IMAGE, t.INPUT_EVENT, t.PACKED_TYPED_ARRAY) == (100, 101, 106)
    assert [int(c) for c in gd.ContainerKind] == [0, 1, 2, 3]


def test_replication_subpackage_exports() -> None:
    from gdvariant import replication

    assert len(replication.__all__) == len(set(replication.__all__))
    namespace: dict[str, Any] = {}
    exec("from gdvariant.replication import *", namespace)
    namespace.pop("__builtins__")
    assert set(namespace) == set(replication.__all__)
    public = {
        name
        for name, value in vars(replication).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public - set(replication.__all__) <= {"annotations"}
    for name in replication.__all__:
        value = getattr(replication, name)
        if isinstance(value, type | types.FunctionType):
            assert value.__module__.startswith("gdvariant.replication."), name


# -- gdvariant.multiplayer: the game's API, and its wire in a namespace of its own ------------

#: What a Godot developer uses: SceneMultiplayer, spawners and synchronizers, @rpc configs,
#: the sans-I/O server for a transport of one's own, and the errors.
MULTIPLAYER_API = {
    "DEFAULT_AUTH_TIMEOUT",
    "AuthData",
    "ClassStats",
    "CpuTime",
    "NetStats",
    "PeerStats",
    "StatsLevel",
    "Traffic",
    "TrafficRate",
    "Event",
    "Notifier",
    "PacketDropped",
    "PacketReceived",
    "PathCheck",
    "PeerAuthenticating",
    "PeerAuthenticationFailed",
    "PeerConnected",
    "PeerDisconnected",
    "ProtocolError",
    "ReplicatedProperty",
    "ReplicationConfig",
    "ReplicationMode",
    "RpcConfig",
    "RpcMode",
    "RpcTable",
    "SceneMultiplayer",
    "ScriptError",
    "ServerProtocol",
    "SpawnableScene",
    "SpawnedNode",
    "Spawner",
    "SyncedClass",
    "TransferMode",
    "Transport",
    "TransportListener",
    "every",
    "read_script_rpcs",
    "run",
    "scene_tscn",
    "synced_class",
}
#: Every packet, its codecs, the compressed Variant form, caches, counters, wire versions.
WIRE_API = {
    "CUSTOM_SCENE",
    "EMPTY_CHECKSUM",
    "NODE_RPC_FLAG",
    "WIRE_VERSIONS",
    "AddPeer",
    "Auth",
    "Command",
    "ConfirmPath",
    "DelPeer",
    "DeltaState",
    "DeltaSync",
    "Despawn",
    "InboundSyncTime",
    "NetIds",
    "Packet",
    "Raw",
    "ReceiveCache",
    "Relay",
    "RemoteCall",
    "SendCache",
    "SimplifyPath",
    "Spawn",
    "Sync",
    "SyncClock",
    "SyncState",
    "SysCommand",
    "WireVersion",
    "decode_compressed",
    "decode_compressed_list",
    "decode_scene_packet",
    "encode_compressed",
    "encode_compressed_list",
    "encode_scene_packet",
    "is_path_net_id",
    "path_net_id",
    "rpc_checksum",
    "rpc_method_ids",
    "wire_version",
}
#: ``gdvariant.multiplayer.__all__`` before the wire had its own namespace (0.1.0).
MULTIPLAYER_ALL_BEFORE = {
    "CUSTOM_SCENE",
    "DEFAULT_AUTH_TIMEOUT",
    "EMPTY_CHECKSUM",
    "NODE_RPC_FLAG",
    "PROTOCOLS",
    "AddPeer",
    "Auth",
    "AuthData",
    "Authenticator",
    "AuthVerdict",
    "Command",
    "ConfirmPath",
    "decode_compressed",
    "decode_compressed_list",
    "decode_packet",
    "DelPeer",
    "DeltaState",
    "DeltaSync",
    "Despawn",
    "encode_compressed",
    "encode_compressed_list",
    "encode_packet",
    "Event",
    "get_protocol",
    "InboundSyncTime",
    "is_path_net_id",
    "NetIds",
    "Packet",
    "PacketDropped",
    "PacketReceived",
    "parse_rpc_annotations",
    "parse_rpc_config_calls",
    "path_net_id",
    "PeerAuthenticating",
    "PeerAuthenticationFailed",
    "PeerConnected",
    "PeerDisconnected",
    "Protocol",
    "ProtocolError",
    "Raw",
    "read_script_rpcs",
    "ReceiveCache",
    "Relay",
    "RelayRoute",
    "RemoteCall",
    "ReplicatedProperty",
    "ReplicationConfig",
    "ReplicationMode",
    "route_relay",
    "rpc_checksum",
    "rpc_method_ids",
    "RpcConfig",
    "RpcMode",
    "RpcTable",
    "scene_tscn",
    "SceneMultiplayer",
    "ScriptError",
    "SendCache",
    "ServerProtocol",
    "Signal",
    "SimplifyPath",
    "Spawn",
    "SpawnableScene",
    "SpawnedNode",
    "Spawner",
    "Sync",
    "SyncClock",
    "synced_class",
    "SyncedClass",
    "SyncState",
    "SysCommand",
    "TransferMode",
    "Transport",
}
#: The old names of what was renamed, and the new ones (CHANGELOG.md).
MULTIPLAYER_RENAMED = {
    "Protocol": "wire.WireVersion",
    "PROTOCOLS": "wire.WIRE_VERSIONS",
    "get_protocol": "wire.wire_version",
    "decode_packet": "wire.decode_scene_packet",
    "encode_packet": "wire.encode_scene_packet",
    "Signal": "Notifier",
}


def test_multiplayer_all_is_the_game_api_and_wire_all_the_packets() -> None:
    from gdvariant import multiplayer
    from gdvariant.multiplayer import wire

    for module, expected in ((multiplayer, MULTIPLAYER_API), (wire, WIRE_API)):
        assert len(module.__all__) == len(set(module.__all__)), module.__name__
        assert set(module.__all__) == expected, module.__name__
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
        namespace: dict[str, Any] = {}
        exec(f"from {module.__name__} import *", namespace)
        namespace.pop("__builtins__")
        assert set(namespace) == set(module.__all__)


def test_multiplayer_private_modules_are_reachable_from_their_package() -> None:
    """Every name a private module exports is its package's (the transports' shared base,
    ``_endpoint``, is reached through ``websocket`` and ``enet``)."""
    from gdvariant import multiplayer
    from gdvariant.multiplayer import wire

    for package in (multiplayer, wire):
        folder = Path(package.__file__ or "").parent
        for path in sorted(folder.glob("_*.py")):
            if path.stem in ("__init__", "_endpoint", "_renamed"):
                continue
            module = importlib.import_module(f"{package.__name__}.{path.stem}")
            for name in getattr(module, "__all__", ()):
                assert getattr(package, name) is getattr(module, name), f"{module.__name__}.{name}"


def test_multiplayer_names_say_one_thing() -> None:
    """No name of the multiplayer API or its wire is also a different thing of the codec's
    or of replication's (``decode_packet``, ``Signal`` were)."""
    from gdvariant import multiplayer, replication
    from gdvariant.multiplayer import wire

    for module in (multiplayer, wire):
        assert set(module.__all__) & set(gd.__all__) == set(), module.__name__
        assert set(module.__all__) & set(replication.__all__) == set(), module.__name__
    assert wire.WireVersion.__name__ == "WireVersion"  # not typing.Protocol's name


def test_every_name_multiplayer_had_still_imports() -> None:
    """What left ``multiplayer.__all__`` is importable from it as before: moved names as
    the same objects, renamed ones with a DeprecationWarning that names the new one."""
    from gdvariant import multiplayer
    from gdvariant.multiplayer import wire

    for name in sorted(MULTIPLAYER_ALL_BEFORE - set(MULTIPLAYER_RENAMED)):
        value = getattr(multiplayer, name)
        if name in WIRE_API:
            assert value is getattr(wire, name), name
    for old, new in MULTIPLAYER_RENAMED.items():
        with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
            value = getattr(multiplayer, old)
        current: Any = multiplayer
        for part in new.split("."):
            current = getattr(current, part)
        if callable(current) and old in ("decode_packet", "encode_packet"):
            continue  # keyword-compatible wrappers (protocol=), checked below
        assert value is current, old
    with pytest.warns(DeprecationWarning):
        from gdvariant.multiplayer import decode_packet, encode_packet
    data = encode_packet(wire.Despawn(7), protocol="4.2")
    assert decode_packet(data, protocol="4.2") == wire.Despawn(7)
    with pytest.raises(AttributeError):
        getattr(multiplayer, "NoSuchName")  # noqa: B009


@pytest.mark.parametrize(
    "name",
    [
        "gdvariant",
        "gdvariant.asyncio",
        "gdvariant.sync",
        "gdvariant.websocket",
        "gdvariant.replication",
        "gdvariant.multiplayer",
        "gdvariant.multiplayer.websocket",
        "gdvariant.multiplayer.enet",
    ],
)
def test_public_import_paths_stay(name: str) -> None:
    """The folders moved private modules only: every public path imports as before."""
    assert importlib.import_module(name).__name__ == name


def test_the_command_line_entry_point_stays() -> None:
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "gdvariant"]
    assert script.value == "gdvariant._cli:main"
    assert callable(script.load())
