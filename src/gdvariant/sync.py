"""Blocking-socket helpers: Godot values over a TCP connection, no event loop needed.

>>> with connect(("127.0.0.1", 9080), version="4") as peer:   # doctest: +SKIP
...     peer.put_var({"hello": "server"})
...     reply = peer.get_var()

Takes the same :class:`~gdvariant.WireOptions` keywords as the asyncio adapter.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any, Unpack

from ._errors import ConnectionClosed
from ._net.framing import WireFormat, WireOptions

__all__ = ["VariantSocket", "connect"]

_READ_SIZE = 64 * 1024


class VariantSocket:
    """A connected stream socket carrying Godot values (yours to create, or from ``accept``)."""

    def __init__(self, sock: socket.socket, **options: Unpack[WireOptions]) -> None:
        self.wire = WireFormat(**options)
        if self.wire.is_packet:
            raise ValueError("a stream needs StreamPeer or PacketPeerStream framing")
        self.socket = sock
        self._decoder = self.wire.stream_decoder()

    def get_var(self) -> Any:
        """The next value, waiting for it (the socket's timeout applies to each read).

        :class:`ConnectionClosed` when the peer closed cleanly between values;
        :class:`DecodeError` for a bad frame or a stream cut inside one.
        """
        decoder = self._decoder
        while not decoder.pending():
            data = self.socket.recv(_READ_SIZE)
            if not data:
                decoder.feed_eof()
                raise ConnectionClosed("the peer closed the connection")
            decoder.feed(data)
        return decoder.next_value()

    def put_var(self, value: Any) -> None:
        """Send ``value`` (blocks until the kernel has taken all of it)."""
        self.socket.sendall(self.wire.frame(value))

    def __iter__(self) -> Iterator[Any]:
        """Every value until the peer closes the connection."""
        while True:
            try:
                yield self.get_var()
            except ConnectionClosed:
                return

    def close(self) -> None:
        """Close the socket."""
        self.socket.close()

    def __enter__(self) -> VariantSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(
    address: tuple[str, int], *, timeout: float | None = None, **options: Unpack[WireOptions]
) -> VariantSocket:
    """Connect to a Godot (or gdvariant) server; ``timeout`` applies to connect and each read."""
    sock = socket.create_connection(address, timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        return VariantSocket(sock, **options)
    except BaseException:
        sock.close()
        raise
