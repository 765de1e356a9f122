"""Save-file containers (``gdvariant._files.containers``): GDEC, GCPF, sniffing, atomic writes."""

from __future__ import annotations

import inspect
import io
import struct
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._files.containers import GcpfReader, write_gcpf
from tests.support.paths import EXAMPLES

KEY = bytes(range(32))
IV = bytes(range(0xA0, 0xB0))
VALUES = [42, "héllo wörld", {"pos": gd.Vector3(1, 2, 3)}, list(range(100))]


def test_password_keys_are_the_hex_md5_text() -> None:
    # containers.md §2.3, engine-verified on 4.6.3, 3.6.2 and 3.2.3.
    assert gd.password_key("secret") == b"5ebe2294ecd0e0f08eab7690d2a6ee69"
    assert gd.password_key("pässwörd") == b"12841e4ba5e37d2fbfc78458c6714ade"


@pytest.mark.parametrize("layout", [3, 4])
@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 5000])
def test_gdec_round_trips_and_has_the_documented_size(layout: int, size: int) -> None:
    plaintext = bytes(range(256)) * 20
    plaintext = plaintext[:size]
    iv = IV if layout == 4 else None
    data = gd.encrypt(plaintext, key=KEY, layout=layout, iv=iv)
    header = 32 if layout == 3 else 44
    assert len(data) == header + -(-size // 16) * 16
    assert data[:4] == b"GDEC"
    assert gd.decrypt(data, key=KEY) == plaintext  # the layout is detected
    assert gd.decrypt(data + b"trailing", key=KEY, layout=layout) == plaintext


def test_a_fixed_iv_gives_the_same_bytes_and_a_random_one_does_not() -> None:
    a = gd.encrypt(b"save", password="x", iv=IV)
    assert a == gd.encrypt(b"save", password="x", iv=IV)
    assert gd.encrypt(b"save", password="x")[28:44] != gd.encrypt(b"save", password="x")[28:44]


def test_a_wrong_key_or_a_damaged_file_fails_the_md5_check() -> None:
    data = gd.encrypt(b"the save" * 10, password="right", layout=3)
    with pytest.raises(gd.DecodeError, match="MD5 check failed") as info:
        gd.decrypt(data, password="wrong")
    assert info.value.code is gd.GodotError.ERR_FILE_CORRUPT
    damaged = data[:40] + bytes([data[40] ^ 1]) + data[41:]
    with pytest.raises(gd.DecodeError, match="MD5"):
        gd.decrypt(damaged, password="right")
    with pytest.raises(gd.DecodeError, match="fits neither layout"):
        gd.decrypt(data[:-16], password="right")
    with pytest.raises(gd.DecodeError, match="not a GDEC"):
        gd.decrypt(b"GCPF" + bytes(40), password="right")
    with pytest.raises(ValueError, match="32 bytes"):
        gd.decrypt(data, key=bytes(16))


def test_godot3_header_swapped_by_endian_swap_before_opening_is_read() -> None:
    # containers.md §1: magic reads CEDG, mode and length big-endian, MD5 raw.
    data = gd.encrypt(b"abc", key=KEY, layout=3)
    magic, mode, digest, size = struct.unpack_from("<4sI16sQ", data)
    swapped = struct.pack(">4sI16sQ", magic[::-1], mode, digest, size) + data[32:]
    assert swapped[:4] == b"CEDG"
    assert gd.decrypt(swapped, key=KEY) == b"abc"


# ---------------------------------------------------------------- GCPF

EMPTY_BLOCKS = {
    # containers.md §3.2, engine-verified: the block each mode writes for no data.
    gd.Compression.FASTLZ: "010000e002010200 0000",
    gd.Compression.DEFLATE: "789c0300 00000001",
    gd.Compression.ZSTD: "28b52ffd20000100 00",
    gd.Compression.GZIP: "1f8b0800000000000003 0300 00000000 00000000",
}


def _gcpf(data: bytes, mode: gd.Compression, block_size: int = 4096) -> bytes:
    out = io.BytesIO()
    write_gcpf(
        [data[i : i + 1000] for i in range(0, len(data), 1000)],
        out,
        compression=mode,
        block_size=block_size,
    )
    return out.getvalue()


@pytest.mark.parametrize("mode", list(EMPTY_BLOCKS))
def test_an_empty_gcpf_has_one_empty_block(mode: gd.Compression) -> None:
    data = _gcpf(b"", mode)
    block = bytes.fromhex(EMPTY_BLOCKS[mode])
    assert data == struct.pack("<4sIIII", b"GCPF", mode, 4096, 0, len(block)) + block + b"GCPF"


@pytest.mark.parametrize("mode", list(EMPTY_BLOCKS))
@pytest.mark.parametrize(
    ("size", "block_size"),
    [(0, 4096), (10, 4096), (4096, 4096), (8240, 4096), (5000, 1000), (3, 1)],
)
def test_gcpf_round_trips(mode: gd.Compression, size: int, block_size: int) -> None:
    plaintext = (b"records of a save " * 1000)[:size]
    data = _gcpf(plaintext, mode, block_size)
    count = size // block_size + 1  # always one more: the last may be empty
    assert struct.unpack_from("<I", data, 12)[0] == size
    assert len(data) >= 16 + 4 * count + 4 and data.endswith(b"GCPF")
    assert GcpfReader(io.BytesIO(data)).read() == plaintext


def test_brotli_is_read_but_not_written() -> None:
    brotli = pytest.importorskip("brotli")
    block = brotli.compress(b"hello brotli")
    data = struct.pack("<4sIIII", b"GCPF", 4, 4096, 12, len(block)) + block + b"GCPF"
    assert GcpfReader(io.BytesIO(data)).read() == b"hello brotli"
    with pytest.raises(ValueError, match="Brotli"):
        _gcpf(b"x", gd.Compression.BROTLI)


def _header(mode: int, block: int, total: int, sizes: list[int]) -> bytes:
    return struct.pack(f"<4sIII{len(sizes)}I", b"GCPF", mode, block, total, *sizes)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"GCPF\0\0", "not a GCPF"),
        (_header(9, 4096, 0, [0]), "unknown GCPF compression mode 9"),
        (_header(1, 0, 0, [0]), "block size 0"),
        (_header(1, 1, 1 << 31, [0]), "block table alone would not fit"),
        (_header(1, 4096, 10, [500]) + b"x" * 10, "claims 500 bytes of blocks"),
        (_header(1, 4096, 20, [8]) + b"\xff" * 8, "block 0 .*corrupt"),
        (_header(1, 4096, 10, [8]) + bytes.fromhex("789c030000000001"), "gives 0 bytes, not 10"),
    ],
)
def test_bad_gcpf_files_name_what_is_wrong(data: bytes, reason: str) -> None:
    with pytest.raises(gd.DecodeError, match=reason):
        GcpfReader(io.BytesIO(data)).read()


