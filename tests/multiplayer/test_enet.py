"""The ENet transport of gdvariant.multiplayer, with plain pyenet hosts standing in for
Godot's ENetMultiplayerPeer (the live test with real Godot clients is
tests/live/multiplayer/test_enet.py)."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import socket
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import enet
import pytest

from gdvariant.multiplayer import SceneMultiplayer, TransferMode
from gdvariant.multiplayer import enet as mp_enet
from gdvariant.multiplayer.enet import MultiplayerClient, MultiplayerServer, enet_route, transfer_of
from gdvariant.multiplayer.wire import (
    AddPeer,
    DelPeer,
    RemoteCall,
    SimplifyPath,
    Sync,
    SyncState,
    decode_scene_packet,
    encode_scene_packet,
)
from tests.support import hostile
from tests.support.enet_recorder import rpc_modes
from tests.support.multiplayer_serving import run, until
from tests.support.multiplayer_serving import serving as serving_with
from tests.support.paths import VECTORS

# ENet's packet flags (enet.h): what Godot's ENetMultiplayerPeer.put_packet sets.
RELIABLE, UNSEQUENCED, UNRELIABLE_FRAGMENT = 1, 2, 8
#: What a Godot 4.6 ENet server sent one client (tools/record_multiplayer_vectors.py --enet).
GODOT_SERVER = VECTORS / "multiplayer/enet_server.json"


class FakeGodot:
    """A bare ENet client that connects the way Godot's does: its id as the CONNECT data,
    255 channels. Serviced by polling from the same event loop as the server."""

    def __init__(self, port: int, peer_id: int, channels: int = 255) -> None:
        self.id = peer_id
        self.host = enet.Host(None, 1, 0, 0, 0)
        self.peer = self.host.connect(enet.Address("127.0.0.1", port), channels, peer_id)
        self.events: list[enet.Event] = []

    async def next(self, kind: int) -> enet.Event:
        """The next event of ``kind`` (others are kept in ``events``)."""
        while True:
            event = self.host.service(0, True)
            if event is None:
                await asyncio.sleep(0.005)
            elif event.type == kind:
                return event
            else:
                self.events.append(event)

    async def packet(self) -> tuple[int, int, bytes]:
        """The next packet: (ENet channel, flags, data)."""
        event = await self.next(enet.EVENT_TYPE_RECEIVE)
        return event.channelID, event.packet.flags, event.packet.data

    def send(self, data: bytes, channel: int = 0, flags: int = RELIABLE) -> None:
        self.peer.send(channel, enet.Packet(data, flags))
        self.host.flush()

    async def pump(self, seconds: float) -> None:
        """Keep servicing (acknowledging) for a while, keeping what arrives."""
        for _ in range(int(seconds / 0.005)):
            event = self.host.service(0, True)
            if event is not None:
                self.events.append(event)
            await asyncio.sleep(0.005)


async def joined(port: int, peer_id: int, channels: int = 255) -> FakeGodot:
    """A fake client once ENet connected it (the server sees it a moment later)."""
    client = FakeGodot(port, peer_id, channels)
    await client.next(enet.EVENT_TYPE_CONNECT)
    client.host.flush()  # the acknowledgement that completes the server's side
    return client


def serving(**options: Any) -> Callable[[Callable[..., Awaitable[None]]], Callable[[], None]]:
    return serving_with(MultiplayerServer, **options)


@pytest.mark.parametrize(
    ("mode", "channel", "route"),
    [
        # enet_multiplayer_peer.cpp put_packet: SYSCH_RELIABLE = 0, SYSCH_UNRELIABLE = 1,
        # transfer channel N >= 1 is ENet channel N + 1 with the flags of its mode.
        (TransferMode.RELIABLE, 0, (0, RELIABLE)),
        (TransferMode.UNRELIABLE_ORDERED, 0, (1, UNRELIABLE_FRAGMENT)),
        (TransferMode.UNRELIABLE, 0, (1, UNSEQUENCED | UNRELIABLE_FRAGMENT)),
        (TransferMode.RELIABLE, 1, (2, RELIABLE)),
        (TransferMode.UNRELIABLE, 5, (6, UNSEQUENCED | UNRELIABLE_FRAGMENT)),
        (TransferMode.UNRELIABLE_ORDERED, 253, (254, UNRELIABLE_FRAGMENT)),
    ],
)
def test_modes_and_channels_map_to_enet_as_godot_maps_them(
    mode: TransferMode, channel: int, route: tuple[int, int]
) -> None:
    assert enet_route(mode, channel) == route
    assert transfer_of(*route) == (mode, channel)


def test_a_channel_past_enets_255_is_refused() -> None:
    with pytest.raises(ValueError, match="transfer channel 254"):
        enet_route(TransferMode.RELIABLE, 254)


def test_the_client_picks_its_id_and_bad_ones_are_refused() -> None:
    got: list[tuple[int, bytes]] = []

    @serving(on_raw=lambda peer, data: got.append((peer, data)))
    async def body(server: MultiplayerServer, port: int) -> None:
        good = await joined(port, 77)
        low = await joined(port, 1)  # the server's own id
        twin = await joined(port, 77)  # taken
        for client in (low, twin, good):
            client.send(b"\x03from %d" % client.id)
        await until(lambda: bool(got))
        await asyncio.gather(low.pump(0.2), twin.pump(0.2))
        assert server.peers == {77} and got == [(77, b"from 77")]

    body()


def test_the_throttle_option_configures_each_clients_enet_peer() -> None:
    """``throttle`` sets what ENet uses to drop our unreliable packets; without it, ENet's
    defaults stay (interval 5000 ms, acceleration and deceleration 2)."""

    def settings(server: MultiplayerServer, peer: int) -> tuple[int, int, int]:
        enet_peer = server._peers[peer].peer
        return (
            enet_peer.packetThrottleInterval,
            enet_peer.packetThrottleAcceleration,
            enet_peer.packetThrottleDeceleration,
        )

    @serving(throttle=(1000, 3, 0))
    async def configured(server: MultiplayerServer, port: int) -> None:
        await joined(port, 77)
        await until(lambda: 77 in server.peers)
        assert settings(server, 77) == (1000, 3, 0)

    @serving()
    async def default(server: MultiplayerServer, port: int) -> None:
        await joined(port, 78)
        await until(lambda: 78 in server.peers)
        assert settings(server, 78) == (5000, 2, 2)

    configured()
    default()


def test_packets_travel_with_godots_channels_and_flags() -> None:
    modes: list[tuple[TransferMode, int]] = []

    def raw(peer: int, data: bytes) -> None:
        modes.append((server.packet_mode, server.packet_channel))

    server = MultiplayerServer(on_raw=raw)

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            client = await joined(port, 9)
            await until(lambda: 9 in server.peers)
            server.send_raw(9, b"r")
            server.send_raw(9, b"u", mode=TransferMode.UNRELIABLE)
            server.send_raw(9, b"o", mode=TransferMode.UNRELIABLE_ORDERED, channel=2)
            server.send(9, Sync(1, (SyncState(5, (1,)),)))  # Godot sends full syncs unreliably
            got = [await client.packet() for _ in range(4)]
            # The receiver sees RELIABLE and UNSEQUENCED; UNRELIABLE_FRAGMENT only steers how
            # the sender splits a packet, and unreliable ordered shows no flag at all.
            assert sorted(got) == [
                (0, RELIABLE, b"\x03r"),
                (1, UNSEQUENCED, b"\x03u"),
                (1, UNSEQUENCED, b"\x06\x01\x00\x05\x00\x00\x00\x02\x00\x00\x00\x02\x01"),
                (3, 0, b"\x03o"),
            ]
            client.send(b"\x03a", 1, UNSEQUENCED | UNRELIABLE_FRAGMENT)
            client.send(b"\x03b", 4, RELIABLE)
            await until(lambda: len(modes) == 2)
            assert sorted(modes) == [(TransferMode.UNRELIABLE, 0), (TransferMode.RELIABLE, 3)]

    run(main())


def test_relay_announcements_and_garbage_drop_only_the_sender(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gone: list[int] = []
    got: list[bytes] = []

    @serving(on_peer_disconnected=gone.append, on_raw=lambda peer, data: got.append(data))
    async def body(server: MultiplayerServer, port: int) -> None:
        good = await joined(port, 5)
        bad = await joined(port, 6)
        assert decode_scene_packet((await good.packet())[2]) == AddPeer(6)
        assert decode_scene_packet((await bad.packet())[2]) == AddPeer(5)
        bad.send(b"\xff\x13\x37")
        await bad.next(enet.EVENT_TYPE_DISCONNECT)
        assert decode_scene_packet((await good.packet())[2]) == DelPeer(6)
        good.send(b"\x03still here")
        await until(lambda: bool(got))
        assert gone == [6] and got == [b"still here"] and server.peers == {5}

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.enet"):
        body()
    assert "dropped a packet from peer 6" in caplog.text


@pytest.mark.slow
def test_auth_accept_reject_and_timeout() -> None:
    connected: list[int] = []
    failed: list[int] = []

    def auth(peer: int, data: bytes) -> None:
        if data == b"good":
            server.send_auth(peer, b"welcome")
            server.complete_auth(peer)
        else:
            server.disconnect_peer(peer)

    server = MultiplayerServer(
        auth_callback=auth,
        auth_timeout=1.0,
        on_peer_connected=connected.append,
        on_peer_authentication_failed=failed.append,
    )

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            good = await joined(port, 10)
            good.send(b"\x07\x00good")
            assert (await good.packet())[2] == b"\x07\x00welcome"
            assert (await good.packet())[2] == b"\x07\x00"
            good.send(b"\x07\x00")
            bad = await joined(port, 11)
            bad.send(b"\x07\x00bad")
            await bad.next(enet.EVENT_TYPE_DISCONNECT)
            silent = await joined(port, 12)
            await silent.next(enet.EVENT_TYPE_DISCONNECT)  # the auth timeout
            assert connected == [10] and failed == [11, 12]

    run(main())


def test_auth_deadlines_are_read_on_the_clock_the_server_is_given() -> None:
    """As over WebSocket: the deadline passes when the adapter's ``clock`` says so."""
    now = [50.0]
    tokens: list[bytes] = []
    failed: list[int] = []
    server = MultiplayerServer(
        auth_callback=lambda peer, data: tokens.append(data),
        auth_timeout=600,
        clock=lambda: now[0],
        on_peer_authentication_failed=failed.append,
    )

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            client = await joined(port, 10)
            client.send(b"\x07\x00early")
            async with asyncio.timeout(5):
                while not tokens:
                    await client.pump(0.01)
            now[0] += 600
            client.send(b"\x07\x00late")
            async with asyncio.timeout(5):
                await client.next(enet.EVENT_TYPE_DISCONNECT)
            assert failed == [10] and tokens == [b"early"]

    run(main())


