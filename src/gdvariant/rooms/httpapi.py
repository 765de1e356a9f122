"""The matchmaker on HTTP/1.1: an asyncio server around h11, the sans-I/O HTTP parser
(``pip install 'gdvariant[rooms]'``).

Each connection is read into h11, one request at a time (keep-alive works; pipelining is
answered in order). Limits, checked before the body is read: request line and headers 8 KiB
(431 past that), the body ``max_body`` bytes (a declared larger one is refused with 413 at
once), the request line and headers within ``idle_timeout`` seconds of the connection (or the
previous answer), the body within ``request_timeout`` after them (408). Every answer is JSON
with ``Content-Length``; CORS is open (``*``) so a Godot game exported to the web may call it
too. A malformed request gets 400 and the connection is closed; nothing a client sends
raises in the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Iterable
from typing import Any

from .._closing import AsyncClosing
from ._matchmaker import Matchmaker

try:
    import h11
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.rooms' matchmaker server needs the 'h11' package: pip install 'gdvariant[rooms]'"
    ) from exc

__all__ = ["MAX_BODY", "MAX_HEAD", "MatchmakerServer"]

LOGGER = logging.getLogger("gdvariant.rooms.matchmaker")
#: The largest request line and headers (h11's own default is 16 KiB; a join needs < 1 KiB).
MAX_HEAD = 8 * 1024
#: The largest body taken (a join request's options included).
MAX_BODY = 64 * 1024
_REASONS = {
    200: b"OK",
    204: b"No Content",
    400: b"Bad Request",
    404: b"Not Found",
    405: b"Method Not Allowed",
    408: b"Request Timeout",
    409: b"Conflict",
    413: b"Content Too Large",
    431: b"Request Header Fields Too Large",
    500: b"Internal Server Error",
    503: b"Service Unavailable",
}
_CORS = [
    (b"Access-Control-Allow-Origin", b"*"),
    (b"Access-Control-Allow-Methods", b"GET, POST, OPTIONS"),
    (b"Access-Control-Allow-Headers", b"Content-Type"),
]


class _Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


class MatchmakerServer(AsyncClosing):
    """``matchmaker``'s HTTP JSON API on a socket: ``await listen(host, port)``."""

    def __init__(
        self,
        matchmaker: Matchmaker,
        *,
        max_body: int = MAX_BODY,
        request_timeout: float = 10.0,
        idle_timeout: float = 30.0,
        logger: logging.Logger = LOGGER,
    ) -> None:
        self.matchmaker = matchmaker
        self.max_body = max_body
        self.request_timeout = request_timeout
        self.idle_timeout = idle_timeout
        self.logger = logger
        self._server: asyncio.Server | None = None

    async def listen(self, host: str | None, port: int) -> int:
        """Start serving on ``host:port`` (0: any free port); the port bound."""
        if self._server is not None:
            raise RuntimeError("this server is already listening")
        self._server = await asyncio.start_server(self._connection, host, port)
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self._server.wait_closed()
            self._server = None

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        try:
            while True:
                try:
                    keep = await self._one(conn, reader, writer)
                except _Refused as exc:
                    if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                        body = {"error": {"code": exc.code, "message": str(exc)}}
                        self._respond(conn, writer, exc.status, body, close=True)
                    keep = False
                await writer.drain()
                if not keep or conn.our_state is h11.MUST_CLOSE:
                    break
                conn.start_next_cycle()
        except (ConnectionError, h11.ProtocolError, TimeoutError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one(
        self, conn: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Read one request and answer it; False when the connection should close."""
        loop = asyncio.get_running_loop()
        event = await self._next(conn, reader, loop.time() + self.idle_timeout)
        if isinstance(event, h11.ConnectionClosed):
            return False
        if not isinstance(event, h11.Request):
            raise _Refused(400, "bad_request", "expected a request")
        method = event.method.decode("ascii", "replace")
        target = event.target.decode("ascii", "replace")
        length = _content_length(event.headers)
        if length is not None and length > self.max_body:
            raise _Refused(413, "body_too_large", f"the body is over {self.max_body} bytes")
        body = await self._body(conn, reader, loop.time() + self.request_timeout)
        if method == "OPTIONS":  # a browser's CORS preflight
            self._respond(conn, writer, 204, None)
            return True
        try:
            status, answer = await self.matchmaker.handle(method, target, body)
        except Exception:
            self.logger.exception("the matchmaker failed on %s %s", method, target[:80])
            status, answer = 500, {"error": {"code": "internal", "message": "internal error"}}
        self._respond(conn, writer, status, answer)
        return True

    async def _body(
        self, conn: h11.Connection, reader: asyncio.StreamReader, deadline: float
    ) -> bytes:
        body = bytearray()
        while True:
            event = await self._next(conn, reader, deadline)
            if isinstance(event, h11.Data):
                body += event.data
                if len(body) > self.max_body:
                    raise _Refused(413, "body_too_large", f"the body is over {self.max_body} bytes")
            elif isinstance(event, h11.EndOfMessage):
                return bytes(body)
            else:
                raise _Refused(400, "bad_request", "the request ended early")

    async def _next(
        self, conn: h11.Connection, reader: asyncio.StreamReader, deadline: float
    ) -> Any:
        """h11's next event, reading until ``deadline`` (the loop's time) at the latest."""
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                status = exc.error_status_hint
                raise _Refused(status, "bad_http", f"malformed HTTP: {exc}") from None
            if event is not h11.NEED_DATA:
                return event
            try:
                async with asyncio.timeout_at(deadline):
                    data = await reader.read(16384)
            except TimeoutError:
                raise _Refused(408, "timeout", "the request took too long") from None
            conn.receive_data(data)

    def _respond(
        self,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        status: int,
        answer: dict[str, Any] | None,
        *,
        close: bool = False,
    ) -> None:
        body = b"" if answer is None else json.dumps(answer).encode()
        headers = [*_CORS, (b"Content-Length", str(len(body)).encode())]
        if answer is not None:
            headers.append((b"Content-Type", b"application/json"))
        if close:
            headers.append((b"Connection", b"close"))
        reason = _REASONS.get(status, b"")
        try:
            writer.write(
                conn.send(h11.Response(status_code=status, headers=headers, reason=reason))
            )
            if body:
                writer.write(conn.send(h11.Data(data=body)))
            writer.write(conn.send(h11.EndOfMessage()))
        except h11.LocalProtocolError:
            writer.close()


def _content_length(headers: Iterable[tuple[bytes, bytes]]) -> int | None:
    for name, value in headers:
        if name == b"content-length":
            return int(value)  # h11 has checked it is a number
    return None
