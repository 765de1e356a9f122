"""REMOTE_CALL (command 0) and how both sides number a node's RPC methods.

Byte 0: bits 4-5 the node target size (u8/u16/u32), bit 6 the method id size (u8/u16),
bit 7 "raw": no argc byte, and either no arguments or one PackedByteArray written verbatim.
The node target is the sender's path cache id, or ``0x80000000 | L`` with the node path
appended after the first ``L`` bytes when the receiver has not confirmed that id yet.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Self

from ... import Limits
from ._reader import Reader, cstr, pack_u16, pack_u32
from ._variant import (
    BOOL,
    BOOL_TRUE,
    INT,
    INT_BY_MODE,
    MODE_SHIFT,
    TYPE_MASK,
    _decode_counted,
    decode_compressed_list,
    encode_compressed,
    encode_compressed_list,
)
from ._version import LATEST, Command, WireVersion

__all__ = ["NODE_RPC_FLAG", "RemoteCall", "rpc_checksum", "rpc_method_ids"]

NODE_SIZE_SHIFT = 4
NAME_SIZE_SHIFT = 6
RAW_FLAG = 0x80
PATH_FLAG = 0x80000000
#: Added to the ids of node-level RPCs (``Node.rpc_config``), which come before script RPCs.
NODE_RPC_FLAG = 0x8000
MAX_ARGS = 255
#: (size code, byte count, packer) for the node target, smallest first.
NODE_FORMS = ((0, 1, lambda v: bytes([v])), (1, 2, pack_u16), (2, 4, pack_u32))
READERS = {0: Reader.u8, 1: Reader.u16, 2: Reader.u32}
#: The meta bits that are all clear in the short form :meth:`RemoteCall.decode` reads first
#: (node id in one byte, method id in one, not raw), and where its arguments start.
SHORT_MASK = 0xF0
SHORT_ARGS = 4
#: The command byte of the short form (REMOTE_CALL, no flag), as a plain int.
SHORT_HEAD = int(Command.REMOTE_CALL)


#: The Python types the encoder writes as a PackedByteArray. The other packed arrays subclass
#: bytes too, so an isinstance check would send them raw, as bytes they are not.
BYTE_ARRAYS = (bytes, bytearray, memoryview)


def _is_raw(args: tuple[Any, ...]) -> bool:
    """Godot's raw form: no arguments, or one PackedByteArray that is not empty. Raw, one
    empty PackedByteArray is the same bytes as no arguments, which is what a receiver makes
    of it (Godot 4.6 sends it so, and its client then calls the method with none); in the
    general form, with its argument count, a Godot receiver gets the empty array."""
    if not args:
        return True
    return len(args) == 1 and type(args[0]) in BYTE_ARRAYS and memoryview(args[0]).nbytes > 0


@dataclass(frozen=True)
class RemoteCall:
    """One RPC: method ``method_id`` on the node the sender calls ``node_id`` (its cache id),
    or on ``path`` (relative to ``/root``) for a receiver that has not confirmed the id.

    ``node_id_size`` forces the node id's width (1, 2 or 4 bytes; 0 = the smallest that holds
    it). Godot writes 4 bytes when one call goes to peers of which some have not confirmed the
    path (those get the path form): the confirmed ones then get the plain id in 4 bytes.

    A call whose one argument is an empty PackedByteArray is sent in the general form (see
    ``_is_raw``); a raw call with no bytes after the method id is read as no arguments, as
    Godot reads it.
    """

    method_id: int
    args: tuple[Any, ...] = ()
    node_id: int = 0
    path: str | None = None
    node_id_size: int = 0

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        if self.path is None and self.node_id_size == 0:
            data = write_short_call(self.node_id, self.method_id, self.args, full_objects)
            if data is not None:
                return data
        return self._encode(full_objects)

    def _encode(self, full_objects: bool) -> bytes:
        """Any REMOTE_CALL: every form, and the errors of one that cannot be sent."""
        if not 0 <= self.method_id < 0x10000:
            raise ValueError(f"method id {self.method_id} does not fit in 16 bits")
        if len(self.args) > MAX_ARGS:
            raise ValueError(f"{len(self.args)} arguments; an RPC takes at most {MAX_ARGS}")
        raw = _is_raw(self.args)
        if raw:
            body = bytes(self.args[0]) if self.args else b""
        else:
            body = bytes([len(self.args)]) + encode_compressed_list(
                self.args, full_objects=full_objects
            )
        wide_name = self.method_id > 0xFF
        name = pack_u16(self.method_id) if wide_name else bytes([self.method_id])
        if self.path is not None:
            size_code, target = 2, pack_u32(PATH_FLAG | (1 + 4 + len(name) + len(body)))
        else:
            size_code, target = self._node_target()
        meta = (
            size_code << NODE_SIZE_SHIFT | wide_name << NAME_SIZE_SHIFT | (RAW_FLAG if raw else 0)
        )
        packet = bytes([Command.REMOTE_CALL | meta]) + target + name + body
        return packet + cstr(self.path) if self.path is not None else packet

    def _node_target(self) -> tuple[int, bytes]:
        if not 0 <= self.node_id < PATH_FLAG:
            raise ValueError(f"node cache id {self.node_id} out of range")
        for code, size, pack in NODE_FORMS:
            if self.node_id_size in (0, size) and self.node_id < 1 << (size * 8):
                return code, pack(self.node_id)
        raise ValueError(f"node id {self.node_id} does not fit in {self.node_id_size} bytes")

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        if data[0] & SHORT_MASK == 0 and len(data) >= SHORT_ARGS:
            # the common call: a 1-byte cache id and method id, then argc and the arguments
            args, end = decode_compressed_list(
                data, SHORT_ARGS, count=data[3], allow_objects=allow_objects, limits=limits
            )
            if end == len(data):
                return cls(data[2], tuple(args), data[1])
        return cls._decode(data, version, allow_objects, limits)

    @classmethod
    def _decode(
        cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits
    ) -> Self:
        """Any REMOTE_CALL: every form, and the errors of a malformed one."""
        reader = Reader(data, "REMOTE_CALL", 1)
        meta = data[0]
        size_code = (meta >> NODE_SIZE_SHIFT) & 3
        if size_code not in READERS:
            raise reader.error("node id size 3 is invalid", 0)
        target = READERS[size_code](reader, "node id")
        width = NODE_FORMS[size_code][1]
        forced = width if width > 1 and target < 1 << (NODE_FORMS[size_code - 1][1] * 8) else 0
        path = None
        if target & PATH_FLAG:
            length = target & ~PATH_FLAG
            if not reader.offset < length <= len(data):
                raise reader.error(f"path offset {length} outside the packet", 1)
            path = Reader(data, "REMOTE_CALL", length).cstr(len(data) - length, "node path")
            reader = Reader(data[:length], "REMOTE_CALL", reader.offset)
            target, forced = 0, 0
        method_id = (
            reader.u16("method id") if meta >> NAME_SIZE_SHIFT & 1 else reader.u8("method id")
        )
        if meta & RAW_FLAG:
            rest = reader.rest()
            return cls(method_id, (rest,) if rest else (), target, path, forced)
        argc = reader.u8("argument count")
        args, end = decode_compressed_list(
            reader.data, reader.offset, count=argc, allow_objects=allow_objects, limits=limits
        )
        reader.offset = end
        reader.end()
        return cls(method_id, tuple(args), target, path, forced)


_new = object.__new__
_set_dict = object.__setattr__


def short_call(method_id: int, args: tuple[Any, ...], node_id: int) -> RemoteCall:
    """``RemoteCall(method_id, args, node_id)``, made without the generated ``__init__``,
    which sets each of the five fields with its own ``object.__setattr__`` (a frozen
    dataclass): one dict instead, the same fields, equal and hashed alike. For the calls
    :func:`read_short_call` reads, one per incoming RPC (docs/multiplayer.md, "An RPC's
    way in and out")."""
    call = _new(RemoteCall)
    _set_dict(
        call,
        "__dict__",
        {"method_id": method_id, "args": args, "node_id": node_id, "path": None, "node_id_size": 0},
    )
    return call


def read_short_call(data: bytes, allow_objects: bool, limits: Limits) -> RemoteCall | None:
    """The call in ``data`` when it has the short form (byte 0 is ``00``: a 1-byte cache id
    and method id, argc, the arguments, nothing after; the caller checked byte 0 and that
    4 bytes are there), else None: the general reader's. Errors in the arguments are the
    ones :meth:`RemoteCall.decode` raises."""
    if data[3] == 1 and len(data) > SHORT_ARGS:  # one argument, most often an INT or a BOOL
        meta = data[SHORT_ARGS]
        kind = meta & TYPE_MASK
        if kind == INT:
            form = INT_BY_MODE[meta >> MODE_SHIFT]
            if len(data) == SHORT_ARGS + 1 + form.size:
                return short_call(data[2], form.unpack_from(data, SHORT_ARGS + 1), data[1])
        elif kind == BOOL and len(data) == SHORT_ARGS + 1:  # Godot reads bit 7 only
            return short_call(data[2], (bool(meta & BOOL_TRUE),), data[1])
    args, end = _decode_counted(data, SHORT_ARGS, len(data), data[3], allow_objects, limits)
    if end != len(data):
        return None
    return short_call(data[2], tuple(args), data[1])


def write_short_call(
    node_id: int, method_id: int, args: tuple[Any, ...], full_objects: bool = False
) -> bytes | None:
    """The bytes of ``RemoteCall(method_id, args, node_id).encode()`` when that call has the
    short form (node and method id in a byte each, 1 to 255 arguments, not raw), else None:
    what an answer to a client whose path is confirmed is, encoded without a packet object."""
    count = len(args)
    if (
        0 <= node_id < 0x100
        and 0 <= method_id < 0x100
        and 0 < count <= MAX_ARGS
        and (count > 1 or type(args[0]) not in BYTE_ARRAYS)
    ):  # every size code and flag 0, so the meta byte is 0
        if count == 1:
            arg = args[0]
            if type(arg) is int and -0x8000 <= arg < 0x8000:  # an INT of 8 or 16 bits, whole
                if -0x80 <= arg < 0x80:
                    return bytes((SHORT_HEAD, node_id, method_id, 1, INT, arg & 0xFF))
                meta = INT | 1 << MODE_SHIFT
                return bytes((SHORT_HEAD, node_id, method_id, 1, meta, arg & 0xFF, arg >> 8 & 0xFF))
            head = bytes((SHORT_HEAD, node_id, method_id, 1))
            return head + encode_compressed(arg, full_objects=full_objects)
        head = bytes((SHORT_HEAD, node_id, method_id, count))
        return head + encode_compressed_list(args, full_objects=full_objects)
    return None


def rpc_method_ids(script_rpcs: Iterable[str], node_rpcs: Iterable[str] = ()) -> dict[str, int]:
    """Each RPC method's id as Godot numbers them: node-level names (``rpc_config``) sorted,
    with :data:`NODE_RPC_FLAG`, then the script's ``@rpc`` names (its base scripts' included)
    sorted by code point. A name in both lists is called by its script id: Godot reads the
    node-level list first and the script's second, and the second entry replaces the first."""
    ids = {name: i | NODE_RPC_FLAG for i, name in enumerate(sorted(set(node_rpcs)))}
    ids.update({name: i for i, name in enumerate(sorted(set(script_rpcs)))})
    return ids


def rpc_checksum(script_rpcs: Iterable[str], node_rpcs: Iterable[str] = ()) -> str:
    """The md5 in SIMPLIFY_PATH: of the node-level names then the script names, each sorted,
    joined with nothing."""
    names = [*sorted(set(node_rpcs)), *sorted(set(script_rpcs))]
    return hashlib.md5("".join(names).encode("utf-8")).hexdigest()
