#!/usr/bin/env bash
# The spawn and join fast paths stay free of atomic read-modify-writes, fences and system calls
# whatever the idle policy does (docs/idle.md): waking sleeping workers is done where a run enters
# (MERINO_RUN, a handed-over task), never by a spawn. Reads the machine code of test_fib's task
# body (fib_merino_body, every spawn, call and join of fib inlined in it): no lock prefix, no
# xchg with memory, no mfence, no syscall, and calls only to itself, merino__spawn_slow and
# merino__join_slow (the out-of-line slow paths). Skipped (77) without objdump, off x86-64, and in
# sanitizer builds (which turn memory accesses into calls).
set -euo pipefail
: "${MERINO_BUILD_DIR:?set MERINO_BUILD_DIR to a merino build directory}"

bin="$MERINO_BUILD_DIR/tests/test_fib"
if ! command -v objdump >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ] || [ ! -x "$bin" ]; then
    echo "test_spawn_path: skipped (needs objdump, x86-64 and $bin)"
    exit 77
fi
if grep -Eq '^MERINO_SANITIZE:STRING=.+' "$MERINO_BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
    echo "test_spawn_path: skipped in a sanitizer build"
    exit 77
fi
if grep -Eq '^CMAKE_BUILD_TYPE:STRING=Debug' "$MERINO_BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
    echo "test_spawn_path: skipped in a Debug build (the checks of MERINO__CHECKS add calls)"
    exit 77
fi

# The body's instructions, one a line: "<address>:\t<mnemonic> <operands>".
body=$(objdump -d --no-show-raw-insn "$bin" |
       awk '/^[0-9a-f]+ <.*>:$/ { inside = ($2 ~ /^<fib_merino_body[.>]/) } inside && /^ +[0-9a-f]+:/')
if [ -z "$body" ]; then
    echo "test_spawn_path: no fib_merino_body in $bin (was the task renamed?)" >&2
    exit 1
fi
n=$(printf '%s\n' "$body" | wc -l)
echo "test_spawn_path: fib_merino_body, $n instructions"

fail=0
bad=$(printf '%s\n' "$body" | grep -E $'\t(lock |xchg[a-z]* .*\\(|cmpxchg|mfence|syscall|sysenter|int +\\$0x80)' || true)
if [ -n "$bad" ]; then
    echo "test_spawn_path: the task body has atomic read-modify-writes, fences or system calls:" >&2
    printf '%s\n' "$bad" >&2
    fail=1
fi
calls=$(printf '%s\n' "$body" | grep -E $'\tcall' | grep -Ev '<(fib_merino_body[^>]*|merino__spawn_slow|merino__join_slow)>' || true)
if [ -n "$calls" ]; then
    echo "test_spawn_path: the task body calls something other than itself and the slow paths:" >&2
    printf '%s\n' "$calls" >&2
    fail=1
fi
exit $fail
