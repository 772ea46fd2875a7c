#!/usr/bin/env bash
# Format check (STYLE.md §1.5, §10): clang-format (Debian's, .clang-format at the top) over every
# tracked C++ file.
#
#   tools/ci/check-format.sh --check [PATH...]   print a diff of what would change and exit 1 if
#                                                anything would; modifies nothing
#   tools/ci/check-format.sh [PATH...]           reformat in place, then `git diff --exit-code`
#                                                on the same files (CI on a clean checkout)
#
# PATHs restrict the check to tracked files under them. CLANG_FORMAT selects the binary.
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"

check=0
if [ "${1:-}" = "--check" ]; then
    check=1
    shift
fi
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null || { echo "check-format: $clang_format not found" >&2; exit 2; }

mapfile -t files < <(git ls-files -- "${@:-.}" | grep -E '\.(cpp|hpp|h|cc|hh|cxx|hxx|inl)$' || true)
if [ ${#files[@]} -eq 0 ]; then
    echo "check-format: no tracked C++ files"
    exit 0
fi

if [ $check -eq 0 ]; then
    printf '%s\0' "${files[@]}" | xargs -0 -P "$(nproc)" -n 16 "$clang_format" -i --style=file
    git diff --exit-code --stat -- "${files[@]}" && echo "check-format: ${#files[@]} files clean"
    exit $?
fi

bad=()
for f in "${files[@]}"; do
    if ! "$clang_format" --style=file "$f" | diff -u --label "a/$f" --label "b/$f" "$f" -; then
        bad+=("$f")
    fi
done
if [ ${#bad[@]} -gt 0 ]; then
    echo "check-format: ${#bad[@]} of ${#files[@]} files need clang-format:" >&2
    printf '  %s\n' "${bad[@]}" >&2
    echo "fix with: tools/ci/check-format.sh ${bad[*]}" >&2
    exit 1
fi
echo "check-format: ${#files[@]} files clean"
