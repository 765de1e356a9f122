"""Values on the wire, without I/O: Godot's three framings and a sans-I/O stream decoder.

Godot cuts a stream of values apart in three ways, named here as the engine names them:

- ``StreamPeer`` (``StreamPeer.put_var``/``get_var``, ``FileAccess.store_var``): a signed
  32-bit length, then the value; ``big_endian`` flips the length only.
- ``PacketPeerStream``: the same, but the length is always little-endian and the engine's
  ring buffer caps the size (65,532 bytes sent, 65,531 received by default).
- ``PacketPeer`` (UDP datagrams, WebSocket binary messages, ENet): one bare value per packet,
  capped by ``encode_buffer_max_size`` (8 MiB) since 3.2.

:func:`frame` makes the bytes for one value, :class:`StreamDecoder` takes stream bytes in any
chunking and gives values back in order, :func:`decode_packet` reads one packet, and
:class:`WireFormat` binds the options of one connection. Facts: ``docs/framing.md``.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from struct import Struct
from typing import Any, TypedDict

from .._binary.codec import Buffer, VariantCodec, codec_for
from .._engines.profiles import PACKET_SIZE_LIMIT, Profile
from .._errors import DecodeError, EncodeError, GodotError
from .._limits import DEFAULT_LIMITS, Limits

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "PACKET_PEER_STREAM_MAX_RECEIVE",
    "PACKET_PEER_STREAM_MAX_SEND",
    "Framing",
    "StreamDecoder",
    "WireFormat",
    "WireOptions",
    "decode_packet",
    "frame",
]

#: The largest frame received unless told otherwise: 8 MiB, the default
#: ``encode_buffer_max_size`` of Godot's PacketPeer (the largest value it sends as a packet).
DEFAULT_MAX_FRAME_SIZE = PACKET_SIZE_LIMIT
#: The largest payload a default ``PacketPeerStream`` sends (its 2^16-byte output buffer less
#: the 4-byte prefix; project setting ``network/limits/packet_peer_stream/max_buffer_po2``).
PACKET_PEER_STREAM_MAX_SEND = 65532
#: The largest payload a default ``PacketPeerStream`` receives: its ring buffer holds one byte
#: less than 2^16, so a 65,532-byte packet is sent but never delivered (it stalls the stream).
PACKET_PEER_STREAM_MAX_RECEIVE = 65531
_INT32_MAX = 0x7FFFFFFF


class Framing(enum.StrEnum):
    """How values are cut apart on the wire, named for the Godot class that does it."""

    STREAM_PEER = "StreamPeer"
    PACKET_PEER_STREAM = "PacketPeerStream"
    PACKET_PEER = "PacketPeer"


@dataclass(frozen=True)
class _Rules:
    """One framing's facts: its length prefix and its default size limits."""

    prefixed: bool
    endian_option: bool  # does ``big_endian`` apply to the prefix?
    send_limit: int | None  # None: the profile's PacketPeer limit
    receive_limit: int


_RULES = {
    Framing.STREAM_PEER: _Rules(True, True, _INT32_MAX, DEFAULT_MAX_FRAME_SIZE),
    # Send what a default receiver takes; take what a default sender sends.
    Framing.PACKET_PEER_STREAM: _Rules(
        True, False, PACKET_PEER_STREAM_MAX_RECEIVE, PACKET_PEER_STREAM_MAX_SEND
    ),
    Framing.PACKET_PEER: _Rules(False, False, None, DEFAULT_MAX_FRAME_SIZE),
}
_PREFIX = {False: Struct("<i"), True: Struct(">i")}


def _rules(framing: Framing | str, big_endian: bool) -> _Rules:
    rules = _RULES[Framing(framing)]
    if big_endian and not rules.endian_option:
        raise ValueError(f"big_endian does not apply to {Framing(framing)}: its order is fixed")
    return rules


def _receive_limit(rules: _Rules, max_frame_size: int | None) -> int:
    return rules.receive_limit if max_frame_size is None else max_frame_size


def _send_limit(rules: _Rules, profile: Profile, max_size: int | None) -> int | None:
    if max_size is not None:
        return max_size
    return rules.send_limit if rules.send_limit is not None else profile.packet_size_limit


