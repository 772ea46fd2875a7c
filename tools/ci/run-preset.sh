#!/usr/bin/env bash
# Configure, build and test one CMakePresets.json preset (STYLE.md §10: every preset builds
# and runs ctest):
#
#   tools/ci/run-preset.sh PRESET [BUILD_DIR] [-- CTEST_ARGS...]
#
# PRESET is dev, asan-ubsan, tsan or release; BUILD_DIR defaults to the preset's
# build-<preset>/. The sanitizer presets take their options and the suppression files
# (tools/ci/{lsan,ubsan,tsan}.supp) from the test preset's environment. JOBS sets the build
# and test parallelism (default: nproc).
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
cmake --build "$build" -j "$jobs"
ctest --preset "$preset" --test-dir "$build" -j "$jobs" "$@"
