#!/usr/bin/env bash
# clang-tidy with the small enforced set of .clang-tidy (STYLE.md §10) over the project's
# translation units of a configured build (every CMakePresets.json preset writes
# compile_commands.json):
#
#   tools/ci/check-tidy.sh BUILD_DIR [FILE_REGEX]
#
# FILE_REGEX (default: every C++ source of core/, plugins/, elements/, tools/, tests/,
# examples/) selects translation units. Exits non-zero on any finding.
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
build=${1:?usage: tools/ci/check-tidy.sh BUILD_DIR [FILE_REGEX]}
regex=${2:-"$root/(core|plugins|elements|tools|tests|examples)/.*\.cpp$"}
if [ ! -f "$build/compile_commands.json" ]; then
    echo "check-tidy: $build/compile_commands.json missing; configure with a preset" \
         "(cmake --preset dev) or -DCMAKE_EXPORT_COMPILE_COMMANDS=ON" >&2
    exit 2
fi
runner=$(command -v run-clang-tidy || command -v run-clang-tidy-14 || true)
[ -n "$runner" ] || { echo "check-tidy: run-clang-tidy not found (Debian: clang-tidy)" >&2; exit 2; }
exec "$runner" -p "$build" -quiet -j "$(nproc)" "$regex"
