"""Which engine releases, and which container and framing, could have written some bytes.

Nothing in Variant bytes names their engine. Each release is tried in turn: does it read
every byte (as one value, as ``store_var`` records, or as ``put_var`` frames of a capture
that stops mid-frame), and would it write exactly these bytes back? A release that reads
them and writes them identically could have written them; one that reads them but writes
differently (3.0's 64-bit ints, 4.0-4.2's untyped Arrays...) only could have read them. The
container counts too: a Godot 4 ``GDEC`` layout rules out Godot 2 and 3, and so on. Releases
with the same verdict are grouped, and the groups ranked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._binary.api import dumps
from .._binary.codec import Buffer, codec_for
from .._engines.profiles import PROFILES, Profile
from .._errors import EncodeError
from .._limits import DEFAULT_LIMITS, Limits
from .containers import Compression, sniff
from .guess import Reading, read_frames, read_whole
from .store_var import records
from .wrapping import Container, open_container

__all__ = ["Candidate", "Detection", "detect"]

#: Every release, newest first within each line; the aliases ("4", "3"...) are left out.
RELEASES: tuple[Profile, ...] = tuple(
    PROFILES[name]
    for name in (
        *(f"4.{minor}" for minor in range(6, -1, -1)),
        *(f"3.{minor}" for minor in range(6, -1, -1)),
        *("2.1", "2.0", "pandemonium-g3", "pandemonium-g2", "pandemonium-g1"),
    )
)


@dataclass
class Candidate:
    """Releases with one verdict: how they read the bytes, and why they rank where they do.

    ``releases`` are ``version=`` names, newest first; ``engine`` their line (``Godot 3``);
    ``reading`` how they read the bytes (``3 store_var records``, ``one value``...);
    ``score`` 4: reads every byte and writes exactly these bytes back, 3: writes them
    differently, 2: cannot write them back, 1: the container rules it out (or the file is
    encrypted and only its header was judged); ``reasons`` say so in words.
    """

    releases: list[str]
    engine: str
    reading: str
    score: int
    reasons: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types (``--json``)."""
        return {
            "releases": self.releases,
            "engine": self.engine,
            "reading": self.reading,
            "score": self.score,
            "reasons": self.reasons,
        }


def _container_fits(container: Container, profile: Profile) -> str | None:
    """Why ``profile``'s engine could not have written this container, or None."""
    if container.kind == "GDEC" and container.layout not in (None, profile.encrypted_layout):
        return f"its GDEC files use the Godot {profile.encrypted_layout} layout, not this one"
    if container.kind == "GCPF" and container.compression is not None:
        mode = container.compression
        if mode is Compression.BROTLI:
            return "no engine writes Brotli GCPF files (Godot 4 only reads them)"
        if mode in (Compression.ZSTD, Compression.GZIP) and not profile.int64:
            return f"{mode.name} compression is new in Godot 3"
    return None


def _rewrite(reading: Reading, profile: Profile) -> bytes | None:
    """The bytes ``profile``'s engine writes for the values read, or None if it cannot."""
    for full in (False, True):
        try:
            if not reading.records:
                return dumps(reading.values[0], version=profile, full_objects=full)
            parts = records(
                reading.values, version=profile, full_objects=full, big_endian=reading.big_endian
            )
            return b"".join(parts)
        except EncodeError:
            continue
    return None


def framing(reading: Reading, container: Container) -> str:
    """Which writers lay values out as ``reading`` found them."""
    if container.kind != "plain":
        return f"FileAccess.store_var records in a {container.kind} file"
    if not reading.records:
        return "var_to_bytes, or one PacketPeer packet (UDP, WebSocket, ENet)"
    if reading.cut:
        return "a captured stream of StreamPeer / PacketPeerStream put_var frames, cut short"
    if reading.big_endian:
        return "store_var records or StreamPeer put_var frames, both with big_endian set"
    return "store_var records, or StreamPeer / PacketPeerStream put_var frames (one layout)"


