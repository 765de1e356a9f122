"""How gdvariant writes a file: never replacing what it should not, never leaving half a file.

Every writer of the library and the command line goes through :func:`writing` (or
:func:`write_file`), which first looks at what the target is:

- a symbolic link is followed to its final file, which is written as below; the link stays;
- a regular file, or none yet, is replaced atomically: the bytes go to a temporary file beside
  it named ``.NAME.gdvariant-PID-XXXXXXXX.tmp`` (NAME the target's name, PID the writer's
  process, eight random hex digits), which is fsynced, given the old file's owner and
  permission bits (a new file's follow the umask, as ``open`` gives them), renamed over the
  target, and then the folder is fsynced. A failure at any point removes the temporary file
  and leaves the old file as it was. A hard link to the old file keeps the old bytes;
- a character or block device or a FIFO is written straight through: opened for writing once
  every byte is ready (so a FIFO waits for its reader), never created, truncated or renamed;
- anything else (a socket, a folder, a loop of links) is refused with :class:`RefusedTarget`.

Temporary files left by a writer that died (``kill -9``, a power cut) are removed by the next
write to the same target: only names of that pattern for that target, whose process is gone,
and which no writer holds (a writer keeps its temporary file locked while it writes).

Signals: Ctrl-C raises ``KeyboardInterrupt``, which unwinds the write and removes the temporary
file. SIGTERM and SIGHUP would kill the process where it stands, so while a write runs on the
main thread and their handler is still the default one, :func:`terminations_unwind` makes them
raise :class:`Terminated`, and once the write has unwound the process dies by the same signal,
as it would have. A handler the application installed is never replaced: what happens is its
choice (an exception it raises cleans up too).
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import FrameType
from typing import IO

__all__ = ["RefusedTarget", "Terminated", "terminations_unwind", "write_file", "writing"]

#: The signals that kill without unwinding and that a write turns into :class:`Terminated`.
_FATAL = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_BINARY = getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: Longest target name (in bytes) a temporary file carries whole; longer names are shortened,
#: so the temporary name (about 32 bytes more) stays within the usual 255-byte limit.
_LONGEST_NAME = 200
#: A device or FIFO is written from a spool, kept in memory up to this size.
_SPOOL_IN_MEMORY = 1 << 20


class RefusedTarget(OSError):
    """A path gdvariant will not write: a socket, a folder, a loop of symbolic links, or a
    device node that changed while it was written. Nothing was written."""


class Terminated(SystemExit):
    """SIGTERM or SIGHUP, raised so that a write unwinds and removes its temporary file.

    A ``SystemExit`` (status 128 + the signal's number, as a shell reports it), so that an
    ``except Exception`` does not swallow it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextmanager
def terminations_unwind() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` instead of killing the
    process at once; after unwinding, the process dies by that signal, as it would have.

    Only on the main thread (the only one that may set handlers) and only for a signal whose
    handler is the default one, which is restored when the block ends.
    """
    ours: list[int] = []
    if threading.current_thread() is threading.main_thread():
        for signum in _FATAL:
            if signal.getsignal(signum) is signal.SIG_DFL:
                signal.signal(signum, _raise_terminated)
                ours.append(signum)
    try:
        yield
    except Terminated as exc:
        if exc.signum not in ours:
            raise  # an outer block (the command line's) installed the handler: it ends things
        signal.signal(exc.signum, signal.SIG_DFL)
        signal.raise_signal(exc.signum)  # now that the temporary file is gone
        raise  # the signal is blocked: leave with status 128 + signum
    finally:
        for signum in ours:
            if signal.getsignal(signum) is _raise_terminated:
                signal.signal(signum, signal.SIG_DFL)


@contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A seekable binary stream whose bytes become the file at ``path`` when the block ends
    without an exception (the module's docstring says how); after an exception the target is
    as it was. :class:`RefusedTarget` if ``path`` is not something to write."""
    target, found = _resolve(path)
    with terminations_unwind():
        if found is None or stat.S_ISREG(found.st_mode):
            with _replacing(target, found) as out:
                yield out
        else:
            with _writing_through(target, found) as out:
                yield out


def write_file(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` as the file at ``path``, as :func:`writing` does."""
    with writing(path) as out:
        out.write(data)


def _resolve(path: str | os.PathLike[str]) -> tuple[Path, os.stat_result | None]:
    """The file a write to ``path`` lands on (every symbolic link followed) and its status,
    ``None`` if there is no file yet; refuses what is not a file, device or FIFO."""
    target = Path(os.path.realpath(path))
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        return target, None
    mode = found.st_mode
    if stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode):
        return target, found
    if stat.S_ISLNK(mode):  # realpath stops at a loop
        raise RefusedTarget(
            errno.ELOOP, "refusing to follow a loop of symbolic links", os.fspath(path)
        )
    what = "a folder" if stat.S_ISDIR(mode) else "a socket" if stat.S_ISSOCK(mode) else "this"
    raise RefusedTarget(
        errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL,
        f"refusing to write to {what} (only to a file, a device or a FIFO)",
        os.fspath(path),
    )


@contextmanager
def _writing_through(target: Path, found: os.stat_result) -> Iterator[IO[bytes]]:
    """Collect the bytes in a spool (seekable, as the GDEC writer needs), then write them to
    the device or FIFO ``target`` as it is: no creating, truncating or renaming."""
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_IN_MEMORY) as spool:
        yield spool
        spool.seek(0)
        fd = os.open(target, os.O_WRONLY | _BINARY | _NOFOLLOW | getattr(os, "O_NOCTTY", 0))
        with open(fd, "wb") as out:
            now = os.fstat(fd)
            if stat.S_IFMT(now.st_mode) != stat.S_IFMT(found.st_mode):
                reason = "refusing to write: no longer a device or FIFO"
                raise RefusedTarget(errno.EAGAIN, reason, str(target))
            shutil.copyfileobj(spool, out)


@contextmanager
def _replacing(target: Path, found: os.stat_result | None) -> Iterator[IO[bytes]]:
    """A temporary file beside ``target``, renamed over it once written and fsynced."""
    _remove_stale(target)
    fd, temporary = _temporary(target, 0o666 if found is None else 0o600)
    try:
        with open(fd, "w+b") as out:
            _lock(fd, wait=True)
            yield out
            out.flush()
            os.fsync(fd)
        if found is not None:
            _keep_owner_and_mode(temporary, found)
        os.replace(temporary, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(target.parent)


def _stem(name: str) -> str:
    """``name`` as its temporary files carry it: whole, or shortened with a hash of the whole
    (two long names stay apart) when it is longer than :data:`_LONGEST_NAME` bytes."""
    if len(os.fsencode(name)) <= _LONGEST_NAME:
        return name
    digest = hashlib.blake2s(os.fsencode(name), digest_size=4).hexdigest()
    short = name[: _LONGEST_NAME // 2]
    while len(os.fsencode(short)) > _LONGEST_NAME // 2:
        short = short[:-1]
    return f"{short}~{digest}"


def _temporary(target: Path, mode: int) -> tuple[int, Path]:
    """A new temporary file beside ``target``, open for reading and writing; ``mode`` goes
    through the umask, as for any new file."""
    while True:
        name = f".{_stem(target.name)}.gdvariant-{os.getpid()}-{secrets.token_hex(4)}.tmp"
        temporary = target.with_name(name)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | _BINARY
        try:
            return os.open(temporary, flags, mode), temporary
        except FileExistsError:
            continue  # 1 in 4 billion: draw again
        except OSError as exc:
            reason = f"{exc.strerror} (making a temporary file beside it)"
            raise OSError(exc.errno, reason, str(target)) from None


def _stale_pattern(target: Path) -> re.Pattern[str]:
    """The names of ``target``'s temporary files (the process id group first)."""
    name = re.escape(_stem(target.name))
    return re.compile(rf"\.{name}\.gdvariant-([1-9]\d{{0,9}})-[0-9a-f]{{8}}\.tmp")


def _remove_stale(target: Path) -> None:
    """Remove the temporary files of ``target`` that a dead writer left behind."""
    pattern = _stale_pattern(target)
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return  # the write itself will say what is wrong with the folder
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found is None or _alive(int(found[1])) or entry.is_symlink():
            continue
        with suppress(OSError):
            _remove_unheld(entry.path)


def _keep_owner_and_mode(temporary: Path, found: os.stat_result) -> None:
    """Give the temporary file the old file's owner (where allowed: root editing a user's
    save must leave it the user's) and permission bits (after the owner: chown clears the
    set-id bits)."""
    if hasattr(os, "chown"):
        own = os.stat(temporary)
        if (own.st_uid, own.st_gid) != (found.st_uid, found.st_gid):
            with suppress(PermissionError):
                os.chown(temporary, found.st_uid, found.st_gid)
    os.chmod(temporary, stat.S_IMODE(found.st_mode))


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable. A file system that cannot fsync a folder is let be."""
    if os.name != "posix":
        return  # Windows cannot open a folder to fsync it
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


if sys.platform == "win32":

    def _lock(fd: int, *, wait: bool) -> bool:
        """Windows refuses to remove a file that a process holds open: no lock needed."""
        return True

    def _alive(pid: int) -> bool:
        """Unknown here (``os.kill`` would end the process): the removal is the test."""
        return False

    def _remove_unheld(path: str) -> None:
        """Remove ``path``; Windows refuses while a writer holds it open."""
        os.unlink(path)

else:
    import fcntl

    def _lock(fd: int, *, wait: bool) -> bool:
        """Lock ``fd``'s file for this writer (the lock ends with the process); ``False`` if
        another holds it and ``wait`` is false, or if the file system has no locks (then
        no temporary file there is ever taken for a dead writer's)."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            return False
        return True

    def _remove_unheld(path: str) -> None:
        """Remove ``path`` unless a writer holds its lock."""
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
        try:
            if _lock(fd, wait=False):
                os.unlink(path)
        finally:
            os.close(fd)

    def _alive(pid: int) -> bool:
        """Whether process ``pid`` exists (ours included)."""
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, OverflowError):
            return False
        except PermissionError:
            return True  # another user's
        return True
