#!/usr/bin/env bash
# test_model.sh — the spin model of the work-stealing protocol (src/core/model): the protocol
# checks (which include the reachability of every probe) and the injected bugs that must be
# caught. Exit 77 (ctest's SKIP_RETURN_CODE) when spin or a C compiler is not installed.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
check=$root/src/core/model/check.sh
status=0
for mode in "" --bugs; do
    bash "$check" $mode
    rc=$?
    [ "$rc" = 77 ] && exit 77
    [ "$rc" = 0 ] || status=1
done
exit $status
