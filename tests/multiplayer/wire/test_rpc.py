"""REMOTE_CALL and RPC method numbering (gdvariant.multiplayer.wire._rpc); bytes by hand."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gdvariant import DEFAULT_LIMITS, DecodeError, Limits, PackedInt32Array, Vector2
from gdvariant.multiplayer.wire import (
    NODE_RPC_FLAG,
    RemoteCall,
    decode_scene_packet,
    encode_scene_packet,
    rpc_checksum,
    rpc_method_ids,
)
from gdvariant.multiplayer.wire._rpc import short_call, write_short_call
from gdvariant.multiplayer.wire._version import LATEST, WireVersion

PATH = b"Main/Players/Player\0"

CASES = [
    # take_damage(10) on cache id 2, method 2: meta 0, u8 node, u8 name, argc 1, INT 10
    (RemoteCall(2, (10,), node_id=2), "00" "02" "02" "01" "020a"),
    # node id 255 still fits a byte; 256 needs u16 (bits 4-5 = 1), 65536 u32 (= 2)
    (RemoteCall(0, (), node_id=255), "80" "ff" "00"),
    (RemoteCall(0, (), node_id=256), "90" "0001" "00"),
    (RemoteCall(0, (), node_id=65536), "a0" "00000100" "00"),
    # a forced 4-byte plain id (Godot's mixed confirmed / unconfirmed targets)
    (RemoteCall(1, (7,), node_id=2, node_id_size=4), "20" "02000000" "01" "01" "0207"),
    (RemoteCall(1, (7,), node_id=2, node_id_size=2), "10" "0200" "01" "01" "0207"),
    # method id above 255 and a node-level RPC: bit 6, u16
    (RemoteCall(300, (), node_id=1), "c0" "01" "2c01"),
    (RemoteCall(NODE_RPC_FLAG, (42,), node_id=4), "40" "04" "0080" "01" "022a"),
    # raw: no arguments; one PackedByteArray verbatim
    (RemoteCall(0, (b"\xde\xad",), node_id=2), "80" "02" "00" "dead"),
    # two arguments: no raw flag, argc 2
    (RemoteCall(1, (1, "two"), node_id=2),
     "00" "02" "01" "02" "0201" "04000000" "03000000" "74776f00"),
    # path form: L = 1 + 4 + 1 + 1 + 2 = 9 bytes before the path
    (RemoteCall(7, (10,), path="Main/Players/Player"),
     "20" "09000080" "07" "01" "020a" + PATH.hex()),
    (RemoteCall(1, (Vector2(1, 0),), path="Main/Players/Player"),
     "20" "13000080" "01" "01" "05000000" "0000803f" "00000000" + PATH.hex()),
    (RemoteCall(4, (), path="Main"), "a0" "06000080" "04" + b"Main\0".hex()),
]  # fmt: skip


@pytest.mark.parametrize(("call", "hex_"), CASES)
def test_layouts(call: RemoteCall, hex_: str) -> None:
    assert encode_scene_packet(call).hex() == hex_
    assert decode_scene_packet(bytes.fromhex(hex_)) == call


def test_one_empty_packed_byte_array_is_sent_with_its_argument_count() -> None:
    """Raw, it would be ``80 02 00``: a call with no arguments, which is what a Godot 4.6
    client makes of it (and what a Godot server sends for it); with argc 1 and the array,
    the client gets it (both checked in tests/live/multiplayer/test_rpc.py)."""
    for empty in (b"", bytearray(), memoryview(b"")):
        data = encode_scene_packet(RemoteCall(0, (empty,), node_id=2))
        assert data.hex() == "00" "02" "00" "01" "1d000000" "00000000"  # fmt: skip
        assert decode_scene_packet(data) == RemoteCall(0, (b"",), node_id=2)
    # what Godot sends for it, read as Godot reads it: no arguments
    assert decode_scene_packet(bytes.fromhex("800200")) == RemoteCall(0, (), node_id=2)


def test_other_packed_arrays_are_not_raw() -> None:
    """They subclass bytes, but only a PackedByteArray takes the raw form (the live test
    caught a lone PackedColorArray sent as raw bytes)."""
    one = PackedInt32Array([7])
    data = encode_scene_packet(RemoteCall(0, (one,), node_id=2))
    assert data.hex() == "00" "02" "00" "01" "1e000000" "01000000" "07000000"  # fmt: skip
    assert decode_scene_packet(data) == RemoteCall(0, (one,), node_id=2)
    assert encode_scene_packet(RemoteCall(0, (bytearray(b"\1"),), node_id=2)).hex() == "80020001"


def test_path_without_nul_is_accepted() -> None:
    call = decode_scene_packet(bytes.fromhex("a0060000800441"))
    assert call == RemoteCall(4, (), path="A")


@pytest.mark.parametrize(
    "hex_",
    [
        "300100",  # node id size 3
        "00",  # no node id
        "0002",  # no method id
        "000201",  # no argc
        "000201020201",  # argc 2, one argument
        "000201010201ff",  # trailing byte
        "20ff0000800041",  # path offset past the end
        "20020000800041",  # path offset inside the node id
        "400201",  # truncated u16 method id
    ],
)
def test_malformed(hex_: str) -> None:
    with pytest.raises(DecodeError):
        decode_scene_packet(bytes.fromhex(hex_))


def test_encode_limits() -> None:
    with pytest.raises(ValueError, match="at most 255"):
        encode_scene_packet(RemoteCall(0, tuple(range(256)), node_id=1))
    with pytest.raises(ValueError, match="16 bits"):
        encode_scene_packet(RemoteCall(0x10000, (), node_id=1))
    with pytest.raises(ValueError, match="does not fit"):
        encode_scene_packet(RemoteCall(0, (), node_id=0x10000, node_id_size=2))
    with pytest.raises(ValueError, match="out of range"):
        encode_scene_packet(RemoteCall(0, (), node_id=0x80000000))


def test_method_ids_sort_by_code_point() -> None:
    ids = rpc_method_ids(["take_damage", "set_input", "play_anim", "Zed", "_x"])
    assert ids == {"Zed": 0, "_x": 1, "play_anim": 2, "set_input": 3, "take_damage": 4}


def test_node_level_rpcs_come_first_with_the_flag() -> None:
    ids = rpc_method_ids(["b", "a"], ["z", "dyn"])
    assert ids == {"a": 0, "b": 1, "dyn": 0x8000, "z": 0x8001}


def test_a_name_in_both_lists_takes_its_script_id() -> None:
    assert rpc_method_ids(["b", "a"], ["b"]) == {"a": 0, "b": 1}
    assert rpc_checksum(["b", "a"], ["b"]) == hashlib.md5(b"bab").hexdigest()


def test_checksum_is_md5_of_names_in_id_order() -> None:
    names = ["take_damage", "set_input", "play_anim"]
    assert rpc_checksum(names) == "46f4e97099221d2cfbd49096060e6031"
    assert rpc_checksum([]) == hashlib.md5(b"").hexdigest()
    assert rpc_checksum(["b"], ["a"]) == hashlib.md5(b"ab").hexdigest()


def _read(read: Callable[[bytes, WireVersion, bool, Limits], RemoteCall], data: bytes) -> object:
    """The call ``read`` makes of ``data``, or its DecodeError as (message, offset)."""
    try:
        return read(data, LATEST, False, DEFAULT_LIMITS)
    except DecodeError as exc:
        return ("error", str(exc), exc.offset)


SHORT = ["000201", "000201020201", "000201010201ff", "00020000", "0802010281c1"]
#: One argument, read without the general loop: INT of each width, BOOL (mode bits set too),
#: a float, each of them cut or followed by a byte by the tests.
ONE_ARG = [
    "0002010102ff",
    "000201014280ff",
    "00020101827856341200",
    "00020101c2efcdab9078563412",
    "0002010101",
    "0002010181",
    "00020101c1",
    "000201010300008040",
]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([hex_ for _, hex_ in CASES] + SHORT),
    st.binary(max_size=4),
    st.integers(0, 12),
)
def test_the_short_form_is_read_as_every_form_is(hex_: str, tail: bytes, cut: int) -> None:
    """``decode`` reads a call with a 1-byte node and method id itself; what it makes of any
    packet (cut, with bytes after, or not of that form) is what the general reader makes."""
    data = bytes.fromhex(hex_)
    for packet in (data, data + tail, data[: max(1, len(data) - cut)]):
        assert _read(RemoteCall.decode, packet) == _read(RemoteCall._decode, packet)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([hex_ for _, hex_ in CASES] + SHORT + ONE_ARG + ["0001000102"]),
    st.binary(max_size=4),
    st.integers(0, 12),
)
def test_the_packet_reader_reads_the_short_form_as_every_form_is(
    hex_: str, tail: bytes, cut: int
) -> None:
    """``decode_scene_packet`` reads a ``00`` call itself (``read_short_call``): the same call,
    or the same error, as the general reader makes of it, whole, cut, with bytes after, or
    from a bytearray."""
    data = bytes.fromhex(hex_)
    for packet in (data, data + tail, data[: max(1, len(data) - cut)]):

        def whole(data: bytes, *_: object) -> RemoteCall:
            call = decode_scene_packet(bytearray(data))
            assert isinstance(call, RemoteCall)
            return call

        assert _read(whole, packet) == _read(RemoteCall._decode, packet)


def test_a_call_made_without_init_is_the_same_call() -> None:
    """``short_call`` skips the frozen dataclass's ``__init__``: equal, hashed, shown, frozen,
    replaced and pickled as the one ``__init__`` makes."""
    made, fast = RemoteCall(3, (1, "a"), node_id=7), short_call(3, (1, "a"), 7)
    assert fast == made
    assert hash(fast) == hash(made)
    assert (
        repr(fast)
        == repr(made)
        == "RemoteCall(method_id=3, args=(1, 'a'), node_id=7, path=None, node_id_size=0)"
    )
    assert dataclasses.replace(fast, node_id=8) == RemoteCall(3, (1, "a"), node_id=8)
    assert pickle.loads(pickle.dumps(fast)) == made
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.node_id = 1  # type: ignore[misc]
    assert decode_scene_packet(bytes.fromhex("0007030202010203")) == short_call(3, (1, 3), 7)


def _written(write: Callable[[], bytes]) -> object:
    """The bytes ``write`` makes, or its ValueError's message."""
    try:
        return write()
    except ValueError as exc:
        return ("error", str(exc))


