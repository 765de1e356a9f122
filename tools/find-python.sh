#!/usr/bin/env bash
# Print the path of a Python interpreter of the given version (e.g. `tools/find-python.sh 3.12`),
# for running the test suite on every supported Python. Looks, in order, in pyenv's builds
# ($PYENV_ROOT, ~/.pyenv), on PATH, in /usr/bin and /usr/local/bin, then installs Debian's
# pythonX.Y package when apt has one (bookworm has only 3.11). Fails with the reason otherwise.
set -euo pipefail
version=${1:?usage: tools/find-python.sh X.Y (e.g. 3.12)}

# Echo "$1" and succeed when it runs and reports the wanted version (a pyenv shim for a
# version pyenv lacks fails here, so it is skipped).
works() {
    [ -x "$1" ] && [ "$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$version" ] &&
        "$1" -c 'import venv, ensurepip' 2>/dev/null && echo "$1"
}

for root in "${PYENV_ROOT:-}" "$HOME/.pyenv"; do
    [ -n "$root" ] && [ -d "$root/versions" ] || continue
    # The newest patch release first: 3.12.10 after 3.12.9.
    for dir in $(ls -d "$root/versions/$version".* 2>/dev/null | sort -t. -k3,3nr); do
        works "$dir/bin/python$version" && exit 0
    done
done
for candidate in "$(command -v "python$version" || true)" "/usr/bin/python$version" "/usr/local/bin/python$version"; do
    [ -n "$candidate" ] && works "$candidate" && exit 0
done
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    if apt-cache show "python$version-venv" >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null 2>&1 && apt-cache show "python$version-venv" >/dev/null 2>&1; }; then
        echo "installing Debian's python$version" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python$version" "python$version-venv" >&2
        works "/usr/bin/python$version" && exit 0
    fi
fi
cat >&2 <<EOF
tools/find-python.sh: no Python $version found: looked in pyenv (${PYENV_ROOT:-~/.pyenv}/versions/$version.*),
on PATH and in /usr/bin and /usr/local/bin for python$version, and Debian has no python$version package here.
Install one (e.g. \`pyenv install $version\` or your distribution's python$version with its venv module).
EOF
exit 1
