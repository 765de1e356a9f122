"""Live: stock Godot 4.6 clients (tests/live/multiplayer/client) join our WebSocket
SceneMultiplayer server. Three clients at once: one authenticates and trades random RAW
payloads both ways (up to a 65535-byte message, Godot's buffer), one authenticates and then
sends garbage, one gives a wrong token. The peer ids, the payloads and who was admitted must
agree on both sides, and the garbage client is closed while the other plays on. Skipped
without engines; required in ``.ci/run``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import struct
from collections.abc import Callable
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from gdvariant.multiplayer.websocket import MultiplayerClient, MultiplayerServer
from tests.support.engines import SEED, Engine
from tests.support.multiplayer_recorder import PROJECT as MP_PROJECT
from tests.support.multiplayer_recorder import free_port, run_godot, wait_listening
from tests.support.multiplayer_roles import BIGGEST, COUNT, RoleSession, copy_project

pytestmark = [pytest.mark.engine, pytest.mark.slow]


class Session(RoleSession):
    """Our server's side of the session: who authenticated as what, and what arrived."""

    server: MultiplayerServer

    def __init__(self) -> None:
        super().__init__()
        self.server = MultiplayerServer(
            auth_callback=self.auth,
            on_peer_connected=self.connected.append,
            on_peer_disconnected=self.gone,
            on_raw=self.got_raw,
            ids=random.Random(SEED),
        )


async def play(engine: Engine, inside: str, sent: list[bytes]) -> tuple[Session, list[str]]:
    session = Session()
    port = await session.server.listen("127.0.0.1", free_port())
    url = f"ws://127.0.0.1:{port}"
    clients = [
        asyncio.create_task(run_godot(engine, inside, [url, role, str(SEED), str(COUNT)]))
        for role in ("raw", "garbage", "reject")
    ]
    try:
        await asyncio.wait_for(session.garbage_gone.wait(), 20)
        for payload in sent:
            session.server.send_raw(session.roles["raw"], payload)
        await asyncio.wait_for(session.raw_done.wait(), 20)
        session.server.disconnect_peer(session.roles["raw"])
        logs = await asyncio.gather(*clients)
    finally:
        await session.server.close()
    return session, logs


def test_godot_clients_join_our_server(godot4: Engine) -> None:
    print(f"SEED={SEED}")
    rng = random.Random(SEED)
    sent = [rng.randbytes(rng.randint(1, 300)) for _ in range(COUNT - 1)]
    sent.append(rng.randbytes(BIGGEST))
    with godot4.workdir() as (here, inside):
        copy_project(here)
        session, logs = asyncio.run(play(godot4, inside, sent))
    raw_log, garbage_log, reject_log = (log.splitlines() for log in logs)
    raw, garbage = session.roles["raw"], session.roles["garbage"]

    # Peer ids: what each client reads from the 4-byte message is the id we assigned.
    assert f"ID {raw}" in raw_log
    assert f"ID {garbage}" in garbage_log
    assert sorted(session.connected) == sorted([raw, garbage])
    # Auth: both sides exchanged data; the wrong token was never admitted.
    assert "AUTH_REPLY welcome" in raw_log
    assert b"wrong" in session.tokens
    assert "AUTH_FAILED" in reject_log
    assert not any(line.startswith("ID ") for line in reject_log), reject_log
    assert set(session.roles) == {"raw", "garbage"}
    # RAW both ways, byte for byte.
    got = [line.split(" ", 2)[1:] for line in raw_log if line.startswith("GOT ")]
    assert got == [["1", payload.hex()] for payload in sent]
    client_sent = [bytes.fromhex(line[5:]) for line in raw_log if line.startswith("SENT ")]
    assert len(client_sent) == COUNT and len(client_sent[-1]) == BIGGEST
    assert session.raw == [(raw, payload) for payload in client_sent]
    # Garbage: that client was closed, the other saw it come and go (ADD_PEER, DEL_PEER)
    # and went on to the end.
    assert "GARBAGE_SENT" in garbage_log and garbage_log[-1] == "SERVER_DISCONNECTED"
    assert f"PEER_CONNECTED {garbage}" in raw_log
    assert f"PEER_DISCONNECTED {garbage}" in raw_log
    assert raw_log[-1] == "SERVER_DISCONNECTED"
    assert session.disconnected == [garbage, raw]


