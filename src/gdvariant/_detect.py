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

from ._api import dumps
from ._codec import codec_for
from ._containers import Compression, sniff
from ._errors import EncodeError
from ._guess import Reading, read_frames, read_whole
from ._profiles import PROFILES, Profile
from ._records import records
from ._savefile import Container, open_container

__all__ = ["Candidate", "detect"]

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
    """Releases with one verdict: how they read the bytes, and why they rank where they do."""

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


def _verdict(data: bytes, container: Container, profile: Profile) -> tuple[int, str, list[str]]:
    """(score, reading, reasons) of one release; score 0: it could not have written them."""
    unfit = _container_fits(container, profile)
    reading = read_whole(
        data, codec_for(profile, False, True), records_first=container.kind != "plain"
    )
    reading = reading or read_frames(data, codec_for(profile, False, True))
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


def detect(
    data: bytes, *, key: bytes | None = None, password: str | None = None
) -> tuple[Container, list[Candidate]]:
    """The container of ``data`` and every group of releases that reads it, best first.

    An encrypted file without its key or password is judged by its container alone.
    """
    if sniff(data[:4]) == "GDEC" and key is None and password is None:
        layout = 4 if data[4:8] != b"\x01\x00\x00\x00" else 3
        container = Container("GDEC", layout=layout)
        fits = [p for p in RELEASES if _container_fits(container, p) is None]
        why = f"its {container.describe()} header (the records need --password or --key)"
        return container, [Candidate([p.name for p in fits], "", "encrypted", 1, [why])]
    container, plain = open_container(data, key=key, password=password)
    groups: list[Candidate] = []
    for profile in RELEASES:
        score, reading, reasons = _verdict(plain, container, profile)
        if score == 0:
            continue
        line = profile.engine.rsplit(".", 1)[0] if profile.name[0].isdigit() else "Pandemonium"
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
    return container, groups
