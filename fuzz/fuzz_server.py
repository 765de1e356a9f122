"""Stateful fuzzing of a SceneMultiplayer server: atheris, or seeded random steps. Run by hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python -m fuzz.fuzz_server fuzz/corpus-server -max_total_time=600
    .venv/bin/python -m fuzz.fuzz_server --random 100000 [SEED]      # no atheris needed

A real :class:`~gdvariant.multiplayer.SceneMultiplayer` (the RPC node of
tests/live/multiplayer/client, two declared nodes, a spawner of its entity and player scenes)
on ``MemoryServer``, the transports' own endpoint over lists. One input is one session: a
well-behaved client (peer 2) and hostile ones join, authenticate or not, and send packets
built from valid ones (SIMPLIFY_PATH, CONFIRM_PATH, RPCs in both forms, owned SYNCs and
deltas, RAW, relays, auth data), often mutated; meanwhile the server spawns, despawns,
changes values and visibility, calls RPCs, runs ``sync()`` frames and lets time pass, and
peers leave. After every step (:meth:`Session.check`):

* nothing escaped the server's entry points (a client's packet raises nothing there);
* nothing was logged with a traceback, and every warning went through the rate-limited peer
  log, within its budget;
* every packet the server sent decodes and went to a peer it has; nothing is left queued in
  the protocol; the RAW queue is within ``max_raw_queued``; each peer's path cache within its
  bound; no state is kept for a peer that left;
* every value a spawned node keeps from its owner's syncs (``owned_values``) is one of its
  property's type in the owned NetClass, as the server's check keeps it, and re-encodes;
* the good client's calls all ran, none refused, and after each ``sync()`` what it decoded
  (spawns, SYNCs, deltas) equals the server's values of every node it holds, each SYNC time
  one a Godot client accepts.

``--random N [SEED]`` runs sessions of 200 random steps (``random.Random``) until N steps
are done, without atheris; a failure names its session's seed, which ``--session SEED
[STEPS]`` runs again alone. ``--seed-corpus DIR`` writes a few random inputs to start from.
"""

from __future__ import annotations

import itertools
import logging
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import gdvariant as gd
from fuzz import harness
from gdvariant import Vector2, Vector2i
from gdvariant.multiplayer import RpcConfig, RpcMode, SceneMultiplayer, TransferMode
from gdvariant.multiplayer._endpoint import RAW_OVERHEAD, RAW_QUEUE_SENDERS
from gdvariant.multiplayer.wire import (
    EMPTY_CHECKSUM,
    NODE_RPC_FLAG,
    AddPeer,
    Auth,
    ConfirmPath,
    DelPeer,
    DeltaState,
    DeltaSync,
    Despawn,
    InboundSyncTime,
    Packet,
    Raw,
    Relay,
    RemoteCall,
    SimplifyPath,
    Spawn,
    Sync,
    SyncState,
    decode_scene_packet,
    path_net_id,
)
from gdvariant.multiplayer.wire._paths import MAX_PATHS
from tests.support.multiplayer_api_scene import ENTITY, PLAYER, PROJECT, RPC, SPAWN_PATH, SPAWNER
from tests.support.multiplayer_fake import MemoryServer
from tests.support.mutations import MUTATORS
from tests.support.random_wire import random_wire

T = TypeVar("T")
GOOD = 2
HOSTILE = (3, 4, 5, 0x7FFFFFFF)
OWNED_NODE, ARGS_NODE = "Fuzz/Owned", "Fuzz/Args"
MAX_RAW_QUEUED = 4096
AUTH_HEAD = Auth(b"").encode()
PROFILE = gd.get_profile("4.6")
EXTRA_PATHS = ("Api/Nope", "Api", "", "n" * 300, "Api/Entities/E0/OwnerSynchronizer")


class Failure(AssertionError):
    """What the target reports: a rule broken, with the session's steps so far."""


# ------------------------------------------------------------------- where choices come from


class Source:
    """The session's choices: from libFuzzer's bytes or a seeded ``random.Random``."""

    def below(self, n: int) -> int:
        raise NotImplementedError

    def blob(self, most: int) -> bytes:
        raise NotImplementedError

    def rng(self) -> random.Random:
        """A generator for the helpers that take one (mutations, random Variant bytes)."""
        raise NotImplementedError

    def more(self) -> bool:
        raise NotImplementedError

    def chance(self, percent: int) -> bool:
        return self.below(100) < percent

    def pick(self, options: Sequence[T]) -> T:
        return options[self.below(len(options))]


