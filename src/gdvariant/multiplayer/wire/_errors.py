"""The one error the multiplayer wire adds: a well-formed packet that breaks the protocol."""

from __future__ import annotations

from ... import DecodeError

__all__ = ["ProtocolError"]


class ProtocolError(DecodeError):
    """A packet that parses but cannot be accepted from that peer in its state: a duplicate or
    unknown cache id, a net id already in use... A :class:`~gdvariant.DecodeError`, so one
    ``except DecodeError`` in a server loop drops both kinds of bad packet."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, 0)
