"""WebSocket frames as a client writes them, built by hand (RFC 6455 5.2) for the tests of
the server's own frame reading: good ones and every kind of bad one."""

from __future__ import annotations

import random

__all__ = ["client_frame", "random_frames"]


def client_frame(
    payload: bytes,
    *,
    first: int = 0x82,
    masked: bool = True,
    form: int | None = None,
    mask: bytes = b"\x01\x02\x03\x04",
) -> bytes:
    """A frame: ``first`` is its first byte (FIN, RSV, opcode); ``form`` forces the 7-bit
    (None: the shortest), 16-bit (126) or 64-bit (127) length."""
    size = len(payload)
    if form is None:
        form = size if size < 126 else 126 if size < 65536 else 127
    head = bytes([first, (0x80 if masked else 0) | form])
    if form == 126:
        head += size.to_bytes(2, "big")
    elif form == 127:
        head += size.to_bytes(8, "big")
    if not masked:
        return head + payload
    key = (mask * (size // 4 + 1))[:size]
    body = (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(
        size, "little"
    )
    return head + mask + body


def random_frames(rng: random.Random) -> list[bytes]:
    """One message's frames (or one control or bad frame) of a client's stream: mostly
    whole binary messages of the sizes at the length forms' edges, and pings, pongs, text
    (some not UTF-8), messages in fragments, closes and bad frames (unmasked, reserved bits
    or opcode, control frames too long or in fragments, continuations out of place, one
    byte over 65535)."""
    kind = rng.choices(
        ["binary", "ping", "pong", "text", "badtext", "fragments", "close", "bad"],
        [60, 6, 3, 5, 1, 6, 1, 2],
    )[0]
    mask = rng.randbytes(4)
    if kind == "binary":
        size = rng.choice([0, 1, 5, 125, 126, 127, 1000, 65535, rng.randrange(3000)])
        form = rng.choice([None] * 8 + [126, 127]) if size < 65536 else None
        return [client_frame(rng.randbytes(size), mask=mask, form=form)]
    if kind in ("ping", "pong"):
        first = 0x89 if kind == "ping" else 0x8A
        return [client_frame(rng.randbytes(rng.randrange(126)), first=first, mask=mask)]
    if kind == "text":
        return [client_frame("héllo ✓".encode() * rng.randrange(5), first=0x81, mask=mask)]
    if kind == "badtext":
        return [client_frame(b"ok\xff\xfe", first=0x81, mask=mask)]
    if kind == "fragments":
        first = rng.choice([0x01, 0x02])
        parts = [client_frame(rng.randbytes(rng.randrange(200)), first=first, mask=mask)]
        for _ in range(rng.randrange(3)):
            if rng.random() < 0.3:
                parts.append(client_frame(b"mid", first=0x89, mask=mask))  # a ping between
            parts.append(client_frame(rng.randbytes(rng.randrange(200)), first=0x00, mask=mask))
        parts.append(client_frame(rng.randbytes(rng.randrange(50)), first=0x80, mask=mask))
        return parts
    if kind == "close":
        code = (1000 + rng.randrange(2)).to_bytes(2, "big")
        return [client_frame(code + b"bye", first=0x88, mask=mask)]
    return rng.choice(
        [
            [client_frame(b"plain", masked=False)],
            [client_frame(b"rsv", first=0xC2, mask=mask)],
            [client_frame(b"op", first=0x83, mask=mask)],
            [client_frame(bytes(126), first=0x89, mask=mask)],  # a ping too long
            [client_frame(b"p", first=0x09, mask=mask)],  # a ping in fragments
            [client_frame(b"cont", first=0x80, mask=mask)],  # nothing to continue
            [client_frame(b"half", first=0x02, mask=mask), client_frame(b"new", mask=mask)],
            [client_frame(bytes(65536), mask=mask)],  # over max_size: 1009
        ]
    )
