"""The node path cache: SIMPLIFY_PATH (command 1), CONFIRM_PATH (command 2) and the per-peer
tables both sides keep.

A sender names a node once with SIMPLIFY_PATH (its own cache id, the node path relative to
``/root`` and the md5 of the node's RPC names); the receiver answers CONFIRM_PATH and later
packets use the id. Ids belong to the sender: each side has its own counter, and a receiver
keeps one table per remote peer. CONFIRM_PATH carries the id since 4.3 and the path before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from ... import Limits
from ._errors import ProtocolError
from ._reader import Reader, cstr, pack_u32
from ._version import LATEST, Command, WireVersion

__all__ = ["EMPTY_CHECKSUM", "ConfirmPath", "ReceiveCache", "SendCache", "SimplifyPath"]

#: md5 of no RPC names: the checksum of a node without RPCs (a spawner, a synchronizer).
EMPTY_CHECKSUM = "d41d8cd98f00b204e9800998ecf8427e"
CHECKSUM_SIZE = 32
#: The most paths one peer's SIMPLIFY_PATHs are remembered by (:class:`ReceiveCache`): about
#: 250 bytes each, so a megabyte a peer at most.
MAX_PATHS = 4096
SIMPLIFY_HEADER = 1 + CHECKSUM_SIZE + 1 + 4


@dataclass(frozen=True)
class SimplifyPath:
    """``01 <md5 cstr, 33 bytes> <u32 cache id> <path cstr>``.

    The checksum is 32 lowercase hex digits from Godot; a shorter one is padded with NULs.
    """

    cache_id: int
    path: str
    checksum: str = EMPTY_CHECKSUM

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        checksum = self.checksum.encode("utf-8")
        if len(checksum) > CHECKSUM_SIZE:
            raise ValueError(f"checksum {self.checksum!r} is longer than 32 bytes")
        return (
            bytes([Command.SIMPLIFY_PATH])
            + checksum.ljust(CHECKSUM_SIZE + 1, b"\0")
            + pack_u32(self.cache_id)
            + cstr(self.path)
        )

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "SIMPLIFY_PATH", 1)
        if len(data) < SIMPLIFY_HEADER:
            raise reader.error(f"{len(data)} bytes, at least {SIMPLIFY_HEADER} needed")
        checksum = reader.cstr(CHECKSUM_SIZE, "checksum")
        reader.need(1, "checksum terminator")  # Godot reads 32 bytes and skips the 33rd
        cache_id = reader.u32("cache id")
        path = reader.cstr(reader.remaining, "node path")
        if not path:
            raise reader.error("empty node path")
        return cls(cache_id, path, checksum)


@dataclass(frozen=True)
class ConfirmPath:
    """``02 <valid u8> <u32 cache id>`` (4.3+) or ``02 <valid u8> <path cstr>`` (4.0-4.2).

    ``valid`` is false when the receiver's RPC checksum differed from the sender's. Only the
    field of the chosen version is written; a decoded packet has the other one empty.
    """

    valid: bool
    cache_id: int = 0
    path: str = ""

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        head = bytes([Command.CONFIRM_PATH, int(self.valid)])
        if version.confirm_by_id:
            return head + pack_u32(self.cache_id)
        if not self.path:
            raise ValueError(f"a Godot {version.name} CONFIRM_PATH carries the path; none given")
        return head + cstr(self.path)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "CONFIRM_PATH", 1)
        valid = reader.u8("valid flag")
        if valid > 1:
            raise reader.error(f"valid flag {valid} is neither 0 nor 1", 1)
        if version.confirm_by_id:
            cache_id = reader.u32("cache id")
            reader.end()
            return cls(bool(valid), cache_id)
        path = reader.cstr(reader.remaining, "node path")
        if not path:
            raise reader.error("empty node path")
        return cls(bool(valid), path=path)


class SendCache:
    """The ids this side gives its nodes, and what each peer has been sent and confirmed.

    Ids start at 1, one per path, shared by all peers and never reused (as Godot's
    ``last_send_cache_id``).
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._paths: dict[int, str] = {}
        self._sent: dict[int, set[int]] = {}
        self._confirmed: dict[int, dict[int, bool]] = {}

    def cache_id(self, path: str) -> int:
        """The id of ``path``, allocated on first use."""
        cache_id = self._ids.get(path)
        if cache_id is None:
            cache_id = len(self._ids) + 1
            self._ids[path] = cache_id
            self._paths[cache_id] = path
        return cache_id

    def simplify(self, peer: int, path: str, checksum: str = EMPTY_CHECKSUM) -> SimplifyPath | None:
        """The SIMPLIFY_PATH to send ``peer`` before naming ``path`` by id, or None when
        it was sent already (Godot sends it once per node and peer)."""
        cache_id = self._ids.get(path) or self.cache_id(path)  # (ids start at 1)
        sent = self._sent.get(peer)  # not setdefault, which makes a set every call
        if sent is None:
            sent = self._sent[peer] = set()
        elif cache_id in sent:
            return None
        sent.add(cache_id)
        return SimplifyPath(cache_id, path, checksum)

    def confirm(self, peer: int, packet: ConfirmPath) -> bool:
        """Record ``peer``'s CONFIRM_PATH; False (and nothing recorded) for an id or path
        never sent to it, which Godot ignores too."""
        cache_id = packet.cache_id if not packet.path else self._ids.get(packet.path, 0)
        if cache_id not in self._sent.get(peer, ()):
            return False
        self._confirmed.setdefault(peer, {})[cache_id] = packet.valid
        return True

    def is_confirmed(self, peer: int, path: str) -> bool:
        """True once ``peer`` confirmed ``path`` (valid or not): RPCs may then use the id."""
        cache_id = self._ids.get(path)
        return cache_id is not None and cache_id in self._confirmed.get(peer, ())

    def checksum_valid(self, peer: int, path: str) -> bool | None:
        """``peer``'s verdict on the RPC checksum of ``path``; None before it confirmed."""
        cache_id = self._ids.get(path)
        if cache_id is None:
            return None
        return self._confirmed.get(peer, {}).get(cache_id)

    def path(self, cache_id: int) -> str | None:
        return self._paths.get(cache_id)

    def remove_peer(self, peer: int) -> None:
        self._sent.pop(peer, None)
        self._confirmed.pop(peer, None)


