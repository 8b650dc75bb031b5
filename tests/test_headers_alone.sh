#!/usr/bin/env bash
# Each public header compiles on its own: a file that includes only that header, and uses nothing
# else, compiles without a warning in C11 (the .h headers) and in C++17 (all of them) — from the
# source tree's include/, and from an installed prefix (cmake --install, as a user's build sees
# it). merino_mpi.h is compiled with mpicc and mpicxx, which know where <mpi.h> is; without them it
# is left out (and said so). Needs MERINO_SOURCE_DIR and MERINO_BUILD_DIR (ctest sets both).
set -euo pipefail
: "${MERINO_SOURCE_DIR:?set MERINO_SOURCE_DIR to the merino source directory}"
: "${MERINO_BUILD_DIR:?set MERINO_BUILD_DIR to a merino build directory}"

cc=${CC:-cc}
cxx=${CXX:-c++}
for tool in "$cc" "$cxx" cmake; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "test_headers_alone: skipped: $tool is not installed" >&2
        exit 77
    fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
checked=0

# compile DIR HEADER LANG: a file with only `#include <HEADER>` compiles in LANG (c or c++) with
# -I DIR alone.
compile() {
    local dir=$1 header=$2 lang=$3 compiler flags
    if [ "$lang" = c ]; then
        compiler=$cc
        flags=(-std=c11 -x c)
    else
        compiler=$cxx
        flags=(-std=c++17 -x c++)
    fi
    if [ "$header" = merino_mpi.h ]; then
        compiler=$([ "$lang" = c ] && echo mpicc || echo mpicxx)
        if ! command -v "$compiler" >/dev/null 2>&1; then
            echo "test_headers_alone: $header in $lang left out: $compiler is not installed"
            return
        fi
    fi
    printf '#include <%s>\nint main(void) { return 0; }\n' "$header" > "$work/alone.src"
    if ! "$compiler" "${flags[@]}" -Wall -Wextra -Werror -I "$dir" -c "$work/alone.src" \
            -o "$work/alone.o" 2> "$work/errors"; then
        echo "test_headers_alone: $dir/$header does not compile alone in $lang" \
             "(it must include what it uses):" >&2
        sed 's/^/    /' "$work/errors" | head -n 20 >&2
        fail=1
    fi
    checked=$((checked + 1))
}

# check DIR: every public header of DIR (its .h and .hpp files; merino/internal/ is not public).
check() {
    local dir=$1 path header
    for path in "$dir"/*.h "$dir"/*.hpp; do
        [ -e "$path" ] || continue
        header=$(basename "$path")
        case $header in
        *.h) compile "$dir" "$header" c; compile "$dir" "$header" c++ ;;
        *.hpp) compile "$dir" "$header" c++ ;;
        esac
    done
}

check "$MERINO_SOURCE_DIR/include"

# The installed layout: headers only are needed, but cmake --install puts in everything built.
if ! cmake --install "$MERINO_BUILD_DIR" --prefix "$work/prefix" > "$work/install.log" 2>&1; then
    echo "test_headers_alone: cmake --install $MERINO_BUILD_DIR failed:" >&2
    tail -n 20 "$work/install.log" >&2
    exit 1
fi
installed=$(find "$work/prefix" -name merino.h -path '*/include/*' | head -n 1)
if [ -z "$installed" ]; then
    echo "test_headers_alone: no include/merino.h under the installed prefix $work/prefix" >&2
    exit 1
fi
check "$(dirname "$installed")"

echo "test_headers_alone: $checked compilations"
if [ "$checked" -eq 0 ]; then
    echo "test_headers_alone: no header found under $MERINO_SOURCE_DIR/include" >&2
    exit 1
fi
exit $fail
