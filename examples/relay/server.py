"""A small multiplayer relay: Godot clients join, move and chat; everyone hears everyone.

    python -m examples.relay.server --port 9080

Each client speaks ``StreamPeerTCP.put_var``/``get_var`` with Dictionaries:

- client -> server: ``{"type": "join", "name": String}``, ``{"type": "move", "pos": Vector2}``,
  ``{"type": "chat", "text": String}``
- server -> clients: ``{"type": "roster", "names": Array}`` on every join and leave,
  ``{"type": "moved", "name": ..., "pos": ...}``, ``{"type": "said", "name": ..., "text": ...}``

A client that sends something else, or bytes that are not values, is disconnected and logged
(gdvariant's server does that for bad frames); the others carry on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from typing import Any

import gdvariant as gd
from gdvariant.asyncio import VariantStream, serve

log = logging.getLogger("relay")


class Relay:
    """Who is connected, and passing each message on to everyone else."""

    def __init__(self) -> None:
        self.players: dict[VariantStream, str] = {}

    async def broadcast(self, message: dict[str, Any], skip: VariantStream | None = None) -> None:
        for peer in list(self.players):
            if peer is not skip:
                # A peer that is gone is removed by its own handler.
                with contextlib.suppress(ConnectionError, gd.ConnectionClosed):
                    await peer.put_var(message)

    async def roster(self) -> None:
        await self.broadcast({"type": "roster", "names": sorted(self.players.values())})

    async def handle(self, peer: VariantStream) -> None:
        """One client's connection, from its join message until it leaves."""
        hello = await peer.get_var()
        if not (isinstance(hello, dict) and hello.get("type") == "join"):
            log.warning("%s did not join first: %r", peer.peername, hello)
            return
        name = str(hello.get("name", "?"))
        self.players[peer] = name
        log.info("%s joined from %s", name, peer.peername)
        try:
            await self.roster()
            async for message in peer:
                kind = message.get("type") if isinstance(message, dict) else None
                if kind == "move" and isinstance(message.get("pos"), gd.Vector2):
                    await self.broadcast(
                        {"type": "moved", "name": name, "pos": message["pos"]}, peer
                    )
                elif kind == "chat":
                    text = str(message.get("text", ""))[:200]
                    await self.broadcast({"type": "said", "name": name, "text": text}, peer)
                else:
                    log.warning("%s sent %r; disconnecting", name, message)
                    return
        finally:
            del self.players[peer]
            log.info("%s left", name)
            await self.roster()


async def run(host: str, port: int, ready: asyncio.Future[int] | None = None) -> None:
    """Serve until cancelled; ``ready`` gets the port once the server listens."""
    relay = Relay()
    server = await serve(relay.handle, host, port, version="4")
    bound = server.sockets[0].getsockname()[1]
    log.info("relay listening on %s:%d", host, bound)
    if ready is not None:
        ready.set_result(bound)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description="A position/chat relay for Godot clients.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9080)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(args.host, args.port))


if __name__ == "__main__":
    main()