async def overflow(engine: Engine, inside: str) -> str:
    """Send an idle client a 65535-byte message, a 65536-byte one, then a small one."""
    server: MultiplayerServer

    def auth(peer: int, data: bytes) -> None:
        server.send_auth(peer, b"welcome")
        server.complete_auth(peer)

    def joined(peer: int) -> None:
        for payload in (b"\1" * BIGGEST, b"\2" * (BIGGEST + 1), b"after"):
            server.send_raw(peer, payload)

    left = asyncio.Event()
    server = MultiplayerServer(
        auth_callback=auth,
        on_peer_connected=joined,
        on_peer_disconnected=lambda peer: left.set(),
        max_send_size=BIGGEST + 2,
    )
    async with server:
        port = await server.listen("127.0.0.1", free_port())
        client = asyncio.create_task(
            run_godot(engine, inside, [f"ws://127.0.0.1:{port}", "idle", "0", "0"])
        )
        await asyncio.wait_for(left.wait(), 20)
    return await client


def test_godot_closes_on_a_message_over_its_buffer(godot4: Engine) -> None:
    """Why ``max_send_size`` defaults to 65535: one byte more and the client hangs up,
    losing what follows."""
    with godot4.workdir() as (here, inside):
        copy_project(here)
        log = asyncio.run(overflow(godot4, inside)).splitlines()
    got = [line for line in log if line.startswith("GOT ")]
    assert got == ["GOT 1 " + ("01" * BIGGEST)]
    assert log[-1] == "SERVER_DISCONNECTED"


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


class Player:
    """One of our clients, logging what it sees into ``seen`` as tuples tagged ``index``."""

    def __init__(self, index: int, seen: list[Any], relay: asyncio.Event):
        self.index, self.seen, self.relay = index, seen, relay
        self.client = MultiplayerClient(
            auth_callback=self.auth, on_peer_connected=self.connected, on_raw=self.raw
        )

    def auth(self, data: bytes) -> None:
        self.seen.append(("auth", self.index, data))
        self.client.complete_auth()

    def connected(self, peer: int) -> None:
        self.seen.append(("connected", self.index, peer))

    def raw(self, peer: int, payload: bytes) -> None:
        self.seen.append(("raw", self.index, peer, payload))
        if peer != 1:
            self.relay.set()


async def join_godot_server(engine: Engine, inside: str) -> tuple[list[Any], str]:
    """Two of our clients join the Godot server of tests/live/multiplayer/game (auth on), get
    its ``send_bytes``, send it one and relay one to each other through it."""
    port = free_port()
    server = asyncio.create_task(run_godot(engine, inside, ["server", str(port), "3"]))
    await wait_listening(port)
    seen: list[Any] = []
    relayed = asyncio.Event()
    players = [Player(index, seen, relayed) for index in range(2)]
    for player in players:
        await player.client.connect(f"ws://127.0.0.1:{port}")
        player.client.send_auth(b"hi")
    first, second = (player.client for player in players)
    await asyncio.wait_for(
        until(lambda: len({item[1] for item in seen if item[0] == "raw" and item[2] == 1}) == 2), 20
    )
    await asyncio.wait_for(until(lambda: second.unique_id in first.peers), 20)
    first.send_raw(b"\x09\x08\x07")
    first.send_raw(b"to you", second.unique_id)
    await asyncio.wait_for(relayed.wait(), 20)
    for player in players:
        await player.client.close()
    seen.extend(("id", player.index, player.client.unique_id) for player in players)
    return seen, await server


def test_our_clients_join_a_godot_server(godot4: Engine) -> None:
    with godot4.workdir() as (here, inside):
        for path in MP_PROJECT.iterdir():
            if path.is_file():
                shutil.copy(path, here / path.name)
        seen, log = asyncio.run(join_godot_server(godot4, inside))
    ids = [item[2] for item in seen if item[0] == "id"]
    lines = log.splitlines()
    for index, peer in enumerate(ids):
        assert ("auth", index, b"ok") in seen
        assert f"auth from {peer}: hi" in lines
        assert f"peer_connected {peer}" in lines
        assert ("connected", index, 1) in seen
        assert ("raw", index, 1, bytes([1, 2, 3])) in seen
    assert ("connected", 0, ids[1]) in seen
    assert f"peer_packet {ids[0]} [9, 8, 7]" in lines
    assert ("raw", 1, ids[0], b"to you") in seen


