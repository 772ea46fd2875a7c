#!/usr/bin/env bash
# Speed of the default path: the N-link chain (N = 1000, 10000) with `ms, 0.6`,
# h = 1e-3, full and modified Newton, and the heavy top at h = 1e-4, one thread; the N = 1000
# chain also at tolerance 1e-4 (where one or two iterations with a reused factorization meet
# it: modified Newton under one floor; docs/PERFORMANCE.md, "Modified Newton on the chain"),
# and `modified, 10, adaptive` at both tolerances; then the peak memory (ru_maxrss) of
# `mbstep run` on the N = 10000 chain over 10 steps.
# Usage: [ORDERING=amd|rcm|...] [FORMULATIONS="cgr;cgr velocity"] tools/bench/run-speed.sh
#        [BUILD_DIR] [CHAIN_FINAL_TIME]
# (ORDERING adds `linear solver: klu, ordering, ORDERING;` to the chain decks; FORMULATIONS runs
# every deck under each of these formulations instead of the decks' own.)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
tf="${2:-0.2}"
tmp="$(mktemp -d)"
forms=()
IFS=';' read -ra names <<< "${FORMULATIONS:-}"
for f in "${names[@]}"; do [ -n "$f" ] && forms+=(--formulation "$f"); done
trap 'rm -rf "$tmp"' EXIT
ordering() {  # the deck with the KLU ordering of $ORDERING, if set
    if [ -n "${ORDERING:-}" ]; then
        sed "s/^\( *\)max iterations: \(.*\);/\1max iterations: \2;\n\1linear solver: klu, ordering, $ORDERING;/"
    else
        cat
    fi
}
modified() {  # the deck with `nonlinear solver: newton raphson, modified, 10[, adaptive];`
    sed "s/^\( *\)max iterations: \(.*\);/\1max iterations: \2;\n\1nonlinear solver: newton raphson, modified, 10${2:-};/" "$1"
}
# Tolerance 1e-8 (the chain's), 1e-6 at N = 10000: the scaled constraint rows' round-off floor
# (~eps |x| / (b0 h), |x| up to 2e4 m) is above 1e-8 there (docs/DESIGN.md, Solver services).
for n in 1000 10000; do
    tol=1e-8
    [ "$n" -ge 10000 ] && tol=1e-6
    python3 "$root/examples/n-link-chain/generate.py" "$n" --method "ms, 0.6" --tolerance "$tol" \
        | ordering > "$tmp/chain$n.mbd"
    modified "$tmp/chain$n.mbd" > "$tmp/chain$n-modified.mbd"
done
modified "$tmp/chain1000.mbd" ", adaptive" > "$tmp/chain1000-adaptive.mbd"
python3 "$root/examples/n-link-chain/generate.py" 1000 --method "ms, 0.6" --tolerance 1e-4 \
    | ordering > "$tmp/chain1000-tol1e-4.mbd"
modified "$tmp/chain1000-tol1e-4.mbd" > "$tmp/chain1000-tol1e-4-modified.mbd"
modified "$tmp/chain1000-tol1e-4.mbd" ", adaptive" > "$tmp/chain1000-tol1e-4-adaptive.mbd"
modified "$root/examples/heavy-top/heavy-top.mbd" > "$tmp/heavy-top-modified.mbd"
"$build/bin/mbstep-bench" "${forms[@]}" --method "ms, 0.6" --step 1e-3 --final-time "$tf" \
    "$tmp/chain1000.mbd" "$tmp/chain1000-modified.mbd" "$tmp/chain1000-adaptive.mbd" \
    "$tmp/chain1000-tol1e-4.mbd" "$tmp/chain1000-tol1e-4-modified.mbd" \
    "$tmp/chain1000-tol1e-4-adaptive.mbd" "$tmp/chain10000.mbd" "$tmp/chain10000-modified.mbd"
"$build/bin/mbstep-bench" "${forms[@]}" --method "ms, 0.6" --step 1e-4 --final-time 1 \
    "$root/examples/heavy-top/heavy-top.mbd" "$tmp/heavy-top-modified.mbd"
/usr/bin/time -f "peak memory (ru_maxrss), chain N = 10000, 10 steps: %M kB" \
    "$build/bin/mbstep" run "$tmp/chain10000.mbd" --final-time 0.01 -q -o "$tmp/out"
