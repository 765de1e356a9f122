"""WebSocket adapter on the ``websockets`` package (``pip install gdvariant[websockets]``).

Godot's ``WebSocketPeer.put_var`` sends each value as one binary message with no prefix
(``PacketPeer`` framing); this module reads and writes exactly that. It takes the same
:class:`~gdvariant.WireOptions` keywords as the asyncio adapter; objects stay off unless
``allow_objects=True``. Messages over ``max_frame_size`` (8 MiB by default) are refused by
``websockets`` before they are buffered.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Unpack

from ._errors import ConnectionClosed, DecodeError
from ._framing import WireFormat, WireOptions
from .asyncio import AsyncPeer

try:
    from websockets.asyncio.client import connect as _ws_connect
    from websockets.asyncio.connection import Connection
    from websockets.asyncio.server import Server, ServerConnection
    from websockets.asyncio.server import serve as _ws_serve
    from websockets.exceptions import ConnectionClosed as _WsClosed
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.websocket needs the 'websockets' package: pip install 'gdvariant[websockets]'"
    ) from exc

__all__ = ["VariantWebSocket", "connect", "serve"]

LOGGER = logging.getLogger("gdvariant.websocket")
_INVALID_PAYLOAD = 1007  # RFC 6455 close code for a message the endpoint cannot accept


class VariantWebSocket(AsyncPeer):
    """One WebSocket connection carrying one Godot value per binary message."""

    def __init__(self, connection: Connection, wire: WireFormat) -> None:
        self.connection = connection
        self.wire = wire

    async def get_var(self) -> Any:
        """The next value; :class:`ConnectionClosed` when the connection is closed and
        :class:`DecodeError` for a message that is text or not one value."""
        try:
            message = await self.connection.recv()
        except _WsClosed as exc:
            raise ConnectionClosed(str(exc)) from None
        if isinstance(message, str):
            raise DecodeError("a text message where a binary one (put_var) was expected", 0)
        return self.wire.decode_packet(message)

    async def put_var(self, value: Any) -> None:
        """Send ``value`` as one binary message."""
        try:
            await self.connection.send(self.wire.frame(value))
        except _WsClosed as exc:
            raise ConnectionClosed(str(exc)) from None

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Close with ``code`` (1000: normal) and wait for the closing handshake."""
        await self.connection.close(code, reason)


async def connect(uri: str, **options: Unpack[WireOptions]) -> VariantWebSocket:
    """Connect to a WebSocket server (``ws://host:port/path``)."""
    wire = WireFormat.for_packets(options, "WebSocket")
    connection = await _ws_connect(uri, max_size=wire.receive_limit)
    return VariantWebSocket(connection, wire)


async def serve(
    handler: Callable[[VariantWebSocket], Awaitable[None]],
    host: str | None,
    port: int,
    *,
    logger: logging.Logger = LOGGER,
    **options: Unpack[WireOptions],
) -> Server:
    """Start a WebSocket server that runs ``await handler(peer)`` for each connection.

    A message that is not one value closes that connection with code 1007 and a warning
    naming the reason; other failures are logged with their traceback.
    """
    wire = WireFormat.for_packets(options, "WebSocket")

    async def one(connection: ServerConnection) -> None:
        peer = VariantWebSocket(connection, wire)
        name = connection.remote_address
        try:
            await handler(peer)
        except DecodeError as exc:
            logger.warning("closing the WebSocket from %s: %s", name, exc)
            await peer.close(_INVALID_PAYLOAD, exc.reason[:100])
        except ConnectionClosed as exc:
            logger.info("WebSocket from %s ended: %s", name, exc)
        except Exception:
            logger.exception("handler failed for the WebSocket from %s", name)
            await peer.close(1011)

    return await _ws_serve(one, host, port, max_size=wire.receive_limit)
