"""What both WebSocket adapters (``gdvariant.websocket``, ``gdvariant.multiplayer.websocket``)
need of the ``websockets`` package to hold a peer to its :class:`~gdvariant._net.outbox.Outbox`.

``websockets`` answers every ping with a pong as it reads, straight into the transport, so a
client that sends pings and reads nothing grows our write buffer without any send of ours.
The connections here look at their outbox after each chunk they read, and the outbox pauses
the transport's reading, which stops the pongs too.
"""

from __future__ import annotations

from collections.abc import Callable

from .outbox import Outbox

try:
    from websockets.asyncio.client import ClientConnection
    from websockets.asyncio.connection import Connection
    from websockets.asyncio.server import ServerConnection
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant's WebSocket adapters need the 'websockets' package: "
        "pip install 'gdvariant[websockets]'"
    ) from exc

__all__ = ["CLOSE_TIMEOUT", "WatchedClientConnection", "WatchedServerConnection", "watch"]

#: Seconds a peer we close has to answer our close frame before its TCP connection is cut
#: (websockets waits 10 s by default; a dropped client must not hold on that long).
CLOSE_TIMEOUT = 1.0


class WatchedServerConnection(ServerConnection):
    """A server connection that tells its outbox (once set) what it read may have queued."""

    outbox: Outbox | None = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.outbox is not None:
            self.outbox.check()


class WatchedClientConnection(ClientConnection):
    """A client connection that tells its outbox (once set) what it read may have queued."""

    outbox: Outbox | None = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.outbox is not None:
            self.outbox.check()


def watch(
    connection: Connection, limit: int, timeout: float, drop: Callable[[str], None]
) -> Outbox:
    """An outbox for ``connection`` counting its transport's write buffer: full, it stops the
    transport reading; dropped, it calls ``drop(reason)`` (log it) and aborts the connection."""
    transport = connection.transport

    def resume() -> None:
        # websockets pauses reading too while its own message queue is full; leave it so.
        if not getattr(connection.recv_messages, "paused", False):
            transport.resume_reading()

    def dropped(reason: str) -> None:
        drop(reason)
        transport.abort()

    outbox = Outbox(
        limit,
        timeout,
        pause=transport.pause_reading,
        resume=resume,
        drop=dropped,
        buffered=transport.get_write_buffer_size,
    )
    if isinstance(connection, WatchedServerConnection | WatchedClientConnection):
        connection.outbox = outbox
    return outbox
