"""What both ends of every transport share (``gdvariant.multiplayer._endpoint``), on the
endpoint's own code over lists (``MemoryServer``); each transport's tests cover the rest."""

from __future__ import annotations

import asyncio
import logging

import pytest

from gdvariant.multiplayer import RpcConfig, RpcMode, SceneMultiplayer, TransferMode
from gdvariant.multiplayer._endpoint import RAW_OVERHEAD, RAW_QUEUE_SENDERS
from gdvariant.multiplayer.wire import Command, ConfirmPath, Raw, SimplifyPath
from tests.support.multiplayer_fake import MemoryServer

RAW = bytes([Command.RAW])


def test_raw_nobody_reads_is_held_to_max_raw_queued_per_peer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A peer flooding RAW at a game that neither reads ``receive_raw`` nor set ``on_raw``
    fills only its own share of the queue; the rest is dropped with a few log lines, and
    another peer's RAW still gets in."""

    async def main() -> None:
        server = MemoryServer(max_raw_queued=10_000)
        server.join(7)
        server.join(8)
        with caplog.at_level(logging.WARNING, logger="tests.memory_server"):
            for _ in range(5000):
                server.receive(7, RAW + bytes(100))
        cost = 100 + RAW_OVERHEAD
        assert server._raw.qsize() == 10_000 // cost
        assert 1 <= len(caplog.records) <= 30
        assert "read them, or set on_raw" in caplog.records[0].getMessage()
        server.receive(8, RAW + b"hi")
        assert server._raw.qsize() == 10_000 // cost + 1
        for _ in range(10_000 // cost):
            assert await server.receive_raw() == (7, bytes(100))
        assert await server.receive_raw() == (8, b"hi")
        server.receive(7, RAW + b"again")  # read: room again
        assert await server.receive_raw() == (7, b"again")

    asyncio.run(main())


def test_many_peers_together_are_held_too() -> None:
    async def main() -> None:
        server = MemoryServer(max_raw_queued=1_000)
        for peer in range(2, 100):
            server.join(peer)
            for _ in range(50):
                server.receive(peer, RAW + bytes(10))
        assert server._raw_total <= 1_000 * RAW_QUEUE_SENDERS
        assert server._raw.qsize() < 98 * 50

    asyncio.run(main())


def test_one_payload_over_the_limit_is_taken_alone() -> None:
    async def main() -> None:
        server = MemoryServer(max_raw_queued=100)
        server.join(3)
        server.receive(3, RAW + bytes(500))
        server.receive(3, RAW + b"x")
        assert await server.receive_raw() == (3, bytes(500))
        assert server._raw.qsize() == 0

    asyncio.run(main())


def test_a_bad_max_raw_queued_is_refused() -> None:
    with pytest.raises(ValueError, match="max_raw_queued"):
        MemoryServer(max_raw_queued=0)


def test_an_rpc_and_its_answer_through_the_endpoint(caplog: pytest.LogCaptureFixture) -> None:
    """An RPC goes from ``_received`` to the layer above without the general dispatch, and
    its answer, to one peer or to several, is the bytes a Godot peer writes (by hand: ``00``,
    cache id, method id, argc, INT); a handler that raises is logged and the next call runs."""
    server = MemoryServer(relay=False)
    mp = SceneMultiplayer(server)
    rpcs = [RpcConfig(n, mode=RpcMode.ANY_PEER, min_args=1, max_args=1) for n in ("boom", "pong")]
    table = mp.node("Main/Rpc", rpcs=[RpcConfig("ping", mode=RpcMode.ANY_PEER), *rpcs])
    assert table.ids == {"boom": 0, "ping": 1, "pong": 2}

    def ping(peer: int, seq: int) -> None:
        mp.rpc(peer if seq >= 0 else 0, "Main/Rpc", "pong", seq)

    def boom(peer: int, seq: int) -> None:
        raise RuntimeError("the game's bug")

    mp.on_rpc("Main/Rpc", "ping", ping)
    mp.on_rpc("Main/Rpc", "boom", boom)
    for peer in (5, 6):
        server.join(peer)
        server.receive(peer, SimplifyPath(1, "Main/Rpc", table.checksum).encode())
    assert server.peers is server.protocol.peers == frozenset({5, 6})
    server.take()
    server.receive(5, bytes.fromhex("0001010102ff"))  # ping(-1): to both, paths not confirmed
    assert [(p, d[0]) for p, d, _, _ in server.take()] == [(5, 1), (6, 1), (5, 0x20), (6, 0x20)]
    for peer in (5, 6):
        server.receive(peer, ConfirmPath(True, 1).encode())
    server.receive(5, bytes.fromhex("00010101020a"))  # ping(10): to 5 alone
    server.receive(6, bytes.fromhex("0001000102fe"))  # boom(-2): raises
    server.receive(6, bytes.fromhex("0001010102fe"))  # ping(-2): to both
    assert [(p, d.hex(), m) for p, d, m, _ in server.take()] == [
        (5, "00010201020a", TransferMode.RELIABLE),
        (5, "0001020102fe", TransferMode.RELIABLE),
        (6, "0001020102fe", TransferMode.RELIABLE),
    ]
    assert "callback failed on PacketReceived(peer=6, packet=RemoteCall(method_id=0" in caplog.text
    assert "the game's bug" in caplog.text


def test_what_a_handler_queued_on_the_protocol_goes_before_its_answer() -> None:
    """The endpoint flushes the protocol's queue only when it holds something: what a handler
    queued there goes out first, before its answer, or after the RPC when it answers nothing."""
    server = MemoryServer(relay=False)
    mp = SceneMultiplayer(server)
    pong = RpcConfig("pong", min_args=1, max_args=1)
    table = mp.node("Main/Rpc", rpcs=[RpcConfig("ping", mode=RpcMode.ANY_PEER), pong])

    def ping(peer: int, seq: int) -> None:
        server.protocol.send(peer, Raw(bytes([seq])))
        if seq:
            mp.rpc(peer, "Main/Rpc", "pong", seq)

    mp.on_rpc("Main/Rpc", "ping", ping)
    server.join(5)
    server.receive(5, SimplifyPath(1, "Main/Rpc", table.checksum).encode())
    server.receive(5, bytes.fromhex("000100010201"))  # ping(1): SIMPLIFY, path form
    server.receive(5, ConfirmPath(True, 1).encode())
    server.take()
    server.receive(5, bytes.fromhex("000100010207"), TransferMode.UNRELIABLE, 3)  # ping(7)
    server.receive(5, bytes.fromhex("000100010200"), TransferMode.UNRELIABLE, 3)  # ping(0)
    assert [(d.hex(), m, c) for _, d, m, c in server.take()] == [
        ("0307", TransferMode.RELIABLE, 0),
        ("000101010207", TransferMode.RELIABLE, 0),
        ("0300", TransferMode.RELIABLE, 0),
    ]