async def hand_made(
    engine: Engine,
    inside: str,
    first: bytes | str = struct.pack("<i", 2),
    headers: Callable[[Headers], None] | None = None,
) -> tuple[list[Any], str]:
    """Serve one idle Godot client a hand-made handshake (``headers`` edits our 101
    response) and id message; "opened" once our side is open, the first message the client
    sent back (if any), and its log."""
    received: list[Any] = []

    async def handler(connection: ServerConnection) -> None:
        received.append("opened")  # our side finished the handshake
        await connection.send(first)
        with contextlib.suppress(TimeoutError, ConnectionClosed):
            async with asyncio.timeout(2.0):
                received.append(await connection.recv())
        await connection.close()

    def edit(connection: ServerConnection, request: Request, response: Response) -> Response:
        if headers is not None:
            headers(response.headers)
        return response

    port = free_port()
    async with serve(handler, "127.0.0.1", port, compression=None, process_response=edit):
        log = await run_godot(engine, inside, [f"ws://127.0.0.1:{port}", "idle", "0", "0"])
    return received, log


def joined(received: list[Any], log: str) -> bool:
    """Whether the client took the handshake and id: then it authenticates with peer 1."""
    if received == ["opened", b"\x07\x00letmein:idle"]:
        return True
    assert received == ["opened"] and "CONNECTION_FAILED" in log.splitlines()
    return False


@pytest.mark.parametrize(
    ("first", "valid"),
    [
        (struct.pack("<i", 2), True),
        ("\x02\x00\x00\x00", True),  # a text message is taken as its bytes
        (struct.pack("<i", 1), False),
        (struct.pack("<i", -5), False),
        (b"\x07\x00\x00\x00\x00", False),
        (b"\x07\x00\x00", False),
    ],
)
def test_godot_client_checks_the_id_message(
    godot4: Engine, first: bytes | str, valid: bool
) -> None:
    """The spec note (wsmp.cpp): exactly 4 bytes and an id of at least 2, else the client
    gives up (``connection_failed``) without sending anything."""
    with godot4.workdir() as (here, inside):
        copy_project(here)
        assert joined(*asyncio.run(hand_made(godot4, inside, first))) is valid


def set_header(name: str, value: str, *, replace: bool = True) -> Callable[[Headers], None]:
    def edit(headers: Headers) -> None:
        if replace and name in headers:
            del headers[name]
        headers[name] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "valid"),
    [
        (None, True),
        (set_header("Sec-WebSocket-Protocol", "chat"), False),  # not asked for
        (set_header("Connection", "Upgrade, keep-alive"), False),
        (set_header("Connection", "Upgrade", replace=False), False),  # joined: "upgrade,upgrade"
        (set_header("Connection", "UPGRADE"), True),  # compared lowercased
        (set_header("Sec-WebSocket-Extensions", "permessage-deflate"), True),  # ignored!
    ],
    ids=["websockets", "subprotocol", "connection-list", "connection-twice", "upper", "ext"],
)
def test_godot_client_checks_the_handshake(
    godot4: Engine, edit: Callable[[Headers], None] | None, valid: bool
) -> None:
    """What the spec note read in wsl.cpp's response check, on the engine: ``Connection``
    must be exactly one ``upgrade`` (any case) and no unrequested sub-protocol may come back.
    An extensions header is not checked at all, so a server must simply never negotiate one
    (ours turns compression off)."""
    with godot4.workdir() as (here, inside):
        copy_project(here)
        assert joined(*asyncio.run(hand_made(godot4, inside, headers=edit))) is valid


async def ping_godot(engine: Engine, inside: str) -> list[float]:
    """Ping an idle Godot client five times once it has sent its first message."""
    latencies: list[float] = []

    async def handler(connection: ServerConnection) -> None:
        await connection.send(struct.pack("<i", 2))
        await connection.recv()
        for _ in range(5):
            pong = await connection.ping()
            latencies.append(await asyncio.wait_for(pong, 10))
        await connection.close()

    port = free_port()
    async with serve(handler, "127.0.0.1", port, compression=None, ping_interval=None):
        await run_godot(engine, inside, [f"ws://127.0.0.1:{port}", "idle", "0", "0"])
    return latencies


def test_godot_client_answers_pings(godot4: Engine) -> None:
    """The spec note left open whether wslay answers pings in Godot: it does, so the
    ``websockets`` keepalive our server runs (a ping every 20 s) keeps Godot clients."""
    with godot4.workdir() as (here, inside):
        copy_project(here)
        latencies = asyncio.run(ping_godot(godot4, inside))
    assert len(latencies) == 5
