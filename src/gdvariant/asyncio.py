"""asyncio adapters: Godot values over TCP streams and UDP datagrams.

A thin layer over the sans-I/O core (:class:`~gdvariant.StreamDecoder`, :func:`~gdvariant.frame`):

>>> async def echo(peer: VariantStream) -> None:   # doctest: +SKIP
...     async for value in peer:
...         await peer.put_var(value)
>>> server = await serve(echo, "127.0.0.1", 9080)  # doctest: +SKIP

Every function takes the :class:`~gdvariant.WireOptions` keywords (``version``, ``framing``,
``allow_objects``, ``max_frame_size``...). Objects stay off unless ``allow_objects=True``.
Backpressure both ways: ``put_var`` waits while the peer is not reading, and bytes are read
from the socket only when ``get_var`` needs them, so a slow handler slows its sender down.
``max_unsent`` and ``stall_timeout`` bound what waits for a peer that does not read (see
:class:`VariantStream`); what a server logs about its clients is rate-limited per client and
clipped (:mod:`gdvariant._net.peerlog`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable
from typing import Any, Self, Unpack

from ._closing import AsyncClosing
from ._errors import ConnectionClosed, DecodeError
from ._net.framing import WireFormat, WireOptions
from ._net.outbox import DEFAULT_MAX_UNSENT, DEFAULT_STALL_TIMEOUT, Backlog, Outbox
from ._net.peerlog import PeerLog, clip

__all__ = [
    "AsyncPeer",
    "DatagramPeer",
    "Server",
    "VariantStream",
    "connect",
    "open_datagram",
    "serve",
]

#: Where servers log why they closed a connection (bad frame, oversize, handler error).
LOGGER = logging.getLogger("gdvariant.asyncio")
_READ_SIZE = 64 * 1024


class AsyncPeer(AsyncClosing):
    """What every async connection shares: ``async for`` over its values until the peer
    closes, and ``async with`` to close it. Subclasses give ``get_var`` and ``close``."""

    async def get_var(self) -> Any:
        """The next value from the peer; ``ConnectionClosed`` once it has gone."""
        raise NotImplementedError

    async def close(self) -> None:
        """Close the connection."""
        raise NotImplementedError

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.get_var()
        except ConnectionClosed:
            raise StopAsyncIteration from None


class VariantStream(AsyncPeer):
    """One stream connection carrying Godot values (``StreamPeerTCP`` / ``PacketPeerStream``).

    ``max_unsent`` (default 4 MiB) bounds what waits for the peer in the socket's write
    buffer: ``put_var`` waits while more than half of it is unsent (one frame at a time), and
    ``get_var`` reads nothing from the peer meanwhile. A peer that stays so for
    ``stall_timeout`` seconds (default 10) is cut, with one line on ``log``'s logger.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        wire: WireFormat,
        *,
        max_unsent: int = DEFAULT_MAX_UNSENT,
        stall_timeout: float = DEFAULT_STALL_TIMEOUT,
        log: PeerLog | None = None,
    ) -> None:
        if wire.is_packet:
            raise ValueError("a stream needs StreamPeer or PacketPeerStream framing")
        self.wire = wire
        self._reader = reader
        self._writer = writer
        self._decoder = wire.stream_decoder()
        self._log = log if log is not None else PeerLog(LOGGER)
        transport = writer.transport
        self._outbox = Outbox(
            max_unsent,
            stall_timeout,
            pause=_nothing,
            resume=_nothing,
            drop=self._stalled,
            buffered=transport.get_write_buffer_size,
        )
        # drain() then waits exactly while the outbox counts the peer as full.
        transport.set_write_buffer_limits(high=max_unsent // 2, low=max_unsent // 4)
        self._sending = asyncio.Lock()

    @property
    def peername(self) -> Any:
        """The remote address, as the socket reports it."""
        return self._writer.get_extra_info("peername")

    @property
    def unsent(self) -> int:
        """Bytes written and not yet taken by the peer's socket."""
        return self._outbox.unsent

    async def get_var(self) -> Any:
        """The next value. :class:`ConnectionClosed` when the peer closed cleanly between
        values; :class:`DecodeError` for a bad frame or a stream cut inside one."""
        decoder = self._decoder
        while not decoder.pending():
            if self._outbox.full:
                await self._outbox.room()
            data = await self._reader.read(_READ_SIZE)
            if not data:
                decoder.feed_eof()
                raise ConnectionClosed(f"{self.peername} closed the connection")
            decoder.feed(data)
        return decoder.next_value()

    async def put_var(self, value: Any) -> None:
        """Send ``value``, waiting while more than half of ``max_unsent`` waits for the peer;
        :class:`ConnectionClosed` once the connection is closed (or cut for stalling)."""
        data = self.wire.frame(value)
        async with self._sending:
            if self._writer.is_closing() or self._outbox.closed:
                raise ConnectionClosed(f"the connection to {self.peername} is closed")
            self._writer.write(data)
            self._outbox.check()
            try:
                await self._writer.drain()
            except ConnectionError as exc:
                raise ConnectionClosed(f"the connection to {self.peername} broke: {exc}") from None
        if self._outbox.closed:
            raise ConnectionClosed(f"the connection to {self.peername} was cut: it stalled")

    async def close(self) -> None:
        """Send what is queued, close, and wait until the socket is closed (a peer that
        takes nothing for ``stall_timeout`` seconds is cut)."""
        self._writer.close()
        try:
            async with asyncio.timeout(self._outbox.backlog.timeout):
                with contextlib.suppress(ConnectionError):
                    await self._writer.wait_closed()
        except TimeoutError:
            self.abort()
        self._outbox.close()

    def close_nowait(self) -> None:
        """Start closing: what is queued is still sent, nothing more is read or written."""
        self._writer.close()

    def abort(self) -> None:
        """Close at once, dropping what is not sent yet."""
        self._writer.transport.abort()
        self._outbox.close()

    def _stalled(self, reason: str) -> None:
        name = self.peername
        self._log.log(
            logging.WARNING,
            _host(name),
            "closing the connection with %s: %s",
            name,
            reason,
            final=True,
        )
        self._writer.transport.abort()


def _nothing() -> None:
    """A stream reads only when ``get_var`` asks: nothing to pause or resume."""


def _host(address: Any) -> Any:
    """Who a log line is about: the host of a ``(host, port, ...)`` address."""
    return address[0] if isinstance(address, tuple) and address else address


async def connect(
    host: str,
    port: int,
    *,
    max_unsent: int = DEFAULT_MAX_UNSENT,
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    **options: Unpack[WireOptions],
) -> VariantStream:
    """Open a connection to a Godot (or gdvariant) server (``max_unsent`` and
    ``stall_timeout``: see :class:`VariantStream`)."""
    wire = WireFormat(**options)
    Backlog(max_unsent, stall_timeout)
    reader, writer = await asyncio.open_connection(host, port, limit=_READ_SIZE)
    return VariantStream(reader, writer, wire, max_unsent=max_unsent, stall_timeout=stall_timeout)


Handler = Callable[[VariantStream], Awaitable[None]]


class Server:
    """A listening server from :func:`serve`; ``async with`` closes it and waits.

    Unlike a bare :class:`asyncio.Server`, it owns its connections: :meth:`close` also
    closes every connected peer, and :meth:`wait_closed` waits for their handlers, on every
    Python version (3.11's ``wait_closed`` waits for nothing, 3.12's for peers that may
    never leave). A handler cancelled at shutdown drops its connection quietly.
    """

    def __init__(
        self,
        handler: Handler,
        wire: WireFormat,
        logger: logging.Logger,
        limits: tuple[int, float] = (DEFAULT_MAX_UNSENT, DEFAULT_STALL_TIMEOUT),
    ) -> None:
        Backlog(*limits)
        self._handler = handler
        self._wire = wire
        self._log = PeerLog(logger)
        self._limits = limits
        self._listener: asyncio.Server | None = None
        self._peers: dict[asyncio.Task[None], VariantStream] = {}
        self._closing = False

    async def _listen(self, host: str | None, port: int) -> None:
        # A plain callback, not a coroutine: asyncio then leaves the handler task to us, and
        # 3.11's done-callback (which calls exception() on a cancelled task and prints a
        # CancelledError traceback) is never attached.
        self._listener = await asyncio.start_server(self._accept, host, port, limit=_READ_SIZE)

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        max_unsent, stall_timeout = self._limits
        peer = VariantStream(
            reader,
            writer,
            self._wire,
            max_unsent=max_unsent,
            stall_timeout=stall_timeout,
            log=self._log,
        )
        if self._closing:  # accepted in the same loop turn as close()
            peer.abort()
            return
        task = asyncio.get_running_loop().create_task(self._run(peer))
        self._peers[task] = peer
        task.add_done_callback(self._peers.pop)

    async def _run(self, peer: VariantStream) -> None:
        name = peer.peername
        host = _host(name)
        try:
            await self._handler(peer)
        except DecodeError as exc:
            self._log.warning(host, "closing the connection from %s: %s", name, clip(exc))
        except (ConnectionClosed, ConnectionError) as exc:
            self._log.log(logging.INFO, host, "connection from %s ended: %s", name, clip(exc))
        except asyncio.CancelledError:
            peer.abort()  # shutting down: do not wait for a peer that may not read
            raise
        except Exception:
            self._log.exception(host, "handler failed for the connection from %s", name)
        finally:
            await peer.close()

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        """The listening sockets (empty once closed)."""
        return () if self._listener is None else self._listener.sockets

    def is_serving(self) -> bool:
        """Whether new connections are accepted."""
        return self._listener is not None and self._listener.is_serving()

    def close(self) -> None:
        """Stop accepting and close every connected peer (what is queued is still sent).

        A handler waiting in ``get_var`` then sees :class:`ConnectionClosed`, and its next
        ``put_var`` raises it.
        """
        self._closing = True
        if self._listener is not None:
            self._listener.close()
        for peer in self._peers.values():
            peer.close_nowait()

    async def wait_closed(self) -> None:
        """Wait until every handler has returned and its connection is closed; then log the
        counts of the lines held back."""
        if self._peers:
            await asyncio.wait(list(self._peers))
        if self._listener is not None:
            await self._listener.wait_closed()
        self._log.flush()

    async def serve_forever(self) -> None:
        """Serve until cancelled, then close and wait for the handlers."""
        try:
            await asyncio.get_running_loop().create_future()
        finally:
            self.close()
            await self.wait_closed()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
        await self.wait_closed()


async def serve(
    handler: Handler,
    host: str | None,
    port: int,
    *,
    logger: logging.Logger = LOGGER,
    max_unsent: int = DEFAULT_MAX_UNSENT,
    stall_timeout: float = DEFAULT_STALL_TIMEOUT,
    **options: Unpack[WireOptions],
) -> Server:
    """Start a server that runs ``await handler(peer)`` for each connection.

    When the handler returns, or raises, the connection is closed. A bad or oversized frame
    (:class:`DecodeError`) is logged as a warning with its reason and the peer's address, any
    other failure with its traceback; the server and the other connections carry on. Those
    lines come at most a few times a second per client host, with a count of the rest.
    ``max_unsent`` and ``stall_timeout`` apply to each connection (:class:`VariantStream`).
    """
    server = Server(handler, WireFormat(**options), logger, (max_unsent, stall_timeout))
    await server._listen(host, port)
    return server


class _DatagramProtocol(asyncio.DatagramProtocol):
    def __init__(self, peer: DatagramPeer) -> None:
        self._peer = peer

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self._peer._received(data, addr)

    def error_received(self, exc: Exception) -> None:
        self._peer._logger.info("UDP error: %s", exc)

    def connection_lost(self, exc: Exception | None) -> None:
        self._peer._lost()


class DatagramPeer:
    """A UDP socket carrying one value per datagram, as ``PacketPeerUDP.put_var`` sends them.

    A datagram that does not decode, or arrives while ``max_queue`` values wait unread, is
    dropped, logged and counted in :attr:`dropped` (UDP has no connection to close).
    """

    def __init__(self, wire: WireFormat, max_queue: int, logger: logging.Logger) -> None:
        self.wire = wire
        self.dropped = 0
        self._logger = logger
        self._log = PeerLog(logger)
        self._queue: asyncio.Queue[tuple[Any, Any] | None] = asyncio.Queue()
        self._max_queue = max_queue
        self._transport: asyncio.DatagramTransport | None = None

    def _received(self, data: bytes, addr: Any) -> None:
        if self._queue.qsize() >= self._max_queue:
            self.dropped += 1
            self._log.warning(
                _host(addr),
                "dropped a datagram from %s: the queue is full (%d values wait)",
                addr,
                self._max_queue,
            )
            return
        try:
            value = self.wire.decode_packet(data)
        except DecodeError as exc:
            self.dropped += 1
            self._log.warning(_host(addr), "dropped a datagram from %s: %s", addr, clip(exc))
            return
        self._queue.put_nowait((value, addr))

    def _lost(self) -> None:
        self._queue.put_nowait(None)

    async def get_var(self) -> tuple[Any, Any]:
        """The next value and the address it came from; :class:`ConnectionClosed` once closed."""
        item = await self._queue.get()
        if item is None:
            self._queue.put_nowait(None)  # every later call sees the end too
            raise ConnectionClosed("the UDP socket is closed")
        return item

    def put_var(self, value: Any, addr: Any = None) -> None:
        """Send ``value`` as one datagram (to the connected address when ``addr`` is None)."""
        if self._transport is None:
            raise ConnectionClosed("the UDP socket is closed")
        self._transport.sendto(self.wire.frame(value), addr)

    def __aiter__(self) -> DatagramPeer:
        return self

    async def __anext__(self) -> tuple[Any, Any]:
        try:
            return await self.get_var()
        except ConnectionClosed:
            raise StopAsyncIteration from None

    @property
    def local_address(self) -> Any:
        """The address this socket is bound to."""
        assert self._transport is not None
        return self._transport.get_extra_info("sockname")

    def close(self) -> None:
        """Close the socket; waiting ``get_var`` calls end with :class:`ConnectionClosed`."""
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        self._log.flush()


async def open_datagram(
    local_addr: tuple[str, int] | None = None,
    remote_addr: tuple[str, int] | None = None,
    *,
    max_queue: int = 1024,
    logger: logging.Logger = LOGGER,
    **options: Unpack[WireOptions],
) -> DatagramPeer:
    """Bind (``local_addr``) and/or connect (``remote_addr``) a UDP socket for values.

    The framing is always ``PacketPeer``: one value per datagram, no length prefix.
    """
    peer = DatagramPeer(WireFormat.for_packets(options, "UDP"), max_queue, logger)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(
        lambda: _DatagramProtocol(peer), local_addr=local_addr, remote_addr=remote_addr
    )
    peer._transport = transport
    return peer
