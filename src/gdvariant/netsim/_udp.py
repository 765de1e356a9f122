"""A UDP proxy through simulated links: one socket to the target per client, as a NAT gives.

Every datagram a client sends goes through the client's "up" link to the target, every one
the target answers through its "down" link back; each flow's links are seeded from the
proxy's seed and the flow's number. docs/netsim.md has the limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket

from ._link import Conditions
from ._proxy import DEFAULT_MAX_FLOWS, _Proxy, _Pump

__all__ = ["UdpProxy"]

#: A UDP flow that has seen no packet either way for this long is forgotten (seconds).
DEFAULT_IDLE_TIMEOUT = 30.0
_DATAGRAM = 65535
#: Datagrams read from one flow's socket in one turn of the loop: a flooding target waits its
#: turn like the others.
_READS_A_TURN = 64


class _UdpFlow:
    """One client of the UDP proxy: its own socket to the target, as a NAT gives it."""

    def __init__(self, proxy: UdpProxy, client: tuple[str, int], sock: socket.socket) -> None:
        self.client = client
        self.sock = sock
        self.seen = asyncio.get_running_loop().time()
        up, down = proxy._links(stream=False)
        self.up = _Pump(up, self._to_target)
        self.down = _Pump(down, self._to_client)
        self._proxy = proxy

    def _to_client(self, data: bytes) -> None:
        transport = self._proxy._transport
        if transport is not None and self._proxy.writable:
            transport.sendto(data, self.client)

    def _to_target(self, data: bytes) -> None:
        # A full buffer, or the target's port unreachable: lost, as on a wire.
        with contextlib.suppress(OSError):
            self.sock.send(data)


class UdpProxy(_Proxy, asyncio.DatagramProtocol):
    """Forwards UDP datagrams between clients and ``target`` through simulated links.

    Usage::

        async with UdpProxy(("127.0.0.1", 7001), Conditions(latency=0.05, loss=0.02)) as proxy:
            host, port = await proxy.listen("127.0.0.1", 7000)
    """

    def __init__(
        self,
        target: tuple[str, int],
        conditions: Conditions | None = None,
        *,
        seed: int | str = 0,
        max_flows: int = DEFAULT_MAX_FLOWS,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        super().__init__(target, conditions, seed=seed, max_flows=max_flows)
        if not idle_timeout > 0:
            raise ValueError(f"idle_timeout must be > 0 seconds, not {idle_timeout!r}")
        self.idle_timeout = idle_timeout
        self._flows: dict[tuple[str, int], _UdpFlow] = {}
        self._transport: asyncio.DatagramTransport | None = None
        self._family = socket.AF_INET
        self._target_address: tuple[str, int] = target
        self._sweeper: asyncio.TimerHandle | None = None
        self.writable = True

    async def listen(self, host: str, port: int) -> tuple[str, int]:
        """Start listening; the address bound (port 0 picks a free one)."""
        if self._transport is not None:
            raise RuntimeError("this proxy is already listening")
        loop = asyncio.get_running_loop()
        found = await loop.getaddrinfo(*self.target, type=socket.SOCK_DGRAM)
        self._family, _, _, _, address = found[0]
        self._target_address = (str(address[0]), int(address[1]))
        self._transport, _ = await loop.create_datagram_endpoint(
            lambda: self, local_addr=(host, port)
        )
        self._sweeper = loop.call_later(self.idle_timeout / 2, self._sweep)
        bound = self._transport.get_extra_info("sockname")
        return str(bound[0]), int(bound[1])

    @property
    def flows(self) -> int:
        """The clients being served."""
        return len(self._flows)

    async def close(self) -> None:
        """Stop listening and forget every flow (what they held is dropped)."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for client in list(self._flows):
            self._forget(client)
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def pause_writing(self) -> None:
        """The listening socket's buffer is over asyncio's high-water mark (the kernel takes
        no more): datagrams to clients are dropped until it drains, as a full queue drops."""
        self.writable = False

    def resume_writing(self) -> None:
        self.writable = True

    def datagram_received(self, data: bytes, addr: tuple[str | int, ...]) -> None:
        client = (str(addr[0]), int(addr[1]))
        flow = self._flows.get(client) or self._open(client)
        if flow is not None:
            flow.seen = asyncio.get_running_loop().time()
            flow.up.send(data)

    def _open(self, client: tuple[str, int]) -> _UdpFlow | None:
        if len(self._flows) >= self.max_flows:
            self.refused += 1
            return None
        try:
            sock = socket.socket(self._family, socket.SOCK_DGRAM)
        except OSError:  # out of file descriptors, say: this client is not served
            self.refused += 1
            return None
        try:
            sock.setblocking(False)
            sock.connect(self._target_address)
        except OSError:
            sock.close()
            self.refused += 1
            return None
        flow = self._flows[client] = _UdpFlow(self, client, sock)
        self._pumps += (flow.up, flow.down)
        asyncio.get_running_loop().add_reader(sock, self._from_target, flow)
        return flow

    def _from_target(self, flow: _UdpFlow) -> None:
        for _ in range(_READS_A_TURN):
            try:
                data = flow.sock.recv(_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # e.g. the target's port unreachable: nothing came
                return
            flow.seen = asyncio.get_running_loop().time()
            flow.down.send(data)

    def _sweep(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        for client, flow in list(self._flows.items()):
            if now - flow.seen >= self.idle_timeout:
                self._forget(client)
        self._sweeper = loop.call_later(self.idle_timeout / 2, self._sweep)

    def _forget(self, client: tuple[str, int]) -> None:
        flow = self._flows.pop(client)
        asyncio.get_running_loop().remove_reader(flow.sock)
        flow.sock.close()
        self._retire(flow.up, flow.down)