# ---------------------------------------------------------------- any save


@pytest.mark.usefixtures("impl")  # these decode values: on every codec core
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"big_endian": True},
        {"key": KEY},
        {"password": "pässwörd", "version": "3"},
        {"compression": gd.Compression.FASTLZ},
        {"compression": gd.Compression.ZSTD, "version": "3.2"},
        {"compression": gd.Compression.GZIP, "block_size": 64},
    ],
    ids=repr,
)
def test_write_save_then_read_save(tmp_path: Path, options: dict[str, Any]) -> None:
    path = tmp_path / "save.dat"
    assert gd.write_save(path, VALUES, **options) == len(VALUES)
    read = {k: v for k, v in options.items() if k in ("key", "password", "version", "big_endian")}
    assert gd.read_save(path, **read) == VALUES
    kind = "GDEC" if "key" in options or "password" in options else "plain"
    assert gd.sniff(path.read_bytes()) == ("GCPF" if "compression" in options else kind)
    if "password" in options:
        assert path.read_bytes()[4:8] == bytes([1, 0, 0, 0])  # Godot 3's layout: mode 1


@pytest.mark.parametrize("function", [gd.read_save, gd.write_save])
def test_the_save_functions_name_and_describe_their_options(function: Any) -> None:
    """Typed keywords (an editor completes them, mypy checks them), not ``**options``, and the
    docstring says what each one does."""
    parameters = inspect.signature(function).parameters.values()
    options = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in parameters)
    assert options and all(p.annotation != "Any" for p in parameters if p.name in options)
    assert [name for name in options if f"``{name}``" not in function.__doc__] == []


def test_read_save_takes_what_iter_save_takes() -> None:
    def options(function: Any) -> list[tuple[str, Any, Any]]:
        parameters = list(inspect.signature(function).parameters.values())[1:]
        return [(p.name, p.annotation, p.default) for p in parameters]

    assert options(gd.read_save) == options(gd.iter_save)