class RandomSource(Source):
    """``steps`` steps of choices from ``random.Random(seed)``."""

    def __init__(self, seed: int, steps: int) -> None:
        self._rng = random.Random(seed)
        self.left = steps

    def below(self, n: int) -> int:
        return self._rng.randrange(n)

    def blob(self, most: int) -> bytes:
        return self._rng.randbytes(self._rng.randrange(most + 1))

    def rng(self) -> random.Random:
        return random.Random(self._rng.getrandbits(32))

    def more(self) -> bool:
        self.left -= 1
        return self.left >= 0


class DataSource(Source):
    """Choices read from an atheris ``FuzzedDataProvider``: a session ends with its bytes."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider

    def below(self, n: int) -> int:
        return int(self.provider.ConsumeIntInRange(0, n - 1))

    def blob(self, most: int) -> bytes:
        return bytes(self.provider.ConsumeBytes(self.below(most + 1)))

    def rng(self) -> random.Random:
        return random.Random(self.provider.ConsumeInt(4))

    def more(self) -> bool:
        return bool(self.provider.remaining_bytes() > 0)


# ------------------------------------------------------------------- the well-behaved client


class GoodClient:
    """Peer 2 as a Godot client sees the server: the paths it was told, the nodes it was
    spawned with their values (kept from spawns, SYNCs and deltas), and the CONFIRM_PATHs it
    owes the server."""

    def __init__(self) -> None:
        self.paths: dict[int, str] = {}
        self.nodes: dict[int, dict[str, Any]] = {}
        self.times: dict[int, InboundSyncTime] = {}
        self.by_sync: dict[int, int] = {}
        self.owed: list[ConfirmPath] = []
        self.confirmed = False  # the server confirmed our own path to the RPC node
        self.others: set[int] = set()  # the peers ADD_PEER announced, DEL_PEER not yet
        self.calls_sent = 0

    def receive(self, packet: Packet) -> None:
        if isinstance(packet, SimplifyPath):
            self.paths[packet.cache_id] = packet.path
            self.owed.append(ConfirmPath(True, packet.cache_id))
        elif isinstance(packet, ConfirmPath):
            if packet.cache_id != 1 or not packet.valid:
                raise Failure(f"the good client got {packet}")
            self.confirmed = True
        elif isinstance(packet, AddPeer | DelPeer):
            known = packet.peer in self.others
            if known == isinstance(packet, AddPeer):
                raise Failure(f"the good client got {packet}, knowing {sorted(self.others)}")
            self.others ^= {packet.peer}
        elif isinstance(packet, Spawn):
            self._spawned(packet)
        elif isinstance(packet, Despawn):
            if packet.net_id not in self.nodes:
                raise Failure(f"DESPAWN of net id {packet.net_id}, which the good client lacks")
            del self.nodes[packet.net_id]
            self.by_sync = {s: n for s, n in self.by_sync.items() if n != packet.net_id}
        elif isinstance(packet, Sync):
            self._synced(packet)
        elif isinstance(packet, DeltaSync):
            for delta in packet.states:
                values = self._node(delta.net_id)
                assert ENTITY.synced is not None
                values.update(ENTITY.synced.config.read_delta(delta))
        elif not isinstance(packet, RemoteCall | Raw | Relay | Auth):
            raise Failure(f"the good client got {packet}")

    def _spawned(self, packet: Spawn) -> None:
        if self.paths.get(packet.spawner_id) != SPAWNER:
            raise Failure(f"SPAWN by spawner id {packet.spawner_id}: {self.paths}")
        if packet.net_id in self.nodes:
            raise Failure(f"a second SPAWN of net id {packet.net_id}")
        scene = (ENTITY, PLAYER)[packet.scene_id]
        values: dict[str, Any] = {}
        if scene.synced is not None:
            values, _ = scene.synced.config.read_spawn(packet.state)
        self.nodes[packet.net_id] = values
        for sync_id in packet.sync_ids:
            self.by_sync[sync_id] = packet.net_id
            self.times[sync_id] = InboundSyncTime()

    def _synced(self, packet: Sync) -> None:
        assert ENTITY.synced is not None
        for state in packet.states:
            values = self._node(state.net_id)
            if not self.times[state.net_id].accept(packet.time):
                raise Failure(f"SYNC time {packet.time} of {state.net_id} is stale")
            values.update(ENTITY.synced.config.read_sync(state))

    def _node(self, sync_id: int) -> dict[str, Any]:
        net_id = self.by_sync.get(sync_id)
        if net_id is None:
            raise Failure(f"a sync of synchronizer {sync_id}, which the good client lacks")
        return self.nodes[net_id]


class FuzzServer(MemoryServer):
    """MemoryServer that refuses to put a packet to a peer it does not have, and takes no
    packet over ``max_message_size`` (the transports refuse those before the endpoint)."""

    def receive(
        self, peer: int, data: bytes, mode: TransferMode = TransferMode.UNRELIABLE, channel: int = 1
    ) -> None:
        if len(data) <= self.max_message_size:
            super().receive(peer, data, mode, channel)

    def _put(self, peer: int, data: bytes, mode: TransferMode, channel: int) -> None:
        if peer not in self.open:
            raise Failure(f"sent {data[:40]!r} to peer {peer}, which the transport lacks")
        super()._put(peer, data, mode, channel)


# ------------------------------------------------------------------- the log


class Records(logging.Handler):
    """Every record the server's logger emits."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _fresh_logger(handler: Records) -> logging.Logger:
    logger = logging.getLogger("fuzz.server")
    logger.handlers = [handler]
    logger.propagate = False
    logger.setLevel(logging.INFO)
    return logger


