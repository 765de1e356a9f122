"""The rooms tests' fixtures: one redis-server for the session (each test in a namespace of
its own), and ``directory``, which runs a test once on the embedded directory and once on
Redis."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from gdvariant.rooms import Directory, MemoryDirectory
from tests.support.redis_server import find_redis, redis_required, redis_server
from tests.support.rooms import TEST_TTL, DirectoryMaker


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of this session's own redis-server (skipped, or failed in CI, without it)."""
    program, why = find_redis()
    if program is None:
        if redis_required():
            pytest.fail(f"GDVARIANT_REQUIRE_REDIS is set but {why}")
        pytest.skip(why)
    pytest.importorskip("redis", reason="the rooms extra (redis) is missing")
    with redis_server(program, tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
def make_directory(request: pytest.FixtureRequest) -> Iterator[DirectoryMaker]:
    """Makes directories of one kind, all sharing one store (as the processes of one
    deployment do): ``make(ttl=...)``. Redis ones get this test's own namespace."""
    if request.param == "memory":
        shared: list[MemoryDirectory] = []

        def memory(ttl: float = TEST_TTL) -> Directory:
            if not shared:
                shared.append(MemoryDirectory(ttl=ttl))
            return shared[0]

        yield memory
        return
    url = request.getfixturevalue("redis_url")
    from gdvariant.rooms.redis import RedisDirectory

    namespace = "t" + secrets.token_hex(6)

    def on_redis(ttl: float = TEST_TTL) -> Directory:
        return RedisDirectory.from_url(url, namespace=namespace, ttl=ttl)

    yield on_redis
