#!/usr/bin/env bash
# The allocator's fast paths (docs/alloc.md, "How it works", "Fast paths") keep their machine code:
# merino_malloc and merino_free in libmerino_malloc.so have no more instructions than recorded here
# (nop padding not counted), no atomic read-modify-write, fence or system call, and leave only for
# their slow paths (mrn_malloc_slow, mrn_free_slow, mrn_block_freed_into). A change that adds an
# instruction to either fails here: make it cost nothing on the fast path, or, if it must, update
# the count in the same commit and say why. The counts are GCC's at -O3 (a Release build) on x86-64;
# skipped (77) elsewhere, without objdump, and in Debug and sanitizer builds.
set -euo pipefail
: "${MERINO_BUILD_DIR:?set MERINO_BUILD_DIR to a merino build directory}"

declare -A most=([merino_malloc]=18 [merino_free]=22)

lib="$MERINO_BUILD_DIR/libmerino_malloc.so"
cache="$MERINO_BUILD_DIR/CMakeCache.txt"
if ! command -v objdump >/dev/null 2>&1 || ! command -v readelf >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ] ||
   [ ! -f "$lib" ]; then
    echo "test_alloc_path: skipped (needs objdump, readelf, x86-64 and $lib)"
    exit 77
fi
if ! grep -Eq '^CMAKE_BUILD_TYPE:STRING=Release$' "$cache" || grep -Eq '^MERINO_SANITIZE:STRING=.+' "$cache"; then
    echo "test_alloc_path: skipped (the counts are a Release build's, without sanitizers)"
    exit 77
fi
if ! readelf -p .comment "$lib" | grep -q 'GCC:' || readelf -p .comment "$lib" | grep -qi clang; then
    echo "test_alloc_path: skipped (the counts are GCC's)"
    exit 77
fi

fail=0
for fn in merino_malloc merino_free; do
    # The function's instructions, one a line: "<address>:\t<mnemonic> <operands>", padding left out.
    body=$(objdump -d --no-show-raw-insn "$lib" |
           awk -v fn="$fn" '/^[0-9a-f]+ <.*>:$/ { inside = ($2 == "<" fn ">:") } inside && /^ +[0-9a-f]+:/' |
           grep -Ev $'\t(nop|data16|cs nop|xchg +%ax,%ax)' || true)
    if [ -z "$body" ]; then
        echo "test_alloc_path: no $fn in $lib" >&2
        exit 1
    fi
    n=$(printf '%s\n' "$body" | wc -l)
    echo "test_alloc_path: $fn, $n instructions (at most ${most[$fn]})"
    if [ "$n" -gt "${most[$fn]}" ]; then
        echo "test_alloc_path: $fn has $n instructions, more than ${most[$fn]}:" >&2
        printf '%s\n' "$body" >&2
        fail=1
    fi
    bad=$(printf '%s\n' "$body" | grep -E $'\t(lock |xchg[a-z]* .*\\(|cmpxchg|mfence|lfence|sfence|syscall|sysenter|int +\\$0x80)' || true)
    if [ -n "$bad" ]; then
        echo "test_alloc_path: $fn has atomic read-modify-writes, fences or system calls:" >&2
        printf '%s\n' "$bad" >&2
        fail=1
    fi
    out=$(printf '%s\n' "$body" | grep -E $'\t(call|jmp)' |
          grep -Ev "<($fn(\\+0x[0-9a-f]+)?|mrn_malloc_slow|mrn_free_slow|mrn_block_freed_into)>" || true)
    if [ -n "$out" ]; then
        echo "test_alloc_path: $fn calls or jumps somewhere other than itself and its slow paths:" >&2
        printf '%s\n' "$out" >&2
        fail=1
    fi
done
exit $fail
