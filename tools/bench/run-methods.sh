#!/usr/bin/env bash
# Every first-order method on the heavy top (h = 1e-3, 1 s) and the 100-link chain
# (h = 1e-3, 1 s): Newton iterations per step, wall time per step, failed steps, and the
# final-position error against DIRK54 at h/64. Usage: tools/bench/run-methods.sh [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 "$root/examples/n-link-chain/generate.py" 100 > "$tmp/chain100.mbd"
methods=()
for m in "implicit euler" "crank nicolson" "bdf"; do methods+=(--method "$m"); done
for m in ms ms3 ms4 ss2 ss3 ss4 Bathe msstc3 msstc4 msstc5 mssth3 mssth4 mssth5; do
    for rho in 0 0.6; do methods+=(--method "$m, $rho"); done
done
for m in DIRK33 DIRK43 DIRK54; do methods+=(--method "$m"); done
"$build/bin/mbstep-bench" "${methods[@]}" --step 1e-3 --final-time 1 --reference DIRK54 \
    "$root/examples/heavy-top/heavy-top.mbd" "$tmp/chain100.mbd"
