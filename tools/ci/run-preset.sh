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
    # The targets: `tests-<label>` (tests/CMakeLists.txt) of each selected label that has
    # one, and mbstep-cli (what the other tests run).
    targets=(mbstep-cli)
    known=$(cmake --build "$build" --target help)
    while read -r label; do
        if grep -q "^tests-$label:" <<<"$known"; then targets+=("tests-$label"); fi
    done < <(ctest --test-dir "$build" --print-labels | sed -n 's/^  //p' | grep -E "$LABELS" || true)
    cmake --build "$build" -j "$jobs" --target "${targets[@]}"
    ctest --preset "$preset" --test-dir "$build" -j "$jobs" -L "$LABELS" "$@"
else
    cmake --build "$build" -j "$jobs"
    ctest --preset "$preset" --test-dir "$build" -j "$jobs" "$@"
fi
