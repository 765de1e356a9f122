"""Every difference between engine releases, as data.

A :class:`Profile` says how one engine release numbers its types on the wire, which header
features it has and which writing rules it follows. The decoder and encoder read these tables;
they never ask "which version is this?". The type tables and what the rules mean are in
``docs/binary-format.md``; each field below says which engines differ and why.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from .._limits import GODOT_MAX_DEPTH
from .._values.base import VariantType

__all__ = ["PROFILES", "Profile", "get_profile"]

T = VariantType

#: Godot's default ``PacketPeer.encode_buffer_max_size`` (3.2+, 4.x, Pandemonium): 8 MiB.
PACKET_SIZE_LIMIT = 8 * 1024 * 1024

#: Decoder kind codes for layouts that differ from Godot 4's for the same type.
KIND_BARE_RID = 200  # RID written as a bare header (before Godot 4)
KIND_BARE_OBJECT = 201  # Object written as a bare header that decodes to null (Godot 2)

#: Math types written with 64-bit components and the 64-bit flag by ``precision=double`` builds.
_DOUBLE_MATH = frozenset(
    {
        T.VECTOR2,
        T.VECTOR3,
        T.VECTOR4,
        T.RECT2,
        T.TRANSFORM2D,
        T.PLANE,
        T.QUATERNION,
        T.AABB,
        T.BASIS,
        T.TRANSFORM3D,
        T.PROJECTION,
        T.PACKED_VECTOR2_ARRAY,
        T.PACKED_VECTOR3_ARRAY,
        T.PACKED_VECTOR4_ARRAY,
    }
)
#: 4.0 and 4.1 forgot the flag for these two (fixed in 4.2, d8fdd419fa): doubles, no flag.
_DOUBLE_UNFLAGGED_4_0 = frozenset({T.VECTOR4, T.PROJECTION})


@dataclass(frozen=True, eq=False)
class Profile:
    """How one engine release writes Variants.

    ``wire_ids`` maps each type the release has to its number on the wire. The other fields
    are the release's rules; each says which engines differ and why.
    """

    name: str
    engine: str
    wire_ids: Mapping[VariantType, int]
    #: ARRAY / DICTIONARY headers carry element-type bits (Godot 4.3+ / 4.4+).
    typed_arrays: bool = False
    typed_dictionaries: bool = False
    #: 4.0-4.2 have typed Arrays in memory but write them as plain Arrays (the type is lost).
    typed_arrays_as_untyped: bool = False
    #: What a typed container does with an element of another type: the name of a rule table in
    #: ``element_rules.RULES`` ("godot4": convert what ``can_convert_strict`` allows, drop the
    #: rest, "godot4-double" in a double build; "pandemonium": exact type only); "" = no typed
    #: containers on the wire.
    element_rules: str = ""
    #: Which Dictionary keys the engine holds as one: the name of a rule set in
    #: ``key_rules.RULES`` ("godot4": Dictionaries compare by value; "godot3": by identity);
    #: "" = not known, not checked.
    key_rules: str = ""
    #: Deepest nesting the decoder / encoder accepts; ``None`` = the engine has no limit.
    max_depth: int | None = GODOT_MAX_DEPTH
    max_encode_depth: int | None = GODOT_MAX_DEPTH
    #: Godot 2 compares the whole header word with VARIANT_MAX: no flag bits at all.
    strict_header: bool = False
    #: INT may take 64 bits (flagged); Godot 2 ints are 32-bit only.
    int64: bool = True
    #: 3.0.x writes every int as 64-bit (a signedness bug in its range test).
    int_always_64: bool = False
    #: FLOAT may take 64 bits; Godot 2 narrows every float to 32 bits.
    float64: bool = True
    #: RID carries its 64-bit id (Godot 4); older lines write a bare header.
    rid_payload: bool = True
    #: Objects travel as ids or in full; Godot 2 writes a bare header that decodes to null.
    objects: bool = True
    #: Godot 2 sends a NodePath's last subname as its separate "property".
    node_path_property: bool = False
    #: Godot 2.0 still reads the NodePath format without bit 31 (a plain string).
    old_node_path: bool = False
    #: Godot 2 marks shared Arrays / Dictionaries with bit 31 of the count (GDScript literals).
    shared_bit: bool = False
    #: The string decoder accepts UTF-8-encoded surrogates (Godot 2/3's ``parse_utf8``).
    surrogates: bool = False
    #: How the encoder writes the UTF-16 surrogates such a String holds (engine-checked with
    #: 3.2.3 and 3.6.2): "utf8", each as its 3-byte sequence (2.x, 3.0-3.5, Pandemonium);
    #: "joined", a high-low pair as the one character it stands for and any other as a space
    #: (3.6's ``String::utf8``); "" (Godot 4, whose Strings cannot hold one) refuses them.
    surrogate_writing: str = ""
    #: Pandemonium's PoolVector4iArray encoder writes z where w belongs.
    vector4i_array_w_from_z: bool = False
    #: ``precision=double`` builds: types written as f64 with the flag, and without it.
    double_flagged: frozenset[VariantType] = frozenset()
    double_unflagged: frozenset[VariantType] = frozenset()
    #: This profile speaks for a double-precision build (see :meth:`with_double`).
    double: bool = False
    #: The engine's own defaults for full objects on write / allowing them on read.
    engine_full_objects_default: bool = False
    #: Values whose padding bytes the engine leaves unwritten (we read any, write zeros).
    unwritten_padding: Sequence[str] = ()
    #: The largest value ``PacketPeer.put_var`` sends: its default ``encode_buffer_max_size``,
    #: 8 MiB since 3.2 (c217000f76); ``None`` where it encodes on the stack with no check.
    packet_size_limit: int | None = PACKET_SIZE_LIMIT
    #: The ``GDEC`` layout of ``open_encrypted`` files: 3 (mode field, AES-256-ECB) before
    #: Godot 4, 4 (IV, AES-256-CFB128) from 4.0 (docs/save-files.md).
    encrypted_layout: int = 3
    #: wire id -> type, 256 entries (``None`` = not a type in this release); derived.
    types_by_id: tuple[VariantType | None, ...] = field(init=False, repr=False)
    #: wire id -> decoder kind code (-1 = none); derived.
    kind_codes: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        table: list[VariantType | None] = [None] * 256
        kinds = [-1] * 256
        for vtype, wire_id in self.wire_ids.items():
            table[wire_id] = vtype
            kinds[wire_id] = int(vtype)
        if not self.rid_payload and T.RID in self.wire_ids:
            kinds[self.wire_ids[T.RID]] = KIND_BARE_RID
        if not self.objects:
            kinds[self.wire_ids[T.OBJECT]] = KIND_BARE_OBJECT
        object.__setattr__(self, "types_by_id", tuple(table))
        object.__setattr__(self, "kind_codes", tuple(kinds))
        object.__setattr__(self, "wire_ids", MappingProxyType(dict(self.wire_ids)))
        object.__setattr__(self, "unwritten_padding", tuple(self.unwritten_padding))

    @property
    def variant_max(self) -> int:
        """The engine's ``Variant::VARIANT_MAX``: type bytes at or above it are rejected."""
        return max(self.wire_ids.values()) + 1

    def supports(self, vtype: VariantType) -> bool:
        """Whether this release has the type at all."""
        return vtype in self.wire_ids

    def with_double(self) -> Profile:
        """The same release built with ``precision=double`` (Godot 4 only)."""
        if self.double:
            return self
        if not self.double_flagged:
            raise ValueError(
                f"{self.engine} has no double-precision variant format: its double builds "
                "write math types as float32 (and matrices as garbage); use double=False"
            )
        return _with_double(self)

    def describe(self) -> dict[str, object]:
        """A summary of what this profile supports, for people and tools."""
        return {
            "name": self.name,
            "engine": self.engine,
            "types": {
                t.name: self.wire_ids[t]
                for t in sorted(self.wire_ids, key=self.wire_ids.__getitem__)
            },
            "variant_max": self.variant_max,
            "typed_arrays": self.typed_arrays or T.TYPED_ARRAY in self.wire_ids,
            "typed_dictionaries": self.typed_dictionaries,
            "element_rules": self.element_rules,
            "key_rules": self.key_rules,
            "max_depth": self.max_depth,
            "max_encode_depth": self.max_encode_depth,
            "header_flags": not self.strict_header,
            "int64": self.int64,
            "int_always_64": self.int_always_64,
            "float64": self.float64,
            "rid_payload": self.rid_payload,
            "objects": self.objects,
            "engine_full_objects_default": self.engine_full_objects_default,
            "double_builds": bool(self.double_flagged),
            "double": self.double,
            "unwritten_padding": list(self.unwritten_padding),
            "packet_size_limit": self.packet_size_limit,
            "encrypted_layout": self.encrypted_layout,
        }


