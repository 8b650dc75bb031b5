#!/usr/bin/env bash
# The shared library exports merino's API and nothing else: every defined dynamic symbol of
# libmerino.so (nm -D) is merino_* (the API) or merino__* (internals the inline code of the public
# headers calls, each named in include/), apart from the linker's own _init, _fini, _edata, _end
# and __bss_start; every function merino.h marks MERINO_API is exported, and named in docs/. The same for the
# profiled variant, libmerino_prof.so, which also exports what merino_prof.h marks MERINO_PROF_API
# and merino/internal/prof.h MERINO__PROF_API. And libmerino_mpi.so needs no hidden symbol.
# Needs MERINO_BUILD_DIR (the build tree) and MERINO_SOURCE_DIR (ctest sets both).
set -euo pipefail
: "${MERINO_BUILD_DIR:?set MERINO_BUILD_DIR to a merino build directory}"
: "${MERINO_SOURCE_DIR:?set MERINO_SOURCE_DIR to the merino source directory}"

fail=0

# check NAME TARGET MARKS: the checks above for NAME.so, whose API is what MARKS (a regex) mark.
check() {
    local name=$1 target=$2 marks=$3 lib symbols bad api
    lib=$(find "$MERINO_BUILD_DIR" -maxdepth 2 -name "$name.so*" -type f | head -n 1)
    if [ -z "$lib" ]; then
        echo "test_symbols: no $name.so under $MERINO_BUILD_DIR (build the $target target)" >&2
        exit 1
    fi
    echo "test_symbols: $lib"

    # Defined dynamic symbols, one name a line (versions such as @@X stripped).
    symbols=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | sort -u)
    if [ -z "$symbols" ]; then
        echo "test_symbols: nm -D lists no defined symbol in $lib" >&2
        exit 1
    fi

    bad=$(printf '%s\n' "$symbols" | grep -Ev '^(merino_[A-Za-z0-9_]+|_init|_fini|_edata|_end|__bss_start)$' || true)
    if [ -n "$bad" ]; then
        echo "test_symbols: $lib exports symbols outside merino's API (hide them: the library is built" >&2
        echo "with -fvisibility=hidden; only MERINO_API declarations are exported):" >&2
        printf '    %s\n' $bad >&2
        fail=1
    fi

    # Each merino__* export is there for the headers' inline code: it must be named in include/.
    for s in $(printf '%s\n' "$symbols" | grep '^merino__' || true); do
        if ! grep -rqw -- "$s" "$MERINO_SOURCE_DIR/include"; then
            echo "test_symbols: $s is exported but no public header uses it: hide it (mrn_ prefix)" >&2
            fail=1
        fi
    done

    # And the other way: every function merino.h declares with MERINO_API is exported.
    api=$(grep -rhE "$marks" "$MERINO_SOURCE_DIR/include" | sed -E 's/__attribute__\(\([^)]*\)\)//g' |
          grep -oE "^($marks)[^;(]*\\bmerino_[A-Za-z0-9_]+\\(" | grep -oE 'merino_[A-Za-z0-9_]+\($' |
          tr -d '(' | sort -u)
    if [ -z "$api" ]; then
        echo "test_symbols: found no MERINO_API function in $MERINO_SOURCE_DIR/include" >&2
        exit 1
    fi
    for f in $api; do
        if ! grep -qx -- "$f" <<<"$symbols"; then  # no pipe: grep -q may exit before printf writes (pipefail)
            echo "test_symbols: $f is declared MERINO_API but $lib does not export it" >&2
            fail=1
        fi
    done
    # Every API function (merino_*, not the merino__* internals) is in the reference (docs/api.md
    # or a layer's page in docs/; docs/notes/ is history, not reference).
    for f in $(printf '%s\n' $api | grep -v '^merino__' || true); do
        if ! grep -rqw --exclude-dir=notes -- "$f" "$MERINO_SOURCE_DIR/docs"; then
            echo "test_symbols: $f is public but no page of docs/ names it: document it (docs/api.md)" >&2
            fail=1
        fi
    done
    echo "test_symbols: $lib: $(printf '%s\n' "$symbols" | wc -l) symbols, $(printf '%s\n' $api | wc -l) API functions"
}

check libmerino merino_shared 'MERINO_API'
check libmerino_prof merino_prof_shared 'MERINO_API|MERINO_PROF_API|MERINO__PROF_API'

# A layer built as a library of its own (libmerino_mpi.so, when an MPI was found) links against
# libmerino.so, so it may only use what that exports: no undefined mrn_* symbol (those are hidden,
# and the library would fail to load).
mpi=$(find "$MERINO_BUILD_DIR" -maxdepth 3 -name 'libmerino_mpi.so*' -type f | head -n 1)
if [ -n "$mpi" ]; then
    hidden=$(nm -D --undefined-only "$mpi" | awk '{ sub(/@.*/, "", $2); print $2 }' | grep -E '^(mrn|MRN)_' || true)
    if [ -n "$hidden" ]; then
        echo "test_symbols: $mpi uses symbols libmerino.so hides (export them as merino__* through" >&2
        echo "include/merino/internal/layer.h, or keep them out of the layer):" >&2
        printf '    %s\n' $hidden >&2
        fail=1
    else
        echo "test_symbols: $mpi: uses only exported symbols"
    fi
fi
[ "$fail" = 0 ] && echo "test_symbols: ok"
exit "$fail"
