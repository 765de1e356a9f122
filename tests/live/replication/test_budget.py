"""Packets within an MTU under a tight budget in Godot 4.6 (marked ``engine``): a headless
Godot client (the generated GDScript decoder, driven by ``client.gd`` beside this file) walks
through a world of moving entities, with an interest, while the server may send it at most
200 bytes a packet and 1,200 bytes a second at 20 ticks a second, far less than what changes
in its view. After every packet it applies, the state it reports must be the same as our
``SnapshotDecoder``'s given the same packets, and every entity in it as the client held it at
the packet's base or exactly as the server has it now. Our server drops 10% of the packets
and the client's acks come back late. At the end the world stops and the client catches up:
it then holds exactly the entities in its area. Lockstep as in ``test_gdscript.py``.

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
CALM = 150
MTU = 200
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
    server = SnapshotEncoder(
        world, history=HISTORY, interest=interest, mtu=MTU, budget=1200, tick_rate=20
    )
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
    counts = {"checked": 0, "dropped": 0, "entered": 0, "left": 0, "max_seen": 0, "behind": 0}
    before: set[int] = set()
    for step in range(TICKS + CALM):
        calm = step >= TICKS
        if not calm:
            me.pos = (-110.0 + 0.55 * step, -100.0 + 0.5 * step)  # corner to corner
            clock.seconds = step
        for ent in roamers if not calm else ():
            if rng.random() < 0.6:
                x, y = ent.pos
                ent.pos = (x + rng.uniform(-2, 2), y + rng.uniform(-2, 2))
            if rng.random() < 0.02:
                ent.kind = rng.randrange(4)
            if rng.random() < 0.05:
                ent.hp = rng.randrange(128)
        if not calm and rng.random() < 0.2:  # churn: one dies, one is born (ids are reused)
            world.despawn(roamers.pop(rng.randrange(len(roamers))))
            roamers.append(world.spawn(Roamer, pos=(rng.uniform(-120, 120), 0.0)))
        tick = server.snapshot()
        for due, acked in [a for a in late_acks if a[0] <= tick]:
            server.ack(0, acked)
            late_acks.remove((due, acked))
        packet = server.packet_for(0)
        assert len(packet) <= MTU
        want_state = in_view(world, me)
        now = set(want_state)
        counts["entered"] += len(now - before)
        counts["left"] += len(before - now)
        counts["max_seen"] = max(counts["max_seen"], len(now))
        if not calm and net.random() < DROP:
            counts["dropped"] += 1
            continue
        held = ours.states.get(int.from_bytes(packet[6:10], "little"), {})
        ours.apply(packet)
        for net_id in held.keys() | ours.state.keys():
            got = ours.state.get(net_id)
            assert got == held.get(net_id) or got == want_state.get(net_id), net_id
        counts["behind"] += ours.state != want_state
        transport.sendto(bytes([PACKET]) + packet, addr)
        data, _ = await asyncio.wait_for(inbox.queue.get(), TIMEOUT)
        assert data[0] == REPORT
        applied, acked = struct.unpack_from("<II", data, 1)
        context = f"tick {tick} (seed {seed})"
        assert applied, f"{context}: the engine rejected the packet: {data[9:].decode()}"
        assert applied == tick, context
        want = gdvariant.dumps(godot_state(schema, ours.state))
        if data[9:] != want:
            got = gdvariant.loads(data[9:])[0]
            pytest.fail(f"{context}: the engine holds {sorted(got)}, ours {sorted(ours.state)}")
        before = now
        counts["checked"] += 1
        if acked:
            late_acks.append((tick + (net.randrange(4) if not calm else 0), acked))
    assert ours.state == in_view(world, me), "caught up in the calm"
    counts["longest_wait"] = server.longest_wait
    transport.sendto(bytes([DONE]), addr)
    return counts


def test_a_godot_client_under_a_tight_budget_agrees_with_ours(godot4: Engine) -> None:
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
    assert counts["checked"] + counts["dropped"] == TICKS + CALM
    assert counts["entered"] > 100 and counts["left"] > 100  # it really walked through
    assert counts["behind"] > 100  # and the budget really held entities back