# ------------------------------------------------------------------- the session


class Session:
    """One server, its peers and the steps done to it."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.now = 0.0
        self.started = time.monotonic()
        self.log = Records()
        self.steps: list[str] = []
        self.auth = source.chance(50)
        self.raws = 0
        #: what the session did, for the random mode's summary
        self.counts: Counter[str] = Counter()
        options: dict[str, Any] = {
            "logger": _fresh_logger(self.log),
            "clock": lambda: self.now,
            "max_raw_queued": MAX_RAW_QUEUED,
            "drop_limit": source.pick((0, 3, 1 << 30, 1 << 30)),
            "relay": source.chance(80),
        }
        if self.auth:
            options["auth_callback"] = self._auth
        if source.chance(50):
            options["on_raw"] = self._raw
        self.server = FuzzServer(**options)
        self.mp = SceneMultiplayer(self.server, project=PROJECT, logger=options["logger"])
        self.completed: set[int] = set()
        self.good = GoodClient()
        self.good_calls: list[tuple[Any, ...]] = []
        self.good_refused: list[str] = []
        self.names = itertools.count()
        #: the cache ids each hostile peer gave paths (as far as it knows), and who sends now
        self.named: dict[int, dict[int, str]] = {}
        self.sender = HOSTILE[0]
        self._declare()
        for notifier in (self.mp.peer_disconnected, self.mp.peer_authentication_failed):
            notifier.connect(self.completed.discard)
        self.mp.packet_refused.connect(self._refused)
        self.mp.synchronized.connect(lambda node, changed: self.counts.update(["owned syncs"]))

    def _declare(self) -> None:
        """The nodes clients talk to: the test project's RPC node, one a hostile peer owns,
        one whose method takes two arguments; a handler for every method a client may call;
        the spawner of the entity and player scenes."""
        mp = self.mp
        steer = RpcConfig("steer", min_args=1, max_args=1)
        shout = RpcConfig("shout", mode=RpcMode.ANY_PEER)
        tables = {
            RPC: mp.node(RPC, script="res://api_rpc.gd"),
            OWNED_NODE: mp.node(OWNED_NODE, rpcs=[steer, shout], authority=HOSTILE[0]),
            ARGS_NODE: mp.node(
                ARGS_NODE, rpcs=[RpcConfig("two", mode=RpcMode.ANY_PEER, min_args=2, max_args=2)]
            ),
        }
        for path, table in tables.items():
            for name, config in table.configs.items():
                if config.mode is RpcMode.ANY_PEER or path == OWNED_NODE:
                    mp.on_rpc(path, name, self._called(path, name))
        self.spawner = mp.add_spawner(SPAWNER, SPAWN_PATH, [ENTITY, PLAYER])
        self.spawner.on_rpc(ENTITY, "poke", lambda node, sender, *args: None)

    def _called(self, path: str, name: str) -> Callable[..., None]:
        def handler(sender: int, *args: Any) -> None:
            self.counts["calls run"] += 1
            if sender == GOOD:
                self.good_calls.append((path, name, *args))

        return handler

    def _refused(self, peer: int, reason: str) -> None:
        self.counts["refused"] += 1
        if peer == GOOD:
            self.good_refused.append(reason)

    def _raw(self, peer: int, payload: bytes) -> None:
        self.raws += 1

    def _auth(self, peer: int, data: bytes) -> None:
        """The game's auth callback: ``ok...`` is let in, ``?...`` asked again."""
        if peer in self.completed:
            return
        if data.startswith(b"ok"):
            self.completed.add(peer)
            self.mp.complete_auth(peer)
        elif data.startswith(b"?"):
            self.mp.send_auth(peer, b"who?")

    # -- running --------------------------------------------------------------------------

    def run(self) -> None:
        self.join(GOOD)
        self.check()
        while self.source.more():
            step = self.source.pick(STEPS)
            self.steps.append(step.__name__)
            step(self)
            self.check()
        self.server._stop_auth_timer()  # no timer outlives the session

    def join(self, peer: int) -> None:
        if peer in self.server.open:
            return
        if peer == GOOD:
            self.good = GoodClient()
        self.named.pop(peer, None)
        self.server.join(peer)
        if self.auth and (peer == GOOD or self.source.chance(70)):
            self.server.receive(peer, Auth(b"ok").encode())
            if peer in self.server.open:
                self.server.receive(peer, AUTH_HEAD)

    def leave(self, peer: int) -> None:
        if peer in self.server.open:
            self.server.leave(peer)
        self.completed.discard(peer)
        self.named.pop(peer, None)

    def check(self) -> None:
        """The rules, after every step."""
        self._check_sent()
        self._check_log()
        self._check_state()
        good, peers = self.good, self.server.peers
        if GOOD in peers and self.server.protocol.relay and good.others != peers - {GOOD}:
            raise Failure(f"the good client knows peers {good.others}, not {sorted(peers)}")
        if self.good_refused:
            raise Failure(f"the good client's packet was refused: {self.good_refused[0]}")
        if GOOD in peers and len(self.good_calls) != good.calls_sent:
            raise Failure(f"the good client sent {good.calls_sent} calls, {self.good_calls} ran")

    def _check_sent(self) -> None:
        for peer, data, _, _ in self.server.take():
            try:
                packet = decode_scene_packet(data)
            except gd.DecodeError as exc:
                raise Failure(f"the server sent {data[:60]!r}, which does not decode") from exc
            if isinstance(packet, Relay | AddPeer | DelPeer) and not self.server.protocol.relay:
                raise Failure(f"{packet} sent by a server without relay")
            if peer == GOOD:
                self.good.receive(packet)

    def _check_log(self) -> None:
        records = self.log.records
        for record in records:
            if record.exc_info or record.levelno >= logging.CRITICAL:
                raise Failure(f"logged with a traceback: {record.getMessage()}") from (
                    record.exc_info[1] if record.exc_info else None
                )
            if record.levelno >= logging.WARNING and not record.pathname.endswith("peerlog.py"):
                raise Failure(f"logged outside the peer log: {record.getMessage()}")
        seconds = time.monotonic() - self.started
        # one budget (the scene shares the transport's): 30 lines a second, and at most 31
        # lines of counts when a second ends
        budget = self.server.peer_log
        if self.mp.peer_log._budget is not budget:
            raise Failure("the scene logs on a budget of its own")
        if len(records) > (budget.per_second + 31) * (1 + math.ceil(seconds)):
            raise Failure(f"{len(records)} log lines in {seconds:.1f} s")

    def _check_state(self) -> None:
        server, protocol = self.server, self.server.protocol
        if protocol.has_data_to_send:
            raise Failure("the protocol kept packets queued")
        peers, open_ = protocol.peers, server.open
        if not peers <= open_ or not set(server._drops) <= open_:
            raise Failure(f"state of peers gone: {sorted(peers)} {sorted(server._drops)}")
        for what, keys in (
            ("receive cache", protocol.receive_cache._paths),
            ("send cache", protocol.send_cache._sent),
            ("confirmations", protocol.send_cache._confirmed),
            ("sync clocks", self.mp._replicator._clocks),
        ):
            if not set(keys) <= peers:
                raise Failure(f"{what} kept for peers gone: {sorted(set(keys) - peers)}")
        if not set(server.traffic.bytes) <= open_:
            raise Failure(f"traffic kept for peers gone: {sorted(server.traffic.bytes)}")
        for peer, table in protocol.receive_cache._paths.items():
            if len(table) > MAX_PATHS:
                raise Failure(f"peer {peer} has {len(table)} paths cached")
        for peer, held in server._raw_held.items():
            if held > MAX_RAW_QUEUED + server.max_message_size + RAW_OVERHEAD:
                raise Failure(f"{held} bytes of peer {peer}'s RAW queued")
        if server._raw_total > MAX_RAW_QUEUED * RAW_QUEUE_SENDERS + server.max_message_size:
            raise Failure(f"{server._raw_total} bytes of RAW queued")
        self._check_owned()

    def _check_owned(self) -> None:
        """Every value an owner synced is one of its property's type, kept as the check
        keeps it, and re-encodes (what the game reads in ``owned_values``)."""
        for node in self.spawner.nodes.values():
            owned = node.scene.owned
            if owned is None:
                continue
            checks = {name: check for name, check in owned.checks.values()}
            for name, value in node.owned_values.items():
                try:
                    kept = checks[name](value)
                    gd.dumps(value)
                except (gd.DecodeError, gd.EncodeError) as exc:
                    raise Failure(f"{node.path} keeps {name} = {value!r:.60}: {exc}") from exc
                if type(kept) is not type(value) or not _same(kept, value):
                    raise Failure(f"{node.path} keeps {name} = {value!r:.60}, not {kept!r:.60}")

    def check_good_values(self) -> None:
        """After a frame: the good client holds exactly the nodes the server says it does,
        with the server's values."""
        if GOOD not in self.server.peers:
            return
        held = {
            node.net_id: node for node in self.spawner.nodes.values() if GOOD in node.spawned_to
        }
        if set(held) != set(self.good.nodes):
            raise Failure(f"the good client holds {sorted(self.good.nodes)}, not {sorted(held)}")
        for net_id, node in held.items():
            synced = node.scene.synced
            want = {} if synced is None else synced.values(node.state)
            if self.good.nodes[net_id] != want:
                raise Failure(
                    f"{node.path}: the good client has {self.good.nodes[net_id]}, not {want}"
                )