def test_our_client_joins_authenticates_relays_and_leaves() -> None:
    seen: list[Any] = []

    def server_auth(peer: int, data: bytes) -> None:
        server.send_auth(peer, data.upper())
        server.complete_auth(peer)

    server = MultiplayerServer(auth_callback=server_auth)

    def player(name: str) -> MultiplayerClient:
        def auth(data: bytes) -> None:
            seen.append((name, "auth", data))
            clients[name].complete_auth()

        return MultiplayerClient(
            auth_callback=auth,
            on_peer_connected=lambda peer: seen.append((name, "+", peer)),
            on_peer_disconnected=lambda peer: seen.append((name, "-", peer)),
            on_raw=lambda peer, data: seen.append((name, "raw", peer, data)),
        )

    clients = {name: player(name) for name in "ab"}

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            a, b = clients["a"], clients["b"]
            for client in (a, b):
                await client.connect("127.0.0.1", port)
                client.send_auth(b"hi")
                await until(lambda c=client: 1 in c.peers)  # type: ignore[misc]
            await until(lambda: b.unique_id in a.peers)
            a.send_raw(b"to b", b.unique_id, mode=TransferMode.UNRELIABLE_ORDERED)
            server.send_raw(0, b"all")
            await until(lambda: sum(item[1] == "raw" for item in seen) == 3)
            await a.close()
            await until(lambda: ("b", "-", a.unique_id) in seen)
        await b.wait_closed()
        ids = {"a": a.unique_id, "b": b.unique_id}
        for name in "ab":
            assert (name, "auth", b"HI") in seen and (name, "+", 1) in seen
            assert (name, "raw", 1, b"all") in seen
        assert ("b", "raw", ids["a"], b"to b") in seen
        assert ("a", "+", ids["b"]) in seen and ("b", "+", ids["a"]) in seen
        assert seen[-1] == ("b", "-", 1)

    run(main())


