"""Save-file containers around ``store_var`` records: encrypted ``GDEC`` and compressed ``GCPF``.

- ``GDEC`` (``FileAccess.open_encrypted[_with_pass]``): Godot 3 writes ``GDEC``, u32 mode 1,
  MD5, u64 length, then AES-256-ECB; Godot 4 writes ``GDEC``, MD5, u64 length, IV, then
  AES-256-CFB128. Both encrypt the plaintext zero-padded to 16 bytes and keep the MD5 of the
  unpadded plaintext, the only check that the key was right. A password's key is the 32 ASCII
  characters of the hex MD5 of its UTF-8 bytes.
- ``GCPF`` (``open_compressed``): mode, block size B, total T, a table of ``T // B + 1``
  compressed block sizes (the last block may be empty), the blocks, and ``GCPF`` again.

AES comes from the ``cryptography`` package (extra ``crypto``), Zstd from ``zstandard``
(extra ``zstd``), Brotli from ``brotli`` (extra ``brotli``); FastLZ, Deflate and GZip need
nothing. Facts: ``docs/save-files.md``.
"""

from __future__ import annotations

import enum
import hashlib
import io
import os
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from struct import Struct
from typing import IO, Any

from .._binary.codec import VariantCodec, codec_for
from .._engines.profiles import Profile
from .._errors import DecodeError, GodotError
from .._limits import DEFAULT_LIMITS, Limits, cap
from .._writes import writing
from . import fastlz
from .guess import other_engine_note
from .store_var import decode_records, encode_records

__all__ = [
    "Compression",
    "decrypt",
    "encrypt",
    "iter_save",
    "open_save",
    "password_key",
    "read_save",
    "sniff",
    "write_save",
]

GDEC = b"GDEC"
GCPF = b"GCPF"
_GDEC3 = Struct("<4sI16sQ")  # magic, mode (always 1), MD5, plaintext length: 32 bytes
_GDEC3_SWAPPED = Struct(">4sI16sQ")  # Godot 3 with File.endian_swap set before opening
_GDEC4 = Struct("<4s16sQ16s")  # magic, MD5, plaintext length, IV: 44 bytes
_GCPF = Struct("<4sIII")  # magic, mode, block size, total size
_U32 = Struct("<I")
#: The header layouts, for the field walk behind ``gdvariant inspect``: GDEC by layout, GCPF,
#: and the u32 of a GCPF block table entry.
GDEC_HEADERS = {3: _GDEC3, 4: _GDEC4}
GCPF_HEADER = _GCPF
U32 = _U32
_PIECE = 1 << 20  # GDEC is decrypted this many bytes at a time
_SPOOL_IN_MEMORY = 1 << 20  # a decrypted GDEC plaintext past this size spools to disk
#: The largest GCPF block size read unless told otherwise (the engine writes 4096).
MAX_BLOCK_SIZE = 16 << 20


def _corrupt(reason: str, offset: int) -> DecodeError:
    return DecodeError(reason, offset, "", GodotError.ERR_FILE_CORRUPT)


