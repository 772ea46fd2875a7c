#!/usr/bin/env bash
# The foundation benchmark: heavy top and the N-link spherical chain (N = 10, 100,
# 1000) with `ms`, h = 1e-3, 1 s, one thread. Usage: tools/bench/run-foundation.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for n in 10 100 1000; do
    python3 "$root/examples/n-link-chain/generate.py" "$n" --method "ms, 0.6" > "$tmp/chain$n.mbd"
done
"$build/bin/mbstep-bench" --method "ms, 0.6" --step 1e-3 --final-time 1 \
    "$root/examples/heavy-top/heavy-top.mbd" "$tmp/chain10.mbd" "$tmp/chain100.mbd" "$tmp/chain1000.mbd"