def test_an_encrypted_save_asks_for_a_key(tmp_path: Path) -> None:
    path = tmp_path / "save.dat"
    gd.write_save(path, VALUES, password="pw")
    with pytest.raises(gd.DecodeError, match="give key= or password=") as info:
        gd.read_save(path)
    assert info.value.code is gd.GodotError.ERR_UNAUTHORIZED


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "save.dat"
    gd.write_save(path, [1])
    before = path.read_bytes()

    def values() -> object:
        yield 2
        raise RuntimeError("the game crashed mid-save")

    with pytest.raises(RuntimeError):
        gd.write_save(path, values(), compression=gd.Compression.DEFLATE)  # type: ignore[arg-type]
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["save.dat"]
    with pytest.raises(ValueError, match="not both"):
        gd.write_save(path, [1], password="x", compression=gd.Compression.ZSTD)


@pytest.mark.parametrize("declared", [True, False])
def test_a_zstd_block_that_inflates_past_its_size_is_refused_before_it_is_decoded(
    declared: bool,
) -> None:
    zstandard = pytest.importorskip("zstandard")
    import tracemalloc

    bomb = zstandard.ZstdCompressor(write_content_size=declared).compress(bytes(256 << 20))
    data = _header(2, 4096, 10, [len(bomb)]) + bomb
    tracemalloc.start()
    with pytest.raises(gd.DecodeError, match=r"block 0 .*corrupt"):
        GcpfReader(io.BytesIO(data)).read()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20  # the 256 MiB it claims never exist


# ---------------------------------------------------------------- hostile containers

SAVE = b"".join(gd.records(VALUES)) * 3


@pytest.mark.parametrize("layout", [3, 4])
def test_every_truncation_of_a_gdec_file_is_a_decode_error(layout: int) -> None:
    iv = IV if layout == 4 else None
    data = gd.encrypt(SAVE, key=KEY, layout=layout, iv=iv)
    for end in range(len(data)):
        with pytest.raises(gd.DecodeError) as info:
            gd.decrypt(data[:end], key=KEY)
        assert info.value.code in (
            gd.GodotError.ERR_FILE_UNRECOGNIZED,
            gd.GodotError.ERR_FILE_CORRUPT,
        )
        assert "GDEC" in str(info.value)


@pytest.mark.parametrize("layout", [3, 4])
def test_a_gdec_length_claiming_exabytes_allocates_nothing(layout: int) -> None:
    import tracemalloc

    data = bytearray(gd.encrypt(b"x" * 64, key=KEY, layout=layout, iv=IV if layout == 4 else None))
    struct.pack_into("<Q", data, 24 if layout == 3 else 20, 1 << 62)
    tracemalloc.start()
    with pytest.raises(gd.DecodeError, match="fits neither layout"):
        gd.decrypt(bytes(data), key=KEY)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 64 << 10


@pytest.mark.parametrize("mode", list(EMPTY_BLOCKS))
def test_every_truncation_of_a_gcpf_file_is_a_decode_error_except_the_trailer(
    mode: gd.Compression,
) -> None:
    data = _gcpf(SAVE, mode, block_size=256)
    for end in range(len(data) - 4):
        with pytest.raises(gd.DecodeError) as info:
            GcpfReader(io.BytesIO(data[:end])).read()
        assert info.value.offset <= end
    for end in range(len(data) - 4, len(data) + 1):  # the engines never check the trailer
        assert GcpfReader(io.BytesIO(data[:end])).read() == SAVE


def test_lying_gcpf_headers_and_tables_are_decode_errors() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    good = _gcpf(SAVE, gd.Compression.DEFLATE, block_size=256)
    count = len(SAVE) // 256 + 1

    @settings(max_examples=300, deadline=None)
    @given(
        mode=st.sampled_from([0, 1, 2, 3, 5, 2**32 - 1]),
        block=st.sampled_from([0, 1, 255, 256, 257, 4096, 2**31, 2**32 - 1]),
        total=st.sampled_from([0, 1, len(SAVE) - 1, len(SAVE), len(SAVE) + 1, 2**32 - 1]),
        table=st.lists(st.integers(0, 2**32 - 1), min_size=count, max_size=count),
        keep=st.booleans(),
    )
    def check(mode: int, block: int, total: int, table: list[int], keep: bool) -> None:
        sizes = list(struct.unpack_from(f"<{count}I", good, 16)) if keep else table
        data = _header(mode, block, total, sizes) + good[16 + 4 * count :]
        try:
            plain = GcpfReader(io.BytesIO(data)).read()
        except gd.DecodeError:
            return
        # Only an honest header survives: then the plaintext is the original.
        assert (mode, block, total) == (1, 256, len(SAVE)) and plain == SAVE

    check()


