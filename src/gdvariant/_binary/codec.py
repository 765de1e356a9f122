"""The options of a call, resolved once into a :class:`VariantCodec`, the one way to the codec
core.

(``VariantCodec``, not ``Codec``: ``gdvariant.replication.Codec`` is a field's codec.)

Every entry point takes the same options: ``version`` and ``double`` (the engine release and
build), ``allow_objects`` / ``full_objects`` (whether whole objects are read / written) and
``limits``; decoding also ``packed_views`` (packed arrays as zero-copy views of the input).
:func:`codec_for` turns them into a :class:`VariantCodec` (profile, object policy, limits, views),
validated once and cached per combination, so a small message costs one dictionary
lookup before the core runs. Framing, records, save files and the adapters keep a codec and
pass it along instead of the options; only this module calls the core (:mod:`.core`).
"""

from __future__ import annotations

from typing import Any, Final

from .._engines.profiles import Profile, get_profile
from .._limits import DEFAULT_LIMITS, Limits
from . import core

__all__ = ["Buffer", "VariantCodec", "codec_for"]

Buffer = bytes | bytearray | memoryview


class VariantCodec:
    """One engine release with its object policy and limits, ready to encode and decode.

    Build one with :func:`codec_for`. It is immutable and safe to share between threads.
    """

    __slots__ = ("allow_objects", "full_objects", "limits", "packed_views", "profile")

    profile: Final[Profile]
    allow_objects: Final[bool]
    full_objects: Final[bool]
    limits: Final[Limits]
    packed_views: Final[bool]

    def __init__(
        self,
        profile: Profile,
        allow_objects: bool,
        full_objects: bool,
        limits: Limits,
        packed_views: bool = False,
    ) -> None:
        self.profile = profile
        self.allow_objects = allow_objects
        self.full_objects = full_objects
        self.limits = limits
        self.packed_views = packed_views

    def __repr__(self) -> str:
        return (
            f"VariantCodec({self.profile.name!r}, allow_objects={self.allow_objects}, "
            f"full_objects={self.full_objects}, limits={self.limits!r}, "
            f"packed_views={self.packed_views})"
        )

    def encode(self, value: Any) -> bytes:
        """The bytes of ``value`` (``var_to_bytes``, or ``..._with_objects`` by the policy)."""
        return core.encode_value(value, self.profile, self.full_objects)

    def decode(self, data: Buffer, offset: int = 0) -> tuple[Any, int]:
        """The value at ``offset`` and the offset just past it; later bytes are ignored."""
        return core.decode_value(
            data, self.profile, self.allow_objects, offset, self.limits, self.packed_views
        )

    def decode_whole(self, data: Buffer) -> Any:
        """The one value ``data`` holds, with no bytes left over (``bytes_to_var``)."""
        return core.decode_whole(
            data, self.profile, self.allow_objects, self.limits, self.packed_views
        )

    def decode_frames(
        self, buffer: bytearray, start: int, big_endian: bool, max_frame_size: int
    ) -> tuple[list[Any], int]:
        """The stream decoder's hot path: the values of the whole frames from ``start`` that
        the compiled core can decode in place, and where it stopped (``start`` on the pure
        core, where the stream decoder's own loop does all the work). Never packed views: a
        stream's buffer is reused, so its values must not point into it."""
        frames = core.decode_frames
        if frames is None:
            return [], start
        return frames(buffer, start, big_endian, max_frame_size, self.profile, self.limits)

    def other_version(self, version: str | int | Profile) -> VariantCodec:
        """The same policy and limits for another engine release."""
        return codec_for(
            version, False, self.allow_objects, self.full_objects, self.limits, self.packed_views
        )


# (version, double, allow_objects, full_objects, packed_views[, id(limits)]) -> codec; the id is
# left out for the default limits (the usual call, kept short). The id is safe as a key: the
# cached codec holds the Limits, so no other object can take its id while the entry lives.
_CACHE: dict[tuple[Any, ...], VariantCodec] = {}
_CACHE_MAX = 512


def codec_for(
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    full_objects: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    packed_views: bool = False,
) -> VariantCodec:
    """The codec for these options; ``ValueError`` for an unknown version or a bad option.

    ``double=True`` selects the release's ``precision=double`` build (Godot 4 only).
    ``packed_views=True`` decodes packed arrays as :class:`~gdvariant.PackedView` objects.
    """
    if limits is DEFAULT_LIMITS:
        key: tuple[Any, ...] = (version, double, allow_objects, full_objects, packed_views)
    else:
        key = (version, double, allow_objects, full_objects, packed_views, id(limits))
    try:
        return _CACHE[key]
    except (KeyError, TypeError):  # TypeError: an unhashable version, refused below
        pass
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a gdvariant.Limits, not {type(limits).__name__}")
    profile = get_profile(version, double)
    codec = VariantCodec(
        profile, bool(allow_objects), bool(full_objects), limits, bool(packed_views)
    )
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = codec
    return codec
