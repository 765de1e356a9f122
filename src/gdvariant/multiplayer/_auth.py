"""SceneMultiplayer authentication, sans I/O: which peers are pending, what their packets
mean, when they are admitted and when they time out.

With an ``auth_callback`` set, a new transport peer is *pending*: only ``07 00 <data>`` (for
the callback) and ``07 00`` ("I completed") may pass. Each side marks its own completion with
``complete`` and the peer is admitted when both have completed. Data from a peer that
completed is an error (no Godot peer sends it); once admitted, a stray ``07 00`` is ignored
and a longer AUTH is an error. Without a callback peers are admitted at once. Times are
plain numbers (seconds) the caller supplies: the transport's adapter owns the clock
(docs/multiplayer.md, "What it holds").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .wire import Auth, Command, ProtocolError, SysCommand, WireVersion
from .wire._version import LATEST

__all__ = ["DEFAULT_AUTH_TIMEOUT", "AuthVerdict", "Authenticator"]

#: SceneMultiplayer's default ``auth_timeout`` (3 s).
DEFAULT_AUTH_TIMEOUT = 3.0
AUTH_HEAD = bytes([Command.SYS, SysCommand.AUTH])


class AuthVerdict(enum.Enum):
    """What a received packet means for the authentication state."""

    GAME = "game"  # an admitted peer's packet: process it
    DATA = "data"  # auth data for the auth callback
    COMPLETED = "completed"  # the peer completed; we have not yet
    ADMITTED = "admitted"  # both sides completed: the peer is connected now
    IGNORED = "ignored"  # a repeated completion from an admitted peer


#: An admitted peer's game packet: the verdict of nearly every packet, made once (an enum
#: class's attribute goes through its metaclass's lookup on every read)
_GAME_PACKET = (AuthVerdict.GAME, b"")


@dataclass
class _Pending:
    deadline: float
    local: bool = False
    remote: bool = False


class Authenticator:
    """One SceneMultiplayer's view of its remote peers' authentication.

    ``enabled`` is whether an ``auth_callback`` is set; both sides of a session must agree.
    """

    def __init__(
        self,
        *,
        enabled: bool = True,
        timeout: float = DEFAULT_AUTH_TIMEOUT,
        version: WireVersion = LATEST,
    ) -> None:
        self.enabled = enabled
        self.timeout = timeout
        self.version = version
        self._pending: dict[int, _Pending] = {}
        self._connected: set[int] = set()
        self._snapshot: frozenset[int] | None = frozenset()

    @property
    def connected(self) -> frozenset[int]:
        """The admitted peers: the same object until one is admitted or leaves, so that
        reading it every frame, every RPC and every packet copies nothing."""
        snapshot = self._snapshot
        if snapshot is None:
            snapshot = self._snapshot = frozenset(self._connected)
        return snapshot

    def add_peer(self, peer: int, now: float) -> bool:
        """A transport peer arrived; True if it is admitted at once (no authentication)."""
        if peer in self._pending or peer in self._connected:
            raise ValueError(f"peer {peer} is already known")
        if not self.enabled:
            self._admit_now(peer)
            return True
        self._pending[peer] = _Pending(now + self.timeout)
        return False

    def is_pending(self, peer: int) -> bool:
        return peer in self._pending

    def send(self, peer: int, data: bytes) -> bytes:
        """The packet that sends auth ``data`` to a pending ``peer`` (``send_auth``)."""
        state = self._state(peer)
        if not data:
            raise ValueError("auth data must not be empty (an empty AUTH means completed)")
        if state.local or state.remote:
            raise ValueError(f"authentication with peer {peer} was completed: no more data")
        return Auth(bytes(data)).encode()

    def complete(self, peer: int) -> tuple[bytes, bool]:
        """Mark our side completed (``complete_auth``): the ``07 00`` to send, and whether
        the peer is admitted now (it had completed already)."""
        state = self._state(peer)
        if state.local:
            raise ValueError(f"authentication with peer {peer} was already completed")
        state.local = True
        return AUTH_HEAD, state.remote and self._admit(peer)

    def receive(self, peer: int, packet: bytes) -> tuple[AuthVerdict, bytes]:
        """Judge one packet from ``peer``: the verdict and, for DATA, the auth data.

        Raises :class:`ProtocolError` for what Godot drops with an error: a non-AUTH packet from
        a pending peer, auth data from an admitted one, a packet from an unknown peer; and
        for auth data from a peer that completed (the callback could not answer it).
        """
        is_auth = packet[:2] == AUTH_HEAD
        state = self._pending.get(peer)
        if state is None and not is_auth and peer in self._connected:
            return _GAME_PACKET  # the common packet first
        if state is not None:
            if not is_auth:
                if not self.version.auth_explicit_completion and state.local:
                    self._admit(peer)
                    return AuthVerdict.GAME, b""
                raise ProtocolError(f"peer {peer} sent a non-AUTH packet while authenticating")
            if len(packet) > 2:
                if state.remote:  # no Godot peer does: its send_auth refuses it
                    raise ProtocolError(f"peer {peer} sent auth data after completing")
                return AuthVerdict.DATA, packet[2:]
            state.remote = True
            if state.local:
                self._admit(peer)
                return AuthVerdict.ADMITTED, b""
            return AuthVerdict.COMPLETED, b""
        if peer not in self._connected:
            raise ProtocolError(f"packet from unknown peer {peer}")
        if len(packet) != 2:  # an AUTH: the others returned above
            raise ProtocolError(f"peer {peer} sent auth data after being admitted")
        return AuthVerdict.IGNORED, b""

    def expired(self, now: float) -> list[int]:
        """Pending peers whose time ran out (deadline <= now): forgotten here; the caller
        disconnects them (``peer_authentication_failed``)."""
        gone = [peer for peer, state in self._pending.items() if state.deadline <= now]
        for peer in gone:
            del self._pending[peer]
        return gone

    def deadline(self, peer: int) -> float | None:
        """When ``peer`` times out (None: it is not pending)."""
        state = self._pending.get(peer)
        return None if state is None else state.deadline

    def next_deadline(self) -> float | None:
        """The earliest deadline of a pending peer (None: nobody is pending)."""
        return min((state.deadline for state in self._pending.values()), default=None)

    def remove_peer(self, peer: int) -> bool:
        """The transport peer left; True if it was still pending (authentication failed)."""
        if peer in self._connected:
            self._connected.discard(peer)
            self._snapshot = None
        return self._pending.pop(peer, None) is not None

    def _state(self, peer: int) -> _Pending:
        state = self._pending.get(peer)
        if state is None:
            raise ValueError(f"peer {peer} is not authenticating")
        return state

    def _admit(self, peer: int) -> bool:
        del self._pending[peer]
        self._admit_now(peer)
        return True

    def _admit_now(self, peer: int) -> None:
        self._connected.add(peer)
        self._snapshot = None
