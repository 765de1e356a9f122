"""Resource limits for decoding bytes from strangers.

Every count and length is already checked against the bytes that are left before anything is
allocated, so no input can make the decoder allocate more than a small multiple of its own
size. :class:`Limits` adds explicit caps on top, with defaults a Godot game never reaches, so
that a server can refuse oversized or pathological input early and say which cap it hit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._errors import DecodeError, GodotError

__all__ = ["DEFAULT_LIMITS", "Limits"]

#: Godot's ``Variant::MAX_RECURSION_DEPTH`` (4.x; 3.3.5/3.4.3/3.5+ and Pandemonium): the
#: default cap here, and the depth a profile's engine itself refuses beyond.
GODOT_MAX_DEPTH = 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on one decoded value. ``None`` lifts a cap (the input's own size still bounds it).

    - ``max_depth``: containers inside containers; Godot's own limit (1024) by default, also
      for the engines that have none (2.x, 3.0-3.2), which are then stricter than the engine.
    - ``max_size``: input bytes one call decodes (from ``offset``), checked first.
    - ``max_length``: bytes in one String, StringName, name or PackedByteArray.
    - ``max_elements``: entries in one Array, Dictionary, Object or packed array.
    """

    max_depth: int | None = GODOT_MAX_DEPTH
    max_size: int | None = 64 << 20
    max_length: int | None = 16 << 20
    max_elements: int | None = 16 << 20

    def __post_init__(self) -> None:
        for name in ("max_depth", "max_size", "max_length", "max_elements"):
            cap = getattr(self, name)
            if cap is not None and (not isinstance(cap, int) or cap < 0):
                raise ValueError(f"{name} must be a non-negative int or None, not {cap!r}")


#: The limits used when none are given.
DEFAULT_LIMITS = Limits()
#: "No limit" as the codec loops spell it: an int larger than any count they compare it with.
UNLIMITED = 1 << 62


def cap(limit: int | None) -> int:
    """A cap as an int the hot loops can compare with (``None``: no cap, here and in profiles)."""
    return UNLIMITED if limit is None else limit


def over_limit(what: str, size: int, name: str, limit: int, offset: int) -> DecodeError:
    """The error for a limit hit: it names the limit, its value and what exceeded it.

    ``what`` is ``"<thing> of <unit>"`` (``"a String of bytes"``): the size goes between.
    """
    thing, _, unit = what.rpartition(" of ")
    return DecodeError(
        f"{thing} of {size:,} {unit} is over the {name} limit ({limit:,})",
        offset,
        "",
        GodotError.ERR_OUT_OF_MEMORY,
        name,
    )