def test_our_server_sends_what_a_godot_enet_server_sends() -> None:
    """Replay the packets of a recorded Godot 4.6 ENet server through ours, each with the
    mode its @rpc gives it (RPCs) or our default (everything else): the client must receive
    the same bytes on the same ENet channel with the same flags. The reliable ones arrive
    all and in order; the unreliable ones that arrive are ones Godot sent that way."""
    recording = json.loads(GODOT_SERVER.read_text())
    assert recording["godot"].startswith("4.6")
    peer_id = recording["peer_id"]
    expected = [(r["channel"], r["flags"], bytes.fromhex(r["hex"])) for r in recording["packets"]]
    reliable = [packet for packet in expected if packet[1] & RELIABLE]
    # All three routes: reliable on 0, unreliable on 1, unreliable ordered transfer channel 1.
    assert {(channel, flags) for channel, flags, _ in expected} == {
        (0, RELIABLE),
        (1, UNSEQUENCED),
        (2, 0),
    }

    @serving()
    async def body(server: MultiplayerServer, port: int) -> None:
        client = await joined(port, peer_id)
        await until(lambda: peer_id in server.peers)
        client.events.clear()  # ADD_PEER and friends: none, we are alone
        for (_, _, data), how in zip(expected, rpc_modes(recording), strict=True):
            mode, channel = how if how is not None else (None, 0)
            server.send(peer_id, decode_scene_packet(data), mode=mode, channel=channel)
            await asyncio.sleep(0)
        got: list[tuple[int, int, bytes]] = []
        while sum(flags & RELIABLE for _, flags, _ in got) < len(reliable):
            got.append(await client.packet())
        await client.pump(0.1)
        got += [
            (e.channelID, e.packet.flags, e.packet.data)
            for e in client.events
            if e.type == enet.EVENT_TYPE_RECEIVE
        ]
        assert [packet for packet in got if packet[1] & RELIABLE] == reliable
        unreliable = Counter(packet for packet in got if not packet[1] & RELIABLE)
        assert unreliable <= Counter(expected) and unreliable.total() >= 1

    body()


def test_connecting_to_nobody_fails() -> None:
    async def main() -> None:
        silent = enet.Host(enet.Address("127.0.0.1", 0), 1, 0, 0, 0)  # never serviced
        with pytest.raises(ConnectionError, match="no ENet server answered"):
            await MultiplayerClient().connect("127.0.0.1", silent.address.port, timeout=0.3)

    run(main())


def test_listen_twice_is_refused() -> None:
    @serving()
    async def body(server: MultiplayerServer, port: int) -> None:
        with pytest.raises(RuntimeError, match="already listening"):
            await server.listen("127.0.0.1", 0)

    body()


def test_a_port_in_use_is_an_oserror() -> None:
    async def main() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken:
            taken.bind(("127.0.0.1", 0))
            with pytest.raises(OSError, match="cannot listen"):
                await MultiplayerServer().listen("127.0.0.1", taken.getsockname()[1])

    run(main())