def _need(module: str, extra: str) -> Any:
    """``module``, or an ``ImportError`` naming the package to install and its extra."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        package = module.partition(".")[0]  # what pip installs: cryptography, zstandard...
        raise ImportError(
            f"this file needs the '{package}' package: pip install 'gdvariant[{extra}]'",
            name=package,
        ) from None


# ---------------------------------------------------------------- GDEC


def password_key(password: str) -> bytes:
    """The AES key ``open_encrypted_with_pass`` derives: the hex MD5 text of the password."""
    return hashlib.md5(password.encode("utf-8"), usedforsecurity=False).hexdigest().encode()


def _key(key: bytes | None, password: str | None) -> bytes:
    if (key is None) == (password is None):
        raise ValueError("give exactly one of key= (32 bytes) or password=")
    if password is not None:
        return password_key(password)
    assert key is not None
    if len(key) != 32:
        raise ValueError(
            f"an AES-256 key is 32 bytes, not {len(key)} (Godot: ERR_INVALID_PARAMETER)"
        )
    return bytes(key)


def _cipher(key: bytes, iv: bytes | None) -> Any:
    """An AES-256 cipher object: ECB without ``iv`` (Godot 3), CFB-128 with it (Godot 4)."""
    ciphers = _need("cryptography.hazmat.primitives.ciphers", "crypto")
    if iv is None:
        mode = _need("cryptography.hazmat.primitives.ciphers.modes", "crypto").ECB()
    else:
        try:  # CFB moved to the "decrepit" module in cryptography 47
            from cryptography.hazmat.decrepit.ciphers.modes import CFB
        except ImportError:
            from cryptography.hazmat.primitives.ciphers.modes import CFB
        mode = CFB(iv)
    return ciphers.Cipher(ciphers.algorithms.AES(key), mode)


def _padded(size: int) -> int:
    return -(-size // 16) * 16


def encrypt(
    plaintext: bytes,
    *,
    key: bytes | None = None,
    password: str | None = None,
    layout: int = 4,
    iv: bytes | None = None,
) -> bytes:
    """A ``GDEC`` file holding ``plaintext``, as ``open_encrypted`` writes it.

    ``layout`` 4 (Godot 4) takes a random IV unless ``iv`` (16 bytes) is given, for
    reproducible output (as Godot 4.4+ allows); layout 3 (Godot 2/3) has no IV.
    """
    out = io.BytesIO()
    write_gdec([plaintext], out, key=key, password=password, layout=layout, iv=iv)
    return out.getvalue()


def write_gdec(
    chunks: Iterable[bytes],
    out: IO[bytes],
    *,
    key: bytes | None = None,
    password: str | None = None,
    layout: int = 4,
    iv: bytes | None = None,
) -> None:
    """Write a ``GDEC`` file of the bytes in ``chunks`` to the seekable ``out``, streaming.

    The header (MD5 and length) is written last, over a placeholder, so memory stays at one
    chunk whatever the total. Options as :func:`encrypt`.
    """
    aes_key = _key(key, password)
    header: Callable[[bytes, int], bytes]
    if layout == 3:
        if iv is not None:
            raise ValueError("the Godot 3 layout (AES-256-ECB) has no IV")
        cipher = _cipher(aes_key, None)
        header = lambda digest, size: _GDEC3.pack(GDEC, 1, digest, size)  # noqa: E731
    elif layout == 4:
        fixed = os.urandom(16) if iv is None else bytes(iv)
        if len(fixed) != 16:
            raise ValueError(f"the IV is 16 bytes, not {len(fixed)}")
        cipher = _cipher(aes_key, fixed)
        header = lambda digest, size: _GDEC4.pack(GDEC, digest, size, fixed)  # noqa: E731
    else:
        raise ValueError(f"GDEC layout {layout} does not exist (3: Godot 2/3, 4: Godot 4)")
    start = out.tell()
    out.write(header(bytes(16), 0))
    md5 = hashlib.md5(usedforsecurity=False)
    size = 0
    enc = cipher.encryptor()
    for chunk in chunks:
        md5.update(chunk)
        size += len(chunk)
        out.write(enc.update(chunk))
    out.write(enc.update(bytes(_padded(size) - size)) + enc.finalize())
    end = out.tell()
    out.seek(start)
    out.write(header(md5.digest(), size))
    out.seek(end)


@dataclass(frozen=True)
class _Gdec:
    layout: int
    digest: bytes
    size: int
    iv: bytes | None
    start: int


def _gdec_layouts(head: bytes, available: int) -> list[_Gdec]:
    """Every layout the header fits, given the file's size from the header on.

    The file may carry trailing bytes, as the engine allows.
    """
    fits = []
    if len(head) >= _GDEC3.size:
        for layout in (_GDEC3, _GDEC3_SWAPPED):
            magic, mode, digest, size = layout.unpack_from(head)
            expected = GDEC if layout is _GDEC3 else GDEC[::-1]
            if magic == expected and mode == 1 and available >= _GDEC3.size + _padded(size):
                fits.append(_Gdec(3, digest, size, None, _GDEC3.size))
    if len(head) >= _GDEC4.size:
        magic, digest, size, iv = _GDEC4.unpack_from(head)
        if magic == GDEC and available >= _GDEC4.size + _padded(size):
            fits.append(_Gdec(4, digest, size, iv, _GDEC4.size))
    return fits


def _decrypt_into(spool: IO[bytes], fp: IO[bytes], aes_key: bytes, fit: _Gdec) -> bool:
    """Decrypt one layout's body piece by piece into ``spool``; whether its MD5 matched."""
    dec = _cipher(aes_key, fit.iv).decryptor()
    md5 = hashlib.md5(usedforsecurity=False)
    left, keep = _padded(fit.size), fit.size
    while left:
        data = fp.read(min(left, _PIECE))
        if not data:
            raise _corrupt("the file ends inside the GDEC ciphertext", fp.tell())
        left -= len(data)
        piece = dec.update(data)[:keep]
        keep -= len(piece)
        md5.update(piece)
        spool.write(piece)
    dec.finalize()
    return md5.digest() == fit.digest


