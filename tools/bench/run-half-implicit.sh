#!/usr/bin/env bash
# The half-implicit paper's scaling study (Fang, Kissel, Zhang, Negrut 2023, sec. 3.3, Fig. 8):
# `half implicit` (lie group) against the fully implicit `ms, 0.6` and `implicit euler` (cgr) on
# the N-link spherical chain, N = 10, 100, 1000, at the same step h = 1e-3 over 0.2 s: Newton
# iterations and wall time per step, and the final-position error against `ms, 0.6` at h/16.
# Usage: tools/bench/run-half-implicit.sh [BUILD_DIR] [FINAL_TIME]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
tf="${2:-0.2}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
decks=()
for n in 10 100 1000; do
    python3 "$root/examples/n-link-chain/generate.py" "$n" > "$tmp/chain$n.mbd"
    decks+=("$tmp/chain$n.mbd")
done
"$build/bin/mbstep-bench" --method "half implicit" --method "ms, 0.6" --method "implicit euler" \
    --step 1e-3 --final-time "$tf" --reference "ms, 0.6" --reference-divisor 16 "${decks[@]}"
