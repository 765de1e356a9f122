"""A stand-in for the Agones SDK's REST sidecar: it records each request (method, path, body)
and answers ``{}`` with status 200, or with ``status`` when a test sets it."""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Self


class Sidecar:
    """``async with Sidecar() as sidecar``: listening on a free loopback port
    (:attr:`url`); :attr:`calls` holds what it was sent, in order."""

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.status = 200
        self.calls: list[tuple[str, str, bytes]] = []
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def paths(self) -> list[str]:
        return [path for _, path, _ in self.calls]

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            body = await reader.readexactly(length)
            self.calls.append((method, path, body))
            reason = "OK" if self.status == 200 else "Error"
            writer.write(
                f"HTTP/1.1 {self.status} {reason}\r\nContent-Type: application/json\r\n"
                "Content-Length: 2\r\nConnection: close\r\n\r\n{}".encode()
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