#: What a peer that named no path has: shared, never written (a ``{}`` default would make a
#: dict on every RPC's lookup).
_NO_PATHS: dict[int, tuple[str, str]] = {}


class ReceiveCache:
    """The paths each remote peer named with SIMPLIFY_PATH, by that peer's id.

    At most ``max_paths`` per peer (:data:`MAX_PATHS`): past it the one least recently named
    or called on is forgotten, so a client that names paths with ever new ids cannot grow
    the server. A Godot client gives each node it talks about one id for the node's life and
    names nodes it freed no more; a node it calls on still (its player, say) stays, however
    many others came and went since it was named.
    """

    def __init__(self, max_paths: int = MAX_PATHS) -> None:
        if max_paths < 1:
            raise ValueError(f"max_paths must be at least 1, not {max_paths}")
        self.max_paths = max_paths
        self._paths: dict[int, dict[int, tuple[str, str]]] = {}

    def add(self, peer: int, packet: SimplifyPath) -> None:
        """Store ``packet``; a second SIMPLIFY_PATH with the same id from one peer is refused,
        as Godot refuses it."""
        table = self._paths.setdefault(peer, {})
        if packet.cache_id in table:
            raise ProtocolError(f"peer {peer} reused path cache id {packet.cache_id}")
        if len(table) >= self.max_paths:
            del table[next(iter(table))]  # the least recently used: entry() moves one last
        table[packet.cache_id] = (packet.path, packet.checksum)

    def entry(self, peer: int, cache_id: int) -> tuple[str, str]:
        """The path ``peer`` gave ``cache_id`` and the RPC checksum it sent with it."""
        table = self._paths.get(peer, _NO_PATHS)
        entry = table.pop(cache_id, None)
        if entry is None:
            raise ProtocolError(f"peer {peer} used path cache id {cache_id} before simplifying it")
        table[cache_id] = entry  # now the most recently used (the last forgotten)
        return entry

    def path(self, peer: int, cache_id: int) -> str:
        """The path ``peer`` gave ``cache_id``."""
        return self.entry(peer, cache_id)[0]

    def checksum(self, peer: int, cache_id: int) -> str:
        return self.entry(peer, cache_id)[1]

    def remove_peer(self, peer: int) -> None:
        self._paths.pop(peer, None)
