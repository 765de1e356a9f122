"""gdvariant._net.ws_frames: the WebSocket frame reader's two twins (``_pywsframes``, the
reference, and ``_cwsframes``) against hand-made frames and against each other, and the head
reader the connection uses to find where a frame ends."""

from __future__ import annotations

import random

import pytest

from gdvariant._net import _pywsframes, ws_frames
from tests.support.ws_frames import client_frame as frame

READERS = ws_frames.implementations()


@pytest.fixture(params=sorted(READERS))
def read(request: pytest.FixtureRequest) -> ws_frames.Reader:
    return READERS[request.param]


def test_the_rfc_example_masked_hello(read: ws_frames.Reader) -> None:
    """RFC 6455 5.7's masked "Hello", as a binary frame."""
    data = bytes.fromhex("8285 37fa213d 7f9f4d5158")
    assert read(data, 0, 65535) == ([b"Hello"], len(data))


def test_whole_binary_frames_are_taken_up_to_the_first_other_one(read: ws_frames.Reader) -> None:
    payloads = [b"", b"a" * 125, b"b" * 126, bytes(range(256)) * 255 + b"xyz"]
    data = b"".join(frame(p) for p in payloads)
    ping = frame(b"hi", first=0x89)
    assert read(data + ping + frame(b"after"), 0, 65535) == (payloads, len(data))


@pytest.mark.parametrize(
    "other",
    [
        frame(b"x", first=0x81),  # text
        frame(b"x", first=0x02),  # the first of fragments
        frame(b"x", first=0x80),  # a continuation
        frame(b"x", first=0xC2),  # RSV1
        frame(b"x", first=0xA2),  # RSV2
        frame(b"x", first=0x92),  # RSV3
        frame(b"x", first=0x83),  # a reserved opcode
        frame(b"x", first=0x88),  # close
        frame(b"x", masked=False),
        frame(bytes(65536)),  # over the limit
        frame(b"abc")[:-1],  # cut short
        frame(bytes(300))[:3],  # cut in its head
    ],
)
def test_anything_else_stops_the_reading_where_it_starts(
    read: ws_frames.Reader, other: bytes
) -> None:
    first = frame(b"first")
    assert read(first + other, 0, 65535) == ([b"first"], len(first))
    assert read(other, 0, 65535) == ([], 0)


def test_lengths_at_the_limit_and_longer_forms_than_needed(read: ws_frames.Reader) -> None:
    """A length in a longer form than it needs is taken, as websockets takes it."""
    assert read(frame(bytes(100)), 0, 100) == ([bytes(100)], 106)
    assert read(frame(bytes(101)), 0, 100) == ([], 0)
    for form in (126, 127):
        data = frame(b"short", form=form)
        assert read(data, 0, 65535) == ([b"short"], len(data))
    assert read(frame(b"x"), 0, -1) == ([], 0)


def test_the_two_twins_agree_on_random_streams() -> None:
    """Streams of random frames (of every kind above) cut anywhere and read from anywhere
    with random limits: the compiled reader gives what the pure one does."""
    if len(READERS) < 2:
        pytest.skip(f"no compiled frame reader: {ws_frames._SWITCH.error()}")
    pure, compiled = READERS["python"], READERS["c"]
    rng = random.Random(24)
    for _ in range(400):
        parts = []
        for _ in range(rng.randrange(1, 8)):
            size = rng.choice(
                [0, 1, 7, 8, 9, 125, 126, 127, 300, 65535, 65536, rng.randrange(2000)]
            )
            first = rng.choice([0x82] * 6 + [0x81, 0x02, 0x80, 0xC2, 0x89, 0x88])
            mask = rng.randbytes(4)
            form = rng.choice([None, None, None, 126, 127]) if size < 65536 else None
            parts.append(
                frame(
                    rng.randbytes(size),
                    first=first,
                    mask=mask,
                    form=form,
                    masked=rng.random() > 0.05,
                )
            )
        data = b"".join(parts)
        data = data[: rng.randrange(len(data) + 1)] if rng.random() < 0.5 else data
        start = rng.randrange(len(data) + 1) if rng.random() < 0.3 else 0
        limit = rng.choice([65535, 0, 125, 126, 2**62, rng.randrange(70000)])
        expected = pure(data, start, limit)
        assert compiled(data, start, limit) == expected
        # as the server reads: a view of its read buffer, longer than the read
        buffer = bytearray(data + rng.randbytes(rng.randrange(20)))
        view = memoryview(buffer)[: len(data)]
        assert compiled(view, start, limit) == expected == pure(view, start, limit)


def test_unmask_is_the_xor_of_every_byte() -> None:
    rng = random.Random(5)
    for size in (0, 1, 3, 4, 5, 8, 9, 1000):
        payload, mask = rng.randbytes(size), rng.randbytes(4)
        assert _pywsframes.unmask(payload, mask) == bytes(
            b ^ mask[i % 4] for i, b in enumerate(payload)
        )


def test_frame_size_reads_the_head_alone() -> None:
    for payload in (b"", b"x" * 125, b"x" * 126, bytes(65536)):
        data = frame(payload)
        assert ws_frames.frame_size(data, 0) == len(data)
        cut = b"??" + data[:6]  # a 7-bit head and its mask, read from 2
        assert ws_frames.frame_size(cut, 2) == (None if len(payload) > 125 else len(data))
        assert ws_frames.frame_size(cut[:-1], 2) is None
        assert ws_frames.frame_size(data[:1], 0) is None
    unmasked = frame(b"abc", masked=False)
    assert ws_frames.frame_size(unmasked, 0) == len(unmasked) == 5
    assert ws_frames.frame_size(frame(bytes(300))[:7], 0) is None  # head 4 + mask 4
    assert ws_frames.frame_size(frame(bytes(300))[:8], 0) == 308


def test_the_live_reader_is_the_switchs() -> None:
    assert ws_frames.read is READERS[ws_frames.IMPLEMENTATION]


def test_holdable_is_a_frame_the_reader_would_take_once_whole() -> None:
    small, medium = frame(b"x" * 100), frame(b"y" * 300)
    for cut in range(1, len(small)):
        assert ws_frames.holdable(b"?" + small[:cut], 1, 65535)
    for cut in range(1, len(medium)):
        assert ws_frames.holdable(medium[:cut], 0, 65535)
    assert not ws_frames.holdable(small[:7], 0, 99)  # its length is over the limit
    assert not ws_frames.holdable(medium[:9], 0, 299)
    big = frame(bytes(ws_frames.HOLD - 7))  # one byte more than HOLD, head and mask included
    assert len(big) == ws_frames.HOLD + 1 and not ws_frames.holdable(big[:10], 0, 65535)
    assert ws_frames.holdable(frame(bytes(ws_frames.HOLD - 8))[:10], 0, 65535)
    assert ws_frames.holdable(frame(bytes(70000))[:9], 0, 2**20)  # 64-bit length not all here
    assert not ws_frames.holdable(frame(bytes(70000))[:10], 0, 2**20)
    for other in (frame(b"t", first=0x81), frame(b"f", first=0x02), frame(b"u", masked=False)):
        assert not ws_frames.holdable(other[:-1], 0, 65535)
