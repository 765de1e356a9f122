"""Run the real Godot engines (installed by ``tools/setup-engines.sh``) as test oracles.

Godot 4.6 and 3.6 live in a Debian sid chroot (``GDVARIANT_CHROOT``, default
``~/.cache/gdvariant/sid-chroot``); Godot 3.2.3 is the host's ``godot3-server``. Scripts and
data go through a scratch folder inside the chroot, so the same paths work on both sides.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import json.scanner
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from tests.support import processes
from tests.support.paths import LIVE

#: The oracle scripts (``godot4_oracle.gd``, ``godot3_oracle.gd``), beside the codec's live
#: tests. A script named by a bare name is one of these; any other is given by its path.
ORACLES = LIVE / "codec"
SETUP_HINT = "run `sudo bash tools/setup-engines.sh` to install the engines"
#: The seed of this run's random tests (printed by each test); GDVARIANT_SEED=<n> reruns one.
SEED = int(os.environ.get("GDVARIANT_SEED", random.SystemRandom().randrange(2**31)))

T = TypeVar("T")


def chroot_dir() -> Path:
    default = (
        Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "gdvariant/sid-chroot"
    )
    return Path(os.environ.get("GDVARIANT_CHROOT", default))


@dataclass(frozen=True)
class Engine:
    """One engine binary; ``run`` executes a GDScript file with arguments."""

    name: str  # "4.6", "3.6", "3.2"
    chroot: Path | None  # None = runs on the host

    def _prefix(self) -> list[str]:
        if self.name.startswith("4"):
            return ["godot", "--headless", "--script"]
        return ["godot3-server", "--no-window", "-s"]

    def version(self) -> str:
        binary = "godot" if self.name.startswith("4") else "godot3-server"
        cmd = [binary, "--version"]
        if self.chroot is not None:
            cmd = ["chroot", str(self.chroot), "env", "HOME=/tmp", *cmd]
        out = processes.run(cmd, capture_output=True, text=True, timeout=60).stdout
        return out.strip().splitlines()[-1] if out.strip() else ""

    @contextmanager
    def workdir(self) -> Iterator[tuple[Path, str]]:
        """A scratch folder: (path seen from here, the same path seen by the engine)."""
        base = (self.chroot / "tmp") if self.chroot is not None else Path(tempfile.gettempdir())
        here = Path(tempfile.mkdtemp(prefix="gdvariant-", dir=base))
        inside = "/tmp/" + here.name if self.chroot is not None else str(here)
        try:
            yield here, inside
        finally:
            shutil.rmtree(here, ignore_errors=True)

    def command(self, script: str, args: Sequence[str], inside: str) -> list[str]:
        """The command line that runs ``script`` (a file in the scratch folder ``inside``)."""
        if self.name.startswith("4"):
            cmd = [*self._prefix(), f"{inside}/{script}", "--", *args]
        else:
            cmd = [*self._prefix(), f"{inside}/{script}", *args]
        return self.within(cmd, inside)

    def within(self, cmd: Sequence[str], inside: str) -> list[str]:
        """``cmd`` run in the scratch folder ``inside``, in the chroot when there is one."""
        if self.chroot is None:
            return list(cmd)
        return [
            "chroot",
            str(self.chroot),
            "env",
            "HOME=/tmp",
            "sh",
            "-c",
            f'cd "{inside}" && exec "$@"',
            "sh",
            *cmd,
        ]

    @property
    def oracle(self) -> str:
        """The oracle script for this engine's GDScript dialect (in :data:`ORACLES`)."""
        return "godot4_oracle.gd" if self.name.startswith("4") else "godot3_oracle.gd"

    def _check(self, returncode: int | None, out: str, err: str) -> None:
        if returncode != 0:
            tail = f"{out[-3000:]}\n{err[-3000:]}"
            raise RuntimeError(f"Godot {self.name} failed ({returncode}):\n{tail}")

    def run(
        self, script: str, args: Sequence[str], *, cwd: tuple[Path, str], timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        """Run ``script`` (a file name inside ``cwd``) with ``args``; raise on failure."""
        return self.run_command(self.command(script, args, cwd[1]), cwd=cwd, timeout=timeout)

    def run_command(
        self, cmd: Sequence[str], *, cwd: tuple[Path, str], timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        """Run a full command line (``command``, ``within``) from ``cwd``; raise on failure."""
        proc = processes.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd[0])
        self._check(proc.returncode, proc.stdout, proc.stderr)
        return proc

    async def run_async(
        self, script: str, args: Sequence[str], *, cwd: tuple[Path, str], timeout: float = 600
    ) -> str:
        """:meth:`run` for a test whose own side runs on the event loop at the same time;
        returns the engine's stderr."""
        here, inside = cwd
        proc = processes.watch(
            await asyncio.create_subprocess_exec(
                *self.command(script, args, inside),
                cwd=here,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout)
        except TimeoutError:
            proc.kill()
            raise
        self._check(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"))
        return err.decode(errors="replace")


async def run_beside(
    engine: Engine,
    script: str,
    args: Sequence[str],
    ours: Awaitable[T],
    *,
    cwd: tuple[Path, str],
    timeout: float = 600,
    strict: bool = False,
) -> T:
    """Run ``script`` in the engine and our side of a live session together; return our
    result. An engine that fails first cancels our side and its error is raised; with
    ``strict``, a GDScript runtime error (which only abandons the function) fails too."""
    engine_task = asyncio.create_task(engine.run_async(script, args, cwd=cwd, timeout=timeout))
    ours_task = asyncio.ensure_future(ours)
    done, _ = await asyncio.wait(
        [engine_task, ours_task], timeout=timeout, return_when=asyncio.FIRST_EXCEPTION
    )
    if engine_task in done and engine_task.exception() is not None:
        ours_task.cancel()
        raise engine_task.exception()  # type: ignore[misc]
    if ours_task in done and ours_task.exception() is not None:
        engine_task.cancel()
        raise ours_task.exception()  # type: ignore[misc]
    result = await asyncio.wait_for(ours_task, timeout)
    stderr = await asyncio.wait_for(engine_task, timeout)
    if strict and "SCRIPT ERROR" in stderr:
        raise RuntimeError(f"GDScript error in {script}:\n{stderr[-3000:]}")
    return result


def _mounted(chroot: Path) -> bool:
    return (chroot / "proc/self").exists()


def find_engine(name: str) -> tuple[Engine | None, str]:
    """The engine called ``name`` ("4.6", "3.6" or "3.2"), or None and the reason it is missing."""
    if name == "3.2":
        if shutil.which("godot3-server") is None:
            return None, f"godot3-server (Godot 3.2.3) is not on PATH; {SETUP_HINT}"
        return Engine(name, None), ""
    root = chroot_dir()
    binary = "godot" if name == "4.6" else "godot3-server"
    if not (root / "usr/bin" / binary).exists():
        return None, f"no Godot {name} in the chroot {root}; {SETUP_HINT}"
    if os.geteuid() != 0:
        return None, f"running Godot {name} in the chroot {root} needs root"
    if not _mounted(root):
        return None, f"/proc is not mounted in {root}; {SETUP_HINT}"
    return Engine(name, root), ""


def engines_required() -> bool:
    """``GDVARIANT_REQUIRE_ENGINES=1`` (set by .ci/run) turns a missing engine into a failure."""
    return os.environ.get("GDVARIANT_REQUIRE_ENGINES", "") not in ("", "0")


#: Output of deterministic oracle runs, by what went in: a test that runs on each codec core
#: (the ``impl`` fixture) asks the engine once per input set, not once per core.
_MEMO: dict[str, str] = {}
_MEMO_MAX = 16


def script_path(script: str | Path) -> Path:
    """Where ``script`` is: a bare name is an oracle script (in :data:`ORACLES`), a path is
    itself (a test's own script, beside it)."""
    return script if isinstance(script, Path) else ORACLES / script


def _memo_key(
    engine: Engine, script: str | Path, args: list[str], inputs: Mapping[str, Any]
) -> str:
    digest = hashlib.sha256(repr((engine, str(script), args, sorted(inputs))).encode())
    digest.update(script_path(script).read_bytes())
    for _, content in sorted(inputs.items()):
        digest.update(
            content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
        )
    return digest.hexdigest()


def run_oracle(
    engine: Engine,
    script: str | Path,
    args: list[str],
    inputs: Mapping[str, str | bytes] | None = None,
    *,
    memo: bool = False,
) -> list[dict[str, Any]]:
    """Run an oracle script (or the script at a path, see :func:`script_path`) with
    ``{inside}`` in ``args`` replaced by its scratch folder, after writing ``inputs`` there;
    return the JSON lines it wrote to ``out.jsonl``.

    ``memo=True`` (for runs whose output depends only on their inputs) reuses the output of an
    identical earlier run in this session.
    """
    key = _memo_key(engine, script, args, inputs or {}) if memo else ""
    lines = _MEMO.get(key) if memo else None
    if lines is None:
        lines = _run_oracle(engine, script, args, inputs or {})
        if memo:
            if len(_MEMO) >= _MEMO_MAX:
                del _MEMO[next(iter(_MEMO))]
            _MEMO[key] = lines
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))  # descriptions of 1024-deep values nest deeply
    try:
        return [_json_deep(line) for line in lines.splitlines() if line.strip()]
    finally:
        sys.setrecursionlimit(limit)


def _run_oracle(
    engine: Engine, script: str | Path, args: list[str], inputs: Mapping[str, str | bytes]
) -> str:
    source = script_path(script)
    with engine.workdir() as (here, inside):
        shutil.copy(source, here)
        for name, content in inputs.items():
            if isinstance(content, bytes):
                (here / name).write_bytes(content)
            else:
                (here / name).write_text(content)
        engine.run(source.name, [a.replace("{inside}", inside) for a in args], cwd=(here, inside))
        return (here / "out.jsonl").read_text(encoding="utf-8", errors="surrogateescape")


def _json_deep(line: str) -> Any:
    """``json.loads``, with a fallback for nesting deeper than Python 3.12's C scanner takes
    (it has a fixed cap of its own, below a 1024-deep value's description): the pure-Python
    scanner, which follows ``sys.setrecursionlimit``."""
    try:
        return json.loads(line, strict=False)
    except RecursionError:
        decoder = json.JSONDecoder(strict=False)
        decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
        return decoder.decode(line)


def engine_decode(
    engine: Engine, script: str, blobs: list[bytes], allow: bool
) -> list[dict[str, Any]]:
    """The engine's verdict on each blob, decoded as a standalone value."""
    lines = "".join(f"{b.hex()}\t{int(allow)}\n" for b in blobs)
    args = ["decode", "{inside}/in.txt", "{inside}/out.jsonl"]
    results = run_oracle(engine, script, args, {"in.txt": lines}, memo=True)
    assert len(results) == len(blobs)
    return results


def engine_text(engine: Engine, texts: list[str]) -> list[dict[str, Any]]:
    """For each text, what the engine's ``str_to_var`` / ``str2var`` makes of it: ``bytes``
    (hex, with objects) of the value and ``text``, the engine's own text of that value."""
    blob = bytearray()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        blob += len(data).to_bytes(4, "little") + data
    results = run_oracle(
        engine,
        engine.oracle,
        ["text", "{inside}/in.bin", "{inside}/out.jsonl"],
        {"in.bin": bytes(blob)},
    )
    assert len(results) == len(texts)
    return results


def engine_write_saves(engine: Engine, cwd: tuple[Path, str], seed: int, count: int) -> list[bytes]:
    """Have the engine write every save-file mode into the scratch folder ``cwd``
    (``MODE_CONTENT.sav``, see the oracle's ``savefiles``); return the records' bytes."""
    here, inside = cwd
    shutil.copy(ORACLES / engine.oracle, here)
    engine.run(engine.oracle, ["savefiles", inside, str(seed), str(count)], cwd=cwd)
    manifest = [bytes.fromhex(x) for x in (here / "manifest.txt").read_text().split()]
    assert len(manifest) == count
    return manifest


def engine_read_saves(engine: Engine, cwd: tuple[Path, str], folder: str) -> dict[str, Any]:
    """What the engine reads from each ``MODE_CONTENT.sav`` in ``folder`` (inside the scratch
    folder ``cwd``), opened as its mode says: per file name, ``ok`` and the records' hex."""
    here, inside = cwd
    shutil.copy(ORACLES / engine.oracle, here)
    engine.run(engine.oracle, ["readsaves", f"{inside}/{folder}", f"{inside}/read.jsonl"], cwd=cwd)
    lines = (here / "read.jsonl").read_text().splitlines()
    return {r["name"]: r for r in map(json.loads, lines)}