def frame(
    value: Any,
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    full_objects: bool = False,
    framing: Framing | str = Framing.STREAM_PEER,
    big_endian: bool = False,
    max_size: int | None = None,
) -> bytes:
    """The bytes Godot's ``put_var`` sends for ``value`` with the given framing.

    ``StreamPeer`` (the default) and ``PacketPeerStream`` add a 32-bit length; ``PacketPeer``
    returns the bare encoding, one packet. ``big_endian`` flips a ``StreamPeer`` length only
    (the value is always little-endian). A value larger than ``max_size`` (default: what the
    framing's default Godot receiver accepts) is an :class:`EncodeError`, as Godot's
    ``put_var`` refuses it with ``ERR_OUT_OF_MEMORY``.
    """
    return encode_frame(
        codec_for(version, double, False, full_objects), value, framing, big_endian, max_size
    )


def encode_frame(
    codec: VariantCodec, value: Any, framing: Framing | str, big_endian: bool, max_size: int | None
) -> bytes:
    """:func:`frame` for a resolved codec."""
    rules = _rules(framing, big_endian)
    data = codec.encode(value)
    limit = _send_limit(rules, codec.profile, max_size)
    if limit is not None and len(data) > limit:
        raise EncodeError(
            f"the value takes {len(data)} bytes, over the {Framing(framing)} limit of {limit}"
        )
    if not rules.prefixed:
        return data
    return _PREFIX[big_endian].pack(len(data)) + data


