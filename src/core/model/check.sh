#!/usr/bin/env bash
# check.sh — exhaustive spin checks of the work-stealing model (steal.pml, README.md beside it).
#
#   check.sh            the protocol checks: both designs (the spec and src/core's), 2 and 3
#                       workers, several task programs, safety and termination; exit 1 on any
#                       violation or any search that is not complete
#   check.sh --bugs     each injected bug (BUG_*): exit 1 unless every real bug is caught and every
#                       harmless one is shown to be harmless
#   check.sh --reach    reachability probes: exit 1 unless the model exercises every part of the
#                       protocol it claims to (publish, privatize, leapfrog steals, back-offs, ...)
#   check.sh --deep     larger runs (3 workers, bigger programs): 2-3 minutes, up to 1.5 GB a run
#   -j N                runs at once (default 2); -k keeps the work directory; -v prints pan output
#
# Exit 77 (skipped) when spin or a C compiler is missing. Needs about 1.2 GB of memory per run.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=check
jobs=2
keep=0
verbose=0
while [ $# -gt 0 ]; do
    case "$1" in
    --bugs) mode=bugs ;;
    --reach) mode=reach ;;
    --deep) mode=deep ;;
    -j) jobs=$2; shift ;;
    -j*) jobs=${1#-j} ;;
    -k) keep=1 ;;
    -v) verbose=1 ;;
    -h | --help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "check.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done

if ! command -v spin >/dev/null 2>&1; then
    echo "check.sh: spin is not installed (Debian/Ubuntu: apt-get install spin): skipped"
    exit 77
fi
CC=${CC:-cc}
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "check.sh: no C compiler ($CC) to build spin's verifier: skipped"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/merino-model.XXXXXX")
if [ "$keep" = 1 ]; then echo "check.sh: work directory $work"; else trap 'rm -rf "$work"' EXIT; fi

# One run: name, expectation, kind, spin defines.
#   expectation: pass (no violation, complete search) | fail (a violation is found)
#   kind: safety (assertions, invalid end states) | live (LTL <> all roots done, weak fairness)
#         | reach (stop at the first violation: a reachability probe)
# Writes $work/NAME/result: "ok|BAD <name> <what> <states> <seconds>".
run_one() {
    local name=$1 expect=$2 kind=$3 defs=$4
    local dir=$work/$name
    mkdir -p "$dir" && cp "$here/steal.pml" "$dir/" && cd "$dir" || return
    # small state spaces: compiling pan dominates, so -O0; large ones (3 workers): -O1
    local opt=-O0 t0=$SECONDS
    case " $defs " in *" -DWORKERS=3 "*) opt=-O1 ;; esac
    local cflags="$opt -w -DMEMLIM=8000" panflags="-m2000000"
    # the report of unreached code tells which probes a protocol check reached (see below)
    [ "$expect" = pass ] || panflags="$panflags -n"
    case $kind in
    safety | reach) cflags="$cflags -DSAFETY" ;;
    live) defs="$defs -DCHECK_TERMINATION"; cflags="$cflags -DNOREDUCE"; panflags="$panflags -a -f" ;;
    esac
    [ "$kind" = reach ] || cflags="$cflags -DCOLLAPSE"
    # -o3: no statement merging, so that the report of unreached code names every probe
    if ! spin -o3 $defs -a steal.pml >spin.txt 2>&1 </dev/null; then
        echo "BAD $name spin-failed - -" >result; return
    fi
    if ! $CC $cflags -o pan pan.c >cc.txt 2>&1; then
        echo "BAD $name compile-failed - -" >result; return
    fi
    ./pan $panflags >pan.txt 2>&1 </dev/null
    local errors states what secs=$((SECONDS - t0))
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.txt | head -1)
    states=$(awk '/states, stored/ { print $1; exit }' pan.txt)
    # "assertion violated (name&&...)" -> "assertion name" (steal.pml names every property)
    what=$(grep -m1 -E '^pan:[0-9]+:|pan: out of memory|max search depth too small' pan.txt |
        sed 's/ (at depth [0-9]*)//; s/^pan:[0-9]*: //; s/[[:space:]]\+/ /g' |
        sed 's/^assertion violated (\{1,\}\([a-z_]*\)&&.*/assertion \1/; s/^assertion violated !((REACH==\([0-9]*\)))/probe \1 reached/')
    local incomplete=0
    grep -qiE 'max search depth too small|out of memory|search not completed' pan.txt && incomplete=1
    local status=BAD
    if [ -z "$errors" ]; then
        what="no result from pan"
    elif [ "$expect" = pass ] && [ "$errors" = 0 ] && [ "$incomplete" = 0 ]; then
        status=ok; what="no violation"
    elif [ "$expect" = fail ] && [ "$errors" != 0 ]; then
        status=ok
    elif [ "$expect" = fail ]; then
        what="not caught"
    fi
    echo "$status $name ${what:-?} ${states:--} $secs" >result
}

