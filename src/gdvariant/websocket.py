"""WebSocket adapter on the ``websockets`` package (``pip install gdvariant[websockets]``).

Godot's ``WebSocketPeer.put_var`` sends each value as one binary message with no prefix
(``PacketPeer`` framing); this module reads and writes exactly that. It takes the same
:class:`~gdvariant.WireOptions` keywords as the asyncio adapter; objects stay off unless
``allow_objects=True``. Messages over ``max_frame_size`` (8 MiB by default) are refused by
``websockets`` before they are buffered. ``max_unsent`` and ``stall_timeout`` bound what waits
for a peer that does not read, pongs to its pings included (see :class:`VariantWebSocket`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Unpack

from ._errors import ConnectionClosed, DecodeError
from ._net.framing import WireFormat, WireOptions
from ._net.outbox import DEFAULT_MAX_UNSENT, DEFAULT_STALL_TIMEOUT, Backlog
from ._net.peerlog import PeerLog, clip
from .asyncio import AsyncPeer

try:
    from websockets.asyncio.client import connect as _ws_connect
    from websockets.asyncio.connection import Connection
    from websockets.asyncio.server import Server, ServerConnection
    from websockets.asyncio.server import serve as _ws_serve
    from websockets.exceptions import ConnectionClosed as _WsClosed

    from ._net.ws_connections import (
        CLOSE_TIMEOUT,
        WatchedClientConnection,
        WatchedServerConnection,
        watch,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.websocket needs the 'websockets' package: pip install 'gdvariant[websockets]'"
    ) from exc

__all__ = ["VariantWebSocket", "connect", "serve"]

LOGGER = logging.getLogger("gdvariant.websocket")
_INVALID_PAYLOAD = 1007  # RFC 6455 close code for a message the endpoint cannot accept


class VariantWebSocket(AsyncPeer):
    """One WebSocket connection carrying one Godot value per binary message.

    ``max_unsent`` (default 4 MiB) bounds what waits for the peer in the write buffer, the
    pongs ``websockets`` answers its pings with included: ``put_var`` waits while more than
    half of it is unsent, and nothing is read from the peer meanwhile (no messages, no
    pings). A peer that stays so for ``stall_timeout`` seconds (default 10) is cut, with one
    line on ``log``'s logger. The connection should come from :func:`connect` or
    :func:`serve`, which set ``websockets``' ``write_limit`` to match.
    """

    def __init__(
        self,
        connection: Connection,
        wire: WireFormat,
        *,
        max_unsent: int = DEFAULT_MAX_UNSENT,
        stall_timeout: float = DEFAULT_STALL_TIMEOUT,
        log: PeerLog | None = None,
    ) -> None:
        self.connection = connection
        self.wire = wire
        self._log = log if log is not None else PeerLog(LOGGER)
        self._outbox = watch(connection, max_unsent, stall_timeout, self._stalled)
        self._sending = asyncio.Lock()

    @property
    def unsent(self) -> int:
        """Bytes written and not yet taken by the peer's socket."""
        return self._outbox.unsent

    async def get_var(self) -> Any:
        """The next value; :class:`ConnectionClosed` when the connection is closed and
        :class:`DecodeError` for a message that is text or not one value."""
        if self._outbox.full:
            await self._outbox.room()
        try:
            message = await self.connection.recv()
        except _WsClosed as exc:
            raise ConnectionClosed(str(exc)) from None
        if isinstance(message, str):
            raise DecodeError("a text message where a binary one (put_var) was expected", 0)
        return self.wire.decode_packet(message)

    async def put_var(self, value: Any) -> None:
        """Send ``value`` as one binary message, waiting while more than half of
        ``max_unsent`` waits for the peer."""
        data = self.wire.frame(value)
        async with self._sending:
            await self._outbox.room()
            # send() writes the message, then waits while the buffer is over websockets'
            # write_limit: the outbox looks once it is written.
            asyncio.get_running_loop().call_soon(self._outbox.check)
            try:
                await self.connection.send(data)
            except _WsClosed as exc:
                raise ConnectionClosed(str(exc)) from None

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close with ``code`` (1000: normal) and wait for the closing handshake."""
        await self.connection.close(code, reason)

    def _stalled(self, reason: str) -> None:
        name = self.connection.remote_address
        host = name[0] if isinstance(name, tuple) and name else name
        self._log.log(
            logging.WARNING, host, "closing the WebSocket with %s: %s", name, reason, final=True
        )


def _write_limit(max_unsent: int) -> tuple[int, int]:
    """websockets' ``write_limit``: send() waits just while the outbox counts the peer full."""
    return max_unsent // 2, max_unsent // 4


async def connect(
    uri: str,
    *,
    max_unsent: int = DEFAULT_MAX_UNSENT,
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    **options: Unpack[WireOptions],
) -> VariantWebSocket:
    """Connect to a WebSocket server (``ws://host:port/path``); ``max_unsent`` and
    ``stall_timeout``: see :class:`VariantWebSocket`."""
    wire = WireFormat.for_packets(options, "WebSocket")
    Backlog(max_unsent, stall_timeout)
    connection = await _ws_connect(
        uri,
        max_size=wire.receive_limit,
        write_limit=_write_limit(max_unsent),
        create_connection=WatchedClientConnection,
        close_timeout=CLOSE_TIMEOUT,
    )
    return VariantWebSocket(connection, wire, max_unsent=max_unsent, stall_timeout=stall_timeout)


async def serve(
    handler: Callable[[VariantWebSocket], Awaitable[None]],
    host: str | None,
    port: int,
    *,
    logger: logging.Logger = LOGGER,
    max_unsent: int = DEFAULT_MAX_UNSENT,
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    **options: Unpack[WireOptions],
) -> Server:
    """Start a WebSocket server that runs ``await handler(peer)`` for each connection.

    A message that is not one value closes that connection with code 1007 and a warning
    naming the reason; other failures are logged with their traceback. Those lines come at
    most a few times a second per client host, with a count of the rest. ``max_unsent`` and
    ``stall_timeout`` apply to each connection (:class:`VariantWebSocket`); a peer we close
    has one second to answer the close frame.
    """
    wire = WireFormat.for_packets(options, "WebSocket")
    Backlog(max_unsent, stall_timeout)
    log = PeerLog(logger)

    async def one(connection: ServerConnection) -> None:
        peer = VariantWebSocket(
            connection, wire, max_unsent=max_unsent, stall_timeout=stall_timeout, log=log
        )
        name = connection.remote_address
        host = name[0] if isinstance(name, tuple) and name else name
        try:
            await handler(peer)
        except DecodeError as exc:
            log.warning(host, "closing the WebSocket from %s: %s", name, clip(exc))
            await peer.close(_INVALID_PAYLOAD, exc.reason[:100])
        except ConnectionClosed as exc:
            log.log(logging.INFO, host, "WebSocket from %s ended: %s", name, clip(exc))
        except Exception:
            log.exception(host, "handler failed for the WebSocket from %s", name)
            await peer.close(1011)

    return await _ws_serve(
        one,
        host,
        port,
        max_size=wire.receive_limit,
        write_limit=_write_limit(max_unsent),
        create_connection=WatchedServerConnection,
        close_timeout=CLOSE_TIMEOUT,
    )