_DOUBLE_CACHE: dict[str, Profile] = {}


def _with_double(base: Profile) -> Profile:
    cached = _DOUBLE_CACHE.get(base.name)
    if cached is None:
        cached = dataclasses.replace(
            base,
            name=f"{base.name}+double",
            engine=f"{base.engine} (double)",
            double=True,
            element_rules=f"{base.element_rules}-double" if base.element_rules else "",
        )
        _DOUBLE_CACHE[base.name] = cached
    return cached


def _table(*names: str) -> dict[VariantType, int]:
    """A wire table from type names listed in wire order (index = wire id)."""
    return {VariantType[name]: wire_id for wire_id, name in enumerate(names)}


_G4_PRE43 = {t: int(t) for t in VariantType if t <= T.PACKED_COLOR_ARRAY}  # VARIANT_MAX 38
_G4 = {t: int(t) for t in VariantType if t <= T.PACKED_VECTOR4_ARRAY}  # type 38 from 4.3

_COMMON = ("NIL", "BOOL", "INT", "FLOAT", "STRING")
_G3 = _table(
    *_COMMON,
    *("VECTOR2", "RECT2", "VECTOR3", "TRANSFORM2D", "PLANE", "QUATERNION", "AABB", "BASIS"),
    *("TRANSFORM3D", "COLOR", "NODE_PATH", "RID", "OBJECT", "DICTIONARY", "ARRAY"),
    *("PACKED_BYTE_ARRAY", "PACKED_INT32_ARRAY", "PACKED_FLOAT32_ARRAY", "PACKED_STRING_ARRAY"),
    *("PACKED_VECTOR2_ARRAY", "PACKED_VECTOR3_ARRAY", "PACKED_COLOR_ARRAY"),
)
_G2 = _table(
    *_COMMON,
    *("VECTOR2", "RECT2", "VECTOR3", "TRANSFORM2D", "PLANE", "QUATERNION", "AABB", "BASIS"),
    *("TRANSFORM3D", "COLOR", "IMAGE", "NODE_PATH", "RID", "OBJECT", "INPUT_EVENT"),
    *("DICTIONARY", "ARRAY", "PACKED_BYTE_ARRAY", "PACKED_INT32_ARRAY", "PACKED_FLOAT32_ARRAY"),
    *("PACKED_STRING_ARRAY", "PACKED_VECTOR2_ARRAY", "PACKED_VECTOR3_ARRAY", "PACKED_COLOR_ARRAY"),
)
_PAND_G1 = _table(
    *_COMMON,
    *("VECTOR2", "VECTOR2I", "RECT2", "RECT2I", "VECTOR3", "VECTOR3I", "TRANSFORM2D", "PLANE"),
    *("QUATERNION", "AABB", "BASIS", "TRANSFORM3D", "COLOR", "NODE_PATH", "RID", "OBJECT"),
    *("STRING_NAME", "DICTIONARY", "ARRAY", "PACKED_BYTE_ARRAY", "PACKED_INT32_ARRAY"),
    *("PACKED_FLOAT32_ARRAY", "PACKED_STRING_ARRAY", "PACKED_VECTOR2_ARRAY"),
    *("PACKED_VECTOR2I_ARRAY", "PACKED_VECTOR3_ARRAY", "PACKED_VECTOR3I_ARRAY"),
    "PACKED_COLOR_ARRAY",
)
_PAND_G2_HEAD = (
    *_COMMON,
    *("RECT2", "RECT2I", "VECTOR2", "VECTOR2I", "VECTOR3", "VECTOR3I", "VECTOR4", "VECTOR4I"),
    *("PLANE", "QUATERNION", "AABB", "BASIS", "TRANSFORM3D", "TRANSFORM2D", "PROJECTION"),
    *("COLOR", "NODE_PATH", "RID", "OBJECT", "STRING_NAME", "DICTIONARY", "ARRAY"),
)
_PAND_POOLS = (
    *("PACKED_BYTE_ARRAY", "PACKED_INT32_ARRAY", "PACKED_FLOAT32_ARRAY", "PACKED_STRING_ARRAY"),
    *("PACKED_VECTOR2_ARRAY", "PACKED_VECTOR2I_ARRAY", "PACKED_VECTOR3_ARRAY"),
    *("PACKED_VECTOR3I_ARRAY", "PACKED_VECTOR4_ARRAY", "PACKED_VECTOR4I_ARRAY"),
    "PACKED_COLOR_ARRAY",
)
_PAND_G2 = _table(*_PAND_G2_HEAD, *_PAND_POOLS)
_PAND_G3 = _table(*_PAND_G2_HEAD, "TYPED_ARRAY", "PACKED_TYPED_ARRAY", *_PAND_POOLS)


