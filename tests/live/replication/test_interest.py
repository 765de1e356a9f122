"""Interest management in Godot 4.6 (marked ``engine``): a headless Godot client (the
generated GDScript decoder, driven by ``client.gd`` beside this file) walks through a world
of moving entities; after every packet it applies, the state it reports must be exactly the
entities within its radius, found by brute force over the whole world, with their quantized
values, and the same as our ``SnapshotDecoder``'s given the same packets. Our server drops
10% of the packets and the client's acks come back late, so entities enter and leave
relevance across lost packets and old bases. Lockstep as in ``test_gdscript.py``: the next
packet goes out when the report of the last one is in.

The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import struct
from pathlib import Path

import pytest

import gdvariant
from gdvariant.replication import (
    Interest,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    World,
    gdscript,
    godot_state,
)
from tests.support.engines import SEED, Engine, run_beside
from tests.support.walking_world import (
    DONE,
    HELLO,
    PACKET,
    RADIUS,
    REPORT,
    Clock,
    Inbox,
    Roamer,
    hidden,
    in_view,
)

pytestmark = [pytest.mark.engine, pytest.mark.slow]
SCRIPTS = Path(__file__).parent
TICKS = 400
HISTORY = 8
DROP = 0.1
TIMEOUT = 120


async def _serve(
    schema: Schema, transport: asyncio.DatagramTransport, inbox: Inbox, seed: int
) -> dict[str, int]:
    """Our side: a world of 400 roamers, a client walking across it; returns the counts."""
    data, addr = await asyncio.wait_for(inbox.queue.get(), TIMEOUT)
    assert data == bytes([HELLO])
    rng = random.Random(seed)
    world = World(schema)
    interest = Interest(world, cell=16.0, positions={Roamer: "pos"}, predicate=hidden)
    server = SnapshotEncoder(world, history=HISTORY, interest=interest)
    roamers = [
        world.spawn(Roamer, pos=(rng.uniform(-120, 120), rng.uniform(-120, 120)))
        for _ in range(400)
    ]
    clock = world.spawn(Clock)
    me = world.spawn(Roamer, pos=(-110.0, -100.0), hp=100)
    server.add_client(0)
    interest.set_area(0, radius=RADIUS)
    interest.follow(0, me)
    interest.add_always(me, 0)
    ours = SnapshotDecoder(schema, history=HISTORY)
    net = random.Random(seed + 1)
    late_acks: list[tuple[int, int]] = []
    counts = {"checked": 0, "dropped": 0, "entered": 0, "left": 0, "max_seen": 0}
    before: set[int] = set()
    for step in range(TICKS):
        me.pos = (-110.0 + 0.55 * step, -100.0 + 0.5 * step)  # corner to corner
        clock.seconds = step
        for ent in roamers:
            if rng.random() < 0.6:
                x, y = ent.pos
                ent.pos = (x + rng.uniform(-2, 2), y + rng.uniform(-2, 2))
            if rng.random() < 0.02:
                ent.kind = rng.randrange(4)
            if rng.random() < 0.05:
                ent.hp = rng.randrange(128)
        if rng.random() < 0.2:  # churn: one dies, one is born (ids are reused)
            world.despawn(roamers.pop(rng.randrange(len(roamers))))
            roamers.append(world.spawn(Roamer, pos=(rng.uniform(-120, 120), 0.0)))
        tick = server.snapshot()
        for due, acked in [a for a in late_acks if a[0] <= tick]:
            server.ack(0, acked)
            late_acks.remove((due, acked))
        packet = server.packet_for(0)
        want_state = in_view(world, me)
        now = set(want_state)
        counts["entered"] += len(now - before)
        counts["left"] += len(before - now)
        counts["max_seen"] = max(counts["max_seen"], len(now))
        if net.random() < DROP:
            counts["dropped"] += 1
            continue
        ours.apply(packet)
        transport.sendto(bytes([PACKET]) + packet, addr)
        data, _ = await asyncio.wait_for(inbox.queue.get(), TIMEOUT)
        assert data[0] == REPORT
        applied, acked = struct.unpack_from("<II", data, 1)
        context = f"tick {tick} (seed {seed})"
        assert applied, f"{context}: the engine rejected the packet: {data[9:].decode()}"
        assert applied == tick, context
        want = gdvariant.dumps(godot_state(schema, want_state))
        assert gdvariant.dumps(godot_state(schema, ours.state)) == want, context
        if data[9:] != want:
            got = gdvariant.loads(data[9:])[0]
            pytest.fail(f"{context}: the engine holds {sorted(got)}, in view {sorted(now)}")
        before = now
        counts["checked"] += 1
        if acked:
            late_acks.append((tick + net.randrange(4), acked))
    transport.sendto(bytes([DONE]), addr)
    return counts


def test_a_godot_client_walking_through_a_world_sees_its_area(godot4: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    schema = Schema.build([Roamer, Clock])

    async def main() -> dict[str, int]:
        loop = asyncio.get_running_loop()
        transport, inbox = await loop.create_datagram_endpoint(Inbox, local_addr=("127.0.0.1", 0))
        port = transport.get_extra_info("sockname")[1]
        try:
            with godot4.workdir() as (here, inside):
                (here / "decoder.gd").write_text(gdscript.generate(schema, class_name="Walker"))
                shutil.copy(SCRIPTS / "client.gd", here)
                args = ["127.0.0.1", str(port), f"{inside}/decoder.gd", str(SEED), str(HISTORY)]
                ours = _serve(schema, transport, inbox, SEED)
                return await run_beside(
                    godot4,
                    "client.gd",
                    args,
                    ours,
                    cwd=(here, inside),
                    timeout=TIMEOUT,
                    strict=True,
                )
        finally:
            transport.close()

    counts = asyncio.run(main())
    print(counts)
    assert counts["checked"] + counts["dropped"] == TICKS
    assert counts["entered"] > 100 and counts["left"] > 100  # it really walked through
    assert 3 < counts["max_seen"] < 100  # and saw a part of the 400