def _same(a: Any, b: Any) -> bool:
    """Equal, or encoded the same (a NaN is not equal to itself)."""
    return bool(a == b) or gd.dumps(a) == gd.dumps(b)


# ------------------------------------------------------------------- what a client sends


def _value(s: Source) -> Any:
    roll = s.below(12)
    if roll == 11:
        try:
            return gd.loads(random_wire(s.rng(), PROFILE), version=PROFILE)
        except gd.DecodeError:
            return None
    return (0, 1, -70000, 1 << 40, 1.5, "s", Vector2(1, 2), b"\x01", [1], {"a": 2}, None)[roll]


def _cache_id(s: Source) -> int:
    return s.pick((0, 1, 2, 3, 4, 5, 0xFF, 0x100, 0x7FFFFFFF, 0xFFFFFFFF, s.below(1 << 32)))


def _paths(session: Session) -> list[str]:
    nodes = list(session.spawner.nodes.values())
    return [
        RPC,
        OWNED_NODE,
        ARGS_NODE,
        SPAWNER,
        *(node.path for node in nodes),
        *(f"{node.path}/{PLAYER.owned_synchronizer}" for node in nodes if node.owner),
        *EXTRA_PATHS,
    ]


def _simplify(session: Session) -> Packet:
    s = session.source
    mine = [
        f"{node.path}/{PLAYER.owned_synchronizer}"
        for node in session.spawner.nodes.values()
        if node.owner == session.sender
    ]
    path = s.pick(mine) if mine and s.chance(50) else s.pick(_paths(session)) or "x"
    node = session.mp._nodes.get(path)
    checksum = s.pick(
        (node.rpcs.checksum if node else EMPTY_CHECKSUM, EMPTY_CHECKSUM, "0" * 32, "")
    )
    named = session.named.setdefault(session.sender, {})
    cache_id = s.pick((len(named) + 1, len(named) + 1, _cache_id(s)))
    named.setdefault(cache_id, path)
    return SimplifyPath(cache_id, path, checksum)