def decrypt(
    data: bytes, *, key: bytes | None = None, password: str | None = None, layout: int | None = None
) -> bytes:
    """The plaintext of a ``GDEC`` file; the layout (3 or 4) is detected unless given.

    A wrong key or password, or a damaged file, fails the MD5 check: :class:`DecodeError`
    (``ERR_FILE_CORRUPT``), never garbage.
    """
    with open_gdec(io.BytesIO(data), key=key, password=password, layout=layout) as plain:
        return plain.read()


def open_gdec(
    fp: IO[bytes],
    *,
    key: bytes | None = None,
    password: str | None = None,
    layout: int | None = None,
) -> IO[bytes]:
    """The verified plaintext of the seekable ``GDEC`` file ``fp``, as a readable stream.

    The file is decrypted in 1 MiB pieces into a spool (in memory up to 1 MiB, then a
    temporary file) while its MD5 is computed, and the stream is returned only once the
    check passes: nothing unverified is ever read, and memory stays bounded. Errors as
    :func:`decrypt`.
    """
    aes_key = _key(key, password)
    base = fp.tell()
    available = _size(fp)
    head = fp.read(_GDEC4.size)
    if head[:4] not in (GDEC, GDEC[::-1]):
        raise DecodeError(
            "not a GDEC file (no GDEC magic)", 0, "", GodotError.ERR_FILE_UNRECOGNIZED
        )
    available = len(head) if available is None else available - base
    fits = [f for f in _gdec_layouts(head, available) if layout is None or f.layout == layout]
    if not fits:
        raise _corrupt(
            f"a GDEC file of {available} bytes that fits neither layout: its length field "
            "claims more ciphertext than the file holds, or the header is damaged",
            0,
        )
    for fit in fits:
        fp.seek(base + fit.start)
        spool = tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY)  # noqa: SIM115
        try:
            if _decrypt_into(spool, fp, aes_key, fit):
                spool.seek(0)
                return spool
        except BaseException:
            spool.close()
            raise
        spool.close()
    names = " or ".join(f"Godot {f.layout}" for f in fits)
    raise _corrupt(
        f"the MD5 check failed ({names} layout): wrong key or password, or a damaged file", 4
    )


# ---------------------------------------------------------------- GCPF


class Compression(enum.IntEnum):
    """GCPF compression modes (``FileAccess.COMPRESSION_*``)."""

    FASTLZ = 0
    DEFLATE = 1
    ZSTD = 2
    GZIP = 3
    BROTLI = 4  # Godot 4 reads it; no engine writes it


def _zlib_compress(wbits: int) -> Callable[[bytes], bytes]:
    def compress(block: bytes) -> bytes:
        z = zlib.compressobj(-1, zlib.DEFLATED, wbits, 8, zlib.Z_DEFAULT_STRATEGY)
        return z.compress(block) + z.flush()

    return compress


def _zlib_decompress(wbits: int) -> Callable[[bytes, int], bytes]:
    def decompress(data: bytes, size: int) -> bytes:
        z = zlib.decompressobj(wbits)
        out = z.decompress(data, size + 1)  # one byte more than allowed shows a lie
        if not z.eof or z.unused_data:
            raise ValueError("the stream does not end where its block ends")
        return out

    return decompress


def _fastlz_compress(block: bytes) -> bytes:
    # The engine pads blocks under 16 bytes with zeros before compressing them.
    return fastlz.compress(block + bytes(16 - len(block)) if len(block) < 16 else block)


def _fastlz_decompress(data: bytes, size: int) -> bytes:
    return fastlz.decompress(data, max(size, 16))[:size]


