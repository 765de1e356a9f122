"""Length-prefixed values on a byte stream, without I/O (``StreamPeer.put_var`` / ``get_var``).

Godot's ``StreamPeer.put_var`` and ``FileAccess.store_var`` write a 32-bit length and then the
value's bytes; ``PacketPeerStream`` does the same with a prefix that is always little-endian.
:func:`frame` builds such a frame; :class:`StreamDecoder` takes bytes in any chunking and gives
back the values in order. Neither touches a socket or a file: adapters do that. Facts:
``shared/spec/framing.md``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from struct import Struct
from typing import Any

from ._api import Buffer
from ._decoder import decode_value
from ._encoder import encoder_for
from ._errors import DecodeError, GodotError
from ._profiles import Profile, get_profile

__all__ = ["DEFAULT_MAX_FRAME_SIZE", "StreamDecoder", "frame"]

#: The largest frame a :class:`StreamDecoder` accepts unless told otherwise: 8 MiB, the default
#: ``encode_buffer_max_size`` of Godot's PacketPeer (the largest value it will send as a packet).
DEFAULT_MAX_FRAME_SIZE = 8 * 1024 * 1024

_PREFIX = {False: Struct("<i"), True: Struct(">i")}


def frame(
    value: Any,
    *,
    version: str | Profile = "4",
    double: bool = False,
    full_objects: bool = False,
    big_endian: bool = False,
) -> bytes:
    """``value`` as ``StreamPeer.put_var`` sends it: a 32-bit length, then the encoding.

    ``big_endian`` flips the length only (``StreamPeer.big_endian``); the value itself is
    always little-endian. ``PacketPeerStream`` frames are these with ``big_endian=False``.
    """
    data = encoder_for(get_profile(version, double)).encode(value, full_objects)
    return _PREFIX[big_endian].pack(len(data)) + data


class StreamDecoder:
    """Turns the bytes of a stream into values: feed bytes in, take values out.

    Any chunking works: a frame split anywhere, or many frames in one chunk. A frame whose
    length is negative or over ``max_frame_size`` is refused before its bytes are kept, and a
    frame that does not decode is refused too; either way :class:`DecodeError` is raised with
    the stream offset of the frame, and the decoder stays broken (close the connection).
    Like Godot's ``get_var``, bytes after the value inside its frame are ignored.
    """

    def __init__(
        self,
        *,
        version: str | Profile = "4",
        double: bool = False,
        allow_objects: bool = False,
        big_endian: bool = False,
        max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    ) -> None:
        if max_frame_size < 4:
            raise ValueError("max_frame_size must be at least 4 (the smallest value)")
        self._profile = get_profile(version, double)
        self._allow_objects = allow_objects
        self._prefix = _PREFIX[big_endian]
        self.max_frame_size = max_frame_size
        self._buffer = bytearray()
        self._offset = 0  # stream offset of the first byte in _buffer
        self._ready: deque[Any] = deque()
        self._error: DecodeError | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet part of a whole frame."""
        return len(self._buffer)

    def feed(self, data: Buffer) -> None:
        """Add received bytes; every frame they complete is decoded at once."""
        if self._error is not None:
            raise self._error
        self._buffer += data
        try:
            self._split()
        except DecodeError as exc:
            self._error = exc
            raise

    def _split(self) -> None:
        buf = self._buffer
        pos = 0
        while len(buf) - pos >= 4:
            size = self._prefix.unpack_from(buf, pos)[0]
            if size <= 0 or size > self.max_frame_size:
                code = GodotError.ERR_OUT_OF_MEMORY if size > 0 else GodotError.ERR_INVALID_DATA
                del buf[:pos]
                self._offset += pos
                raise DecodeError(
                    f"frame length {size} is outside 1..{self.max_frame_size}",
                    self._offset,
                    "",
                    code,
                )
            if len(buf) - pos - 4 < size:
                break
            payload = bytes(buf[pos + 4 : pos + 4 + size])
            try:
                value, _ = decode_value(payload, self._profile, self._allow_objects)
            except DecodeError as exc:
                del buf[:pos]
                self._offset += pos
                raise DecodeError(
                    f"bad frame: {exc.reason}", self._offset + 4 + exc.offset, exc.path, exc.code
                ) from None
            self._ready.append(value)
            pos += 4 + size
        del buf[:pos]
        self._offset += pos

    def next_value(self) -> Any:
        """The next decoded value; ``IndexError`` when none is waiting (check :meth:`pending`)."""
        return self._ready.popleft()

    def pending(self) -> int:
        """How many decoded values are waiting."""
        return len(self._ready)

    def __iter__(self) -> Iterator[Any]:
        """Take every value decoded so far, in order."""
        while self._ready:
            yield self._ready.popleft()