def _named(session: Session, want: Callable[[str], bool]) -> tuple[int, str] | None:
    """A cache id the sender gave a path that ``want`` likes, and the path."""
    named = [(i, p) for i, p in session.named.get(session.sender, {}).items() if want(p)]
    return session.source.pick(named) if named else None


def _call(session: Session) -> Packet:
    s = session.source
    if s.chance(60):  # a call as a client would make it, on a node the server has
        path = s.pick(sorted(p for p, n in session.mp._nodes.items() if n.rpcs.configs))
        node = session.mp._nodes[path]
        config = s.pick(sorted(node.rpcs.configs.values(), key=lambda c: c.name))
        low, high = config.arg_counts
        args = tuple(_value(s) for _ in range(s.pick((low, low, min(high, 8), low + 1))))
        method = node.rpcs.ids[config.name]
        named = _named(session, lambda p: p == path)
        if named is None or s.chance(20):
            return RemoteCall(method, args, path=path)
        return RemoteCall(method, args, node_id=named[0], node_id_size=s.pick((0, 0, 1, 2, 4)))
    method = s.pick((s.below(24), NODE_RPC_FLAG | s.below(3), 0xFFFF, 0x100))
    args = tuple(_value(s) for _ in range(s.pick((0, 1, 2, 2, 3, 8, 9))))
    if s.chance(30):
        return RemoteCall(method, args, path=s.pick(_paths(session)) or "x")
    return RemoteCall(method, args, node_id=_cache_id(s) & 0x7FFFFFFF)


