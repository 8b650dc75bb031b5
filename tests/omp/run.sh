#!/usr/bin/env bash
# run.sh — runs one program of the OpenMP suite on one runtime, at each thread count and in each
# environment its source asks for, and checks it.
#
#   run.sh --source FILE --runtime NAME [--preload LIB] [--write-ref DIR | --compare DIR] PROGRAM
#
# --runtime NAME   a part of the file name of the runtime the program must really call (libgomp,
#                  libmerino_omp): runtime_check.c, linked into every program, verifies it
# --preload LIB    run with LIB added to LD_PRELOAD
# --write-ref DIR  keep each run's stdout in DIR (the reference: libgomp's runs)
# --compare DIR    require each run's stdout to equal the one kept in DIR
#
# The source's comments say how it runs (lit-style lines, anywhere in the file):
#   omp-run: NAME=VALUE ...   one environment to run in (a line with no NAME=VALUE: the plain one);
#                             none at all: the plain environment only
#   omp-threads: N ...        the values of OMP_NUM_THREADS (default: OMPTEST_THREADS, else 1 2 3 8)
# Every OMP_*, GOMP_* and KMP_* variable of the caller's environment is removed first.
# Each run must exit 0 (the program checks itself) within OMPTEST_TIMEOUT seconds (default 120).
set -u

source_file="" runtime="" preload="" write_ref="" compare=""
while [ $# -gt 1 ]; do
    case "$1" in
        --source) source_file=$2; shift 2 ;;
        --runtime) runtime=$2; shift 2 ;;
        --preload) preload=$2; shift 2 ;;
        --write-ref) write_ref=$2; shift 2 ;;
        --compare) compare=$2; shift 2 ;;
        *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
program=${1:?run.sh: give the program to run}
[ -f "$source_file" ] || { echo "run.sh: --source '$source_file' does not exist" >&2; exit 2; }
[ -x "$program" ] || { echo "run.sh: $program is not an executable (build it first)" >&2; exit 2; }
if [ -n "$preload" ] && [ ! -f "$preload" ]; then
    echo "run.sh: --preload $preload does not exist (build the merino_omp target)" >&2
    exit 2
fi
name=$(basename "$source_file")
timeout_s=${OMPTEST_TIMEOUT:-120}

# The environments: one array element per omp-run line ("" = the plain one).
envs=()
while IFS= read -r line; do
    envs+=("$line")
done < <(sed -nE 's/^.*omp-run:[[:space:]]*(.*)$/\1/p' "$source_file" | sed -E 's/[[:space:]]*(\*\/)?[[:space:]]*$//')
[ ${#envs[@]} -gt 0 ] || envs=("")
threads=$(sed -nE 's/^.*omp-threads:[[:space:]]*([0-9 ]+).*$/\1/p' "$source_file" | head -n 1)
[ -n "$threads" ] || threads=${OMPTEST_THREADS:-1 2 3 8}

for v in $(compgen -e); do
    case "$v" in OMP_* | GOMP_* | KMP_*) unset "$v" ;; esac
done
export OMPTEST_RUNTIME=$runtime
preload_env=${LD_PRELOAD:-}
if [ -n "$preload" ]; then preload_env=${preload_env:+$preload_env:}$preload; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/omptest.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -n "$write_ref" ]; then
    rm -rf "$write_ref"
    mkdir -p "$write_ref"
fi

runs=0 failed=0
for i in "${!envs[@]}"; do
    read -r -a vars <<<"${envs[$i]}"
    for n in $threads; do
        what="$name [${envs[$i]:-plain environment}] OMP_NUM_THREADS=$n"
        ref_name="env$i.t$n.out"
        runs=$((runs + 1))
        # The preload reaches the program only, not timeout and env. (The group's stderr dropped:
        # bash's own "Aborted" line for a program killed by a signal.)
        { timeout -k 5 "$timeout_s" env LD_PRELOAD="$preload_env" OMP_NUM_THREADS="$n" \
            ${vars[@]+"${vars[@]}"} "$program" >"$work/out" 2>"$work/err"; } 2>/dev/null
        rc=$?
        if [ $rc -ne 0 ]; then
            failed=$((failed + 1))
            case $rc in
                124 | 137) echo "FAIL $what: no end after $timeout_s s (killed)" ;;
                13[0-9] | 14[0-9] | 15[0-9]) echo "FAIL $what: killed by signal $((rc - 128)) ($(kill -l $((rc - 128))))" ;;
                *) echo "FAIL $what: exit $rc" ;;
            esac
            # the start and the end of a long stderr: a sanitizer's report comes after the output
            lines=$(wc -l <"$work/err")
            if [ "$lines" -le 60 ]; then
                sed "s/^/    stderr: /" "$work/err"
            else
                sed "s/^/    stderr: /" "$work/err" | head -n 20
                echo "    stderr: [... $((lines - 40)) lines ...]"
                sed "s/^/    stderr: /" "$work/err" | tail -n 20
            fi
            sed 's/^/    stdout: /' "$work/out" | tail -n 10
            continue
        fi
        if [ -n "$write_ref" ]; then
            cp "$work/out" "$write_ref/$ref_name"
        elif [ -n "$compare" ]; then
            if [ ! -f "$compare/$ref_name" ]; then
                failed=$((failed + 1))
                echo "FAIL $what: no reference output $compare/$ref_name (the libgomp test writes it)"
                continue
            fi
            if ! cmp -s "$compare/$ref_name" "$work/out"; then
                failed=$((failed + 1))
                echo "FAIL $what: stdout differs from libgomp's (- libgomp, + this runtime):"
                diff -u "$compare/$ref_name" "$work/out" | tail -n +3 | head -n 40 | sed 's/^/    /'
                continue
            fi
        fi
        if [ -s "$work/err" ]; then  # diagnostics are allowed, but shown
            sed "s/^/    [$n] stderr: /" "$work/err" | head -n 5
        fi
    done
done
echo "$name on $runtime${preload:+ (LD_PRELOAD)}: $((runs - failed)) passed, $failed failed"
[ $failed -eq 0 ]
