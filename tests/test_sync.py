"""The blocking-socket helpers (``gdvariant.sync``)."""

from __future__ import annotations

import socket
import struct
import threading

import pytest

import gdvariant as gd
from gdvariant.sync import VariantSocket, connect


def test_values_cross_a_socket_pair_and_iteration_ends_on_close() -> None:
    a, b = socket.socketpair()
    with VariantSocket(a, version="3") as left, VariantSocket(b, version="3") as right:
        values = [1, "é", [gd.Vector2(1, 2), {"k": None}], gd.Quaternion(0, 0, 0, 1)]
        for value in values:
            left.put_var(value)
        assert [right.get_var() for _ in values] == values
        left.put_var("last")
        left.close()
        assert list(right) == ["last"]
        with pytest.raises(gd.ConnectionClosed):
            right.get_var()


def test_a_bad_frame_and_a_cut_frame_are_decode_errors() -> None:
    a, b = socket.socketpair()
    peer = VariantSocket(b)
    a.sendall(struct.pack("<i", 1 << 30))
    with pytest.raises(gd.DecodeError, match=r"outside 1\.\.8388608"):
        peer.get_var()
    a2, b2 = socket.socketpair()
    a2.sendall(gd.frame("abc")[:-1])
    a2.close()
    with pytest.raises(gd.DecodeError, match="ended inside a frame"):
        VariantSocket(b2).get_var()
    for s in (a, b, b2):
        s.close()


def test_connect_talks_to_a_listening_server() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve_one() -> None:
        conn, _ = listener.accept()
        with VariantSocket(conn, framing="PacketPeerStream") as peer:
            for value in peer:
                peer.put_var({"echo": value})

    thread = threading.Thread(target=serve_one)
    thread.start()
    with connect(("127.0.0.1", port), timeout=10, framing="PacketPeerStream") as peer:
        for i in range(100):
            peer.put_var(i)
            assert peer.get_var() == {"echo": i}
    thread.join(10)
    listener.close()


def test_packet_framing_is_refused_on_a_stream() -> None:
    a, b = socket.socketpair()
    with pytest.raises(ValueError, match="StreamPeer or PacketPeerStream"):
        VariantSocket(a, framing="PacketPeer")
    a.close()
    b.close()