def _owned_sync(session: Session) -> Packet:
    s = session.source
    owned = _named(session, lambda p: p.endswith(PLAYER.owned_synchronizer))
    if owned is not None and s.chance(90):
        net_id = path_net_id(owned[0] % 0x7FFFFFFF or 1)
    elif s.chance(80):
        net_id = path_net_id(_cache_id(s) % 0x7FFFFFFF or 1)
    else:
        net_id = _cache_id(s)
    values = s.pick(
        ((Vector2(1, -1),), (), (_value(s),), (Vector2(2, 2), 1), (Vector2i(3, 4),), (2.9,))
    )
    if s.chance(50):
        return Sync(s.below(0x10000), (SyncState(net_id, values),) * s.pick((1, 1, 2)))
    mask = s.pick((1, 1, 2, 3, 1 << 63, 0))
    deltas = ((5,), (), (_value(s),), (1, 2), (2.9,), (True,), (1 << 40,), (Vector2(1, 1),))
    return DeltaSync((DeltaState(net_id, mask, s.pick(deltas)),))


def _system(session: Session) -> Packet:
    s = session.source
    roll = s.below(7)
    if roll == 0:
        return Raw(s.blob(s.pick((8, 300, 6000))) if s.chance(99) else bytes(1 << 20))
    if roll == 1:
        return Auth(s.pick((b"ok", b"?", b"", s.blob(20))))
    if roll == 2:
        return ConfirmPath(s.chance(80), _cache_id(s))
    if roll == 3:
        return AddPeer(s.pick(HOSTILE)) if s.chance(50) else DelPeer(GOOD)
    if roll == 4:
        return Spawn(1, 9, "X") if s.chance(50) else Despawn(1)
    inner = _build(session, depth=1)
    target = s.pick((0, GOOD, -GOOD, 1, -1, s.pick(HOSTILE), -s.pick(HOSTILE), 9))
    return Relay(target, inner)


BUILDERS = (_simplify, _call, _call, _owned_sync, _system, _system)


def _build(session: Session, depth: int = 0) -> bytes:
    """One packet's bytes: a valid one, maybe mutated, or random bytes."""
    s = session.source
    if s.chance(5):
        return s.blob(64) or b"\0"
    packet = s.pick(BUILDERS[: 5 if depth else None])(session)
    try:
        data = packet.encode()
    except (ValueError, TypeError, gd.EncodeError):
        return s.blob(16) or b"\1"
    if s.chance(25) and data:
        rng = s.rng()
        kind = rng.choice(list(MUTATORS))
        data = bytes(MUTATORS[kind](rng, bytearray(data), [data, SimplifyPath(1, RPC).encode()]))
    return data


