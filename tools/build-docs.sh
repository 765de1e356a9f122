#!/usr/bin/env bash
# Build the documentation (docs/: the guides, the recipes and the API reference generated from
# the docstrings) into build/docs/, or the folder given, with every Sphinx warning an error.
# Needs the docs extra (in dev): `.venv/bin/pip install -e '.[docs]'`. Open
# build/docs/index.html to read it.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
out=${1:-build/docs}
# -E: read every page again, so a warning is never hidden by an earlier build's cache.
"$python" -m sphinx -E -W --keep-going -q -b html -d "$out/.doctrees" docs "$out"
echo "tools/build-docs.sh: built $out/index.html"
