"""A save file's container as a value: what wraps the records, so it can be written again.

``decode`` only needs the plaintext of a ``GDEC`` or ``GCPF`` file; ``edit`` and ``convert``
also need to know how it was wrapped (the ``GDEC`` layout, the ``GCPF`` compression and block
size) to write the result back the same way. :func:`open_container` finds both;
:func:`write_container` writes plaintext in a container as every writer does (``_writes``:
a temporary file renamed over the target, so a failure leaves the old file untouched).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from struct import Struct

from .._errors import DecodeError
from .._limits import over_limit
from .._writes import writing
from .containers import (
    GDEC,
    GDEC_HEADERS,
    Compression,
    GcpfReader,
    decrypt,
    sniff,
    write_gcpf,
    write_gdec,
)

__all__ = ["Container", "open_container", "write_container"]

#: Godot 3's GDEC header as ``File.endian_swap`` writes it: every field big-endian.
_SWAPPED = Struct(">4sI16sQ")


@dataclass(frozen=True)
class Container:
    """How a file's plaintext is wrapped: ``plain``, ``GDEC`` (with its layout, 3 or 4) or
    ``GCPF`` (with its compression and block size)."""

    kind: str = "plain"
    layout: int | None = None
    compression: Compression | None = None
    block_size: int = 4096
    #: A Godot 3 GDEC header written with ``File.endian_swap`` set (big-endian fields).
    swapped: bool = False

    def describe(self) -> str:
        """``GDEC (Godot 4 layout, AES-256-CFB)``, ``GCPF (ZSTD, 4096-byte blocks)``..."""
        if self.kind == "GDEC":
            cipher = "AES-256-CFB" if self.layout == 4 else "AES-256-ECB"
            line = "Godot 4" if self.layout == 4 else "Godot 2/3"
            swapped = ", big-endian header" if self.swapped else ""
            return f"GDEC ({line} layout, {cipher}{swapped})"
        if self.kind == "GCPF":
            name = self.compression.name if self.compression is not None else "?"
            return f"GCPF ({name}, {self.block_size}-byte blocks)"
        return "no container"


def gdec_layout(data: bytes, *, key: bytes | None, password: str | None) -> tuple[int, bytes]:
    """The plaintext of a GDEC file and the layout (3 or 4) it was written in.

    The header alone may fit both layouts; the one whose MD5 check passes is the one.
    """
    plain = decrypt(data, key=key, password=password)
    for layout in (4, 3):
        try:
            if decrypt(data, key=key, password=password, layout=layout) == plain:
                return layout, plain
        except DecodeError:
            continue
    raise AssertionError("decrypt() read a layout that no longer reads")  # pragma: no cover


def open_container(
    data: bytes,
    *,
    key: bytes | None = None,
    password: str | None = None,
    max_size: int | None = None,
) -> tuple[Container, bytes]:
    """The container of ``data`` and its plaintext (``data`` itself when there is none).

    An encrypted file needs ``key`` or ``password`` (``ValueError`` otherwise). A compressed
    file whose header claims more than ``max_size`` bytes of plaintext is refused before any
    of it is decompressed (a few KB can claim 4 GB).
    """
    kind = sniff(data[:4])
    if kind == "GDEC":
        if key is None and password is None:
            raise ValueError("this save is encrypted: give --password or --key")
        layout, plain = gdec_layout(data, key=key, password=password)
        return Container("GDEC", layout=layout, swapped=data[:4] == GDEC[::-1]), plain
    if kind == "GCPF":
        reader = GcpfReader(io.BytesIO(data))
        if max_size is not None and reader.total > max_size:
            raise over_limit("a GCPF plaintext of bytes", reader.total, "max_size", max_size, 12)
        with io.BufferedReader(reader) as fp:
            plain = fp.read()
        return Container(
            "GCPF", compression=reader.compression, block_size=reader.block_size
        ), plain
    return Container(), data


def write_container(
    path: str | os.PathLike[str],
    plaintext: bytes,
    container: Container,
    *,
    key: bytes | None = None,
    password: str | None = None,
) -> None:
    """Write ``plaintext`` wrapped as ``container`` says, atomically (as ``_writes`` does).

    A Godot 4 ``GDEC`` file gets a fresh random IV, as the engine gives it on every write.
    """
    with writing(path) as out:
        if container.kind == "GDEC":
            layout = container.layout or 4
            write_gdec([plaintext], out, key=key, password=password, layout=layout)
            if container.swapped and layout == 3:
                out.seek(0)
                _, mode, digest, size = GDEC_HEADERS[3].unpack(out.read(GDEC_HEADERS[3].size))
                out.seek(0)
                out.write(_SWAPPED.pack(GDEC[::-1], mode, digest, size))
        elif container.kind == "GCPF":
            mode = container.compression if container.compression is not None else 0
            write_gcpf([plaintext], out, compression=mode, block_size=container.block_size)
        else:
            out.write(plaintext)