def _godot4(minor: int) -> Profile:
    return Profile(
        name=f"4.{minor}",
        engine=f"Godot 4.{minor}",
        wire_ids=_G4 if minor >= 3 else _G4_PRE43,
        typed_arrays=minor >= 3,  # PR #78219
        element_rules="godot4" if minor >= 3 else "",
        key_rules="godot4",
        typed_arrays_as_untyped=minor < 3,
        typed_dictionaries=minor >= 4,  # PR #98120
        double_flagged=_DOUBLE_MATH - (_DOUBLE_UNFLAGGED_4_0 if minor < 2 else set()),
        double_unflagged=_DOUBLE_UNFLAGGED_4_0 if minor < 2 else frozenset(),
        encrypted_layout=4,
    )


def _godot3(minor: int) -> Profile:
    """Each 3.x profile follows the newest patch release of that minor version."""
    padding = ["NodePath"] + (["PackedByteArray"] if minor == 0 else [])
    return Profile(
        name=f"3.{minor}",
        engine=f"Godot 3.{minor}",
        wire_ids=_G3,
        key_rules="godot3",
        max_depth=GODOT_MAX_DEPTH if minor >= 3 else None,  # 3.3.5 / 3.4.3 / 3.5 (PR #58111)
        max_encode_depth=GODOT_MAX_DEPTH if minor >= 4 else None,  # 3.4 (PR #51068)
        int_always_64=minor == 0,  # fixed in 3.1 (dba8c3999d)
        rid_payload=False,
        surrogates=True,
        surrogate_writing="utf8" if minor < 6 else "joined",
        engine_full_objects_default=minor == 0,  # flipped in 3.1.1 (e61a074a8e)
        unwritten_padding=padding,
        packet_size_limit=PACKET_SIZE_LIMIT if minor >= 2 else None,
    )


