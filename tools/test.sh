#!/usr/bin/env bash
# Install gdvariant with its test and docs dependencies into .venv and run the whole test suite
# (the docs extra lets tests/docs/test_docs.py build the API reference instead of skipping).
# Engine-backed tests skip (with the reason) when the engines are missing, unless
# GDVARIANT_REQUIRE_ENGINES=1; install them with `sudo bash tools/setup-engines.sh`.
# GDVARIANT_PYTHON=3.12 runs it under that Python instead, in .venv-3.12 (the interpreter is
# found by tools/find-python.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${GDVARIANT_PYTHON:-}" ]; then
    python=$(bash tools/find-python.sh "$GDVARIANT_PYTHON")
    venv=.venv-$GDVARIANT_PYTHON
else
    python=python3
    venv=.venv
fi
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
# Always build the compiled core: GDVARIANT_PURE_PYTHON=1 then only picks the live core for the
# run (the codec tests still compare both), instead of also skipping the build.
env -u GDVARIANT_PURE_PYTHON "$venv/bin/python" -m pip install -q -e '.[test,docs]'
exec "$venv/bin/python" -m pytest "$@"
