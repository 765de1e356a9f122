"""tests/support/processes.py: what a test starts ends with its pytest, however pytest ends (a
time limit's ``os._exit``, a SIGKILL), down to the processes those start in sessions of their
own; what the tests did not start is left alone. Each end is shown on a pytest of its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import inner_pytest, processes
from tests.support.paths import ROOT

linux_only = pytest.mark.skipif(not processes.SUPPORTED, reason="pidfds (Linux 5.3 and later)")

#: A process that writes its id to the file named by its first argument once it runs, starts
#: another like it when given a second name (in a session of its own, as the rooms cluster
#: starts its redis-server, so that neither a process group nor a parent's death reaches it),
#: and sleeps.
SLEEPER = """
import os, subprocess, sys, time

if len(sys.argv) > 2:
    subprocess.Popen([sys.executable, __file__, sys.argv[2]], start_new_session=True)
with open(sys.argv[1] + ".part", "w") as out:
    out.write(str(os.getpid()))
os.replace(sys.argv[1] + ".part", sys.argv[1])
time.sleep(600)
"""

#: A test that starts a sleeper (which starts another) in ``FOLDER``, waits until both run,
#: and hangs.
HANGS_OVER_A_TREE = """
import subprocess, sys, time
from pathlib import Path

from tests.support import processes

FOLDER = Path({folder!r})

def test_starts_processes_and_hangs():
    names = [str(FOLDER / name) for name in ("sleeper.py", "child", "grandchild")]
    processes.watch(subprocess.Popen([sys.executable, *names]))
    while not (FOLDER / "grandchild").exists():
        time.sleep(0.01)
    time.sleep(600)
"""


def _pytest_over(tmp_path: Path, *options: str) -> list[str]:
    """The command of a pytest running :data:`HANGS_OVER_A_TREE` in ``tmp_path``; to be run
    from the repository's root, where ``python -m`` finds ``tests.support``."""
    (tmp_path / "sleeper.py").write_text(SLEEPER, encoding="utf-8")
    test = tmp_path / "test_tree.py"
    test.write_text(HANGS_OVER_A_TREE.format(folder=str(tmp_path)), encoding="utf-8")
    return inner_pytest.command(tmp_path, *options, str(test))


def _running(pid: int, marker: str) -> bool:
    """Whether ``pid`` is still a running process with ``marker`` in its command line (a
    process that ended is gone from /proc, or a zombie with an empty command line)."""
    try:
        return marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def _gone_soon(pids: list[int], marker: str, seconds: float = 30.0) -> list[int]:
    """Those of ``pids`` still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(_running(pid, marker) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [pid for pid in pids if _running(pid, marker)]


def _pids(tmp_path: Path) -> list[int]:
    return [int((tmp_path / name).read_text()) for name in ("child", "grandchild")]


@linux_only
@pytest.mark.slow
def test_what_a_test_started_ends_when_the_time_limit_ends_its_pytest(tmp_path: Path) -> None:
    marker = str(tmp_path / "sleeper.py")
    command = _pytest_over(tmp_path, "--timeout=20")
    # a process of the same kind that the inner pytest's tests did not start
    bystander = processes.watch(
        subprocess.Popen([sys.executable, marker, str(tmp_path / "bystander")])
    )
    try:
        while not (tmp_path / "bystander").exists():
            assert bystander.poll() is None
            time.sleep(0.01)
        done = processes.run(command, cwd=ROOT, capture_output=True, text=True, timeout=90)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "Timeout" in done.stdout + done.stderr
        assert _gone_soon(_pids(tmp_path), marker) == []
        assert bystander.poll() is None  # left alone
    finally:
        bystander.kill()
        bystander.wait()


@linux_only
@pytest.mark.slow
def test_what_a_test_started_ends_when_its_pytest_is_sigkilled(tmp_path: Path) -> None:
    marker = str(tmp_path / "sleeper.py")
    command = _pytest_over(tmp_path, "--timeout=60")
    with (tmp_path / "output.txt").open("w") as output:
        inner = processes.watch(subprocess.Popen(command, cwd=ROOT, stdout=output, stderr=output))
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "grandchild").exists():
            assert inner.poll() is None, (tmp_path / "output.txt").read_text()
            assert time.monotonic() < deadline, "the sleepers did not start"
            time.sleep(0.05)
        inner.send_signal(signal.SIGKILL)
        assert inner.wait(30) == -signal.SIGKILL
        assert _gone_soon(_pids(tmp_path), marker) == []
    finally:
        inner.kill()
        inner.wait()


def test_run_is_subprocess_run(tmp_path: Path) -> None:
    script = "import sys; print(sys.argv[1]); sys.exit(3)"
    done = processes.run(
        [sys.executable, "-c", script, "hi"], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "hi\n", "")
    with pytest.raises(subprocess.CalledProcessError):
        processes.run([sys.executable, "-c", script, "hi"], capture_output=True, check=True)


@linux_only
def test_run_kills_what_outlasts_its_timeout(tmp_path: Path) -> None:
    marker = str(tmp_path / "sleeper.py")
    (tmp_path / "sleeper.py").write_text(SLEEPER, encoding="utf-8")
    with pytest.raises(subprocess.TimeoutExpired):
        processes.run([sys.executable, marker, str(tmp_path / "pid")], timeout=1)
    running = [int(entry.name) for entry in os.scandir("/proc") if entry.name.isdigit()]
    assert [pid for pid in running if _running(pid, marker)] == []


def test_watch_gives_back_what_it_watches_even_once_it_ended() -> None:
    proc = processes.watch(subprocess.Popen([sys.executable, "-c", "pass"]))
    proc.wait()  # reaped: there is no pidfd to be had, and none is needed
    assert processes.watch(proc) is proc
