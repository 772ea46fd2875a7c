#!/usr/bin/env bash
# The Livens scheme's variants (Kinon & Betsch 2024, Fig. 9: computational cost of EML and its
# size-reduced and null-space forms) on the closed-loop four bars, 10 s, at the paper's
# h = 0.1 and at h = 0.01: wall time of `mbstep run` (no progress bar; output files written),
# median of R interleaved repetitions, Newton iterations per step, and the ratios full/variant
# from the same repetitions. Usage: tools/bench/run-eml-variants.sh [BUILD_DIR] [R]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
reps="${2:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
deck="$root/examples/closed-loop-four-bars/deck.mbd"
methods=("eml" "eml, reduced" "eml, null space")
printf '%-8s %-16s %10s %10s %12s\n' h method "it/step" "median s" "full/this"
for h in 0.1 0.01; do
    declare -A times=()
    declare -A iters=()
    for ((r = 0; r < reps; ++r)); do
        for m in "${methods[@]}"; do
            line=$("$build/bin/mbstep" run "$deck" --method "$m" --time-step "$h" -o "$tmp/out" \
                --quiet 2>&1 | tail -1)
            t=$(sed -n 's/.*wall time \([0-9.e+-]*\) s.*/\1/p' <<< "$line")
            it=$(sed -n 's/.*(\([0-9.]*\) per step).*/\1/p' <<< "$line")
            times[$m]+="$t "
            iters[$m]=$it
        done
    done
    median() { tr ' ' '\n' <<< "$1" | sed '/^$/d' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    full=$(median "${times[eml]}")
    for m in "${methods[@]}"; do
        med=$(median "${times[$m]}")
        printf '%-8s %-16s %10s %10s %12.2f\n' "$h" "$m" "${iters[$m]}" "$med" \
            "$(awk -v a="$full" -v b="$med" 'BEGIN {print a / b}')"
    done
    unset times iters
done