# The job list: one line per run: name expect kind defines...
jobs_check() {
    # the design of the brief ("spec"): shared split, REQUEST, public spawns, CAS privatize
    echo "spec-w2-p1 pass safety -DWORKERS=2 -DPROG=1"
    echo "spec-w2-p1-allpub pass safety -DWORKERS=2 -DPROG=1 -DINIT_SPLIT=4"
    echo "spec-w2-p1-k1 pass safety -DWORKERS=2 -DPROG=1 -DK=1 -DINIT_SPLIT=1"
    echo "spec-w2-p2-tworoots pass safety -DWORKERS=2 -DPROG=2"
    echo "spec-w2-p3-onewrap pass safety -DWORKERS=2 -DPROG=3 -DONE_WRAPPER"
    echo "spec-w2-p4-onewrap pass safety -DWORKERS=2 -DPROG=4 -DONE_WRAPPER"
    echo "spec-w3-p1 pass safety -DWORKERS=3 -DPROG=1"
    echo "spec-w2-p1-terminates pass live -DWORKERS=2 -DPROG=1"
    echo "spec-w2-p3-terminates pass live -DWORKERS=2 -DPROG=3 -DONE_WRAPPER -DINIT_SPLIT=2"
    # the design in src/core: private spawns, requests through split and limit, public mode from
    # the next spawn or join on (publish all, every spawn public) until K public tasks are inlined
    echo "impl-w2-p1 pass safety -DWORKERS=2 -DIMPL -DPROG=1"
    echo "impl-w2-p3-k1 pass safety -DWORKERS=2 -DIMPL -DPROG=3 -DONE_WRAPPER -DK=1"
    echo "impl-w2-p2-tworoots pass safety -DWORKERS=2 -DIMPL -DPROG=2"
    echo "impl-w2-p3-onewrap pass safety -DWORKERS=2 -DIMPL -DPROG=3 -DONE_WRAPPER"
    echo "impl-w2-p4-onewrap pass safety -DWORKERS=2 -DIMPL -DPROG=4 -DONE_WRAPPER"
    echo "impl-w2-allpublic pass safety -DWORKERS=2 -DIMPL -DALL_PUBLIC -DPROG=1"
    echo "impl-w3-p5 pass safety -DWORKERS=3 -DIMPL -DPROG=5"
    echo "impl-w3-p6-onewrap pass safety -DWORKERS=3 -DIMPL -DPROG=6 -DONE_WRAPPER"
    echo "impl-w3-p6-onewrap-k1 pass safety -DWORKERS=3 -DIMPL -DPROG=6 -DONE_WRAPPER -DK=1"
    echo "impl-w2-p4-terminates pass live -DWORKERS=2 -DIMPL -DPROG=4 -DONE_WRAPPER"
    echo "impl-w2-p2-terminates pass live -DWORKERS=2 -DIMPL -DPROG=2"
    echo "impl-w2-p3-terminates pass live -DWORKERS=2 -DIMPL -DPROG=3 -DONE_WRAPPER"
}

# larger runs, not in the default check (minutes each, up to 1.5 GB)
jobs_deep() {
    echo "spec-w3-p1-allpub pass safety -DWORKERS=3 -DPROG=1 -DINIT_SPLIT=4"
    echo "spec-w3-p2-tworoots pass safety -DWORKERS=3 -DPROG=2"
    echo "spec-w3-p3-onewrap pass safety -DWORKERS=3 -DPROG=3 -DONE_WRAPPER"
    echo "spec-w3-p4-onewrap pass safety -DWORKERS=3 -DPROG=4 -DONE_WRAPPER"
    echo "spec-w3-p1-k1 pass safety -DWORKERS=3 -DPROG=1 -DK=1 -DINIT_SPLIT=1"
    echo "impl-w3-p5-terminates pass live -DWORKERS=3 -DIMPL -DPROG=5"
    echo "impl-w3-p5-allpublic pass safety -DWORKERS=3 -DIMPL -DALL_PUBLIC -DPROG=5"
    echo "impl-w3-p0 pass safety -DWORKERS=3 -DIMPL -DPROG=0"
}

