"""The Python clients' links to the server in ``bench_multiplayer``: raw SceneMultiplayer
packets over WebSocket (``websockets``) or ENet (pyenet), each packet handed over as its bytes.

Why not :class:`gdvariant.multiplayer.websocket.MultiplayerClient` (or the ENet one): that
client decodes every packet into objects before the game sees it, about 100 us for a SYNC of
20 synchronizers, and 400 clients get 12,000 of them a second: more than a core, so the
clients, not the server, set what a 400-client run measured. Here a SYNC is checked straight
from its bytes (``bench_multiplayer.BenchClient.bytes_in``); every other packet is decoded
with the library's public :func:`~gdvariant.multiplayer.wire.decode_scene_packet`. What the
links do is what the library's clients do on the wire (docs/multiplayer.md, "WebSocket
transport" and "ENet transport"): a WebSocket server's first message is our peer id; over ENet
we pick our id and send it in the CONNECT, and each packet rides on the channel and flags
:func:`~gdvariant.multiplayer.enet.enet_route` gives the mode SceneMultiplayer sends it with.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import random
import struct
from collections.abc import Callable
from typing import cast

import enet
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from gdvariant.multiplayer.enet import default_mode, enet_route

OnBytes = Callable[[bytes], None]
#: Godot's peer id range (``generate_unique_id``): never 0 or 1, top bit clear
ID_RANGE = (2, 2**31 - 1)
#: ENet channels a Godot client asks for (ENet's most)
ENET_CHANNELS = 255
#: seconds a WebSocket close or an ENet disconnection may take before we give up on it
CLOSE_WAIT = 2.0


class WebSocketLink:
    """One client over WebSocket: ``on_bytes(packet)`` for each message the server sends."""

    def __init__(self, on_bytes: OnBytes) -> None:
        self.on_bytes = on_bytes
        self.unique_id = 0
        self._connection: ClientConnection | None = None
        self._outbox: asyncio.Queue[bytes] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []

    async def connect(self, uri: str) -> int:
        """Join the server at ``ws://host:port``; our peer id (its first message)."""
        connection = await connect(uri, compression=None, max_size=None, close_timeout=CLOSE_WAIT)
        first = await connection.recv()
        data = first.encode() if isinstance(first, str) else first
        if len(data) != 4:
            await connection.close()
            raise ConnectionError(f"no peer id from the server: {data!r}")
        self.unique_id = struct.unpack("<i", data)[0]
        self._connection = connection
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._write())]
        return self.unique_id

    def send(self, data: bytes) -> None:
        """Queue one packet (sent in order by the writer task)."""
        self._outbox.put_nowait(data)

    async def _read(self) -> None:
        assert self._connection is not None
        with contextlib.suppress(ConnectionClosed):
            async for message in self._connection:
                self.on_bytes(message.encode() if isinstance(message, str) else message)

    async def _write(self) -> None:
        assert self._connection is not None
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self._connection.send(await self._outbox.get())

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.close()
        for task in self._tasks:
            task.cancel()


#: what a server's Sec-WebSocket-Accept hashes with our key (RFC 6455, section 1.3)
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
WS_CONTINUATION, WS_TEXT, WS_BINARY, WS_CLOSE, WS_PING, WS_PONG = 0, 1, 2, 8, 9, 10


