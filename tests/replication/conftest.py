"""The replication tests' own fixture: the packet assembler a test runs on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.assemblers import ASSEMBLERS, live


@pytest.fixture(params=ASSEMBLERS)
def assembler(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run the test on each packet assembler in turn (pure, then compiled: skipped, or a
    failure when it is required, if it is not built), the live one while it runs; the
    assembler also commits the ticks. A module takes it for every test with ``pytestmark =
    pytest.mark.usefixtures("assembler")``."""
    with live(request.param):
        yield request.param
