"""Our server's side of the roles of tests/live/multiplayer/client/main.gd, shared by the live
transport tests (tests/live/multiplayer/test_websocket.py, tests/live/multiplayer/test_enet.py):
who authenticated as what, who left, and the RAW payloads that arrived."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from gdvariant.multiplayer._endpoint import ServerEndpoint
from tests.support.paths import LIVE

PROJECT = LIVE / "multiplayer" / "client"
COUNT = 12  # RAW payloads each way
BIGGEST = 65534  # + the RAW command byte = Godot's 65535-byte WebSocket buffer


def copy_project(here: Path) -> None:
    """The client project into an engine's work folder."""
    for path in PROJECT.iterdir():
        shutil.copy(path, here / path.name)


class RoleSession:
    """Admits ``letmein:ROLE`` tokens (remembering the role's peer id), closes any other;
    a subclass makes ``server`` with these callbacks."""

    server: ServerEndpoint

    def __init__(self) -> None:
        self.roles: dict[str, int] = {}
        self.tokens: list[bytes] = []
        self.connected: list[int] = []
        self.disconnected: list[int] = []
        self.raw: list[tuple[int, bytes]] = []
        self.garbage_gone = asyncio.Event()
        self.raw_done = asyncio.Event()

    def auth(self, peer: int, data: bytes) -> None:
        self.tokens.append(data)
        if not data.startswith(b"letmein:"):
            self.server.disconnect_peer(peer)
            return
        self.roles[data.removeprefix(b"letmein:").decode()] = peer
        self.server.send_auth(peer, b"welcome")
        self.server.complete_auth(peer)

    def gone(self, peer: int) -> None:
        self.disconnected.append(peer)
        if peer == self.roles.get("garbage"):
            self.garbage_gone.set()

    def got_raw(self, peer: int, payload: bytes) -> None:
        self.raw.append((peer, payload))
        if len(self.raw) == COUNT:
            self.raw_done.set()
