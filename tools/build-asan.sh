#!/usr/bin/env bash
# Build every compiled module (setup.py's list: the codec core, FastLZ, replication's assembler
# and write path, the network frame, the value constructors, the text and JSON cores) with
# AddressSanitizer + UndefinedBehaviorSanitizer into a scratch copy of the package, for fuzzing
# by hand (python -m fuzz.fuzz_cores, python -m fuzz.fuzz_replication --assemblers, from the
# repository's root) or running tests under them. Prints the environment to run with:
# PYTHONPATH puts the sanitized copy of the package ahead of the installed one.
#   bash tools/build-asan.sh /tmp/gdvariant-asan
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/gdvariant-asan}
python=${PYTHON:-.venv/bin/python}
rm -rf "$out" && mkdir -p "$out"
cp -r src/gdvariant "$out/gdvariant"
modules=$(grep -o '"src/gdvariant/[^"]*\.c"' setup.py | sed 's|"src/gdvariant/||; s|\.c"||')
for module in $modules; do
    rm -f "$out/gdvariant/$module".*.so
done
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
for module in $modules; do
    gcc -shared -fPIC -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
        -fno-sanitize-recover=undefined -std=c99 -Wall -Wextra -Wno-unused-parameter \
        -Wno-missing-field-initializers -I"$include" \
        "src/gdvariant/$module.c" -o "$out/gdvariant/$module$suffix"
done
cat <<ENV
built, under $out/gdvariant: $(echo $modules | sed "s|\([^ ]*\)|\1$suffix|g"); run with:
  PYTHONPATH=$out LD_PRELOAD=$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so) \\
  PYTHONMALLOC=malloc ASAN_OPTIONS=detect_leaks=0,allocator_may_return_null=1 ...
ENV