@pytest.mark.slow
@pytest.mark.usefixtures("impl")  # these decode values: on every codec core
def test_mutated_container_bytes_raise_only_decode_errors(tmp_path: Path) -> None:
    from hypothesis import example, given, settings
    from hypothesis import strategies as st

    files = [
        gd.encrypt(SAVE, key=KEY, layout=layout, iv=IV)
        if layout == 4
        else gd.encrypt(SAVE, key=KEY, layout=3)
        for layout in (3, 4)
    ]
    files += [_gcpf(SAVE, mode, block_size=300) for mode in EMPTY_BLOCKS]
    path = tmp_path / "save.dat"
    path.write_bytes(files[0])
    original = gd.read_save(path, key=KEY)

    @settings(max_examples=300, deadline=None)
    @given(
        which=st.sampled_from(range(len(files))),
        flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=4),
    )
    @example(which=1, flips=[(-1, 1)])  # the last byte: cipher padding, which the MD5 skips
    def check(which: int, flips: list[tuple[int, int]]) -> None:
        data = bytearray(files[which])
        for at, bits in flips:
            data[at % len(data)] ^= bits
        path.write_bytes(data)
        try:
            values = gd.read_save(path, key=KEY)
        except gd.DecodeError:
            return
        assert isinstance(values, list)
        if which < 2:
            # GDEC's MD5 catches any change to the plaintext. The cipher's padding past the
            # stated length is not covered (nor in Godot), so what reads is the original.
            assert values == original
        # GCPF blocks may decode to other records: FastLZ has no checksum.

    check()


def test_a_missing_package_is_named_as_pip_installs_it(
    save_without_its_package: tuple[Path, str, str],
) -> None:
    path, package, extra = save_without_its_package
    message = f"this file needs the '{package}' package: pip install 'gdvariant\\[{extra}\\]'"
    with pytest.raises(ImportError, match=f"^{message}$") as info:
        gd.read_save(path, password="secret")
    assert info.value.name == package


def test_a_godot3_save_read_without_version_says_which_version_reads_it() -> None:
    """Godot 3's records read as Godot 4 decode as nonsense (its Dictionary, 18, is Godot 4's
    Transform3D) that leaves bytes of each record unread: refused with the note gdvariant
    decode gives (-V 3 there, version='3' here), not returned as garbage."""
    save = EXAMPLES / "godot3_save.sav"
    message = "version='3' reads the whole file, as 3 store_var records"
    with pytest.raises(gd.DecodeError, match=message) as info:
        gd.read_save(save)
    assert "the value in record 0 ends after 52 of its 80 bytes" in str(info.value)
    with pytest.raises(gd.DecodeError, match=message):
        next(gd.iter_save(save))
    assert gd.read_save(save, version="3")[0] == {"slot": 1, "player": "Ayla", "level": 12}


def test_a_record_with_bytes_after_its_value_is_refused_by_read_save(tmp_path: Path) -> None:
    """No engine reads these whole: no note, but no silent skipping either (store_var never
    writes such a record; load_all reads it as get_var does)."""
    path = tmp_path / "odd.dat"
    payload = gd.dumps(5) + b"pad!"
    path.write_bytes(struct.pack("<I", len(payload)) + payload)
    with pytest.raises(gd.DecodeError) as info:
        gd.read_save(path)
    assert str(info.value) == (
        "the value in record 0 ends after 8 of its 12 bytes, and store_var leaves none unread: "
        "these are not Godot 4.6 records (offset 12; Godot: ERR_INVALID_DATA)"
    )
    with path.open("rb") as fp:
        assert list(gd.load_all(fp)) == [5]


def test_a_compressed_godot3_save_read_as_godot4_names_the_version(tmp_path: Path) -> None:
    path = tmp_path / "g3.sav"
    gd.write_save(path, [{"a": 1}], version="3", compression=gd.Compression.DEFLATE)
    with pytest.raises(gd.DecodeError, match="version='3' reads the whole file, as 1 store_var"):
        gd.read_save(path)


@pytest.mark.parametrize("call", [gd.loads, gd.decode])
def test_text_instead_of_bytes_is_a_type_error_that_says_what_to_do(call: Any) -> None:
    with pytest.raises(TypeError, match=r"reads bytes, not str.*'rb'.*from_text"):
        call('{"a": 1}')
    with pytest.raises(TypeError, match="reads bytes, not str"):
        call("abc", version="3")


def test_detect_refuses_text_too() -> None:
    with pytest.raises(TypeError, match="not str"):
        gd.detect("abc")  # type: ignore[arg-type]