def _zstd_compress(block: bytes) -> bytes:
    return bytes(_need("zstandard", "zstd").ZstdCompressor(level=3).compress(block))


def _zstd_decompress(data: bytes, size: int) -> bytes:
    zstandard = _need("zstandard", "zstd")
    declared = zstandard.get_frame_parameters(data).content_size
    if declared == zstandard.CONTENTSIZE_UNKNOWN:
        # No size in the frame (the engine always writes one): read at most one byte more
        # than the block may hold before decoding it whole, as the other codecs are bounded.
        with zstandard.ZstdDecompressor().stream_reader(data) as bounded:
            if len(bounded.read(size + 1)) > size:
                raise ValueError("the stream does not end where its block ends")
    elif declared > size:
        raise ValueError(f"the frame holds {declared} bytes, more than its block")
    reader = zstandard.ZstdDecompressor().decompressobj()
    out = reader.decompress(data)
    if len(out) > size or not reader.eof or reader.unused_data:
        raise ValueError("the stream does not end where its block ends")
    return bytes(out)


def _brotli_decompress(data: bytes, size: int) -> bytes:
    dec = _need("brotli", "brotli").Decompressor()
    out = dec.process(data, output_buffer_limit=size + 1)
    if not dec.is_finished():
        raise ValueError("the stream does not end where its block ends")
    return bytes(out)


def _no_brotli_writer(block: bytes) -> bytes:
    raise ValueError("no engine writes Brotli GCPF files (Godot 4 only reads them)")


_CODECS: dict[Compression, tuple[Callable[[bytes], bytes], Callable[[bytes, int], bytes]]] = {
    Compression.FASTLZ: (_fastlz_compress, _fastlz_decompress),
    Compression.DEFLATE: (_zlib_compress(15), _zlib_decompress(15)),
    Compression.ZSTD: (_zstd_compress, _zstd_decompress),
    Compression.GZIP: (_zlib_compress(31), _zlib_decompress(31)),
    Compression.BROTLI: (_no_brotli_writer, _brotli_decompress),
}


class GcpfReader(io.RawIOBase):
    """The plaintext of a ``GCPF`` file, decompressed one block at a time as it is read.

    The header and block table are checked on opening (mode, block size, table against the
    file size); each block must decompress to exactly its size. Memory: one block.
    """

    def __init__(self, fp: IO[bytes], *, max_block_size: int = MAX_BLOCK_SIZE) -> None:
        super().__init__()
        self._fp = fp
        head = fp.read(_GCPF.size)
        if len(head) < _GCPF.size or head[:4] != GCPF:
            raise DecodeError(
                "not a GCPF file (no GCPF header)", 0, "", GodotError.ERR_FILE_UNRECOGNIZED
            )
        _, mode, self.block_size, self.total = _GCPF.unpack(head)
        try:
            self.compression = Compression(mode)
        except ValueError:
            raise _corrupt(f"unknown GCPF compression mode {mode}", 4) from None
        if not 0 < self.block_size <= max_block_size:
            raise _corrupt(f"GCPF block size {self.block_size} is outside 1..{max_block_size}", 8)
        count = self.total // self.block_size + 1
        file_size = _size(fp)
        if file_size is not None and _GCPF.size + 4 * count > file_size:
            raise _corrupt(
                f"the header claims {self.total} bytes in {count} blocks, "
                f"but the file is {file_size} bytes: the block table alone would not fit",
                12,
            )
        table = fp.read(4 * count)
        if len(table) < 4 * count:
            raise _corrupt("the file ends inside the GCPF block table", _GCPF.size + len(table))
        self._sizes = [s for (s,) in _U32.iter_unpack(table)]
        self._offset = _GCPF.size + 4 * count
        if file_size is not None and self._offset + sum(self._sizes) > file_size:
            raise _corrupt(
                f"the block table claims {sum(self._sizes)} bytes of blocks, "
                f"the file has {file_size - self._offset}",
                _GCPF.size,
            )
        self._decompress = _CODECS[self.compression][1]
        self._block = b""
        self._pos = 0
        self._index = 0

    def readable(self) -> bool:
        return True

    def _next_block(self) -> bool:
        if self._index == len(self._sizes):
            return False
        i = self._index
        csize = self._sizes[i]
        data = self._fp.read(csize)
        if len(data) < csize:
            raise _corrupt(f"the file ends inside block {i}", self._offset + len(data))
        last = i == len(self._sizes) - 1
        expect = self.total % self.block_size if last else self.block_size
        try:
            block = self._decompress(data, expect)
        except ImportError:
            raise
        except Exception as exc:  # each codec has its own error type
            raise _corrupt(
                f"block {i} ({self.compression.name}) is corrupt: {exc}", self._offset
            ) from None
        if len(block) != expect:
            raise _corrupt(
                f"block {i} ({self.compression.name}) gives {len(block)} bytes, not {expect}",
                self._offset,
            )
        self._offset += csize
        self._index += 1
        self._block, self._pos = block, 0
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while self._pos == len(self._block):
            if not self._next_block():
                return 0
        n = min(len(view), len(self._block) - self._pos)
        view[:n] = self._block[self._pos : self._pos + n]
        self._pos += n
        return n


