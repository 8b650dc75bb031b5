#!/usr/bin/env bash
# symbols.sh — libmerino_omp.so exports every OpenMP host symbol of the system's libgomp.so.1 with
# the same version (symbols_lib.sh says which symbols: GOMP_*, omp_* and the omp_*_ Fortran
# names; OpenACC and the plugin interface left out), and defines the same version nodes; so that
# a program's every OpenMP call, bound to a versioned name, lands in merino's library. Fails on a
# missing symbol or one under another version, naming each; lists (without failing) OpenMP
# symbols merino exports that this libgomp does not.
#
#   symbols.sh LIBMERINO_OMP PROGRAM    (PROGRAM: any program linked with libgomp, to find it)
#
# Exit 77 (skipped) when LIBMERINO_OMP is not given or not built.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/symbols_lib.sh"
merino=${1:-}
program=${2:?symbols.sh: give a program linked with libgomp}
if [ -z "$merino" ] || [ ! -f "$merino" ]; then
    echo "symbols: SKIPPED: libmerino_omp.so is not built (no merino_omp target in this build)"
    exit 77
fi
gomp=$(system_libgomp "$program")
[ -n "$gomp" ] || { echo "symbols: SKIPPED: $program does not load a libgomp.so.1"; exit 77; }

want=$(omp_exports "$gomp")
have=$(omp_exports "$merino")
fail=0
missing=$(comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$have"))
if [ -n "$missing" ]; then
    fail=1
    echo "symbols: $merino lacks these exports of $gomp:"
    while IFS= read -r s; do
        other=$(grep -E "^${s%%@*}@" <<<"$have" | tr '\n' ' ')
        if [ -n "$other" ]; then echo "    $s   (merino has: $other)"; else echo "    $s"; fi
    done <<<"$missing"
fi
nodes_missing=$(comm -23 <(omp_version_nodes "$gomp") <(omp_version_nodes "$merino"))
if [ -n "$nodes_missing" ]; then
    fail=1
    echo "symbols: $merino lacks these version nodes:" $nodes_missing
fi
extra=$(comm -13 <(printf '%s\n' "$want") <(printf '%s\n' "$have"))
if [ -n "$extra" ]; then
    echo "symbols: (not a failure) OpenMP symbols of $merino that $gomp does not export:"
    printf '    %s\n' $extra
fi
echo "symbols: $gomp: $(printf '%s\n' "$want" | grep -c .) OpenMP symbols; $merino: $(printf '%s\n' "$have" | grep -c .)"
[ $fail = 0 ] && echo "symbols: ok"
exit $fail
