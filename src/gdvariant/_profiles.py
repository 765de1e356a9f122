"""Every difference between engine releases, as data.

A :class:`Profile` says how one engine release numbers its types on the wire and which
optional header features it has. The decoder and encoder read these tables; they never ask
"which version is this?". Facts and their sources: ``shared/spec/godot4.md`` §1, §2, §8.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ._types import VariantType

__all__ = ["PROFILES", "Profile", "get_profile"]

#: Godot's ``Variant::MAX_RECURSION_DEPTH`` (``core/variant/variant.h``, 4.0 onward).
GODOT_MAX_DEPTH = 1024


@dataclass(frozen=True, eq=False)
class Profile:
    """How one engine release writes Variants.

    ``wire_ids`` maps each supported type to its number on the wire; types absent from it do
    not exist in that release. ``typed_arrays`` / ``typed_dictionaries`` say whether the ARRAY /
    DICTIONARY header carries element-type bits (Godot 4.3+ / 4.4+).
    """

    name: str
    engine: str
    wire_ids: Mapping[VariantType, int]
    typed_arrays: bool
    typed_dictionaries: bool
    max_depth: int = GODOT_MAX_DEPTH
    #: wire id -> type, 256 entries (``None`` = not a type in this release); derived.
    types_by_id: tuple[VariantType | None, ...] = field(init=False, repr=False)
    #: the same as plain ints (-1 = none), for the decoder's dispatch; derived.
    kind_codes: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        table: list[VariantType | None] = [None] * 256
        for vtype, wire_id in self.wire_ids.items():
            table[wire_id] = vtype
        object.__setattr__(self, "types_by_id", tuple(table))
        object.__setattr__(self, "kind_codes", tuple(-1 if t is None else int(t) for t in table))
        object.__setattr__(self, "wire_ids", MappingProxyType(dict(self.wire_ids)))

    @property
    def variant_max(self) -> int:
        """The engine's ``Variant::VARIANT_MAX``: type bytes at or above it are rejected."""
        return max(self.wire_ids.values()) + 1

    def supports(self, vtype: VariantType) -> bool:
        """Whether this release has the type at all."""
        return vtype in self.wire_ids

    def describe(self) -> dict[str, object]:
        """A summary of what this profile supports, for people and tools."""
        return {
            "name": self.name,
            "engine": self.engine,
            "types": [t.name for t in sorted(self.wire_ids, key=self.wire_ids.__getitem__)],
            "typed_arrays": self.typed_arrays,
            "typed_dictionaries": self.typed_dictionaries,
            "max_depth": self.max_depth,
        }


def _godot4_ids(last: VariantType) -> dict[VariantType, int]:
    """Godot 4 numbers its types as :class:`VariantType` does, up to ``last``."""
    return {t: int(t) for t in VariantType if t <= last}


_G4_PRE43 = _godot4_ids(VariantType.PACKED_COLOR_ARRAY)  # VARIANT_MAX 38 in 4.0-4.2
_G4 = _godot4_ids(VariantType.PACKED_VECTOR4_ARRAY)  # type 38 added in 4.3 (PR #85474)


def _g4(minor: int) -> Profile:
    return Profile(
        name=f"4.{minor}",
        engine=f"Godot 4.{minor}",
        wire_ids=_G4 if minor >= 3 else _G4_PRE43,
        typed_arrays=minor >= 3,  # PR #78219
        typed_dictionaries=minor >= 4,  # PR #98120
    )


_RELEASES = {p.name: p for p in (_g4(minor) for minor in range(7))}
_ALIASES = {"4": "4.6"}

#: Every accepted ``version=`` string and the profile it selects.
PROFILES: Mapping[str, Profile] = MappingProxyType(
    {**_RELEASES, **{alias: _RELEASES[target] for alias, target in _ALIASES.items()}}
)


def get_profile(version: str | Profile) -> Profile:
    """The profile for a ``version=`` argument; a clear ``ValueError`` lists the valid ones."""
    if isinstance(version, Profile):
        return version
    try:
        return PROFILES[version]
    except (KeyError, TypeError):
        valid = ", ".join(repr(v) for v in PROFILES)
        raise ValueError(f"unknown version {version!r}; valid versions: {valid}") from None