def _verdict(
    data: bytes, container: Container, profile: Profile, limits: Limits
) -> tuple[int, str, list[str]]:
    """(score, reading, reasons) of one release; score 0: it could not have written them."""
    unfit = _container_fits(container, profile)
    codec = codec_for(profile, False, True, False, limits)
    reading = read_whole(data, codec, records_first=container.kind != "plain")
    reading = reading or read_frames(data, codec)
    if reading is None:
        return 0, "", ["does not read the bytes whole"]
    reasons = [f"reads every byte as {reading.describe()}"]
    reasons.append(f"the layout of {framing(reading, container)}")
    score = 2
    rewritten = _rewrite(reading, profile)
    whole = data[: len(data) - reading.cut]
    if rewritten == whole:
        reasons.append("writes exactly these bytes")
        score += 2
    elif rewritten is None:
        reasons.append("cannot write these values back")
    else:
        first = next(
            (i for i, (a, b) in enumerate(zip(rewritten, whole, strict=False)) if a != b),
            min(len(rewritten), len(whole)),
        )
        reasons.append(f"would write them differently (from byte {first})")
        score += 1
    if unfit is not None:
        reasons.append(f"but {unfit}")
        score = 1
    return score, reading.describe(), reasons


@dataclass(frozen=True)
class Detection:
    """What :func:`detect` found: the container (``"no container"``, ``"GDEC (Godot 4
    layout, AES-256-CFB)"``, ``"GCPF (ZSTD, 4096-byte blocks)"``...) and the groups of
    releases that read the bytes, best first (empty: none does)."""

    container: str
    candidates: list[Candidate]

    @property
    def version(self) -> str | None:
        """The newest release of the best group (a ``version=`` value), or None."""
        return self.candidates[0].releases[0] if self.candidates else None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types (``gdvariant detect --json``)."""
        return {"container": self.container, "candidates": [c.to_json() for c in self.candidates]}


def detect(
    data: Buffer,
    *,
    key: bytes | None = None,
    password: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Detection:
    """Which engine releases could have written ``data`` (a save file's bytes, a capture,
    ``var_to_bytes`` output), ranked, and in which container: what ``gdvariant detect``
    prints. ``detect(data).version`` is the ``version=`` that reads it.

    An encrypted file without its key or password is judged by its container alone. A
    compressed file claiming more plaintext than ``limits.max_size`` is refused
    (:class:`DecodeError`), and every reading decodes within ``limits``.
    """
    if isinstance(data, str):
        raise TypeError("detect() reads bytes, not str: open the file in binary mode ('rb')")
    data = bytes(data)
    if sniff(data[:4]) == "GDEC" and key is None and password is None:
        layout = 4 if data[4:8] != b"\x01\x00\x00\x00" else 3
        container = Container("GDEC", layout=layout)
        why = f"its {container.describe()} header (the records need a password or key)"
        groups: list[Candidate] = []
        for profile in RELEASES:
            if _container_fits(container, profile) is not None:
                continue
            if groups and groups[-1].engine == _line(profile):
                groups[-1].releases.append(profile.name)
            else:
                groups.append(Candidate([profile.name], _line(profile), "encrypted", 1, [why]))
        return Detection(container.describe(), groups)
    container, plain = open_container(data, key=key, password=password, max_size=limits.max_size)
    groups = []
    for profile in RELEASES:
        score, reading, reasons = _verdict(plain, container, profile, limits)
        if score == 0:
            continue
        line = _line(profile)
        last = groups[-1] if groups else None
        if last is not None and (last.score, last.reading, last.reasons, last.engine) == (
            score,
            reading,
            reasons,
            line,
        ):
            last.releases.append(profile.name)
        else:
            groups.append(Candidate([profile.name], line, reading, score, reasons))
    groups.sort(key=lambda c: -c.score)  # stable: newer releases first within a score
    return Detection(container.describe(), groups)


def _line(profile: Profile) -> str:
    """The engine line of a release: ``Godot 4``, ``Godot 3``, ``Godot 2``, ``Pandemonium``."""
    return profile.engine.rsplit(".", 1)[0] if profile.name[0].isdigit() else "Pandemonium"