def decode_packet(
    packet: Buffer,
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    max_size: int = DEFAULT_MAX_FRAME_SIZE,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """The value in one packet, as ``PacketPeer.get_var``: bytes after the value are ignored."""
    return _decode_packet(
        codec_for(version, double, allow_objects, False, limits), packet, max_size
    )


def _decode_packet(codec: VariantCodec, packet: Buffer, max_size: int) -> Any:
    size = memoryview(packet).nbytes
    if size > max_size:
        raise DecodeError(
            f"packet of {size} bytes is over the limit of {max_size}",
            0,
            "",
            GodotError.ERR_OUT_OF_MEMORY,
        )
    return codec.decode(packet)[0]


class StreamDecoder:
    """Turns the bytes of a stream into values: feed bytes in, take values out.

    Any chunking works: a frame split anywhere, or many frames in one chunk. A frame whose
    length is negative, zero or over ``max_frame_size`` is refused before its bytes are kept,
    and a frame that does not decode is refused too; either way :class:`DecodeError` is raised
    with the stream offset, and the decoder stays broken (close the connection). Like Godot's
    ``get_var``, bytes after the value inside its frame are ignored.
    """

    def __init__(
        self,
        *,
        version: str | int | Profile = "4",
        double: bool = False,
        allow_objects: bool = False,
        framing: Framing | str = Framing.STREAM_PEER,
        big_endian: bool = False,
        max_frame_size: int | None = None,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self._setup(
            codec_for(version, double, allow_objects, False, limits),
            framing,
            big_endian,
            max_frame_size,
        )

    @classmethod
    def _with_codec(
        cls,
        codec: VariantCodec,
        framing: Framing | str,
        big_endian: bool,
        max_frame_size: int | None,
    ) -> StreamDecoder:
        """A decoder for a codec already resolved (a :class:`WireFormat`'s)."""
        decoder = cls.__new__(cls)
        decoder._setup(codec, framing, big_endian, max_frame_size)
        return decoder

    def _setup(
        self,
        codec: VariantCodec,
        framing: Framing | str,
        big_endian: bool,
        max_frame_size: int | None,
    ) -> None:
        rules = _rules(framing, big_endian)
        if not rules.prefixed:
            raise ValueError("PacketPeer has no stream form: decode each packet (decode_packet)")
        if max_frame_size is not None and max_frame_size < 4:
            raise ValueError("max_frame_size must be at least 4 (the smallest value)")
        self._codec = codec
        self._decode = codec.decode
        self._big_endian = big_endian
        self._prefix = _PREFIX[big_endian]
        self.max_frame_size = _receive_limit(rules, max_frame_size)
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

    def feed_eof(self) -> None:
        """The stream has ended: fine between frames, a :class:`DecodeError` inside one."""
        if self._error is not None:
            raise self._error
        if self._buffer:
            self._error = DecodeError(
                f"the stream ended inside a frame ({len(self._buffer)} bytes of it arrived)",
                self._offset + len(self._buffer),
                "",
                GodotError.ERR_FILE_EOF,
            )
            raise self._error

    def _fail(self, consumed: int, exc: DecodeError) -> DecodeError:
        del self._buffer[:consumed]
        self._offset += consumed
        return exc

    def _split(self) -> None:
        buf = self._buffer
        pos = 0
        # The compiled core takes every frame it can finish, in place; this loop goes on.
        values, pos = self._codec.decode_frames(buf, 0, self._big_endian, self.max_frame_size)
        self._ready.extend(values)
        while len(buf) - pos >= 4:
            size = self._prefix.unpack_from(buf, pos)[0]
            if size <= 0 or size > self.max_frame_size:
                code = GodotError.ERR_OUT_OF_MEMORY if size > 0 else GodotError.ERR_INVALID_DATA
                reason = f"frame length {size} is outside 1..{self.max_frame_size}"
                raise self._fail(pos, DecodeError(reason, self._offset + pos, "", code))
            if len(buf) - pos - 4 < size:
                break
            payload = bytes(buf[pos + 4 : pos + 4 + size])
            try:
                value, _ = self._decode(payload)
            except DecodeError as exc:
                raise self._fail(pos, exc.inside("frame", self._offset + pos + 4)) from None
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


class WireOptions(TypedDict, total=False):
    """The keyword options every adapter takes; they build its :class:`WireFormat`."""

    version: str | int | Profile
    double: bool
    framing: Framing | str
    big_endian: bool
    allow_objects: bool
    full_objects: bool
    max_frame_size: int | None
    limits: Limits


@dataclass(frozen=True)
class WireFormat:
    """Everything both ends of a connection must agree on, in one place.

    ``version``/``double`` pick the engine release, ``framing`` how values are cut apart,
    ``allow_objects``/``full_objects`` whether whole objects are read/written (off: a server
    should not accept objects from strangers), ``max_frame_size`` caps frames both ways
    (default: the framing's own limits), ``limits`` caps each decoded value (:class:`Limits`).
    """

    version: str | int | Profile = "4"
    double: bool = False
    framing: Framing | str = Framing.STREAM_PEER
    big_endian: bool = False
    allow_objects: bool = False
    full_objects: bool = False
    max_frame_size: int | None = None
    limits: Limits = DEFAULT_LIMITS

    def __post_init__(self) -> None:
        _rules(self.framing, self.big_endian)
        self._codec  # noqa: B018 - resolves (and so checks) the codec options now

    @cached_property
    def _codec(self) -> VariantCodec:
        return codec_for(
            self.version, self.double, self.allow_objects, self.full_objects, self.limits
        )

    @property
    def receive_limit(self) -> int:
        """The largest frame or packet accepted: ``max_frame_size``, or the framing's own."""
        return _receive_limit(_RULES[Framing(self.framing)], self.max_frame_size)

    @property
    def is_packet(self) -> bool:
        """True for ``PacketPeer``: one value per packet, no length prefix."""
        return not _RULES[Framing(self.framing)].prefixed

    def frame(self, value: Any) -> bytes:
        """The bytes to send for ``value``: a frame, or a packet for ``PacketPeer``."""
        return encode_frame(self._codec, value, self.framing, self.big_endian, self.max_frame_size)

    def stream_decoder(self) -> StreamDecoder:
        """A fresh decoder for one stream connection."""
        return StreamDecoder._with_codec(
            self._codec, self.framing, self.big_endian, self.max_frame_size
        )

    @classmethod
    def for_packets(cls, options: WireOptions, transport: str) -> WireFormat:
        """The wire of a packet transport (UDP, WebSocket): ``PacketPeer`` unless told other."""
        framing = Framing(options.get("framing", Framing.PACKET_PEER))
        if framing is not Framing.PACKET_PEER:
            raise ValueError(
                f"{transport} carries one value per packet (PacketPeer), not {framing}"
            )
        return replace(cls(**options), framing=framing)

    def decode_packet(self, packet: Buffer) -> Any:
        """The value in one received packet (``PacketPeer`` framing)."""
        return _decode_packet(self._codec, packet, self.receive_limit)