def test_the_core_does_not_need_pyenet(
    hide_package: Callable[[str], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(__import__("sys").modules, "gdvariant.multiplayer.enet")
    hide_package("enet")
    importlib.import_module("gdvariant.multiplayer")
    with pytest.raises(ImportError, match=r"pip install 'gdvariant\[enet\]'"):
        importlib.import_module("gdvariant.multiplayer.enet")


@pytest.mark.slow
def test_a_client_that_never_acknowledges_is_held_to_max_unsent_then_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client floods echo requests and never services its host, so nothing we send it is
    acknowledged: what ENet holds for it stays within max_unsent (the server's count and
    the process's memory), another client's round trips go on, and it is cut with one
    line."""
    limit = 1 << 20

    def echo(peer: int, data: bytes) -> None:
        server.send_raw(peer, data)

    server = MultiplayerServer(on_raw=echo, max_unsent=limit, stall_timeout=1.0)
    request = b"\x03" + bytes(1000)
    rounds = 40_000  # 40 MB of replies, which the server used to keep for ENet to resend

    async def main() -> None:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            good = await joined(port, 10)
            deaf = await joined(port, 20)
            await until(lambda: len(server.peers) == 2)
            bad = server._peers[20]
            before = hostile.rss()
            for i in range(rounds):
                deaf.peer.send(1, enet.Packet(request, UNSEQUENCED | UNRELIABLE_FRAGMENT))
                deaf.host.flush()
                if i % 200 == 0:
                    await asyncio.sleep(0)  # the server runs in this loop
                    good.send(b"\x03round %d" % i)
                    while (await good.packet())[2] != b"\x03round %d" % i:
                        pass
            growth = hostile.rss() - before
            assert growth < 8 * limit, growth
            await until(lambda: 20 not in server.peers)
            assert limit // 2 < bad.outbox.backlog.peak <= limit
            good.send(b"\x03after")
            while (await good.packet())[2] != b"\x03after":
                pass

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.enet"):
        run(main())
    closing = [r.getMessage() for r in caplog.records if "closing peer 20" in r.getMessage()]
    assert len(closing) == 1, closing


@pytest.mark.slow
def test_a_flood_of_refused_packets_logs_a_few_short_lines_a_second_and_counts_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """As over WebSocket: 3,000 each of an RPC on an undeclared 1 KB path, a SIMPLIFY_PATH
    naming it and a malformed packet, every one logged or counted, in a few short lines."""
    server = MultiplayerServer(drop_limit=10**9)
    SceneMultiplayer(server)
    long_path = "Main/" + "n" * 1000
    packets = [
        encode_scene_packet(RemoteCall(0, (1,), path=long_path)),
        encode_scene_packet(SimplifyPath(7, long_path)),
        b"\xff" + long_path.encode(),
    ]
    count = 3000
    scene, transport = "gdvariant.multiplayer", "gdvariant.multiplayer.enet"

    def accounted() -> int:  # the scene's lines count against the transport's budget
        markers = ["refused a packet", "not declared", "dropped a packet"]
        return sum(hostile.reported(caplog.records, name, markers) for name in (scene, transport))

    async def main() -> float:
        async with server:
            port = await server.listen("127.0.0.1", 0)
            client = await joined(port, 30)
            start = time.monotonic()
            for i in range(count):
                for packet in packets:
                    client.peer.send(0, enet.Packet(packet, RELIABLE))
                if i % 20 == 0:
                    client.host.flush()
                    await client.pump(0.005)
            async with asyncio.timeout(30):
                while accounted() != 3 * count:
                    await client.pump(0.01)
            return time.monotonic() - start

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer"):
        elapsed = asyncio.run(main())
    hostile.check_log_volume(caplog.records, elapsed, loggers=1)
    assert "... (1,005 characters)" in caplog.text


class FloodingHost:
    """An ``enet.Host`` stand-in whose socket is always readable and whose ``service``
    brings CONNECTs from ``pending`` clients, then one from a client that authenticates and
    floods: RECEIVE events without end (until ``remaining`` runs out)."""

    def __init__(self, pending: list[int], remaining: int) -> None:
        self.socket, self._other = socket.socketpair()
        self._other.send(b"!")  # never read: the event loop sees it readable every turn
        self.address = enet.Address("127.0.0.1", 7777)
        self.events = [self._connect(peer, peer) for peer in [*pending, 99]]
        self.flooder = self.events[-1].peer
        self.events += [self._receive(b"\x07\x00let me in"), self._receive(b"\x07\x00")]
        self.remaining = remaining
        self.served = 0

    def _connect(self, slot: int, peer_id: int) -> SimpleNamespace:
        peer = SimpleNamespace(
            incomingPeerID=slot,
            address=self.address,
            send=lambda channel, packet: 0,
            disconnect_later=lambda: None,
            disconnect_now=lambda: None,
            reset=lambda: None,
        )
        return SimpleNamespace(type=enet.EVENT_TYPE_CONNECT, peer=peer, data=peer_id)

    def service(self, timeout: int, immediate: bool) -> SimpleNamespace | None:
        if self.events:
            return self.events.pop(0)
        if self.remaining <= 0:
            return None
        self.remaining -= 1
        self.served += 1
        return self._receive(b"\x03flood")

    def _receive(self, data: bytes) -> SimpleNamespace:
        packet = SimpleNamespace(data=data, flags=RELIABLE)
        return SimpleNamespace(
            type=enet.EVENT_TYPE_RECEIVE, peer=self.flooder, packet=packet, channelID=0
        )

    def flush(self) -> None:
        pass


def test_pending_peers_time_out_while_a_client_floods_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ENet hands the server events one by one; a client that never stops sending used to
    keep the server servicing (it serviced until ENet had none left) and the deadline checks
    after it never ran. 30 pending peers must time out while the flood still goes on."""
    flood = 200_000  # seconds of work however fast the machine: far past the deadline
    host = FloodingHost(list(range(100, 130)), flood)
    monkeypatch.setattr(enet, "Host", lambda *args: host)
    failed: dict[int, int] = {}

    def timed_out(peer: int) -> None:
        failed[peer] = host.served  # how far the flood had got

    server = MultiplayerServer(
        auth_callback=lambda peer, data: server.complete_auth(peer),
        auth_timeout=0.05,
        on_peer_authentication_failed=timed_out,
    )

    async def main() -> None:
        async with server:
            await server.listen("127.0.0.1", 0)
            async with asyncio.timeout(120):
                await until(lambda: len(failed) == 30 or host.remaining == 0)
            host.remaining = 0

    run(main())
    host.socket.close()
    host._other.close()
    assert sorted(failed) == list(range(100, 130))
    assert max(failed.values()) < flood  # each timed out while the flood went on


def test_our_client_is_held_to_max_unsent_by_a_server_that_never_acknowledges(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The client counts what ENet holds for the server the same way: against a server that
    stops servicing its host, our sends are refused once max_unsent would be passed, and the
    connection is cut."""
    limit = 64 * 1024
    left: list[int] = []

    async def main() -> None:
        host = enet.Host(enet.Address("127.0.0.1", 0), 4, 0, 0, 0)
        client = MultiplayerClient(max_unsent=limit, on_peer_disconnected=left.append)
        connecting = asyncio.create_task(client.connect("127.0.0.1", host.address.port))
        while (event := host.service(0, True)) is None or event.type != enet.EVENT_TYPE_CONNECT:
            await asyncio.sleep(0.005)
        host.flush()
        await connecting  # from here on the server host is never serviced again
        with pytest.raises(ValueError, match="not connected"):
            for i in range(100_000):  # 100 MB of reliable packets nobody acknowledges
                client.send_raw(bytes(1000))
                if i % 16 == 0:
                    await asyncio.sleep(0)
        await client.wait_closed()
        assert left == [1]

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer.enet"):
        run(main())
    assert "closing the connection to the server: " in caplog.text
    assert "over max_unsent 65,536" in caplog.text


# ---------------------------------------------------------------- one flush per turn


REAL_HOST = enet.Host


class SpyHost:
    """A real ENet host whose flushes and services are counted."""

    def __init__(self, *args: Any) -> None:
        self.real = REAL_HOST(*args)
        self.flushes = 0
        self.services = 0
        self.checks = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def flush(self) -> None:
        self.flushes += 1
        self.real.flush()

    def service(self, timeout: int, immediate: bool = False) -> Any:
        self.services += 1
        return self.real.service(timeout, immediate)

    def check_events(self) -> Any:
        self.checks += 1
        return self.real.check_events()


def datagrams(client: FakeGodot) -> int:
    """The UDP datagrams the client's host has received (ENet's own count)."""
    return client.host.totalReceivedPackets


def spy_hosts(monkeypatch: pytest.MonkeyPatch) -> list[SpyHost]:
    """Every host the transport makes from now on, spied."""
    hosts: list[SpyHost] = []

    def make(*args: Any) -> SpyHost:
        hosts.append(SpyHost(*args))
        return hosts[-1]

    monkeypatch.setattr(enet, "Host", make)
    return hosts


def test_what_a_turn_sends_leaves_in_one_flush_and_one_datagram_a_peer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A frame's packets to three peers, of every transfer mode: one flush once the turn is
    over, not one per packet, and each peer gets them in one datagram, in order (ENet
    puts a datagram's reliable and unreliable packets back in the order they were sent)."""
    hosts = spy_hosts(monkeypatch)
    modes = [TransferMode.UNRELIABLE, TransferMode.RELIABLE, TransferMode.UNRELIABLE_ORDERED]

    # no timer service while measuring (only the turn's own flush may send), no relay
    # announcements, and no throttle dropping unreliable packets while round trips vary
    @serving(service_interval=60.0, relay=False, throttle=(5000, 2, 0))
    async def body(server: MultiplayerServer, port: int) -> None:
        clients = [await joined(port, 100 + i) for i in range(3)]
        await until(lambda: len(server.peers) == 3)
        for client in clients:
            await client.pump(0.05)  # the server's connection traffic, all taken
        spy = hosts[0]  # the server's (the clients' are spied too)
        received_before = [datagrams(c) for c in clients]
        flushes = spy.flushes
        for i in range(12):
            for client in clients:
                server.send_raw(client.id, b"%d" % i, mode=modes[i % 3])
        assert spy.flushes == flushes  # nothing flushed inside the turn
        await asyncio.sleep(0)
        assert spy.flushes == flushes + 1
        for client, before in zip(clients, received_before, strict=True):
            got = [(await client.packet())[2] for _ in range(12)]
            assert got == [b"\x03%d" % i for i in range(12)]
            # one datagram (per packet, they were 12); ENet may add a ping of its own
            assert datagrams(client) - before <= 2

    body()


def test_a_frame_leaves_in_one_flush_before_send_encoded_many_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A frame (``send_encoded_many``, a tick's SYNCs) is flushed once all its packets are
    handed over, with what the turn queued before it: one flush and no turn of the loop
    after it; the client, blocking the loop in its own service, gets everything in order."""
    hosts = spy_hosts(monkeypatch)

    @serving(service_interval=60.0, relay=False, throttle=(5000, 2, 0))
    async def body(server: MultiplayerServer, port: int) -> None:
        clients = [await joined(port, 100 + i) for i in range(2)]
        await until(lambda: len(server.peers) == 2)
        for client in clients:
            await client.pump(0.05)
        spy = hosts[0]
        flushes = spy.flushes
        server.send_raw(100, b"first")  # queued for the turn's flush
        frame = [
            (client.id, b"\x03%d" % i, TransferMode(i % 3), 0)
            for i in range(6)
            for client in clients
        ]
        server.send_encoded_many(frame)
        assert spy.flushes == flushes + 1
        await asyncio.sleep(0)
        assert spy.flushes == flushes + 1  # the turn's flush had nothing left: dropped
        for client in clients:
            expected = [b"\x03first"] * (client.id == 100) + [b"\x03%d" % i for i in range(6)]
            got: list[bytes] = []
            deadline = time.monotonic() + 5
            while len(got) < len(expected) and time.monotonic() < deadline:
                event = client.host.service(100, True)  # blocks the loop: no more turns
                if event is not None and event.type == enet.EVENT_TYPE_RECEIVE:
                    got.append(event.packet.data)
            assert got == expected

    body()


@pytest.mark.parametrize("timing", [False, True], ids=["basic", "detail"])
def test_a_frames_packets_are_checked_counted_and_sent_in_order(
    timing: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """``send_encoded_many`` of a frame, with and without detail's timing of each write
    (two hand-over paths): a packet over ``max_send_size`` is logged and left out, the rest
    reach their peers in order with their transfer modes, and each is counted once."""
    modes = [TransferMode.UNRELIABLE, TransferMode.RELIABLE, TransferMode.UNRELIABLE_ORDERED]

    @serving(service_interval=60.0, relay=False, throttle=(5000, 2, 0), max_send_size=8)
    async def body(server: MultiplayerServer, port: int) -> None:
        server.traffic.timing = timing
        clients = [await joined(port, 100 + i) for i in range(2)]
        await until(lambda: len(server.peers) == 2)
        for client in clients:
            await client.pump(0.05)
        before = dict(server.traffic.messages)
        frame = [
            (client.id, b"\x03%d%s" % (i, b"!" * 8 * (i == 4)), modes[i % 3], 0)
            for i in range(6)
            for client in clients
        ]
        server.send_encoded_many(frame)
        for client in clients:
            got = [await client.packet() for _ in range(5)]
            assert [(*transfer_of(channel, flags), data) for channel, flags, data in got] == [
                (modes[i % 3], 0, b"\x03%d" % i) for i in (0, 1, 2, 3, 5)
            ]
            assert server.traffic.messages[client.id] - before.get(client.id, 0) == 5
        assert server.traffic.transport_ns > 0 if timing else server.traffic.transport_ns == 0

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer"):
        body()
    assert caplog.text.count("not sending 10 bytes to peer") == 2


def test_nothing_queued_is_left_unflushed_once_a_turn_is_over() -> None:
    """After one turn the packets are on the wire: the client, blocking the loop in its
    own service, gets them without our server's loop running again."""

    @serving(service_interval=60.0)
    async def body(server: MultiplayerServer, port: int) -> None:
        client = await joined(port, 77)
        await until(lambda: server.peers == {77})
        await client.pump(0.05)
        for i in range(3):
            server.send_raw(77, b"%d" % i)
        await asyncio.sleep(0)  # one turn: the flush
        got: list[bytes] = []
        deadline = time.monotonic() + 5
        while len(got) < 3 and time.monotonic() < deadline:
            event = client.host.service(100, True)  # blocks the loop: no more turns
            if event is not None and event.type == enet.EVENT_TYPE_RECEIVE:
                got.append(event.packet.data)
        assert got == [b"\x03%d" % i for i in range(3)]

    body()


def test_our_client_flushes_once_a_turn_too(monkeypatch: pytest.MonkeyPatch) -> None:
    hosts = spy_hosts(monkeypatch)
    got: list[bytes] = []

    @serving(on_raw=lambda peer, data: got.append(data))
    async def body(server: MultiplayerServer, port: int) -> None:
        client = MultiplayerClient(service_interval=60.0)
        await client.connect("127.0.0.1", port)
        await until(lambda: len(server.peers) == 1)
        spy = hosts[-1]
        flushes = spy.flushes
        for i in range(10):
            client.send_raw(b"%d" % i)
        await asyncio.sleep(0)
        assert spy.flushes == flushes + 1
        await until(lambda: len(got) == 10)
        assert got == [b"%d" % i for i in range(10)]
        await client.close()

    body()


def test_the_timer_services_only_a_host_left_unserviced_for_the_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ENet's resends and pings need a service every interval; traffic that has the host
    serviced anyway makes the timer's own service needless."""
    hosts = spy_hosts(monkeypatch)

    @serving(service_interval=0.2)
    async def body(server: MultiplayerServer, port: int) -> None:
        pump = server._pump
        assert pump is not None
        spy = hosts[0]
        pump._timer.cancel()  # its tick is run here instead
        pump.service()
        services = spy.services
        pump._tick()  # just serviced: the timer leaves it
        assert spy.services == services
        await asyncio.sleep(0.25)  # past the interval with no traffic: the timer's service
        assert spy.services > services

    body()


def test_a_server_reading_on_wake_ups_has_its_quiet_host_serviced_every_idle_interval() -> None:
    """Reading on every wake-up, each datagram a client sends has the host serviced, so the
    timer is for a quiet host only: its default interval is ``IDLE_SERVICE_INTERVAL``, not
    the 10 ms a server without ``wake_on_read`` (its reads) and a client keep; one given is
    kept. (At 10 ms the timer woke a 30 Hz server 2-3 times a tick.)"""
    assert mp_enet.IDLE_SERVICE_INTERVAL > 1 / 30 > mp_enet.SERVICE_INTERVAL
    assert MultiplayerServer().service_interval == mp_enet.IDLE_SERVICE_INTERVAL
    assert MultiplayerServer(wake_on_read=False).service_interval == mp_enet.SERVICE_INTERVAL
    assert MultiplayerServer(service_interval=0.5).service_interval == 0.5
    assert MultiplayerClient().service_interval == mp_enet.SERVICE_INTERVAL

    @serving()
    async def body(server: MultiplayerServer, port: int) -> None:
        pump = server._pump
        assert pump is not None and pump.interval == mp_enet.IDLE_SERVICE_INTERVAL
        client = await joined(port, 77)  # still joins, its packets read on wake-ups
        await until(lambda: server.peers == {77})
        client.send(b"\x03a")
        await client.pump(0.05)
        assert server.peers == {77}

    body()


def test_without_wake_on_read_a_datagram_waits_for_the_servers_next_send_or_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``wake_on_read=False``: what a client sends wakes nobody; the server reads it when it
    next sends (the turn's flush is then a service, which sends too) or when the timer's
    interval is up, as Godot's server reads once a frame."""
    hosts = spy_hosts(monkeypatch)
    got: list[bytes] = []

    @serving(service_interval=0.2, wake_on_read=False, on_raw=lambda peer, data: got.append(data))
    async def body(server: MultiplayerServer, port: int) -> None:
        client = await joined(port, 77)  # the timer's services take the CONNECT
        await until(lambda: server.peers == {77})
        await client.pump(0.05)
        pump, spy = server._pump, hosts[0]
        assert pump is not None
        pump._timer.cancel()  # its tick is run by hand below
        client.send(b"\x03a")
        await asyncio.sleep(0.1)
        assert got == []  # arrived, but no wake-up read it
        flushes, services = spy.flushes, spy.services
        server.send_raw(77, b"x")
        await asyncio.sleep(0)  # the turn's send: a service, not a flush
        assert got == [b"a"]
        assert spy.flushes == flushes and spy.services > services
        assert (await client.packet())[2] == b"\x03x"
        client.send(b"\x03b")
        await asyncio.sleep(0.25)
        assert got == [b"a"]
        pump._tick()  # past the interval: the timer's service reads it
        assert got == [b"a", b"b"]

    body()


def test_read_after_reads_what_came_after_a_send_without_waiting_for_the_timer() -> None:
    """``read_after`` without ``wake_on_read``: the host is also serviced that long after each
    send of a turn, so what a client sends back (the acknowledgements of what it got) is read
    then, not a timer's interval later; no send, no such read. A server reading on wake-ups
    ignores it; a negative one is refused."""
    assert MultiplayerServer(read_after=0.003).read_after == 0.003
    with pytest.raises(ValueError, match="read_after"):
        MultiplayerServer(wake_on_read=False, read_after=-0.001)
    got: list[bytes] = []

    @serving(
        service_interval=0.2,
        wake_on_read=False,
        read_after=0.05,
        on_raw=lambda peer, data: got.append(data),
    )
    async def body(server: MultiplayerServer, port: int) -> None:
        client = await joined(port, 77)  # the timer's services take the CONNECT
        await until(lambda: server.peers == {77})
        await client.pump(0.05)
        pump = server._pump
        assert pump is not None and pump.read_after == 0.05
        pump._timer.cancel()  # no timer: only sends and the reads after them read
        client.send(b"\x03a")
        await asyncio.sleep(0.1)
        assert got == []  # arrived, but nothing read it
        server.send_raw(77, b"x")
        await asyncio.sleep(0)  # the turn's send: a service, which reads "a"
        assert got == [b"a"] and pump._after is not None
        assert (await client.packet())[2] == b"\x03x"
        client.send(b"\x03b")
        await until(lambda: got == [b"a", b"b"])  # the read after the send
        assert pump._after is None
        client.send(b"\x03c")
        await asyncio.sleep(0.15)
        assert got == [b"a", b"b"]  # nothing sent since: no read

    body()

    @serving(read_after=0.05)
    async def waking(server: MultiplayerServer, port: int) -> None:
        assert server._pump is not None and server._pump.read_after == 0.0

    waking()


def test_packets_of_many_sizes_are_all_released_through_shared_callbacks() -> None:
    """A packet's free callback is shared by every packet of its size to that peer, for the
    first 64 sizes (past them each packet gets its own): whatever the sizes, once the client
    acknowledged them the outbox holds nothing, as with a callback per packet."""

    @serving(service_interval=60.0, relay=False, throttle=(5000, 2, 0))
    async def body(server: MultiplayerServer, port: int) -> None:
        client = await joined(port, 77)
        await until(lambda: server.peers == {77})
        await client.pump(0.05)
        link = server._peers[77]
        sizes = [1 + i % 90 for i in range(180)]  # 90 sizes, each twice
        reliable = TransferMode.RELIABLE
        frame = [(77, b"\x03" + b"x" * (size - 1), reliable, i % 3) for i, size in enumerate(sizes)]
        server.send_encoded_many(frame[:90])
        assert link.outbox.held == sum(sizes[:90]) and link.outbox.held_packets == 90
        server.send_encoded_many(frame[90:])
        assert len(link.releases) == 64
        assert all(release.args == (size,) for size, release in link.releases.items())
        got = [await client.packet() for _ in range(180)]
        assert sorted(len(data) for _, _, data in got) == sorted(sizes)
        await client.pump(0.1)
        await until(lambda: link.outbox.held == 0)
        assert link.outbox.held_packets == 0

    body()


@pytest.mark.parametrize("timing", [False, True], ids=["basic", "detail"])
def test_unreliable_packets_are_not_held_and_leave_with_the_turns_flush(timing: bool) -> None:
    """ENet frees an unreliable packet in the flush that sends it (or throttles it away), so
    neither hand-over (the frame's loop; detail's, a ``_Link.send`` a packet) counts it in
    the outbox or asks ENet to report it: only the reliable packets are held until
    acknowledged, and every packet still arrives, in order."""
    modes = [TransferMode.UNRELIABLE, TransferMode.RELIABLE, TransferMode.UNRELIABLE_ORDERED]

    @serving(service_interval=60.0, relay=False, throttle=(5000, 2, 0))
    async def body(server: MultiplayerServer, port: int) -> None:
        client = await joined(port, 77)
        await until(lambda: server.peers == {77})
        await client.pump(0.05)
        link = server._peers[77]
        server.traffic.timing = timing
        frame = [(77, b"\x03%d" % i + b"x" * i, modes[i % 3], i % 2) for i in range(30)]
        server.send_encoded_many(frame)
        reliable = [data for _, data, mode, _ in frame if mode is TransferMode.RELIABLE]
        assert link.outbox.held_packets == len(reliable)
        assert link.outbox.held == sum(map(len, reliable))
        got = [await client.packet() for _ in range(30)]
        assert [(*transfer_of(channel, flags), data) for channel, flags, data in got] == [
            (mode, channel, data) for _, data, mode, channel in frame
        ]
        await client.pump(0.1)
        await until(lambda: link.outbox.held == 0)
        assert link.outbox.held_packets == 0

    body()


def test_a_packet_costs_one_enet_service_and_its_answer_one_flush(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A wake-up reads the socket with one ENet service (which sends the acknowledgements);
    the events it queued are taken with ``check_events``, not a second service that reads
    and walks every peer again. What the handler queued (an echo) leaves in one flush at
    the end; a packet nobody answers makes no flush; a service cut short by the budget has
    the turn's flush send the answers."""
    hosts = spy_hosts(monkeypatch)
    server_box: list[MultiplayerServer] = []
    got: list[bytes] = []

    def echo(peer: int, data: bytes) -> None:
        got.append(data)
        if data != b"quiet":  # the RAW payload, without its command byte
            server_box[0].send_raw(peer, data[::-1], mode=TransferMode.UNRELIABLE)

    @serving(service_interval=60.0, relay=False, on_raw=echo)
    async def body(server: MultiplayerServer, port: int) -> None:
        server_box.append(server)
        client = await joined(port, 77)
        await until(lambda: server.peers == {77})
        await client.pump(0.05)
        spy = hosts[0]
        services, checks, flushes = spy.services, spy.checks, spy.flushes
        client.send(b"\x03abc")
        assert (await client.packet())[2] == b"\x03cba"
        assert (spy.services - services, spy.checks - checks) == (1, 1)
        assert spy.flushes - flushes == 1  # the echo's
        client.send(b"\x03quiet")
        await until(lambda: got[-1:] == [b"quiet"])
        await client.pump(0.05)
        assert spy.flushes - flushes == 1  # nothing queued: no flush
        monkeypatch.setattr(mp_enet, "SERVICE_BUDGET", 1)
        for i in range(3):
            client.peer.send(0, enet.Packet(b"\x03x%d" % i, RELIABLE))
        client.host.flush()
        assert [(await client.packet())[2] for _ in range(3)] == [b"\x030x", b"\x031x", b"\x032x"]
        assert spy.flushes - flushes > 1  # cut short: the turn's flush

    body()


# ---------------------------------------------------------------- refused packets


@pytest.mark.parametrize("timing", [False, True], ids=["basic", "detail"])
def test_a_packet_enet_refuses_is_logged_counted_and_not_held_on_both_hand_overs(
    timing: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """Both hand-overs of a frame (the ENet server's own loop; detail's, ``_Link.send`` a
    packet) treat a packet ENet refuses alike: logged, counted as handed over, nothing left
    in the outbox (ENet never frees a refused packet, so its bytes are released at once),
    the peer kept. ENet refuses a channel past the peer's count: this client asked for 2,
    so transfer channel 1 (ENet channel 2) is refused in every mode, channel 0 sent."""
    modes = [TransferMode.UNRELIABLE, TransferMode.RELIABLE, TransferMode.UNRELIABLE_ORDERED]

    @serving(service_interval=60.0, relay=False, throttle=(5000, 2, 0))
    async def body(server: MultiplayerServer, port: int) -> None:
        client = await joined(port, 77, channels=2)
        await until(lambda: server.peers == {77})
        await client.pump(0.05)
        link = server._peers[77]
        server.traffic.timing = timing
        before = server.traffic.messages.get(77, 0)
        frame = [(77, b"\x03%d" % i, modes[i % 3], i // 6) for i in range(12)]
        server.send_encoded_many(frame)
        assert server.traffic.messages[77] - before == 12
        assert link.outbox.held == 2 * 2 and link.outbox.held_packets == 2  # channel 0's
        got = [await client.packet() for _ in range(6)]
        assert [data for _, _, data in got] == [b"\x03%d" % i for i in range(6)]
        await client.pump(0.1)
        await until(lambda: link.outbox.held == 0)
        assert link.outbox.held_packets == 0
        assert server.peers == {77} and not link.closing

    with caplog.at_level(logging.WARNING, "gdvariant.multiplayer"):
        body()
    assert caplog.text.count("ENet refused a packet for peer 77") == 3  # then a summary
    assert "... and 3 more from peer 77" in caplog.text


class NeverAcknowledged:
    """An ``enet.Peer`` stand-in that takes every packet and frees none (a peer that never
    acknowledges): what it was sent stays counted in the link's outbox."""

    def __init__(self) -> None:
        self.packets: list[enet.Packet] = []

    def send(self, channel: int, packet: enet.Packet) -> int:
        self.packets.append(packet)
        return 0


def test_a_full_links_packets_are_held_then_handled_in_order_once_it_caught_up() -> None:
    """While a peer's outbox is full, what it sends is held (up to ``max_unsent`` bytes,
    past which the reason to drop it comes back); once the outbox is back under a quarter,
    the held packets are handled in order, with their modes and channels, and the next
    packet goes straight through again."""

    async def body() -> None:
        got: list[tuple[bytes, TransferMode, int]] = []
        peer = NeverAcknowledged()
        link = mp_enet._Link(
            5,
            peer,  # type: ignore[arg-type]
            lambda _, data, mode, channel: got.append((data, mode, channel)),
            (100, 60.0),
            lambda _, reason: None,
        )
        assert link.receive(b"a", TransferMode.RELIABLE, 0) is None
        assert got == [(b"a", TransferMode.RELIABLE, 0)] and link.taking
        assert link.send(b"x" * 60, TransferMode.RELIABLE, 0)  # over half of 100: full
        link.outbox.check()
        assert link.outbox.full and not link.taking
        assert link.receive(b"b", TransferMode.UNRELIABLE, 3) is None
        assert link.receive(b"c", TransferMode.UNRELIABLE_ORDERED, 0) is None
        assert got == [(b"a", TransferMode.RELIABLE, 0)]
        reason = link.receive(b"y" * 99, TransferMode.RELIABLE, 0)
        assert reason is not None and "max_unsent 100" in reason
        link.outbox.release(60)  # acknowledged: nothing unsent, the next look resumes it
        link.outbox.check()
        assert got[1:] == [
            (b"b", TransferMode.UNRELIABLE, 3),
            (b"c", TransferMode.UNRELIABLE_ORDERED, 0),
        ]
        assert link.taking and link.held_bytes == 0
        assert link.receive(b"d", TransferMode.RELIABLE, 1) is None
        assert got[-1] == (b"d", TransferMode.RELIABLE, 1)
        link.forget()

    asyncio.run(body())