jobs_bugs() {
    local S="-DSAFETY_ONLY"
    # spec: safety bugs are caught by the safety assertions alone
    echo "spec-BUG_NO_RECHECK fail safety -DWORKERS=2 -DPROG=1 $S -DBUG_NO_RECHECK"
    echo "spec-BUG_PRIVATE_STEAL fail safety -DWORKERS=2 -DPROG=1 $S -DBUG_PRIVATE_STEAL"
    echo "spec-BUG_PUBLISH_ALL_SPLIT_MID fail safety -DWORKERS=2 -DPROG=1 $S -DBUG_PUBLISH_ALL_SPLIT_MID"
    # spec: privatizing with a store instead of a CAS is safe (3 workers too); it loses requests
    echo "spec-BUG_NO_PRIVATIZE_CAS-is-safe pass safety -DWORKERS=2 -DPROG=3 -DONE_WRAPPER -DBUG_NO_PRIVATIZE_CAS"
    echo "spec-BUG_NO_PRIVATIZE_CAS-is-safe-w3 pass safety -DWORKERS=3 -DPROG=1 -DBUG_NO_PRIVATIZE_CAS"
    echo "spec-BUG_NO_PRIVATIZE_CAS-loses-requests fail safety -DWORKERS=2 -DPROG=1 -DBUG_NO_PRIVATIZE_CAS -DCHECK_LOST_REQUEST"
    echo "spec-CAS-loses-no-request pass safety -DWORKERS=2 -DPROG=3 -DONE_WRAPPER -DCHECK_LOST_REQUEST"
    # a livelock: only the termination check sees it
    echo "spec-BUG_LOST_DONE-livelock fail live -DWORKERS=2 -DPROG=1 -DBUG_LOST_DONE"
    # impl: the same thief bugs (public mode makes the ABA case reachable with 2 workers)
    echo "impl-BUG_NO_RECHECK fail safety -DWORKERS=2 -DIMPL -DPROG=1 $S -DBUG_NO_RECHECK"
    echo "impl-BUG_NO_RECHECK-allpublic fail safety -DWORKERS=2 -DIMPL -DALL_PUBLIC -DPROG=1 $S -DBUG_NO_RECHECK"
    echo "impl-BUG_PRIVATE_STEAL fail safety -DWORKERS=2 -DIMPL -DPROG=1 $S -DBUG_PRIVATE_STEAL"
    echo "impl-BUG_SELF_PUBLISH_NO_SPLIT fail safety -DWORKERS=2 -DIMPL -DPROG=1 $S -DBUG_SELF_PUBLISH_NO_SPLIT"
    # impl: the join of a private task that leaves split (all ones: a request) as it was is safe,
    # and breaks the invariant (private_from stays below the tasks it published)
    echo "impl-BUG_PUBLISH_NO_SPLIT-is-safe pass safety -DWORKERS=2 -DIMPL -DPROG=3 -DONE_WRAPPER $S -DBUG_PUBLISH_NO_SPLIT"
    echo "impl-BUG_PUBLISH_NO_SPLIT-breaks-invariant fail safety -DWORKERS=2 -DIMPL -DPROG=1 -DBUG_PUBLISH_NO_SPLIT"
    # impl: a spawn slow path that publishes only itself is safe (the older private tasks below
    # split go to the join's private branch) but hides them from thieves: bot stays on a private one
    echo "impl-BUG_PUBLISH_ONLY_SELF-is-safe pass safety -DWORKERS=2 -DIMPL -DPROG=3 -DONE_WRAPPER $S -DBUG_PUBLISH_ONLY_SELF"
    echo "impl-BUG_PUBLISH_ONLY_SELF-is-safe-w3 pass safety -DWORKERS=3 -DIMPL -DPROG=6 -DONE_WRAPPER $S -DBUG_PUBLISH_ONLY_SELF"
    echo "impl-BUG_PUBLISH_ONLY_SELF-breaks-invariant fail safety -DWORKERS=2 -DIMPL -DPROG=1 -DBUG_PUBLISH_ONLY_SELF"
    # impl: not lowering split at a public join (fixed in f72ff82) is safe but starves thieves
    echo "impl-BUG_NO_SPLIT_DOWN-is-safe pass safety -DWORKERS=2 -DIMPL -DPROG=4 -DONE_WRAPPER $S -DBUG_NO_SPLIT_DOWN"
    echo "impl-BUG_NO_SPLIT_DOWN-breaks-invariant fail safety -DWORKERS=2 -DIMPL -DPROG=1 -DBUG_NO_SPLIT_DOWN"
    echo "impl-BUG_LOST_DONE-livelock fail live -DWORKERS=2 -DIMPL -DPROG=4 -DONE_WRAPPER -DBUG_LOST_DONE"
}

