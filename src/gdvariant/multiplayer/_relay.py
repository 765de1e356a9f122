"""Where a server sends a client's RELAY (``07 03 <target> <packet>``), sans I/O.

A positive target is that one peer (dropped quietly if it is not connected; Godot does not
exclude the source there); 0 is everybody; ``-N`` is
everybody but N (4.3+). The source never gets its own packet back. The server processes the
inner packet itself, as from the source, when it is among the targets: target 0 or ``< -1``.
Godot 4.0-4.2 read negative targets the other way round (only N), as docs/multiplayer.md
("Versions") says; that form is here for completeness and was not checked against those
engines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .wire import Relay, WireVersion
from .wire._version import LATEST

__all__ = ["RelayRoute", "route_relay"]

SERVER = 1


@dataclass(frozen=True)
class RelayRoute:
    """The forwarded packet, who gets it, and whether the server processes the inner packet."""

    forward: Relay
    targets: tuple[int, ...]
    process_locally: bool


def route_relay(
    source: int, relay: Relay, peers: Iterable[int], version: WireVersion = LATEST
) -> RelayRoute:
    """Route ``relay`` from client ``source`` among the connected client ``peers``."""
    connected = [peer for peer in peers if peer != SERVER]
    target = relay.peer
    forward = Relay(source, relay.packet)
    chosen: tuple[int, ...]
    if target > 0:
        chosen = (target,) if target in connected else ()
        return RelayRoute(forward, chosen, False)
    if target < 0 and not version.relay_excludes_negative:
        chosen = (-target,) if -target in connected and -target != source else ()
        return RelayRoute(forward, chosen, target == -1)
    chosen = tuple(peer for peer in connected if peer not in (source, -target))
    return RelayRoute(forward, chosen, target != -1)
