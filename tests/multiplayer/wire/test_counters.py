"""Net ids and sync time counters (gdvariant.multiplayer.wire._counters)."""

from __future__ import annotations

import pytest

from gdvariant.multiplayer.wire import (
    InboundSyncTime,
    NetIds,
    SyncClock,
    is_path_net_id,
    path_net_id,
)


def test_net_ids_node_first_then_synchronizers() -> None:
    ids = NetIds()
    assert ids.spawn(1) == (1, (2,))
    assert ids.spawn(0) == (3, ())
    assert ids.spawn(2) == (4, (5, 6))
    assert ids.next() == 7


def test_net_ids_run_out_below_the_path_bit() -> None:
    ids = NetIds()
    ids.last = 0x7FFFFFFE
    assert ids.next() == 0x7FFFFFFF
    with pytest.raises(OverflowError):
        ids.next()


def test_path_net_ids() -> None:
    assert path_net_id(2) == 0x80000002
    assert is_path_net_id(0x80000002) and not is_path_net_id(2)
    for bad in (0, 0x80000000):
        with pytest.raises(ValueError):
            path_net_id(bad)


def test_sync_clock_starts_at_one_and_wraps() -> None:
    clock = SyncClock()
    assert [clock.tick(), clock.tick()] == [1, 2]
    clock.last = 65534
    assert [clock.tick(), clock.tick(), clock.tick()] == [65535, 0, 1]


def test_inbound_time_drops_stale_and_takes_wrapped() -> None:
    inbound = InboundSyncTime()
    assert inbound.accept(500)  # the first is always taken (4.2+)
    assert not inbound.accept(500)
    assert not inbound.accept(499)
    assert inbound.accept(501)
    inbound.last = 65530
    assert inbound.accept(3)  # 3 <= 65530 but 65527 behind: wrapped, newer
    inbound.last = 40000
    assert not inbound.accept(40000 - 32766)
    assert inbound.accept(40000 - 32767)


def test_inbound_time_before_42_compares_the_first_with_zero() -> None:
    inbound = InboundSyncTime(first_accepted=False)
    assert not inbound.accept(0)
    assert inbound.accept(1)
