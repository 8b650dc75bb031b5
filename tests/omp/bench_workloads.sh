#!/usr/bin/env bash
# bench_workloads.sh — the benchmarks' OpenMP versions (bench's <w>-omp.c, built by gcc against
# libgomp as <w>-omp-gcc) run unmodified on another OpenMP runtime by LD_PRELOAD, at bench/run's
# --quick sizes and 1, 2, 3 and 8 workers; each run must exit 0 and report "check": "ok" (the
# program verifies its own result against a serial computation).
#
#   bench_workloads.sh --lib LIB --build-dir DIR --source-dir DIR WORKLOAD...
#
# The sizes come from `bench/run --quick --list`, the one place that holds them, but idle's: bench/run
# runs idle as an experiment of its own (multiprog.py), so its quick size is here. Exit 77
# (skipped) when no <w>-omp-gcc program is built (no gcc with OpenMP, or no benchmarks built).
set -u
lib="" build="" src=""
while [ $# -gt 0 ]; do
    case "$1" in
        --lib) lib=$2; shift 2 ;;
        --build-dir) build=$2; shift 2 ;;
        --source-dir) src=$2; shift 2 ;;
        *) break ;;
    esac
done
[ -f "$lib" ] || { echo "bench_workloads: --lib '$lib' does not exist (build it first)"; exit 2; }
[ $# -gt 0 ] || { echo "bench_workloads: no workload given"; exit 2; }
workers=${OMPTEST_BENCH_WORKERS:-1 2 3 8}

declare -A exe
for w in "$@"; do
    e=$(find "$build/bench" -type f -name "$w-omp-gcc" -perm -u+x 2>/dev/null | head -n 1)
    [ -n "$e" ] && exe[$w]=$e
done
if [ ${#exe[@]} -eq 0 ]; then
    echo "bench_workloads: SKIPPED: no <workload>-omp-gcc program under $build/bench (benchmarks not built, or no gcc OpenMP)"
    exit 77
fi

declare -A own_sizes=([idle]="1000 10 0.2 1") # period_us region_us seconds tasks

only=$(IFS=,; echo "${!exe[*]}")
plan=$(python3 "$src/bench/run" --quick --list --no-build --no-install --build-dir "$build" \
           --systems omp-gcc --workers 1,2 --only "$only" 2>&1)
runs=0 failed=0
for w in $(printf '%s\n' "${!exe[@]}" | sort); do
    # a plan line: "<w> <params>  omp-gcc w=<n>" (steal runs at 2 workers only)
    sizes=${own_sizes[$w]:-$(sed -nE "s/^$w (.*[^ ]) +omp-gcc w=[0-9]+\$/\\1/p" <<<"$plan" | sort -u)}
    if [ -z "$sizes" ]; then
        echo "FAIL $w: bench/run --quick --list gives no omp-gcc size for it; its output was:"
        sed 's/^/    /' <<<"$plan" | head -n 20
        failed=$((failed + 1))
        continue
    fi
    if ! LD_PRELOAD=$lib ldd "${exe[$w]}" | grep -qF "$(basename "$lib")"; then
        echo "FAIL $w: $(basename "$lib") is not loaded under LD_PRELOAD"
        failed=$((failed + 1))
        continue
    fi
    while IFS= read -r params; do
        for n in $workers; do
            runs=$((runs + 1))
            # shellcheck disable=SC2086  # the params are words
            # (the preload reaches the program only, not timeout)
            out=$(cd "$build" && OMP_NUM_THREADS=$n timeout -k 5 120 \
                  env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$lib" "${exe[$w]}" --workers "$n" $params 2>&1)
            rc=$?
            if [ $rc -ne 0 ] || ! grep -q '"check": "ok"' <<<"$out"; then
                failed=$((failed + 1))
                echo "FAIL $w $params --workers $n: exit $rc"
                sed 's/^/    /' <<<"$out" | head -n 20
            fi
        done
    done <<<"$sizes"
done
echo "bench_workloads on $(basename "$lib"): $((runs - failed)) runs passed, $failed failed"
[ $failed -eq 0 ]
