"""Agones hooks for a room process, through the Agones SDK's REST sidecar.

Agones has no Python SDK; its sidecar in the game server's pod answers HTTP on
``localhost:$AGONES_SDK_HTTP_PORT`` (9358 unless set). :class:`AgonesHooks` makes the four
calls a room process needs, each a ``POST`` with the body ``{}``:

* ``/ready``: the process serves (after it registered in the directory);
* ``/health``: every ``health_interval`` seconds while it runs;
* ``/allocate``: once, when it hosts its first room, so that a fleet scaling down keeps it;
* ``/shutdown``: when it stops.

The sidecar may start after the process, so a call that cannot connect is tried again for
``patience`` seconds. ``gdvariant rooms host --agones`` uses it (docs/rooms.md, "On Agones").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from urllib.parse import urlsplit

try:
    import h11
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.rooms.agones needs the 'h11' package: pip install 'gdvariant[rooms]'"
    ) from exc

__all__ = ["DEFAULT_PORT", "AgonesError", "AgonesHooks"]

LOGGER = logging.getLogger("gdvariant.rooms.agones")
#: The sidecar's HTTP port when ``AGONES_SDK_HTTP_PORT`` is not set.
DEFAULT_PORT = 9358
#: The most of an answer read (the sidecar answers ``{}``).
_MAX_ANSWER = 64 * 1024


class AgonesError(Exception):
    """The sidecar could not be reached in time, or refused a call."""


class AgonesHooks:
    """Calls to the Agones SDK sidecar at ``url`` (default:
    ``http://localhost:$AGONES_SDK_HTTP_PORT``)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        health_interval: float = 2.0,
        timeout: float = 5.0,
        patience: float = 30.0,
        logger: logging.Logger = LOGGER,
    ) -> None:
        if url is None:
            url = f"http://localhost:{os.environ.get('AGONES_SDK_HTTP_PORT') or DEFAULT_PORT}"
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"the Agones sidecar is reached at http://host:port, not {url!r}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.health_interval = health_interval
        self.timeout = timeout
        self.patience = patience
        self.logger = logger
        self.allocated = False

    async def ready(self) -> None:
        await self._post("/ready")

    async def health(self) -> None:
        await self._post("/health")

    async def allocate(self) -> None:
        await self._post("/allocate")
        self.allocated = True

    async def shutdown(self) -> None:
        await self._post("/shutdown")

    async def watch(self, busy: Callable[[], bool]) -> None:
        """Ping ``/health`` every ``health_interval`` seconds, and ``/allocate`` once when
        ``busy()`` first holds (the process hosts a room); a failed call is logged."""
        while True:
            try:
                if not self.allocated and busy():
                    await self.allocate()
                await self.health()
            except AgonesError as exc:
                self.logger.warning("agones: %s", exc)
            await asyncio.sleep(self.health_interval)

    async def _post(self, path: str) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + self.patience
        while True:
            try:
                async with asyncio.timeout(self.timeout):
                    status = await self._request(path)
                break
            except (OSError, TimeoutError) as exc:
                if loop.time() >= end:
                    raise AgonesError(f"POST {path}: the sidecar did not answer: {exc}") from None
                await asyncio.sleep(min(1.0, self.patience / 10))
        if status != 200:
            raise AgonesError(f"POST {path}: the sidecar answered {status}")

    async def _request(self, path: str) -> int:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            conn = h11.Connection(h11.CLIENT)
            headers = [
                ("Host", f"{self.host}:{self.port}"),
                ("Content-Type", "application/json"),
                ("Content-Length", "2"),
                ("Connection", "close"),
            ]
            writer.write(conn.send(h11.Request(method="POST", target=path, headers=headers)))
            writer.write(conn.send(h11.Data(data=b"{}")))
            writer.write(conn.send(h11.EndOfMessage()))
            await writer.drain()
            return await _status(conn, reader)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def _status(conn: h11.Connection, reader: asyncio.StreamReader) -> int:
    """The status of the answer on ``conn``, its body read and dropped."""
    status = 0
    seen = 0
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError as exc:
            raise OSError(f"malformed answer: {exc}") from None
        if event is h11.NEED_DATA:
            data = await reader.read(16384)
            seen += len(data)
            if seen > _MAX_ANSWER:
                raise OSError("the answer is too long")
            conn.receive_data(data)
        elif isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
            if status == 0:
                raise OSError("the connection closed before an answer")
            return status
