"""Relay routing on the server (gdvariant.multiplayer._relay)."""

from __future__ import annotations

from gdvariant.multiplayer import route_relay
from gdvariant.multiplayer.wire import WIRE_VERSIONS, Relay

PEERS = [5, 6, 7]
INNER = b"\x03x"


def _route(target: int, version: str = "4.6") -> tuple[tuple[int, ...], bool]:
    route = route_relay(5, Relay(target, INNER), PEERS, WIRE_VERSIONS[version])
    assert route.forward == Relay(5, INNER)  # the source replaces the target
    return route.targets, route.process_locally


def test_single_target() -> None:
    assert _route(6) == ((6,), False)
    assert _route(9) == ((), False)  # left meanwhile: dropped quietly
    assert _route(1) == ((), False)


def test_broadcast_reaches_everybody_else_and_the_server() -> None:
    assert _route(0) == ((6, 7), True)


def test_negative_excludes() -> None:
    assert _route(-6) == ((7,), True)
    assert _route(-1) == ((6, 7), False)  # all but the server


def test_before_43_negative_targets_only_that_peer() -> None:
    assert _route(-6, "4.2") == ((6,), False)
    assert _route(-1, "4.2") == ((), True)
    assert _route(0, "4.2") == ((6, 7), True)


def test_recorded_relays_route_as_godot_did() -> None:
    # Godot 4.6 forwarded B's RELAY to A (target A) and B's send_bytes(..., 0) to A and itself.
    route = route_relay(20, Relay(10, INNER), [10, 20])
    assert (route.targets, route.process_locally) == ((10,), False)
    route = route_relay(20, Relay(0, b"\x03\x06"), [10, 20])
    assert (route.targets, route.process_locally) == ((10,), True)