def _size(fp: IO[bytes]) -> int | None:
    try:
        here = fp.tell()
        end = fp.seek(0, os.SEEK_END)
        fp.seek(here)
        return end
    except (OSError, AttributeError, io.UnsupportedOperation):
        return None


def write_gcpf(
    chunks: Iterable[bytes],
    out: IO[bytes],
    *,
    compression: Compression | int = Compression.FASTLZ,
    block_size: int = 4096,
) -> None:
    """Write a ``GCPF`` file of the bytes in ``chunks``, compressing block by block.

    Blocks go to a temporary spool first (the table that precedes them needs their sizes),
    so memory stays at one block whatever the total.
    """
    mode = Compression(compression)
    compress = _CODECS[mode][0]
    if not 0 < block_size <= MAX_BLOCK_SIZE:
        raise ValueError(f"block_size must be in 1..{MAX_BLOCK_SIZE}")
    sizes: list[int] = []
    total = 0
    pending = bytearray()
    with tempfile.TemporaryFile() as spool:
        for chunk in chunks:
            pending += chunk
            total += len(chunk)
            while len(pending) >= block_size:
                block = compress(bytes(pending[:block_size]))
                del pending[:block_size]
                spool.write(block)
                sizes.append(len(block))
        block = compress(bytes(pending))  # the last block, empty when T % B == 0
        spool.write(block)
        sizes.append(len(block))
        if total >= 1 << 32:
            raise ValueError("GCPF holds at most 4 GiB (its sizes are 32-bit)")
        out.write(_GCPF.pack(GCPF, mode, block_size, total))
        out.write(b"".join(_U32.pack(s) for s in sizes))
        spool.seek(0)
        while piece := spool.read(1 << 20):
            out.write(piece)
    out.write(GCPF)


# ---------------------------------------------------------------- any save file


def sniff(head: bytes) -> str:
    """What a file is, from its first bytes: ``"GDEC"``, ``"GCPF"`` or ``"plain"`` records."""
    if head[:4] in (GDEC, GDEC[::-1]):
        return "GDEC"
    if head[:4] == GCPF:
        return "GCPF"
    return "plain"


@contextmanager
def open_save(
    path: str | os.PathLike[str],
    *,
    key: bytes | None = None,
    password: str | None = None,
    max_block_size: int = MAX_BLOCK_SIZE,
) -> Iterator[IO[bytes]]:
    """The plaintext of any save file as a readable binary stream: plain, GDEC or GCPF.

    An encrypted file needs ``key`` or ``password`` (:class:`DecodeError` with
    ``ERR_UNAUTHORIZED`` otherwise); other files need neither.
    """
    with open(path, "rb") as fp:
        kind = sniff(fp.read(4))
        fp.seek(0)
        if kind == "GDEC":
            if key is None and password is None:
                raise DecodeError(
                    "this save is encrypted (GDEC): give key= or password=",
                    0,
                    "",
                    GodotError.ERR_UNAUTHORIZED,
                )
            with open_gdec(fp, key=key, password=password) as plain:
                yield plain
        elif kind == "GCPF":
            yield io.BufferedReader(GcpfReader(fp, max_block_size=max_block_size))
        else:
            yield fp


