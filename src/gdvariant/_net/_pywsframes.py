"""The pure twin of the compiled WebSocket frame reader (``_cwsframes.c``): the reference.

``read(data, start, limit)`` is the contract both twins keep (see :mod:`.ws_frames`): from
``data[start:]``, the payloads of the whole frames that a server may take without
``websockets`` (masked, FIN, binary, RSV bits 0, at most ``limit`` bytes), unmasked, and where
the first frame that is not one of them starts (``len(data)`` when every frame was taken).
A frame cut by the end of ``data`` is not taken: it starts where the reading stops.
"""

from __future__ import annotations

__all__ = ["read"]

#: the first byte of a frame the fast path takes: FIN, RSV bits 0, opcode 2 (binary)
_FIN_BINARY = 0x82


def read(data: bytes | memoryview, start: int, limit: int) -> tuple[list[bytes], int]:
    """The payloads of the takeable frames from ``start``, and where the reading stopped
    (``data``: bytes, or a view of the server's read buffer)."""
    found: list[bytes] = []
    end = len(data)
    pos = start
    while end - pos >= 6:  # a head of 2 bytes and a mask of 4
        second = data[pos + 1]
        if data[pos] != _FIN_BINARY or not second & 0x80:
            break  # not binary, a fragment, reserved bits or unmasked: websockets' to judge
        length = second & 0x7F
        head = pos + 2
        if length == 126:
            length = int.from_bytes(data[head : head + 2], "big")
            head += 2
        elif length == 127:
            length = int.from_bytes(data[head : head + 8], "big")
            head += 8
        if length > limit or head + 4 + length > end:
            break  # too big (websockets closes with 1009) or not all here yet
        body = head + 4
        found.append(unmask(data[body : body + length], bytes(data[head:body])))
        pos = body + length
    return found, pos


def unmask(payload: bytes | memoryview, mask: bytes) -> bytes:
    """``payload`` XOR the 4-byte ``mask`` repeated (RFC 6455 5.3), as one big-integer XOR
    rather than a loop over bytes."""
    size = len(payload)
    if not size:
        return b""
    key = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(size, "big")