def ws_frame(opcode: int, payload: bytes) -> bytes:
    """One final client frame (masked, as a client's must be) of ``payload``."""
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | size)
    elif size < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, size)
    mask = os.urandom(4)
    keys = int.from_bytes((mask * (size // 4 + 1))[:size], "little")
    masked = (int.from_bytes(payload, "little") ^ keys).to_bytes(size, "little")
    return head + mask + masked


class LightWebSocketLink(asyncio.Protocol):
    """One client over WebSocket with the frames read here, not by ``websockets``
    (``--light-clients``): its per-message work was most of a light client's CPU. It does
    what a client must: the opening handshake (the server's accept checked), masked sends,
    fragmented messages joined, pings answered with pongs, a close answered and made."""

    def __init__(self, on_bytes: OnBytes) -> None:
        self.on_bytes = on_bytes
        self.unique_id = 0
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        self._upgraded = False
        self._key = base64.b64encode(os.urandom(16))
        self._fragments: list[bytes] = []
        loop = asyncio.get_running_loop()
        self._handshake: asyncio.Future[None] = loop.create_future()
        self._first: asyncio.Future[bytes] = loop.create_future()
        self._closed = asyncio.Event()

    async def connect(self, uri: str) -> int:
        """Join the server at ``ws://host:port``; our peer id (its first message)."""
        host, _, port = uri.removeprefix("ws://").partition("/")[0].rpartition(":")
        loop = asyncio.get_running_loop()
        await loop.create_connection(lambda: self, host, int(port))
        assert self._transport is not None
        self._transport.write(
            b"GET / HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
            % (host.encode(), port.encode(), self._key)
        )
        try:
            async with asyncio.timeout(30):
                await self._handshake
                first = await self._first
        except TimeoutError:
            self._transport.abort()
            raise ConnectionError(f"no WebSocket handshake from {uri}") from None
        if len(first) != 4:
            await self.close()
            raise ConnectionError(f"no peer id from the server: {first!r}")
        self.unique_id = struct.unpack("<i", first)[0]
        return self.unique_id

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed.set()
        for waiter in (self._handshake, self._first):
            if not waiter.done():
                waiter.set_exception(ConnectionError(f"the server closed: {exc}"))

    def send(self, data: bytes) -> None:
        """Send one packet as a binary message."""
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(ws_frame(WS_BINARY, data))

    def data_received(self, data: bytes) -> None:
        buf = self._buffer
        buf += data
        if not self._upgraded and not self._upgrade():
            return
        pos, size = 0, len(buf)
        while size - pos >= 2:
            first, second = buf[pos], buf[pos + 1]
            length, head = second & 0x7F, 2
            if length == 126:
                if size - pos < 4:
                    break
                length, head = int.from_bytes(buf[pos + 2 : pos + 4], "big"), 4
            elif length == 127:
                if size - pos < 10:
                    break
                length, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            if second & 0x80:  # a server never masks
                self._fail("a masked frame from the server")
                return
            if size - pos - head < length:
                break
            self._frame(first, bytes(buf[pos + head : pos + head + length]))
            pos += head + length
        del buf[:pos]

    def _upgrade(self) -> bool:
        """The server's answer to the handshake, once all of it is in (True: upgraded)."""
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        lines = bytes(self._buffer[:end]).split(b"\r\n")
        del self._buffer[: end + 4]
        headers = dict(line.partition(b":")[::2] for line in lines[1:])
        headers = {name.strip().lower(): value.strip() for name, value in headers.items()}
        accept = base64.b64encode(hashlib.sha1(self._key + WS_GUID).digest())
        if lines[0].split()[1:2] != [b"101"] or headers.get(b"sec-websocket-accept") != accept:
            self._fail(f"no WebSocket upgrade: {lines[0]!r}")
            return False
        self._upgraded = True
        self._handshake.set_result(None)
        return True

    def _frame(self, first: int, payload: bytes) -> None:
        opcode = first & 0x0F
        if opcode in (WS_BINARY, WS_TEXT, WS_CONTINUATION):
            self._fragments.append(payload)
            if first & 0x80:  # the message's last frame
                message = b"".join(self._fragments) if len(self._fragments) > 1 else payload
                self._fragments.clear()
                if self._first.done():
                    self.on_bytes(message)
                else:
                    self._first.set_result(message)
        elif opcode == WS_PING and self._transport is not None:
            self._transport.write(ws_frame(WS_PONG, payload))
        elif opcode == WS_CLOSE and self._transport is not None:
            self._transport.write(ws_frame(WS_CLOSE, payload[:2]))
            self._transport.close()

    def _fail(self, why: str) -> None:
        if not self._handshake.done():
            self._handshake.set_exception(ConnectionError(why))
        if self._transport is not None:
            self._transport.abort()

    async def close(self) -> None:
        """Send a close (normal closure) and wait up to :data:`CLOSE_WAIT` for the server's."""
        if self._transport is None or self._transport.is_closing():
            return
        self._transport.write(ws_frame(WS_CLOSE, struct.pack("!H", 1000)))
        try:
            await asyncio.wait_for(self._closed.wait(), CLOSE_WAIT)
        except TimeoutError:
            self._transport.abort()


class EnetLink:
    """One client over ENet, its host serviced when its socket is readable and every
    ``interval`` seconds (ENet's acknowledgements, pings and resends); what is sent in a
    turn of the event loop leaves in one flush after it."""

    def __init__(self, on_bytes: OnBytes, interval: float) -> None:
        self.on_bytes = on_bytes
        self.interval = interval
        self.unique_id = 0
        self._host: enet.Host | None = None
        self._peer: enet.Peer | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._flushing = False
        self._connected: asyncio.Future[None] | None = None
        self._closed = asyncio.Event()

    async def connect(self, host: str, port: int, timeout: float = 5.0) -> int:
        """Join the server at ``host:port`` with a peer id of our own (Godot's way)."""
        loop = asyncio.get_running_loop()
        self.unique_id = random.randint(*ID_RANGE)
        self._host = enet.Host(None, 1, 0, 0, 0)
        self._peer = self._host.connect(enet.Address(host, port), ENET_CHANNELS, self.unique_id)
        self._connected = loop.create_future()
        loop.add_reader(self._host.socket.fileno(), self._service)
        self._timer = loop.call_later(self.interval, self._tick)
        self._host.flush()
        try:
            await asyncio.wait_for(asyncio.shield(self._connected), timeout)
        except (TimeoutError, ConnectionError):
            self._stop()
            raise ConnectionError(f"no ENet server took us at {host}:{port}") from None
        return self.unique_id

    def send(self, data: bytes) -> None:
        """Send one packet with the mode SceneMultiplayer uses for it (flushed this turn)."""
        assert self._peer is not None
        channel, flags = enet_route(default_mode(data))
        self._peer.send(channel, enet.Packet(data, flags))
        if not self._flushing:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        if self._host is not None and not self._closed.is_set():
            self._host.flush()

    def _service(self) -> None:
        """Every event ENet has now (a service also sends what is queued)."""
        host = self._host
        while host is not None and not self._closed.is_set():
            event = host.service(0, True)
            if event is None:
                return
            if event.type == enet.EVENT_TYPE_RECEIVE:
                self.on_bytes(event.packet.data)
            elif event.type == enet.EVENT_TYPE_CONNECT:
                if self._connected is not None and not self._connected.done():
                    self._connected.set_result(None)
            elif event.type == enet.EVENT_TYPE_DISCONNECT:
                if self._connected is not None and not self._connected.done():
                    self._connected.set_exception(ConnectionError("refused"))
                self._stop()

    def _tick(self) -> None:
        self._service()
        if not self._closed.is_set():
            self._timer = asyncio.get_running_loop().call_later(self.interval, self._tick)

    async def close(self) -> None:
        """Disconnect once what was queued is delivered (reset after :data:`CLOSE_WAIT`)."""
        if self._peer is None or self._host is None or self._closed.is_set():
            self._stop()
            return
        self._peer.disconnect_later()
        self._host.flush()
        try:
            await asyncio.wait_for(self._closed.wait(), CLOSE_WAIT)
        except TimeoutError:
            self._peer.reset()
            self._stop()

    def _stop(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        if self._timer is not None:
            self._timer.cancel()
        if self._host is not None:
            asyncio.get_running_loop().remove_reader(self._host.socket.fileno())


Link = WebSocketLink | LightWebSocketLink | EnetLink


async def open_link(address: str, on_bytes: OnBytes, interval: float, light: bool = False) -> Link:
    """A joined link to ``ws://host:port`` or ``enet://host:port``; ``interval``: how often
    an ENet host is serviced when nothing arrives; ``light``: WebSocket frames read by
    :class:`LightWebSocketLink`, not ``websockets``."""
    if address.startswith("enet://"):
        host, _, port = address.removeprefix("enet://").rpartition(":")
        link = EnetLink(on_bytes, interval)
        await link.connect(host, int(port))
        return link
    websocket = LightWebSocketLink(on_bytes) if light else WebSocketLink(on_bytes)
    await websocket.connect(address)
    return websocket