# ------------------------------------------------------------------- the steps


def hostile_sends(session: Session) -> None:
    s = session.source
    peer = s.pick(HOSTILE)
    if peer not in session.server.open:
        session.join(peer)
        return
    session.sender = peer
    for _ in range(s.pick((1, 1, 2, 5, 20))):
        mode = s.pick((TransferMode.RELIABLE, TransferMode.UNRELIABLE))
        session.server.receive(peer, _build(session), mode, s.below(3))


def hostile_floods(session: Session) -> None:
    """One peer sends one packet hundreds of times, or names a path with new ids past the
    receive cache's bound (the logs, the drops and the caches must hold)."""
    s = session.source
    peer = s.pick(HOSTILE)
    if peer not in session.server.peers:
        return
    session.sender = peer
    receive = session.server.receive
    if s.chance(10):
        for cache_id in range(1, MAX_PATHS + 50):
            receive(peer, SimplifyPath(cache_id, s.pick((RPC, SPAWNER))).encode())
            if peer not in session.server.peers:
                return
        session.server.take()  # the CONFIRM_PATHs, checked often enough elsewhere
        return
    data = _build(session)
    for _ in range(300 if len(data) < 10_000 else 2):
        receive(peer, data)


def hostile_leaves(session: Session) -> None:
    session.leave(session.source.pick(HOSTILE))


def good_acts(session: Session) -> None:
    """The good client confirms what it owes and calls r1 on the RPC node, by path until
    the server confirmed its own SIMPLIFY_PATH, then by id."""
    server, good = session.server, session.good
    if GOOD not in server.peers:
        session.join(GOOD)
        return
    for confirm in good.owed:
        server.receive(GOOD, confirm.encode(), TransferMode.RELIABLE, 0)
    good.owed.clear()
    if good.calls_sent == 0:
        table = session.mp._nodes[RPC].rpcs
        server.receive(GOOD, SimplifyPath(1, RPC, table.checksum).encode())
    n = good.calls_sent
    method = session.mp._nodes[RPC].rpcs.ids["r1"]
    call = (
        RemoteCall(method, (n,), node_id=1)
        if good.confirmed
        else RemoteCall(method, (n,), path=RPC)
    )
    good.calls_sent += 1
    server.receive(GOOD, call.encode(), TransferMode.RELIABLE, 0)
    session.counts["good calls"] += 1


def good_rejoins(session: Session) -> None:
    if session.source.chance(20):
        session.leave(GOOD)
        session.good_calls.clear()
        session.join(GOOD)


def frame(session: Session) -> None:
    session.mp.sync()
    session._check_sent()
    session.check_good_values()
    session.counts["good nodes checked"] += len(session.good.nodes)


def spawn(session: Session) -> None:
    s = session.source
    name = f"N{next(session.names)}"
    visible = None if s.chance(70) else [s.pick((GOOD, *HOSTILE)) for _ in range(s.below(3))]
    if s.chance(30):  # a player, named by its owner as api_player.gd wants, or not
        present = sorted(session.server.peers - {GOOD})
        owner = s.pick(present) if present and s.chance(70) else s.pick((GOOD, *HOSTILE))
        if str(owner) in session.spawner.nodes or s.chance(50):
            session.spawner.spawn(1, name, owner=owner)
        else:
            session.spawner.spawn(1, str(owner), owner=owner)
        return
    values = {
        "position": Vector2(s.below(100), -s.below(100)),
        "spin": s.below(1000) / 8,
        "hp": s.below(1 << 31) - (1 << 30),
        "label": "x" * s.below(40),
    }
    session.spawner.spawn(0, name, values, visible_to=visible)


def despawn(session: Session) -> None:
    nodes = list(session.spawner.nodes.values())
    if nodes:
        session.spawner.despawn(session.source.pick(nodes))


