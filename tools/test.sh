#!/usr/bin/env bash
# Install gdvariant with its test dependencies into .venv and run the whole test suite.
# Engine-backed tests skip (with the reason) when the engines are missing, unless
# GDVARIANT_REQUIRE_ENGINES=1; install them with `sudo bash tools/setup-engines.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q -e '.[test]'
exec .venv/bin/python -m pytest "$@"
