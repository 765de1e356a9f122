"""The sans-I/O server (gdvariant.multiplayer._server), replayed against Godot 4.6's own server.

The recorded session (tests/vectors/multiplayer) has every packet the two Godot clients sent.
Fed to ServerProtocol in the same order, our server must queue exactly the packets Godot's
server sent of the kinds this layer makes itself: AUTH, ADD_PEER, DEL_PEER, CONFIRM_PATH and
the relay forwards (bar a relay in flight when the leaving client's connection closed).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from gdvariant import DecodeError
from gdvariant.multiplayer import (
    AuthData,
    PacketDropped,
    PacketReceived,
    PeerAuthenticating,
    PeerAuthenticationFailed,
    PeerConnected,
    PeerDisconnected,
    ServerProtocol,
)
from gdvariant.multiplayer.wire import (
    AddPeer,
    Auth,
    ConfirmPath,
    DelPeer,
    Raw,
    Relay,
    RemoteCall,
    SimplifyPath,
    decode_scene_packet,
    encode_scene_packet,
)
from tests.support.paths import VECTORS

SESSION = json.loads((VECTORS / "multiplayer/session.json").read_text(encoding="utf-8"))
OURS = (Auth, AddPeer, DelPeer, ConfirmPath, Relay)


def test_replay_matches_godots_server() -> None:
    server = ServerProtocol(auth=True)
    ids: dict[str, int] = {}
    godot: dict[int, list[bytes]] = {}
    ours: dict[int, list[bytes]] = {}
    received: list[object] = []
    clock = 0.0
    for record in SESSION["packets"]:
        data = bytes.fromhex(record["hex"])
        client, direction = record["client"], record["dir"]
        if direction == "s2c" and client not in ids:
            ids[client] = peer = int.from_bytes(data, "little")
            assert server.peer_connected(peer, clock) == [PeerAuthenticating(peer)]
            continue
        peer = ids[client]
        if direction == "s2c":
            if isinstance(decode_scene_packet(data), OURS):
                godot.setdefault(peer, []).append(data)
            if isinstance(decode_scene_packet(data), DelPeer):  # B left just before this
                gone = next(p for p in ids.values() if p != peer)
                assert server.peer_disconnected(gone) == [PeerDisconnected(gone)]
            continue
        for event in server.receive(peer, data):
            assert not isinstance(event, PacketDropped), event
            if isinstance(event, AuthData):
                assert event.data == b"hi"
                server.send_auth(peer, b"ok")
                assert server.complete_auth(peer) == []
            received.append(event)
        for target, packet in server.data_to_send():
            ours.setdefault(target, []).append(packet)
    assert set(godot) == set(ids.values())
    # Each client's own packets and the other client's relays reach Godot's server on two
    # connections, in an order the proxy cannot see; compare each kind's sequence per peer.
    for peer in ids.values():
        for kind in OURS:
            expected = [d for d in godot[peer] if isinstance(decode_scene_packet(d), kind)]
            got = [d for d in ours[peer] if isinstance(decode_scene_packet(d), kind)]
            assert got[: len(expected)] == expected, (peer, kind)
            # A relay from A that Godot's server got after it saw B close (the proxy saw the
            # close later): ours forwards it, B being still connected at that point here.
            extra = got[len(expected) :]
            assert not extra or (kind is Relay and peer == ids["B"] and len(extra) == 1)
    assert PeerConnected(ids["A"]) in received and PeerConnected(ids["B"]) in received
    raw_from_b = [e for e in received if isinstance(e, PacketReceived) and e.peer == ids["B"]]
    assert PacketReceived(ids["B"], Raw(b"\x06")) in raw_from_b  # relay target 0: processed


def _admitted(*peers: int) -> ServerProtocol:
    server = ServerProtocol()
    for peer in peers:
        assert server.peer_connected(peer, 0.0) == [PeerConnected(peer)]
    return server


def test_bad_packets_are_dropped_and_the_peer_plays_on() -> None:
    server = _admitted(5, 6)
    server.data_to_send()
    for bad in (b"", b"\x07\x09", b"\x00\x30", b"\x07\x01\x05\x00\x00\x00", b"\x07\x00hi"):
        (event,) = server.receive(5, bad)
        assert isinstance(event, PacketDropped) and event.peer == 5
    assert server.receive(5, b"\x03ok") == [PacketReceived(5, Raw(b"ok"))]
    assert server.receive(6, b"\x03ok") == [PacketReceived(6, Raw(b"ok"))]
    assert server.data_to_send() == []


def _outcome(events: Sequence[object]) -> object:
    """The events, with a dropped packet's error as its message and offset."""
    first = events[0] if len(events) == 1 else None
    if isinstance(first, PacketDropped):
        return ("dropped", str(first.error), first.error.offset)
    return events


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=12))
def test_an_rpc_is_received_or_dropped_as_the_reader_reads_it(tail: bytes) -> None:
    """An RPC (``00``, the common packet, read and wrapped by a path of its own) gives the
    event of what ``decode_scene_packet`` makes of it, or drops it with the reader's error;
    relayed to the server (``Relay(0, ...)``), the same."""
    server = _admitted(5, 6)
    for data in (b"\x00" + tail, b"\x00\x02\x01\x01" + tail):
        try:
            expected: object = [PacketReceived(5, decode_scene_packet(data))]
        except DecodeError as exc:
            expected = ("dropped", str(exc), exc.offset)
        assert _outcome(server.receive(5, data)) == expected
        relayed = encode_scene_packet(Relay(0, data))
        assert _outcome(server.receive(5, relayed)) == expected


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=12), st.sampled_from([5, 6, 7]))
def test_the_endpoints_way_in_for_an_rpc_is_what_receive_makes(tail: bytes, peer: int) -> None:
    """``receive_call`` gives a call only where ``receive`` would give that call's event and
    change nothing else (an admitted peer's short RPC); None for any other packet, an error,
    a pending peer (6) or an unknown one (7), whose packets ``receive`` then judges."""
    server = ServerProtocol(auth=True)
    for known in (5, 6):
        server.peer_connected(known, 0.0)
    server.complete_auth(5)
    server.receive(5, b"\x07\x00")
    server.data_to_send()
    assert server.peers == frozenset({5})
    for data in (b"\x00" + tail, b"\x00\x02\x01\x01" + tail, tail):
        call = server.receive_call(peer, data)
        if call is not None:
            assert peer == 5
            assert server.receive(peer, data) == [PacketReceived(peer, call)]
            assert server.data_to_send() == [] and server.peers == frozenset({5})
    short = bytes.fromhex("0002010102ff")  # a well-formed short call: taken from 5 alone
    assert server.receive_call(peer, short) == (
        RemoteCall(1, (-1,), node_id=2) if peer == 5 else None
    )


