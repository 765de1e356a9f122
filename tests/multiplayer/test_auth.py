"""Authentication as SceneMultiplayer runs it (gdvariant.multiplayer._auth)."""

from __future__ import annotations

import pytest

from gdvariant.multiplayer import Authenticator, AuthVerdict, ProtocolError
from gdvariant.multiplayer.wire import WIRE_VERSIONS

V = AuthVerdict


def test_the_recorded_exchange() -> None:
    # The order Godot 4.6 used in tests/vectors/multiplayer: data both ways, we complete,
    # then the client completes and is admitted.
    auth = Authenticator()
    assert auth.add_peer(7, now=0.0) is False
    assert auth.is_pending(7)
    assert auth.receive(7, b"\x07\x00hi") == (V.DATA, b"hi")
    assert auth.send(7, b"ok") == b"\x07\x00ok"
    assert auth.complete(7) == (b"\x07\x00", False)
    assert auth.receive(7, b"\x07\x00") == (V.ADMITTED, b"")
    assert 7 in auth.connected and not auth.is_pending(7)
    assert auth.receive(7, b"\x03x") == (V.GAME, b"")
    assert auth.receive(7, b"\x07\x00") == (V.IGNORED, b"")
    with pytest.raises(ProtocolError, match="after being admitted"):
        auth.receive(7, b"\x07\x00late")


def test_peer_completing_first_is_admitted_by_our_completion() -> None:
    auth = Authenticator()
    auth.add_peer(7, now=0.0)
    assert auth.receive(7, b"\x07\x00") == (V.COMPLETED, b"")
    with pytest.raises(ValueError, match="completed"):
        auth.send(7, b"more")
    assert auth.complete(7) == (b"\x07\x00", True)
    assert 7 in auth.connected


def test_auth_data_after_the_peers_completion_is_refused() -> None:
    """Found by fuzz/fuzz_server.py: a peer that completed and then sent more data had it
    handed to the auth callback, whose ``send_auth`` answer then raised (no data may follow
    a completion), a traceback in the server's log for a client's packet. No Godot peer
    sends data after its own completion (its ``send_auth`` refuses it): the packet is
    refused, and the peer stays pending with its completion."""
    auth = Authenticator()
    auth.add_peer(7, now=0.0)
    assert auth.receive(7, b"\x07\x00") == (V.COMPLETED, b"")
    with pytest.raises(ProtocolError, match="auth data after completing"):
        auth.receive(7, b"\x07\x00more")
    assert auth.is_pending(7)
    assert auth.complete(7) == (b"\x07\x00", True)


def test_pending_peer_may_send_only_auth() -> None:
    auth = Authenticator()
    auth.add_peer(7, now=0.0)
    with pytest.raises(ProtocolError, match="non-AUTH"):
        auth.receive(7, b"\x03x")
    auth.complete(7)
    with pytest.raises(ProtocolError, match="non-AUTH"):
        auth.receive(7, b"\x03x")


def test_before_43_any_packet_after_our_completion_admits() -> None:
    auth = Authenticator(version=WIRE_VERSIONS["4.2"])
    auth.add_peer(7, now=0.0)
    with pytest.raises(ProtocolError):
        auth.receive(7, b"\x03x")
    auth.complete(7)
    assert auth.receive(7, b"\x03x") == (V.GAME, b"")
    assert 7 in auth.connected


def test_misuse_is_refused() -> None:
    auth = Authenticator()
    with pytest.raises(ValueError, match="not authenticating"):
        auth.send(7, b"x")
    auth.add_peer(7, now=0.0)
    with pytest.raises(ValueError, match="already known"):
        auth.add_peer(7, now=0.0)
    with pytest.raises(ValueError, match="empty"):
        auth.send(7, b"")
    auth.complete(7)
    with pytest.raises(ValueError, match="already completed"):
        auth.complete(7)
    with pytest.raises(ProtocolError, match="unknown peer"):
        auth.receive(8, b"\x07\x00")


def test_timeout_counts_from_arrival() -> None:
    auth = Authenticator(timeout=3.0)
    auth.add_peer(7, now=10.0)
    auth.add_peer(8, now=11.0)
    assert auth.expired(12.9) == []
    assert auth.expired(13.0) == [7]
    assert not auth.is_pending(7) and auth.is_pending(8)
    assert auth.expired(20.0) == [8]


def test_deadlines_for_the_timer() -> None:
    auth = Authenticator(timeout=3.0)
    assert auth.next_deadline() is None
    auth.add_peer(8, now=11.0)
    auth.add_peer(7, now=10.0)
    assert auth.next_deadline() == 13.0
    assert (auth.deadline(7), auth.deadline(8), auth.deadline(9)) == (13.0, 14.0, None)
    auth.expired(13.0)
    assert auth.next_deadline() == 14.0 and auth.deadline(7) is None


def test_without_auth_peers_are_admitted_at_once() -> None:
    auth = Authenticator(enabled=False)
    assert auth.add_peer(7, now=0.0) is True
    assert auth.receive(7, b"\x03x") == (V.GAME, b"")


def test_leaving() -> None:
    auth = Authenticator()
    auth.add_peer(7, now=0.0)
    auth.add_peer(8, now=0.0)
    auth.complete(8)
    auth.receive(8, b"\x07\x00")
    assert auth.remove_peer(7) is True  # failed while pending
    assert auth.remove_peer(8) is False
    assert auth.connected == set()
