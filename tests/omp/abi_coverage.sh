#!/usr/bin/env bash
# abi_coverage.sh — the OpenMP suite calls every host entry point of libgomp: the union of what
# the suite's programs import (nm -u, with versions) must hold every OpenMP symbol the system's
# libgomp.so.1 exports (symbols_lib.sh says which), but those listed below with the reason no
# program calls them. A listed symbol that a program does call is reported too (the list is out
# of date). So an entry point libmerino_omp.so must provide is an entry point the suite runs.
#
#   abi_coverage.sh PROGRAM...     (the suite's programs linked with libgomp)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/symbols_lib.sh"
[ $# -gt 0 ] || { echo "abi_coverage: give the suite's programs" >&2; exit 2; }
lib=$(system_libgomp "$1")
[ -n "$lib" ] || { echo "abi_coverage: SKIPPED: $1 does not load a libgomp.so.1"; exit 77; }

# Not called by any program of the suite, and why.
not_called='
GOMP_offload_register        a device image registers itself (gcc -foffload); no device here
GOMP_offload_register_ver    the same
GOMP_offload_unregister      the same
GOMP_offload_unregister_ver  the same
'
excluded=$(awk 'NF { print $1 }' <<<"$not_called" | sort -u)

# name@version (one @), for both the exports and the references
exports=$(omp_exports "$lib" | sed 's/@@/@/' | sort -u)
called=$(for p in "$@"; do nm -u "$p"; done | awk '{ print $2 }' | grep -E '^(GOMP_|omp_)' | sed 's/@@/@/' | sort -u)

missing=$(comm -23 <(printf '%s\n' "$exports") <(printf '%s\n' "$called") |
          while IFS= read -r s; do grep -qx -- "${s%%@*}" <<<"$excluded" || echo "$s"; done)
stale=$(while IFS= read -r s; do
            [ -n "$s" ] && grep -q -- "^$s@" <<<"$called" && echo "$s"
        done <<<"$excluded")
n_exports=$(printf '%s\n' "$exports" | grep -c .)
n_called=$(comm -12 <(printf '%s\n' "$exports") <(printf '%s\n' "$called") | grep -c .)
echo "abi_coverage: $lib exports $n_exports OpenMP symbols; the suite's $# programs call $n_called of them"
fail=0
if [ -n "$missing" ]; then
    echo "abi_coverage: no program of tests/omp calls these (add a call, or list it in abi_coverage.sh with the reason):"
    printf '    %s\n' $missing
    fail=1
fi
if [ -n "$stale" ]; then
    echo "abi_coverage: listed as not called, but a program calls them (take them off the list):"
    printf '    %s\n' $stale
    fail=1
fi
[ $fail = 0 ] && echo "abi_coverage: ok"
exit $fail