# probes (steal.pml's HIT(n)) and the configurations that must reach each of them
probe_name() {
    case $1 in
    1) echo "public join inlines (no thief)" ;;
    2) echo "publish makes a PRIVATE task public" ;;
    3) echo "privatize: CAS on split succeeds" ;;
    4) echo "privatize: CAS fails, a request arrived" ;;
    5) echo "a stolen task spawns" ;;
    6) echo "a leapfrogging owner steals from its thief" ;;
    7) echo "a thief backs off (bot moved: the ABA case)" ;;
    8) echo "a join waits for a thief between CAS and STOLEN" ;;
    9) echo "a join takes a task a thief put back" ;;
    10) echo "trip-wire request" ;;
    11) echo "a join's exchange finds DONE" ;;
    12) echo "a thief asks for public tasks" ;;
    13) echo "spawn is public because a request is pending" ;;
    14) echo "a join returns a thief's result" ;;
    15) echo "a spawn publishes itself (the slow path: a request, or public mode)" ;;
    18) echo "a spawn enters public mode (limit 0: a request)" ;;
    19) echo "a spawn in public mode sees a request: public_left renewed" ;;
    20) echo "the join of a private task (a request) enters public mode" ;;
    21) echo "the join of a public task sees a request: enters public mode" ;;
    22) echo "leaving public mode: K public tasks inlined, limit = end" ;;
    23) echo "the join of a public task in public mode sees a request: renewed" ;;
    24) echo "the last public task of a run was long: public_left renewed, no request" ;;
    esac
}
jobs_reach() {
    local p
    for p in $probes_spec; do
        echo "spec-probe$p-a fail reach -DWORKERS=2 -DPROG=1 -DREACH=$p"
        echo "spec-probe$p-b fail reach -DWORKERS=2 -DPROG=1 -DINIT_SPLIT=4 -DREACH=$p"
    done
    for p in $probes_impl; do
        echo "impl-probe$p-a fail reach -DWORKERS=2 -DIMPL -DPROG=4 -DONE_WRAPPER -DREACH=$p"
        echo "impl-probe$p-b fail reach -DWORKERS=3 -DIMPL -DPROG=6 -DONE_WRAPPER -DREACH=$p"
    done
}

# The probes each design must reach, in at least one of its runs (steal.pml's HIT(n); probe_name).
probes_spec="1 2 3 4 5 6 7 8 9 10 11 12 13 14"
probes_impl="1 2 5 6 7 8 9 10 11 12 14 15 18 19 20 21 22 23 24"

case $mode in
check) list=$(jobs_check) ;;
bugs) list=$(jobs_bugs) ;;
deep) list=$(jobs_deep) ;;
reach) list=$(jobs_reach) ;;
esac

echo "check.sh: $mode: $(echo "$list" | wc -l) spin runs, $jobs at a time ($(spin -V | head -1))"
start=$SECONDS
running=0
while read -r name expect kind defs; do
    [ -n "$name" ] || continue
    (run_one "$name" "$expect" "$kind" "$defs") &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
done <<<"$list"
wait

status=0
if [ "$mode" = reach ]; then
    # a probe passes if any of its configurations reaches it
    for design in spec impl; do
        eval "want=\$probes_$design"
        for p in $want; do
            if cat "$work/$design-probe$p"-*/result 2>/dev/null | grep -q '^ok'; then
                printf '  reached  %-5s probe %2s  %s\n' "$design" "$p" "$(probe_name "$p")"
            else
                printf '  MISSED   %-5s probe %2s  %s\n' "$design" "$p" "$(probe_name "$p")"
                status=1
            fi
        done
    done
else
    printf '  %-4s %-45s %12s %6s  %s\n' "" run states secs result
    while read -r name expect kind defs; do
        [ -n "$name" ] || continue
        if [ -f "$work/$name/result" ]; then
            read -r st nm what <<<"$(cat "$work/$name/result")"
            secs=${what##* }; what=${what% *}; states=${what##* }; what=${what% *}
        else
            st=BAD; what="no result"; states=-; secs=-
        fi
        [ "$expect" = fail ] && what="caught: $what"
        [ "$st" = ok ] || status=1
        printf '  %-4s %-45s %12s %6s  %s\n' "$st" "$name" "$states" "$secs" "$what"
        [ "$verbose" = 1 ] && [ -f "$work/$name/pan.txt" ] && sed 's/^/      /' "$work/$name/pan.txt"
    done <<<"$list"
fi
if [ "$mode" = check ]; then
    # Coverage from the protocol runs themselves: pan lists a probe's printf among the unreached
    # statements of a run that never got there; a probe is missed if every run of its design does.
    for design in spec impl; do
        eval "want=\$probes_$design"
        reached=0 total=0 missed=""
        for p in $want; do
            total=$((total + 1))
            hit=0
            for f in "$work"/$design-*/pan.txt; do
                grep -qF "'probe %d\n',$p)" "$f" || { hit=1; break; }
            done
            if [ "$hit" = 1 ]; then reached=$((reached + 1)); else missed="$missed $p"; fi
        done
        printf '  %-4s %s: %d of %d probes reached\n' "$([ -z "$missed" ] && echo ok || echo BAD)" "$design" "$reached" "$total"
        for p in $missed; do
            printf '         missed probe %s: %s\n' "$p" "$(probe_name "$p")"
            status=1
        done
    done
fi
echo "check.sh: $mode: $([ $status = 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
exit $status
