#!/usr/bin/env bash
# Misuse of the task macros stops the compilation with an error that says what to do. Each case
# below is a small program that must fail to compile, under gcc and clang (C11) and g++ and
# clang++ (C++17), with the expected words in the compiler's output:
#   arguments or a result that do not fit the 112-byte payload   "do not fit"
#   an argument aligned to more than 16 bytes                    "more than 16-byte alignment"
#   an arity past 14 (MERINO_TASK_15, ...)                       "at most 14"
#   MERINO_SPAWN, MERINO_CALL, MERINO_JOIN outside a task body   "inside_a_task_body"
#   a 0-argument task spawned with arguments                     "too many arguments" (clang++:
#                                                                "N arguments were provided")
# A control program, the same tasks used rightly, must compile cleanly with each compiler.
# Needs gcc, g++, clang, clang++ (scripts/install-deps.sh) and MERINO_SOURCE_DIR.
set -euo pipefail
: "${MERINO_SOURCE_DIR:?set MERINO_SOURCE_DIR to the merino source directory}"
include="$MERINO_SOURCE_DIR/include"

# shellcheck source=tests/compilers.sh
source "$MERINO_SOURCE_DIR/tests/compilers.sh"
need_compilers test_compile_errors

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

prelude='#include <merino.h>
typedef struct big { char b[120]; } big;
typedef struct aligned32 { char c; } __attribute__((aligned(32))) aligned32;
MERINO_TASK_1(int, one, int, x) { return x; }
MERINO_TASK_0(int, none) { return 1; }'

# case NAME EXPECTED CODE: CODE (after the prelude) must fail, with EXPECTED (an extended regular
# expression) in the output.
names=()
declare -A expected code
case_() {
    names+=("$1")
    expected[$1]=$2
    code[$1]=$3
}
case_ control "" \
    'MERINO_TASK_1(int, uses, int, n) { MERINO_SPAWN(none); MERINO_SPAWN(one, n); int a = MERINO_CALL(one, n); a += MERINO_JOIN(one); return a + MERINO_JOIN(none); }
int outside(void) { return MERINO_RUN(uses, 3) + MERINO_RUN(none); }'
case_ big_arguments "do not fit" \
    'MERINO_TASK_1(int, takes_big, big, x) { return x.b[0]; }'
case_ big_result "do not fit" \
    'MERINO_TASK_1(big, gives_big, int, x) { big r = {{0}}; r.b[1] = 0; r.b[0] = 1; (void)x; return r; }'
case_ fifteen_pointers "do not fit" \
    'MERINO_TASK_DECL_14(int, many, char *, char *, char *, char *, char *, char *, char *, char *, char *, char *, char *, char *, char *, big *);
MERINO_TASK_1(int, takes_two_big, big, x) { return x.b[0]; }'
case_ overaligned "more than 16-byte alignment" \
    'MERINO_TASK_1(int, takes_aligned, aligned32, x) { return x.c; }'
case_ task_15 "at most 14" \
    'MERINO_TASK_15(int, t15, int, a1, int, a2, int, a3, int, a4, int, a5, int, a6, int, a7, int, a8, int, a9, int, a10, int, a11, int, a12, int, a13, int, a14, int, a15) { return a1; }'
case_ void_task_decl_15 "at most 14" \
    'MERINO_VOID_TASK_DECL_15(v15, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int);'
case_ spawn_outside "inside_a_task_body" \
    'void outside(void) { MERINO_SPAWN(one, 1); }'
case_ call_outside "inside_a_task_body" \
    'int outside(void) { return MERINO_CALL(one, 1); }'
case_ join_outside "inside_a_task_body" \
    'int outside(void) { return MERINO_JOIN(one); }'
too_many="too many arguments|[0-9]+ arguments were provided"
case_ spawn_0_with_arguments "$too_many" \
    'MERINO_TASK_0(int, spawner) { MERINO_SPAWN(none, 5); return MERINO_JOIN(none); }'
case_ call_0_with_arguments "$too_many" \
    'MERINO_TASK_0(int, caller) { return MERINO_CALL(none, 5, 6); }'

failed=0
count=0
for name in "${names[@]}"; do
    printf '%s\n%s\n' "$prelude" "${code[$name]}" > "$work/$name.c"
    for cc in gcc clang g++ clang++; do
        case $cc in
            *++) lang=(-x c++ -std=c++17) ;;
            *) lang=(-std=c11) ;;
        esac
        count=$((count + 1))
        if [ "$name" = control ]; then
            if ! "$cc" "${lang[@]}" -Wall -Wextra -I"$include" -c "$work/$name.c" -o "$work/$name.o" \
                >"$work/out" 2>&1 || [ -s "$work/out" ]; then
                echo "test_compile_errors: FAILED: the control program does not compile cleanly with $cc:" >&2
                sed 's/^/    | /' "$work/out" | head -n 30 >&2
                failed=1
            fi
            continue
        fi
        if "$cc" "${lang[@]}" -I"$include" -c "$work/$name.c" -o "$work/$name.o" >"$work/out" 2>&1; then
            echo "test_compile_errors: FAILED: $name compiled with $cc (want an error saying \"${expected[$name]}\")" >&2
            failed=1
        elif ! grep -qE -- "${expected[$name]}" "$work/out"; then
            echo "test_compile_errors: FAILED: $name with $cc: no \"${expected[$name]}\" in the errors:" >&2
            sed 's/^/    | /' "$work/out" | head -n 30 >&2
            failed=1
        fi
    done
done

if [ "$failed" = 0 ]; then echo "test_compile_errors: ok ($count compilations)"; fi
exit "$failed"