def test_has_data_to_send_says_whether_data_to_send_would_give_any() -> None:
    """The endpoint skips its flush on it: it must be true exactly while packets wait."""
    server = ServerProtocol(relay=True)
    assert not server.has_data_to_send
    server.peer_connected(5, 0.0)
    assert not server.has_data_to_send  # the first peer: nobody to tell
    server.peer_connected(6, 0.0)
    assert server.has_data_to_send  # 5 hears of 6, 6 of 5
    assert server.data_to_send() and not server.has_data_to_send
    assert server.data_to_send() == []


def test_an_rpc_event_is_the_dataclass_event() -> None:
    """The event of an RPC is made without ``__init__``; it is the same event."""
    (event,) = _admitted(5).receive(5, bytes.fromhex("0002010102ff"))
    made = PacketReceived(5, RemoteCall(1, (-1,), node_id=2))
    assert event == made and hash(event) == hash(made) and repr(event) == repr(made)


def test_simplify_is_confirmed_by_checksum_and_duplicates_dropped() -> None:
    checksums = {"Main": "a" * 32}

    def check_path(path: str, checksum: str) -> bool | None:
        ours = checksums.get(path)
        return None if ours is None else ours == checksum

    server = ServerProtocol(check_path=check_path)
    server.peer_connected(5, 0.0)
    good = encode_scene_packet(SimplifyPath(1, "Main", "a" * 32))
    wrong = encode_scene_packet(SimplifyPath(2, "Main", "b" * 32))
    missing = encode_scene_packet(SimplifyPath(3, "Nope", "a" * 32))
    assert isinstance(server.receive(5, good)[0], PacketReceived)
    assert isinstance(server.receive(5, wrong)[0], PacketReceived)
    # No such node: no entry and no confirmation, but no error either (Godot logs it; a
    # client may name a node the server has just freed).
    assert server.receive(5, missing) == [PacketReceived(5, SimplifyPath(3, "Nope", "a" * 32))]
    (duplicate,) = server.receive(5, good)
    assert isinstance(duplicate, PacketDropped)
    confirms = [(5, bytes.fromhex("020101000000")), (5, bytes.fromhex("020002000000"))]
    assert server.data_to_send() == confirms
    assert server.receive_cache.path(5, 1) == "Main"