def iter_save(
    path: str | os.PathLike[str],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    big_endian: bool = False,
    key: bytes | None = None,
    password: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Iterator[Any]:
    """Every ``store_var`` record of any save file, in order, read one at a time.

    A record whose value does not decode, or leaves bytes of the record unread (which
    ``store_var`` never does: the file was written by another engine), is a
    :class:`DecodeError`; when another engine line reads the whole file, the message says
    which ``version=`` does, as ``gdvariant decode`` does with ``-V``.
    """
    codec = codec_for(version, double, allow_objects, False, limits)
    with open_save(path, key=key, password=password) as fp:
        try:
            yield from decode_records(fp, codec, big_endian, whole=True)
        except DecodeError as exc:
            raise _with_engine_note(exc, path, codec, key, password) from None


def _with_engine_note(
    exc: DecodeError,
    path: str | os.PathLike[str],
    codec: VariantCodec,
    key: bytes | None,
    password: str | None,
) -> DecodeError:
    """``exc``, saying which ``version=`` reads the whole file if another engine line does
    (files over the ``max_size`` limit are not tried)."""
    most = cap(codec.limits.max_size)
    try:
        with open_save(path, key=key, password=password) as fp:
            plain = fp.read(most + 1)
    except (DecodeError, OSError):
        return exc
    note = other_engine_note(plain, codec, "version={!r}".format, "file")
    if note is None or len(plain) > most:
        return exc
    return DecodeError(f"{exc.reason}; {note}", exc.offset, exc.path, exc.code, exc.limit)


def read_save(
    path: str | os.PathLike[str],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    big_endian: bool = False,
    key: bytes | None = None,
    password: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> list[Any]:
    """Every ``store_var`` record of any save file (plain, GDEC or GCPF), as a list.

    ``version`` is the engine release that wrote it (a :data:`PROFILES` name or a
    :class:`Profile`), ``double`` a ``precision=double`` build; ``allow_objects`` reads full
    objects (``bytes_to_var_with_objects``) as inert records; ``big_endian`` reads the record
    lengths as ``FileAccess.big_endian`` wrote them; ``key`` (32 bytes) or ``password`` opens
    an encrypted file; ``limits`` caps what untrusted input may cost. :func:`iter_save` reads
    the same one record at a time.
    """
    return list(
        iter_save(
            path,
            version=version,
            double=double,
            allow_objects=allow_objects,
            big_endian=big_endian,
            key=key,
            password=password,
            limits=limits,
        )
    )


def write_save(
    path: str | os.PathLike[str],
    values: Iterable[Any],
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    full_objects: bool = False,
    big_endian: bool = False,
    key: bytes | None = None,
    password: str | None = None,
    iv: bytes | None = None,
    compression: Compression | int | None = None,
    block_size: int = 4096,
) -> int:
    """Write ``values`` as ``store_var`` records, plain, encrypted or compressed, atomically;
    return the number of records.

    ``version`` is the engine release that will read the file (a :data:`PROFILES` name or a
    :class:`Profile`), ``double`` a ``precision=double`` build; ``full_objects`` writes
    :class:`GodotObject` values whole (``store_var(value, true)``); ``big_endian`` writes the
    record lengths as ``FileAccess.big_endian`` does. ``key`` (32 bytes) or ``password`` makes
    a GDEC file in the engine's layout (Godot 4: AES-CFB with ``iv``, 16 bytes, or a random
    one; earlier: ECB); ``compression`` (a :class:`Compression`) makes a GCPF file of
    ``block_size``-byte blocks; neither: plain records.

    The file is written to a temporary file beside it, which is renamed over it, so a failure
    leaves any old file untouched; the old file's permission bits are kept, a symbolic link is
    followed (and kept), and a device or FIFO is written straight through. The README's "Save
    files" section says more.
    """
    encrypted = key is not None or password is not None
    if encrypted and compression is not None:
        raise ValueError("Godot files are encrypted or compressed, not both")
    codec = codec_for(version, double, False, full_objects)
    count = 0

    def counted() -> Iterator[bytes]:
        nonlocal count
        for record in encode_records(codec, values, big_endian):
            count += 1
            yield record

    with writing(path) as out:
        if encrypted:
            layout = codec.profile.encrypted_layout
            write_gdec(counted(), out, key=key, password=password, layout=layout, iv=iv)
        elif compression is not None:
            write_gcpf(counted(), out, compression=compression, block_size=block_size)
        else:
            for record in counted():
                out.write(record)
    return count
