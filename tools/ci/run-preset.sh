#!/usr/bin/env bash
# Configure, build and test one CMakePresets.json preset (STYLE.md §10: every preset builds
# and runs ctest):
#
#   tools/ci/run-preset.sh PRESET [BUILD_DIR] [-- CTEST_ARGS...]
#
# PRESET is dev, asan-ubsan, tsan or release; BUILD_DIR defaults to the preset's
# build-<preset>/. The sanitizer presets take their options and the suppression files
# (tools/ci/{lsan,ubsan,tsan}.supp) from the test preset's environment. JOBS sets the build
# and test parallelism (default: nproc). LABELS (a ctest label regex, e.g. 'unit|element')
# builds only what the tests of those labels run (their executables and `mbstep-cli`, the
# command-line tool with every plugin) and runs only them.
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
preset=${1:?usage: tools/ci/run-preset.sh PRESET [BUILD_DIR] [-- CTEST_ARGS...]}
shift
build="$root/build-$preset"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    build=$1
    shift
fi
[ "${1:-}" = "--" ] && shift
jobs=${JOBS:-$(nproc)}

cd "$root"
cmake --preset "$preset" -B "$build"
if [ -n "${LABELS:-}" ]; then
    # The targets: each selected test's executable (a target of the same name) and mbstep-cli.
    mapfile -t targets < <(ctest --test-dir "$build" -N -L "$LABELS" --show-only=json-v1 |
        python3 -c '
import json, os, sys
names = {os.path.basename(t["command"][0]) for t in json.load(sys.stdin)["tests"] if t.get("command")}
print("\n".join(sorted(n for n in names if n not in ("cmake", "python3", "sh", "bash"))))
')
    cmake --build "$build" -j "$jobs" --target mbstep-cli "${targets[@]}"
    ctest --preset "$preset" --test-dir "$build" -j "$jobs" -L "$LABELS" "$@"
else
    cmake --build "$build" -j "$jobs"
    ctest --preset "$preset" --test-dir "$build" -j "$jobs" "$@"
fi