ARGS = [0, -129, 40000, 2**40, True, "run", b"", b"\x01", bytearray(b"\x02")]
#: Single arguments at the edges of the INT widths the answer's writer writes itself.
EDGES = [-(2**15) - 1, -(2**15), -129, -128, -1, 0, 127, 128, 255, 2**15 - 1, 2**15, False, 1.5]


@pytest.mark.parametrize("arg", EDGES)
def test_one_argument_is_written_as_the_general_writer_writes_it(arg: object) -> None:
    """``write_short_call`` writes a lone INT of 8 or 16 bits whole: the general writer's bytes."""
    assert write_short_call(2, 7, (arg,)) == RemoteCall(7, (arg,), node_id=2)._encode(False)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([0, 1, 255, 256, -1, 0x80000000]),
    st.sampled_from([0, 7, 255, 256, 0x10000, -1]),
    st.sampled_from([0, 1, 2, 4]),
    st.lists(st.sampled_from(ARGS), max_size=3),
    st.booleans(),
)  # fmt: skip
def test_the_short_form_is_written_as_every_form_is(
    node_id: int, method_id: int, size: int, args: list[object], with_path: bool
) -> None:
    """``encode`` writes a call by a 1-byte cache id and method id itself: the same bytes
    (or the same error) as the general writer, for every form near that one's edges."""
    path = "Main/Thing" if with_path else None
    call = RemoteCall(method_id, tuple(args), node_id=node_id, path=path, node_id_size=size)
    assert _written(call.encode) == _written(lambda: call._encode(False))
    if path is None and size == 0:  # the writer an answer uses: those bytes, or None
        short = write_short_call(node_id, method_id, tuple(args))
        assert short is None or short == call._encode(False)
