#!/usr/bin/env bash
# Build the sdist, unpack it alone in a temporary folder, install it there (not editable) with
# its test dependencies, and run its test suite: what a packager does with our release.
# In a git checkout, also fail when a tracked file is missing from the sdist (CI's own files
# aside). Extra arguments go to pytest. Needs `build` (in the dev extra): run from .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python") # absolute, links kept
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Build from a clean copy of the files git knows (tracked or not ignored): a stale
# src/*.egg-info/SOURCES.txt from an editable install would add files MANIFEST.in forgot.
source=.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    source=$work/source
    mkdir "$source"
    git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - | tar -xf - -C "$source"
fi
"$python" -m build --sdist --outdir "$work/dist" "$source" >"$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2
    exit 1
}
sdist=$(ls "$work"/dist/*.tar.gz)
tar -xzf "$sdist" -C "$work"
tree=$(ls -d "$work"/gdvariant-*/)

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    missing=$(git ls-files | grep -v -e '^\.ci/' -e '^\.gitignore$' | while read -r f; do
        [ -e "$tree/$f" ] || echo "$f"
    done)
    if [ -n "$missing" ]; then
        echo "tools/check-sdist.sh: tracked files missing from $(basename "$sdist") (see MANIFEST.in):" >&2
        echo "$missing" >&2
        exit 1
    fi
fi

cd "$tree"
"$python" -m venv .venv
.venv/bin/python -m pip install -q '.[test,docs]'  # docs: tests/docs/test_docs.py builds the reference
echo "testing $(basename "$sdist") unpacked alone in $tree"
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
