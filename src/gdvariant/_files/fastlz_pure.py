"""FastLZ, as the engine's bundled copy behaves (GCPF compression mode 0).

No sound FastLZ package exists for current Python (``docs/save-files.md``, "FastLZ"), so this
is our own: a level-1 compressor that gives the engine's exact bytes (FastLZ 0.5.0, the one
Godot 3.2+ and 4.x bundle) and a decoder for both levels. Streams carry no size: the caller
knows how many bytes to expect, and the decoder refuses anything that does not give exactly
that many.
"""

from __future__ import annotations

__all__ = ["FastLZError", "compress", "decompress"]

_HASH_SIZE = 1 << 13
_MAX_COPY = 32
_MAX_DISTANCE = 8192
_MAX_LEN = 264


class FastLZError(ValueError):
    """A FastLZ stream that is malformed or does not give the expected size."""


def _hash(data: bytes, p: int) -> int:
    v = data[p] | data[p + 1] << 8
    v ^= (data[p + 1] | data[p + 2] << 8) ^ (v >> 3)
    return v & (_HASH_SIZE - 1)


def compress(data: bytes) -> bytes:
    """Level-1 FastLZ of ``data``, byte for byte as the engine writes it."""
    n = len(data)
    if n < 4:
        return bytes([n - 1]) + data if n else b""
    table = [0] * _HASH_SIZE
    out = bytearray((_MAX_COPY - 1, data[0], data[1]))
    ip = 2
    copy = 2  # literals in the open run; its control byte is at out[-copy - 1]
    bound = n - 2
    limit = n - 13
    while ip < limit:
        anchor = ip
        h = _hash(data, ip)
        ref = table[h]
        table[h] = anchor
        distance = anchor - ref
        if (
            distance == 0
            or distance >= _MAX_DISTANCE
            or data[ref : ref + 3] != data[anchor : anchor + 3]
        ):
            out.append(data[anchor])
            ip = anchor + 1
            copy += 1
            if copy == _MAX_COPY:
                copy = 0
                out.append(_MAX_COPY - 1)
            continue
        ip = anchor + 3
        ref += 3
        distance -= 1
        if distance == 0:  # a run of one byte: stops at the first different byte
            x = data[ip - 1]
            while ip < bound and data[ref] == x:
                ref += 1
                ip += 1
        else:  # stops one past the first different byte; the first 8 compares always run
            compares = 0
            while compares < 8 or ip < bound:
                same = data[ref] == data[ip]
                ref += 1
                ip += 1
                compares += 1
                if not same:
                    break
        if copy:
            out[-copy - 1] = copy - 1
        else:
            del out[-1]
        copy = 0
        ip -= 3
        length = ip - anchor
        while length > _MAX_LEN - 2:
            out += bytes((0xE0 + (distance >> 8), _MAX_LEN - 2 - 7 - 2, distance & 255))
            length -= _MAX_LEN - 2
        if length < 7:
            out += bytes(((length << 5) + (distance >> 8), distance & 255))
        else:
            out += bytes((0xE0 + (distance >> 8), length - 7, distance & 255))
        table[_hash(data, ip)] = ip
        ip += 1
        table[_hash(data, ip)] = ip
        ip += 1
        out.append(_MAX_COPY - 1)
    for byte in data[ip:]:
        out.append(byte)
        copy += 1
        if copy == _MAX_COPY:
            copy = 0
            out.append(_MAX_COPY - 1)
    if copy:
        out[-copy - 1] = copy - 1
    else:
        del out[-1]
    return bytes(out)


def decompress(stream: bytes, size: int) -> bytes:
    """Decode a level-1 or level-2 stream that must give exactly ``size`` bytes."""
    if not stream:
        if size:
            raise FastLZError(f"an empty stream where {size} bytes were expected")
        return b""
    level = (stream[0] >> 5) + 1
    if level > 2:
        raise FastLZError(f"unknown FastLZ level {level}")
    out = bytearray()
    n = len(stream)
    ip = 1
    ctrl = stream[0] & 31
    while True:
        if ctrl < 32:  # a literal run of ctrl + 1 bytes
            end = ip + ctrl + 1
            if end > n or len(out) + ctrl + 1 > size:
                raise FastLZError(f"a literal run past the end at stream byte {ip - 1}")
            out += stream[ip:end]
            ip = end
        else:
            length = (ctrl >> 5) - 1
            offset = (ctrl & 31) << 8
            if length == 6:
                while True:
                    if ip >= n:
                        raise FastLZError("a match length past the end of the stream")
                    code = stream[ip]
                    ip += 1
                    length += code
                    if level == 1 or code != 255:
                        break
            if ip >= n:
                raise FastLZError("a match distance past the end of the stream")
            code = stream[ip]
            ip += 1
            distance = offset + code + 1
            if level == 2 and code == 255 and offset == 31 << 8:
                if ip + 2 > n:
                    raise FastLZError("a far match distance past the end of the stream")
                distance = (stream[ip] << 8 | stream[ip + 1]) + 8191 + 1
                ip += 2
            length += 3
            start = len(out) - distance
            if start < 0 or len(out) + length > size:
                raise FastLZError(f"a match outside the output at stream byte {ip}")
            if distance >= length:
                out += out[start : start + length]
            else:  # overlapping: the copy repeats the last ``distance`` bytes
                pattern = out[start:]
                out += (pattern * (length // distance + 1))[:length]
        if ip >= n:
            break
        ctrl = stream[ip]
        ip += 1
    if len(out) != size:
        raise FastLZError(f"the stream gives {len(out)} bytes, not the {size} expected")
    return bytes(out)