def _godot2(minor: int) -> Profile:
    """2.0 follows 2.0.4, 2.1 follows 2.1.6 (the 2.1.5 hardening rejects old NodePaths)."""
    return Profile(
        name=f"2.{minor}",
        engine=f"Godot 2.{minor}",
        wire_ids=_G2,
        max_depth=None,
        max_encode_depth=None,
        strict_header=True,
        int64=False,
        float64=False,
        rid_payload=False,
        objects=False,
        node_path_property=True,
        old_node_path=minor == 0,
        shared_bit=True,
        surrogates=True,
        surrogate_writing="utf8",
        engine_full_objects_default=True,
        unwritten_padding=["String", "PackedByteArray", "NodePath", "Image"]
        + (["PackedStringArray"] if minor == 0 else []),
        packet_size_limit=None,
    )


def _pandemonium(generation: int, wire_ids: dict[VariantType, int], tags: str) -> Profile:
    return Profile(
        name=f"pandemonium-g{generation}",
        engine=f"Pandemonium G{generation} ({tags})",
        wire_ids=wire_ids,
        element_rules="pandemonium" if T.TYPED_ARRAY in wire_ids else "",
        rid_payload=False,
        surrogates=True,
        surrogate_writing="utf8",
        vector4i_array_w_from_z=True,
        unwritten_padding=["NodePath"],
    )


