#!/usr/bin/env bash
# header_alone.sh — merino_mpi.h includes what it needs: a file that includes it alone (no merino.h
# before it) and calls each of its functions compiles without a warning, in C11 and in C++17
# (-Wall -Wextra -pedantic -Werror; C++ also -Wold-style-cast), with gcc and clang, against the
# MPI the build found (MERINO_MPI_INCLUDES: its include directories, ';'-separated as CMake lists).
# Also in the other order (merino_mpi.h first, then merino.h and merino.hpp) and with <mpi.h>
# included before it.
set -euo pipefail
: "${MERINO_SOURCE_DIR:?set MERINO_SOURCE_DIR to the merino source directory}"

# shellcheck source=tests/compilers.sh
source "$MERINO_SOURCE_DIR/tests/compilers.sh"
need_compilers mpi_header_alone

flags=(-I"$MERINO_SOURCE_DIR/include")
IFS=';' read -r -a dirs <<<"${MERINO_MPI_INCLUDES:-}"
for d in "${dirs[@]}"; do [ -n "$d" ] && flags+=(-I"$d"); done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Every function of merino_mpi.h, with the types it names. In C also MPI_STATUS(ES)_IGNORE, which
# MPICH defines as (MPI_Status *)1 (an old-style cast in C++: MPI's, not merino's).
body='int use_all(MPI_Request *r, MPI_Status *s) {
    if (merino_mpi_init() != MPI_SUCCESS) return 1;
    merino_mpi_lock();
    merino_mpi_unlock();
    int rc = merino_mpi_wait(r, s) + merino_mpi_waitall(1, r, s);
    return rc + merino_mpi_thread_level() + IGNORING;
}'
c_body=${body/IGNORING/merino_mpi_wait(r, MPI_STATUS_IGNORE) + merino_mpi_waitall(1, r, MPI_STATUSES_IGNORE)}
cxx_body=${body/IGNORING/0}
printf '#include <merino_mpi.h>\n%s\n' "$c_body" >"$work/alone.c"
printf '#include <merino_mpi.h>\n%s\n' "$cxx_body" >"$work/alone.cpp"
printf '#include <merino_mpi.h>\n#include <merino.h>\n%s\n' "$c_body" >"$work/then_merino.c"
printf '#include <merino_mpi.h>\n#include <merino.hpp>\n%s\n' "$cxx_body" >"$work/then_merino.cpp"
printf '#include <mpi.h>\n#include <merino_mpi.h>\n%s\n' "$c_body" >"$work/mpi_first.c"

status=0
compile() { # compile COMPILER FILE FLAGS...
    local cc=$1 file=$2
    shift 2
    if ! "$cc" "$@" "${flags[@]}" -c "$work/$file" -o "$work/out.o" 2>"$work/err"; then
        echo "mpi_header_alone: FAILED: $cc $* $file:" >&2
        cat "$work/err" >&2
        status=1
    fi
}
cflags=(-std=c11 -Wall -Wextra -pedantic -Werror)
cxxflags=(-std=c++17 -Wall -Wextra -pedantic -Wold-style-cast -Werror)
for cc in gcc clang; do
    for f in alone.c then_merino.c mpi_first.c; do compile "$cc" "$f" "${cflags[@]}"; done
done
for cxx in g++ clang++; do
    for f in alone.cpp then_merino.cpp; do compile "$cxx" "$f" "${cxxflags[@]}"; done
done
[ $status -eq 0 ] && echo "mpi_header_alone: ok (merino_mpi.h alone, first and after <mpi.h>; C11 and C++17; gcc and clang)"
exit $status
