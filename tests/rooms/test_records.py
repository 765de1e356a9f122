"""The directory's records: their JSON shapes (what the HTTP API answers) and what a join
error's code means as an HTTP status."""

from __future__ import annotations

import pytest

from gdvariant.rooms import JoinError, ProcessInfo, Reservation, RoomInfo, RoomRequest


def test_records_round_trip_through_json() -> None:
    process = ProcessInfo("p", "10.0.0.2", ("lobby", "match"), 7)
    assert ProcessInfo.from_json(process.as_json()) == process
    room = RoomInfo("r", "match", "p", "ws://10.0.0.2:4000", 4, {"map": "dunes"}, True, 1, 2)
    back = RoomInfo.from_json(room.static_json(), locked=True, clients=1, reserved=2)
    assert back == room
    assert room.as_json()["metadata"] == {"map": "dunes"}
    request = RoomRequest("q", "match", {"bots": 2})
    assert RoomRequest.from_json(request.as_json()) == request
    seat = Reservation(room, "tok", "ann", 15.0).as_json()
    assert (seat["address"], seat["token"], seat["expires_in"]) == (room.address, "tok", 15.0)


def test_free_seats_count_clients_reservations_and_the_lock() -> None:
    room = RoomInfo("r", "match", "p", "ws://h:1", 4, clients=1, reserved=2)
    assert room.free == 1
    assert RoomInfo("r", "match", "p", "ws://h:1", 4, locked=True).free == 0
    assert RoomInfo("r", "match", "p", "ws://h:1", 2, clients=3).free == 0


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("room_not_found", 404),
        ("unknown_room_name", 404),
        ("room_full", 409),
        ("room_locked", 409),
        ("no_process", 503),
        ("process_full", 503),
        ("process_timeout", 503),
        ("room_create_failed", 500),
    ],
)
def test_join_error_codes_map_to_http_statuses(code: str, status: int) -> None:
    error = JoinError(code, "why")
    assert (error.code, error.status, str(error)) == (code, status, "why")
