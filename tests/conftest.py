"""Fixtures every test folder shares: the codec cores (``impl``), the real engines, each
skipped with a reason when absent (and required in CI by an environment switch), and an
optional package made to look uninstalled; and the guard that fails a run which turned a
system device node such as ``/dev/null`` into something else. A folder's own fixtures are in
its own conftest.py."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

import gdvariant as gd
from gdvariant._binary import core as _core
from gdvariant._files import fastlz as _fastlz
from tests.support import system_paths
from tests.support.cores import CORES, core, fastlz
from tests.support.engines import Engine, engines_required, find_engine


@pytest.fixture(scope="module", params=CORES)
def impl(request: pytest.FixtureRequest) -> Iterator[ModuleType]:
    """Run the test on each codec core in turn: the public API uses ``request.param``'s core
    (and the FastLZ of the same name, for the save files).

    Codec test modules take it for every test with ``pytestmark =
    pytest.mark.usefixtures("impl")``. Module scope: the tests of a module run on one core,
    then the other, and hypothesis accepts it (it refuses function-scoped fixtures).
    """
    module = core(request.param)
    fastlz(request.param)
    with _core.use(request.param), _fastlz.use(request.param):
        yield module


def _engine(name: str) -> Engine:
    engine, why = find_engine(name)
    if engine is None:
        if engines_required():
            pytest.fail(f"GDVARIANT_REQUIRE_ENGINES is set but {why}")
        pytest.skip(why)
    return engine


@pytest.fixture(scope="session")
def godot4() -> Engine:
    """Godot 4.6 headless (sid chroot)."""
    return _engine("4.6")


@pytest.fixture(scope="session", params=["3.6", "3.2"])
def godot3(request: pytest.FixtureRequest) -> Engine:
    """Godot 3.6 (sid chroot) and Godot 3.2.3 (host), one test run each."""
    return _engine(request.param)


@pytest.fixture(scope="session")
def godot36() -> Engine:
    """Godot 3.6 headless (sid chroot)."""
    return _engine("3.6")


@pytest.fixture
def hide_package(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """Make ``import package`` (and its submodules) fail, as with a plain install."""

    def hide(package: str) -> None:
        for name in [m for m in sys.modules if m.split(".")[0] == package]:
            monkeypatch.setitem(sys.modules, name, None)
        monkeypatch.setitem(sys.modules, package, None)

    return hide


@pytest.fixture(params=[("cryptography", "crypto"), ("zstandard", "zstd")], ids=lambda p: p[0])
def save_without_its_package(
    request: pytest.FixtureRequest, tmp_path: Path, hide_package: Callable[[str], None]
) -> tuple[Path, str, str]:
    """(path, package, extra): an encrypted (password "secret") or Zstd save whose package is
    then made to look uninstalled."""
    package, extra = request.param
    path = tmp_path / "needs.sav"
    if extra == "crypto":
        gd.write_save(path, [1], password="secret")
    else:
        gd.write_save(path, [1], compression=gd.Compression.ZSTD)
    hide_package(package)
    return path, package, extra


# ---------------------------------------------------------------- the machine stays as it was

_DEVICES = pytest.StashKey[system_paths.Snapshot]()
_CULPRIT = pytest.StashKey[str]()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_DEVICES] = system_paths.snapshot()


@pytest.fixture(autouse=True)
def _first_harmful_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Remember the first test after which a system device node changed, for the message."""
    yield
    stash = request.config.stash
    if _CULPRIT not in stash and system_paths.snapshot() != stash.get(_DEVICES, None):
        stash[_CULPRIT] = request.node.nodeid


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if it harmed the machine: a system device node that is no longer one
    (tests/support/system_paths.py has the rule)."""
    problems = system_paths.damage(session.config.stash.get(_DEVICES, {}))
    if not problems:
        return
    culprit = session.config.stash.get(_CULPRIT, None)
    where = f" (first seen after {culprit})" if culprit else ""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"the test run harmed the machine{where}: " + "; ".join(problems))
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
