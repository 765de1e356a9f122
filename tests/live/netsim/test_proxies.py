"""Live: stock Godot 4.6 clients (tests/live/multiplayer/client) join our SceneMultiplayer
server through gdvariant.netsim's proxies: over ENet through the UDP proxy with 5% loss and
30 ms (+-5 ms) each way, and over WebSocket through the TCP proxy with the same, where a loss
is a retransmission's delay. The "raw" client trades RAW payloads both ways (up to 64 KiB,
many ENet fragments or TCP segments), the "calls" client gets reliable RPCs and answers each:
everything arrives, whole and in order, and the proxies did lose (or delay) packets on the
way. Skipped without engines.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

import pytest

import gdvariant as gd
from gdvariant.multiplayer import TransferMode
from gdvariant.multiplayer import enet as mp_enet
from gdvariant.multiplayer import websocket as mp_websocket
from gdvariant.multiplayer.wire import Packet, RemoteCall, rpc_method_ids
from gdvariant.netsim import Conditions, LinkStats, TcpProxy, UdpProxy
from tests.support.engines import SEED, Engine
from tests.support.godot_describe import canon
from tests.support.multiplayer_recorder import run_godot
from tests.support.multiplayer_roles import BIGGEST, COUNT, RoleSession, copy_project
from tests.support.random_values import random_call_args

pytestmark = [pytest.mark.engine, pytest.mark.slow]

CONDITIONS = Conditions(latency=0.03, jitter=0.005, loss=0.05)
CALLS = 20
#: The @rpc methods of tests/live/multiplayer/client/calls.gd.
METHODS = rpc_method_ids(["reliable", "unreliable", "reliable_echo", "unreliable_echo", "relayed"])
PATH = "Main/Calls"


class Session(RoleSession):
    """Our server's side: who is who, the RAW payloads and the RPC answers that came."""

    def __init__(self, transport: Any) -> None:
        super().__init__()
        self.echoes: list[tuple[int, str, tuple[Any, ...]]] = []
        self.server = transport.MultiplayerServer(
            auth_callback=self.auth,
            on_peer_connected=self.connected.append,
            on_peer_disconnected=self.gone,
            on_raw=self.got_raw,
            on_packet=self.got_packet,
        )

    def got_packet(self, peer: int, packet: Packet) -> None:
        if isinstance(packet, RemoteCall):
            name = next(name for name, id_ in METHODS.items() if id_ == packet.method_id)
            self.echoes.append((peer, name, packet.args))


async def until(condition: Callable[[], bool], seconds: float = 30) -> None:
    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), seconds)


async def play(
    engine: Engine, inside: str, tcp: bool, sent: list[bytes], calls: list[tuple[Any, ...]]
) -> tuple[Session, dict[str, str], LinkStats]:
    """The two clients through a proxy to our server; their logs and the proxy's counts."""
    session = Session(mp_websocket if tcp else mp_enet)
    server: Any = session.server  # either transport's MultiplayerServer
    port = await server.listen("127.0.0.1", 0)
    proxy = (TcpProxy if tcp else UdpProxy)(("127.0.0.1", port), CONDITIONS, seed=SEED)
    _, proxy_port = await proxy.listen("127.0.0.1", 0)
    url = f"{'ws' if tcp else 'enet'}://127.0.0.1:{proxy_port}"
    roles = ("raw", "calls")
    clients = [
        asyncio.create_task(run_godot(engine, inside, [url, role, str(SEED), str(COUNT)]))
        for role in roles
    ]
    try:
        await until(lambda: all(session.roles.get(r) in session.server.peers for r in roles))
        for payload in sent:
            session.server.send_raw(session.roles["raw"], payload)
        for args in calls:
            call = RemoteCall(METHODS["reliable"], args, path=PATH)
            session.server.send(session.roles["calls"], call, mode=TransferMode.RELIABLE)
        await asyncio.wait_for(session.raw_done.wait(), 30)
        await until(lambda: len(session.echoes) == len(calls))
        for role in roles:
            session.server.disconnect_peer(session.roles[role])
        logs = dict(zip(roles, await asyncio.gather(*clients), strict=True))
    finally:
        await proxy.close()
        await server.close()
    return session, logs, proxy.stats()


def printed(log: str, tag: str) -> list[list[str]]:
    return [line.split(" ")[1:] for line in log.splitlines() if line.startswith(tag + " ")]


@pytest.mark.parametrize("tcp", [False, True], ids=["enet-udp-proxy", "websocket-tcp-proxy"])
def test_godot_clients_play_through_a_lossy_proxy(godot4: Engine, tcp: bool) -> None:
    print(f"SEED={SEED}")
    rng = random.Random(SEED)
    sent = [rng.randbytes(rng.randint(1, 300)) for _ in range(COUNT - 1)]
    sent.append(rng.randbytes(BIGGEST))
    calls = [random_call_args(rng) for _ in range(CALLS)]
    with godot4.workdir() as (here, inside):
        copy_project(here)
        session, logs, stats = asyncio.run(play(godot4, inside, tcp, sent, calls))
    raw, caller = session.roles["raw"], session.roles["calls"]
    # RAW both ways, every payload, in order, byte for byte.
    assert printed(logs["raw"], "GOT") == [["1", payload.hex()] for payload in sent]
    client_sent = [bytes.fromhex(words[0]) for words in printed(logs["raw"], "SENT")]
    assert session.raw == [(raw, payload) for payload in client_sent] and len(client_sent) == COUNT
    # Every reliable RPC arrived in order with its arguments, and every answer came back.
    got = [words[1] for words in printed(logs["calls"], "CALL") if words[0] == "reliable"]
    assert got == [gd.dumps(list(args)).hex() for args in calls]
    assert [(peer, name) for peer, name, _ in session.echoes] == [(caller, "reliable_echo")] * CALLS
    assert [canon(args) for _, _, args in session.echoes] == [canon(args) for args in calls]
    for log in logs.values():
        assert log.splitlines()[-1] == "SERVER_DISCONNECTED", log
    # The proxy did its part: packets lost (UDP) or held back for a retransmission (TCP).
    assert (stats.retransmitted if tcp else stats.lost) > 0, stats