def change(session: Session) -> None:
    s = session.source
    nodes = [n for n in session.spawner.nodes.values() if n.state is not None]
    if not nodes:
        return
    node = s.pick(nodes)
    roll = s.below(4)
    if roll == 0:
        node.state.position = Vector2(s.below(50), s.below(50))
    elif roll == 1:
        node.state.spin = -s.below(100) / 4
    elif roll == 2:
        node.state.hp = s.below(1000)
    else:
        node.state.label = s.pick(("", "a", "ü" * s.below(20)))


def visibility(session: Session) -> None:
    s = session.source
    nodes = [n for n in session.spawner.nodes.values() if n.scene.synced is not None]
    if nodes:
        s.pick(nodes).set_visibility_for(s.pick((0, GOOD, *HOSTILE)), s.chance(50))


def server_rpc(session: Session) -> None:
    s = session.source
    peers = sorted(session.mp.peers)
    target = s.pick((0, *peers, *(-p for p in peers)))
    r = s.below(9)
    kind = s.pick("ru")
    session.mp.rpc(target, RPC, f"{kind}{r}", *(_value(s) for _ in range(r)))
    pokable = [n for n in session.spawner.nodes.values() if n.scene is ENTITY]
    if pokable and s.chance(30):
        node = s.pick(pokable)
        for peer in sorted(node.spawned_to):
            session.mp.rpc(peer, node.path, "poke", s.below(100))


def server_raw(session: Session) -> None:
    target = session.source.pick((0, GOOD))
    if target == 0 or target in session.server.peers:
        session.server.send_raw(target, session.source.blob(40) or b"r")


def time_passes(session: Session) -> None:
    session.now += session.source.pick((0.5, 1.0, 3.0, 10.0))
    session.server._check_auth()


STEPS: tuple[Callable[[Session], None], ...] = (
    *(hostile_sends,) * 8,
    hostile_floods,
    hostile_leaves,
    good_acts,
    good_acts,
    good_rejoins,
    frame,
    frame,
    spawn,
    despawn,
    change,
    visibility,
    server_rpc,
    server_raw,
    time_passes,
)


# ------------------------------------------------------------------- the entry points


def run_session(source: Source) -> Session:
    """One session; a broken rule raises :class:`Failure` naming the steps that led there."""
    import asyncio

    session = Session(source)

    async def play() -> None:
        session.run()

    try:
        asyncio.run(play())
    except Failure as exc:
        raise Failure(f"{exc} (after steps {session.steps[-12:]})") from exc
    return session


def test_one_input(data: bytes) -> None:
    import atheris

    run_session(DataSource(atheris.FuzzedDataProvider(data)))


def random_runs(steps: int, seed: int, session_steps: int = 200) -> Counter[str]:
    """Sessions of ``session_steps`` random steps each until ``steps`` are done: the seed of
    each is ``seed``'s stream, so a failure names the one to run again. Returns what they
    did, counted (``sessions``, ``steps``, calls run, refusals...)."""
    totals: Counter[str] = Counter()
    while totals["steps"] < steps:
        session_seed = seed * 1_000_003 + totals["sessions"]
        count = min(session_steps, steps - totals["steps"])
        try:
            session = run_session(RandomSource(session_seed, count))
        except Exception as exc:
            raise Failure(f"session seed {session_seed}: {exc}") from exc
        totals.update(session.counts)
        totals.update({"steps": count, "sessions": 1, "log lines": len(session.log.records)})
    return totals


def seed_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    for i in range(32):
        (folder / f"random-{i}").write_bytes(rng.randbytes(rng.choice((64, 512, 4096))))
    print(f"wrote 32 seed inputs to {folder}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--random"]:
        total, first = int(sys.argv[2]), int(sys.argv[3]) if sys.argv[3:] else 0
        began = time.monotonic()
        totals = random_runs(total, first)
        done = ", ".join(f"{n:,} {what}" for what, n in sorted(totals.items()))
        print(f"done in {time.monotonic() - began:.0f} s: {done}")
    elif sys.argv[1:2] == ["--session"]:  # one session again, by the seed a failure names
        steps = int(sys.argv[3]) if sys.argv[3:] else 200
        print(run_session(RandomSource(int(sys.argv[2]), steps)).steps)
    else:
        if sys.argv[1:2] not in (["--seed-corpus"], ["--replay"]):
            import atheris

            atheris.instrument_all()  # everything imported by now: the server's code too
        harness.main(test_one_input, seed_corpus)
