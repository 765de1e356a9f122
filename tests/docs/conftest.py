"""The documentation tests' own fixture: the folder their examples write in."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def example_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder that stands for ``/tmp/`` in the documentation's command examples, so running
    them writes only under this run's temporary folder; one for the session, as an example may
    read what an earlier one wrote (convert a copy, then edit it)."""
    return tmp_path_factory.mktemp("examples-tmp")
