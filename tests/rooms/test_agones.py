"""The Agones hooks against a stand-in of the SDK's REST sidecar: the real paths (``POST
/ready``, ``/health``, ``/allocate``, ``/shutdown``, body ``{}``, as Agones' REST guide lists
them), the port from ``AGONES_SDK_HTTP_PORT``, a sidecar that starts late, and one that
refuses."""

from __future__ import annotations

import asyncio

import pytest

from tests.support.agones_sidecar import Sidecar
from tests.support.multiplayer_serving import run
from tests.support.rooms import eventually

agones = pytest.importorskip("gdvariant.rooms.agones", reason="the rooms extra is missing")


def test_the_calls_go_to_the_sidecars_paths() -> None:
    async def main() -> None:
        async with Sidecar() as sidecar:
            hooks = agones.AgonesHooks(sidecar.url)
            await hooks.ready()
            await hooks.health()
            await hooks.allocate()
            await hooks.shutdown()
            assert sidecar.calls == [
                ("POST", "/ready", b"{}"),
                ("POST", "/health", b"{}"),
                ("POST", "/allocate", b"{}"),
                ("POST", "/shutdown", b"{}"),
            ]
            assert hooks.allocated

    run(main())


def test_the_port_comes_from_agones_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGONES_SDK_HTTP_PORT", "19358")
    hooks = agones.AgonesHooks()
    assert (hooks.host, hooks.port) == ("localhost", 19358)
    monkeypatch.delenv("AGONES_SDK_HTTP_PORT")
    assert agones.AgonesHooks().port == agones.DEFAULT_PORT == 9358


def test_a_sidecar_that_starts_late_is_waited_for() -> None:
    async def main() -> None:
        async with Sidecar() as probe:
            port = probe.port  # a port that was free: nothing listens there now
        hooks = agones.AgonesHooks(f"http://127.0.0.1:{port}", patience=30.0)
        ready = asyncio.create_task(hooks.ready())
        await asyncio.sleep(0.3)  # a refused try or more first
        assert not ready.done()
        async with Sidecar(port) as sidecar:
            await asyncio.wait_for(ready, 30.0)
            assert sidecar.paths() == ["/ready"]

    run(main())


def test_a_refusing_or_absent_sidecar_is_an_agones_error() -> None:
    async def main() -> None:
        async with Sidecar() as sidecar:
            sidecar.status = 500
            with pytest.raises(agones.AgonesError, match="answered 500"):
                await agones.AgonesHooks(sidecar.url).ready()
        with pytest.raises(agones.AgonesError, match="did not answer"):
            await agones.AgonesHooks(sidecar.url, patience=0.0).ready()

    run(main())


def test_watch_pings_health_and_allocates_once_busy() -> None:
    async def main() -> None:
        busy = False
        async with Sidecar() as sidecar:
            hooks = agones.AgonesHooks(sidecar.url, health_interval=0.01)
            watcher = asyncio.create_task(hooks.watch(lambda: busy))

            async def pinged() -> bool:
                return sidecar.paths().count("/health") >= 2

            await eventually(pinged, "health pings")
            assert "/allocate" not in sidecar.paths()
            busy = True

            async def allocated() -> bool:
                return sidecar.paths().count("/health") >= 4 and hooks.allocated

            await eventually(allocated, "allocated once busy")
            watcher.cancel()
            assert sidecar.paths().count("/allocate") == 1

    run(main())


@pytest.mark.parametrize("url", ["https://localhost:9358", "localhost:9358", "http://"])
def test_a_bad_url_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match="reached at http://host:port"):
        agones.AgonesHooks(url)