_RELEASES = {
    p.name: p
    for p in (
        *(_godot4(minor) for minor in range(7)),
        *(_godot3(minor) for minor in range(7)),
        *(_godot2(minor) for minor in range(2)),
        _pandemonium(1, _PAND_G1, "v3.5.0-v3.7.0"),
        _pandemonium(2, _PAND_G2, "v3.8.0-v4.9.0"),
        _pandemonium(3, _PAND_G3, "v5.0.0+"),
    )
}
_ALIASES = {"4": "4.6", "3": "3.6", "2": "2.1", "pandemonium": "pandemonium-g3"}

#: Every accepted ``version=`` string and the profile it selects.
PROFILES: Mapping[str, Profile] = MappingProxyType(
    {**_RELEASES, **{alias: _RELEASES[target] for alias, target in _ALIASES.items()}}
)


#: A version as Godot prints it (``4.6.3.stable.official.31b5d14d0``) or tags it
#: (``v4.6.3-stable``): the major and minor numbers pick the release, patch releases share it.
_GODOT_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[.+_ -].*)?", re.DOTALL)


def release_name(version: object) -> str | None:
    """The ``PROFILES`` name a ``version=`` argument means, or None: a name (``"4"``,
    ``"3.6"``, ``"pandemonium"``), an int engine line (``4``), or a full Godot version string
    (``"4.6.3"``, ``"4.6.3.stable"``, ``"v3.6.2-stable"``)."""
    if isinstance(version, int) and not isinstance(version, bool):
        version = str(version)
    if not isinstance(version, str):
        return None
    if version in PROFILES:
        return version
    match = _GODOT_VERSION.fullmatch(version.strip())
    if match is None:
        return None
    name = f"{int(match[1])}.{int(match[2])}"
    return name if name in PROFILES else None


def get_profile(version: str | int | Profile, double: bool = False) -> Profile:
    """The profile for a ``version=`` argument (see :func:`release_name`); a clear
    ``ValueError`` lists the valid ones.

    ``double=True`` selects the engine's ``precision=double`` build (Godot 4 only).
    """
    if isinstance(version, Profile):
        profile = version
    else:
        name = release_name(version)
        if name is None:
            raise ValueError(unknown_version(version))
        profile = PROFILES[name]
    return profile.with_double() if double else profile


def unknown_version(version: object) -> str:
    """The error for a version no profile answers to, with the valid ones."""
    if isinstance(version, float):
        return (
            f"unknown version {version!r}: give it as a string ('4.6', '3.6'), "
            "a float cannot tell 4.1 from 4.10"
        )
    valid = ", ".join(repr(v) for v in PROFILES)
    return (
        f"unknown version {version!r}; valid versions: {valid} "
        "(or a Godot version as the engine prints it, such as '4.6.3.stable')"
    )