def test_confirms_mark_our_paths() -> None:
    server = _admitted(5)
    simplify = server.send_cache.simplify(5, "Main/P")
    assert simplify is not None
    server.receive(5, encode_scene_packet(ConfirmPath(True, simplify.cache_id)))
    assert server.send_cache.is_confirmed(5, "Main/P")


def test_peers_learn_of_each_other_and_of_departures() -> None:
    server = _admitted(5)
    server.peer_connected(6, 0.0)
    assert server.data_to_send() == [
        (5, encode_scene_packet(AddPeer(6))),
        (6, encode_scene_packet(AddPeer(5))),
    ]
    assert server.peer_disconnected(6) == [PeerDisconnected(6)]
    assert server.data_to_send() == [(5, encode_scene_packet(DelPeer(6)))]
    assert server.peers == frozenset({5})


def test_relay_forwards_and_processes() -> None:
    server = _admitted(5, 6, 7)
    server.data_to_send()
    call = encode_scene_packet(RemoteCall(0, (1,), path="Main"))
    assert server.receive(5, encode_scene_packet(Relay(6, call))) == []
    assert server.data_to_send() == [(6, encode_scene_packet(Relay(5, call)))]
    events = server.receive(5, encode_scene_packet(Relay(0, call)))
    assert events == [PacketReceived(5, RemoteCall(0, (1,), path="Main"))]
    assert [peer for peer, _ in server.data_to_send()] == [6, 7]
    (dropped,) = server.receive(5, encode_scene_packet(Relay(0, encode_scene_packet(AddPeer(9)))))
    assert isinstance(dropped, PacketDropped)
    off = ServerProtocol(relay=False)
    off.peer_connected(5, 0.0)
    assert off.data_to_send() == []
    assert isinstance(off.receive(5, encode_scene_packet(Relay(6, call)))[0], PacketDropped)


def test_authentication_and_timeout() -> None:
    server = ServerProtocol(auth=True, auth_timeout=3.0)
    assert server.peer_connected(5, 10.0) == [PeerAuthenticating(5)]
    (dropped,) = server.receive(5, b"\x03early")
    assert isinstance(dropped, PacketDropped)
    assert server.receive(5, b"\x07\x00") == []  # the client completed first
    assert server.complete_auth(5) == [PeerConnected(5)]
    assert server.data_to_send() == [(5, b"\x07\x00")]
    server.peer_connected(6, 10.0)
    assert server.poll(12.9) == []
    assert server.poll(13.0) == [PeerAuthenticationFailed(6)]
    server.peer_connected(7, 20.0)
    assert server.peer_disconnected(7) == [PeerAuthenticationFailed(7)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=48), max_size=6), st.booleans())
def test_any_bytes_give_events_never_exceptions(packets: list[bytes], auth: bool) -> None:
    server = ServerProtocol(auth=auth)
    server.peer_connected(5, 0.0)
    server.peer_connected(6, 0.0)
    for data in packets:
        for event in server.receive(5, data):
            assert getattr(event, "peer", 5) == 5
    if auth:  # the other peer still authenticates normally
        assert server.receive(6, b"\x07\x00") == []
        assert server.complete_auth(6) == [PeerConnected(6)]
    else:
        assert server.receive(6, b"\x03ok") == [PacketReceived(6, Raw(b"ok"))]


def test_the_peers_are_one_object_until_they_change() -> None:
    """Reading ``peers`` (every frame, RPC and packet) copies nothing: the same frozenset
    comes back until a peer is admitted or leaves."""
    server = ServerProtocol()
    server.peer_connected(5, 0.0)
    peers = server.peers
    assert peers == {5} and server.peers is peers
    server.peer_connected(6, 0.0)
    assert server.peers == {5, 6} and server.peers is server.peers is not peers
    server.peer_disconnected(9)  # unknown: nothing changes
    peers = server.peers
    server.peer_disconnected(5)
    assert server.peers == {6} and server.peers is not peers
