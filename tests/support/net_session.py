"""The Python side of one live network session with a Godot engine, without I/O.

The engine side is the ``net`` section of ``tests/live/codec/godot4_oracle.gd`` and
``godot3_oracle.gd``. :func:`session` is a generator: it yields :data:`RECV` when it needs the
next value and :class:`Send` to send one; a driver for each adapter runs it, so the TCP, UDP,
WebSocket, asyncio and blocking paths share one set of checks.

1. ``count`` times the engine sends a random value ``v`` and then ``var_to_bytes(v)``; we
   check that our decoding of ``v`` encodes back to those bytes, echo ``v``, and the engine
   answers with ``var_to_bytes`` of what it read from our echo, which must be the same bytes.
2. We send ``count``, then ``count`` values of our own, one at a time; the engine sends each
   back, and what comes back must be what we sent.
3. The engine says "bye".
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import gdvariant as gd
from tests.support.godot_describe import as_engine_holds, canon, same_but_padding
from tests.support.random_values import random_value

RECV = object()


@dataclass(frozen=True)
class Send:
    value: Any


@dataclass
class Report:
    """What one session checked: values each way, and every mismatch (none expected)."""

    from_engine: int = 0
    to_engine: int = 0
    mismatches: list[str] = field(default_factory=list)

    def check(self, count: int, context: str) -> None:
        assert self.mismatches == [], f"{context}: {self.mismatches[:5]}"
        assert (self.from_engine, self.to_engine) == (count, count), context


Session = Generator[Any, Any, Report]


def session(version: str, seed: int, count: int) -> Session:
    """One session's checks; ``version`` is the engine's profile name."""
    report = Report()
    padding = "NodePath" in gd.get_profile(version).unwritten_padding
    godot3 = version.startswith("3")

    def held(value: Any) -> Any:
        # What the engine keeps of a value it reads: one pair per Dictionary key, and in
        # Godot 3 a NodePath with no names loses its leading "/".
        return canon(as_engine_holds(value, godot3))

    def same(ours: bytes, theirs: bytes) -> bool:
        # Godot 3 leaves NodePath padding unwritten where we write zeros.
        return ours == theirs or (padding and same_but_padding(ours, theirs))

    for i in range(count):
        value = yield RECV
        ref = bytes((yield RECV))
        ours = gd.dumps(value, version=version)
        if not same(ours, ref):
            report.mismatches.append(f"engine value {i}: we write {ours.hex()}, it {ref.hex()}")
        yield Send(value)
        back = bytes((yield RECV))
        if not same(ours, back) and canon(gd.loads(back, version=version)) != held(value):
            report.mismatches.append(f"our echo {i}: the engine read {back.hex()}")
        report.from_engine += 1
    rng = random.Random(seed)
    yield Send(count)
    for i in range(count):
        value = random_value(rng, 0, version)
        yield Send(value)
        echo = yield RECV
        if canon(echo) != held(value):
            report.mismatches.append(f"our value {i}: sent {value!r}, got back {echo!r}")
        report.to_engine += 1
    bye = yield RECV
    if bye != "bye":
        report.mismatches.append(f"the engine ended with {bye!r}")
    return report


async def drive(
    checks: Session, recv: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
) -> Report:
    """Run a session over an async peer."""
    reply: Any = None
    try:
        while True:
            op = checks.send(reply)
            if op is RECV:
                reply = await recv()
            else:
                await send(op.value)
                reply = None
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


def drive_blocking(checks: Session, recv: Callable[[], Any], send: Callable[[Any], None]) -> Report:
    """Run a session over a blocking peer (it blocks the event loop, which has nothing else)."""

    async def recv_now() -> Any:
        return recv()

    async def send_now(value: Any) -> None:
        send(value)

    return asyncio.run(drive(checks, recv_now, send_now))
