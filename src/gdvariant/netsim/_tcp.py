"""A TCP proxy through simulated stream links (a WebSocket's connection, say).

Each client connection gets its own connection to the target and two stream links: bytes are
delayed and rate-limited but arrive whole and in order. A side is not read while the link
its bytes go into is full, or while the far side's socket is not taking more (asyncio's
flow control), so a fast sender meets a slow link as it would meet TCP's window. An end of
stream (or a closed connection) is passed on once every byte before it has arrived.
"""

from __future__ import annotations

import asyncio

from ._link import Conditions, Link
from ._proxy import DEFAULT_MAX_FLOWS, _Proxy, _Pump

__all__ = ["TcpProxy"]


class _Side(asyncio.Protocol):
    """One end of a flow: the client's connection, or ours to the target."""

    def __init__(self, flow: _TcpFlow) -> None:
        self.flow = flow
        self.transport: asyncio.Transport | None = None
        self.reading = True
        self.writable = True  # asyncio's flow control: the socket takes more

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.flow.settle()

    def data_received(self, data: bytes) -> None:
        self.flow.way_from(self).feed(data)

    def eof_received(self) -> bool:
        self.flow.way_from(self).end("eof")
        return True  # keep our half open: the other way may still be carrying bytes

    def connection_lost(self, exc: Exception | None) -> None:
        self.flow.way_from(self).end("lost")
        self.flow.way_to(self).end("lost")

    def pause_writing(self) -> None:
        self.writable = False

    def resume_writing(self) -> None:
        self.writable = True
        self.flow.settle()

    def open(self) -> bool:
        return self.transport is not None and not self.transport.is_closing()

    def read(self, wanted: bool) -> None:
        if self.open() and wanted != self.reading:
            assert self.transport is not None
            self.reading = wanted
            (self.transport.resume_reading if wanted else self.transport.pause_reading)()


class _Way:
    """One direction of a flow: what ``source`` sends, through a link, to ``dest``."""

    def __init__(self, link: Link, source: _Side, dest: _Side) -> None:
        self.source = source
        self.dest = dest
        self.pump = _Pump(link, self._write, after=source.flow.settle)
        self.ending: str | None = None  # "eof" or "lost": the source sends no more
        self.done = False

    def _write(self, data: bytes) -> None:
        if self.dest.open():
            assert self.dest.transport is not None
            self.dest.transport.write(data)

    def feed(self, data: bytes) -> None:
        self.pump.send(data)
        self.source.flow.settle()

    def end(self, how: str) -> None:
        if self.ending is None:
            self.ending = how
        self.source.flow.settle()

    def settle(self) -> None:
        """Read the source only while the link and the far socket take more; pass the end on
        once everything before it has arrived."""
        self.source.read(self.dest.open() and self.dest.writable and not self.pump.link.full)
        if self.ending is None or self.done or self.pump.link.next_time() is not None:
            return
        transport = self.dest.transport
        if transport is None:  # the target is still being connected: the end waits for it
            return
        self.done = True
        if transport.is_closing():
            return
        if self.ending == "eof" and transport.can_write_eof():
            transport.write_eof()
        else:
            transport.close()


class _TcpFlow:
    """One client connection: its two sides and two ways."""

    def __init__(self, proxy: TcpProxy) -> None:
        self.proxy = proxy
        self.client = _Side(self)
        self.target = _Side(self)
        up, down = proxy._links(stream=True)
        self.up = _Way(up, self.client, self.target)
        self.down = _Way(down, self.target, self.client)
        self.closed = False

    def way_from(self, side: _Side) -> _Way:
        return self.up if side is self.client else self.down

    def way_to(self, side: _Side) -> _Way:
        return self.down if side is self.client else self.up

    def settle(self) -> None:
        if self.closed:
            return
        self.up.settle()
        self.down.settle()
        if self.up.done and self.down.done:
            self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for side in (self.client, self.target):
            if side.transport is not None:
                side.transport.close()
        self.proxy._flow_closed(self)


class _Refused(asyncio.Protocol):
    """A connection past ``max_flows``: closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class TcpProxy(_Proxy):
    """Forwards TCP connections to ``target`` through simulated stream links.

    Usage::

        async with TcpProxy(("127.0.0.1", 9080), Conditions(latency=0.05)) as proxy:
            host, port = await proxy.listen("127.0.0.1", 8080)
    """

    def __init__(
        self,
        target: tuple[str, int],
        conditions: Conditions | None = None,
        *,
        seed: int | str = 0,
        max_flows: int = DEFAULT_MAX_FLOWS,
    ) -> None:
        super().__init__(target, conditions, seed=seed, max_flows=max_flows)
        self._flows: set[_TcpFlow] = set()
        self._connecting: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None

    @property
    def flows(self) -> int:
        """The connections being served."""
        return len(self._flows)

    async def listen(self, host: str, port: int) -> tuple[str, int]:
        """Start listening; the address bound (port 0 picks a free one)."""
        if self._server is not None:
            raise RuntimeError("this proxy is already listening")
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._accept, host, port)
        bound = self._server.sockets[0].getsockname()
        return str(bound[0]), int(bound[1])

    async def close(self) -> None:
        """Stop listening and close every connection (what the links held is dropped)."""
        if self._server is not None:
            self._server.close()
        for task in list(self._connecting):
            task.cancel()
        for flow in list(self._flows):
            flow.close()
        if self._connecting:
            await asyncio.gather(*self._connecting, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    def _accept(self) -> asyncio.Protocol:
        if len(self._flows) >= self.max_flows:
            self.refused += 1
            return _Refused()
        flow = _TcpFlow(self)
        self._flows.add(flow)
        self._pumps += (flow.up.pump, flow.down.pump)
        task = asyncio.get_running_loop().create_task(self._connect(flow))
        self._connecting.add(task)
        task.add_done_callback(self._connecting.discard)
        return flow.client

    async def _connect(self, flow: _TcpFlow) -> None:
        loop = asyncio.get_running_loop()
        try:
            await loop.create_connection(lambda: flow.target, *self.target)
        except OSError:  # the target is not there: the client's connection ends
            flow.close()

    def _flow_closed(self, flow: _TcpFlow) -> None:
        if flow in self._flows:
            self._flows.discard(flow)
            self._retire(flow.up.pump, flow.down.pump)
