#!/usr/bin/env bash
# test_alloc_preload.sh — real programs on libmerino_malloc.so: each runs once with the system's
# malloc and once with LD_PRELOAD=libmerino_malloc.so, and the two outputs must be identical:
# python3 running a script (threads, dicts, json), sort of a 20 MB file (2 threads), git operations
# on a scratch repository, a gcc compile (object files compared), make -j2 of a small project (the
# preload reaches every compiler it starts), perl, a C++ program using std::map from 4 threads, every
# C entry point's contract (posix_memalign, memalign, valloc, pvalloc, reallocarray, ...), and
# operator new's failure contract (bad_alloc, nothrow, new-handler) and over-aligned new; and
# merino's own stress harness runs on it. All of it twice: on libmerino_malloc.so and on
# libmerino_malloc_debug.so (the debug checks), which must also report a double free, a pointer
# it never returned and a pointer into an object, and abort.
# Exit 77 (skip) under AddressSanitizer or ThreadSanitizer (their runtime owns malloc) or when a
# program is missing. Needs MERINO_BUILD_DIR (ctest sets it).
set -u
build=${MERINO_BUILD_DIR:?MERINO_BUILD_DIR: the build directory holding libmerino_malloc.so}
lib=$build/libmerino_malloc.so
dbg=$build/libmerino_malloc_debug.so
if grep -qE '^MERINO_SANITIZE:STRING=(address|thread)' "$build/CMakeCache.txt" 2>/dev/null; then
    echo "test_alloc_preload: SKIPPED: this is a sanitizer build; the sanitizer's runtime replaces malloc itself, so libmerino_malloc.so cannot be preloaded here (the plain build runs this test)"
    exit 77
fi
for l in "$lib" "$dbg"; do [ -f "$l" ] || { echo "test_alloc_preload: $l not built"; exit 1; }; done
for cmd in python3 sort git gcc g++ make perl cmp; do
    command -v $cmd >/dev/null || { echo "test_alloc_preload: SKIPPED: $cmd is not installed"; exit 77; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/merino-preload.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0

# run NAME CMD...: runs CMD in a fresh directory NAME.sys, NAME.mrn and NAME.dbg (after copying
# NAME.in, if any, into each), without the preload, with libmerino_malloc.so and with
# libmerino_malloc_debug.so, and compares stdout, stderr and exit status with the first.
run() {
    local name=$1
    shift
    for side in sys mrn dbg; do
        rm -rf "$name.$side"
        if [ -d "$name.in" ]; then cp -a "$name.in" "$name.$side"; else mkdir "$name.$side"; fi
        local pre=""
        [ $side = mrn ] && pre=$lib
        [ $side = dbg ] && pre=$dbg
        (cd "$name.$side" && LD_PRELOAD=$pre "$@" >../"$name.$side.out" 2>../"$name.$side.err"
         echo "exit $?" >>../"$name.$side.out")
    done
    for side in mrn dbg; do
        if cmp -s "$name.sys.out" "$name.$side.out" && cmp -s "$name.sys.err" "$name.$side.err"; then
            echo "ok   $name on $side ($(wc -c <"$name.$side.out") bytes of output alike)"
        else
            echo "FAIL $name: outputs differ on $side ($lib or $dbg)"
            diff "$name.sys.out" "$name.$side.out" | head -20
            diff "$name.sys.err" "$name.$side.err" | head -20
            failures=$((failures + 1))
        fi
    done
}

# The preload is really in effect: a program's malloc is merino's (its usable size of 1 byte is 8).
cat >probe.c <<'C'
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) { void *p = malloc(1); printf("%zu\n", malloc_usable_size(p)); free(p); return 0; }
C
gcc -O1 probe.c -o probe
for l in "$lib" "$dbg"; do
    probe=$(LD_PRELOAD=$l ./probe)
    [ "$probe" = 8 ] || { echo "FAIL: malloc_usable_size(malloc(1)) is '$probe' under $l, merino's is 8"; failures=$((failures + 1)); }
done

# The debug library's checks: each misuse is reported with its kind, then the program aborts.
cat >misuse.c <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    char *p = malloc(100), local[16];
    strcpy(p, argv[0]);
    if (!strcmp(argv[1], "double")) { free(p); free(p); }
    if (!strcmp(argv[1], "stack")) free(local);
    if (!strcmp(argv[1], "interior")) free(p + 8);
    return 0;
}
C
gcc -O0 -w misuse.c -o misuse
for what in double:"double free" stack:"not a pointer the allocator returned" interior:"not the start of an object"; do
    { LD_PRELOAD=$dbg ./misuse "${what%%:*}" >misuse.out 2>&1; status=$?; } 2>/dev/null
    if [ $status -ne 134 ] || ! grep -q "merino: merino_free(0x[0-9a-f]*): ${what#*:}" misuse.out; then
        echo "FAIL: libmerino_malloc_debug.so, free (${what%%:*}): exit $status (want 134, abort), said: $(head -c 300 misuse.out)"
        failures=$((failures + 1))
    else
        echo "ok   libmerino_malloc_debug.so, free (${what%%:*}): $(head -1 misuse.out)"
    fi
done

# python3
cat >script.py <<'PY'
import hashlib, json, random, threading
random.seed(7)
d = {i: [random.random() for _ in range(i % 17)] for i in range(60000)}
s = json.dumps(d, sort_keys=True)
words = sorted(hex(random.getrandbits(64)) for _ in range(100000))
out = [None] * 4
def work(k):
    x = {}
    for i in range(50000):
        x[str(i * k)] = bytes(i % 500)
    out[k] = sum(len(v) for v in x.values())
ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]
print(hashlib.sha256(s.encode()).hexdigest(), words[:3], out)
PY
run python python3 "$work/script.py"

# sort of a large file
python3 -c "
import random
random.seed(3)
with open('big.txt', 'w') as f:
    for i in range(700000):
        f.write('%x %d %s\n' % (random.getrandbits(48), random.randrange(10**6), 'x' * random.randrange(20)))
"
run sort sort --parallel=2 -S 50M -k2,2n -k1,1 "$work/big.txt"
run sort_unique sort -u "$work/big.txt"

# git on a scratch repository
mkdir git.in
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
export GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' GIT_COMMITTER_DATE='2020-01-01T00:00:00Z' GIT_CONFIG_NOSYSTEM=1
export HOME=$work
cat >git.sh <<'SH'
set -e
git init -q -b main .
for i in $(seq 1 200); do seq $i $((i * 50)) >f$i.txt; done
git add . && git commit -q -m one
git checkout -q -b side
for i in $(seq 1 200 | sed -n '1~3p'); do seq $i 3 $((i * 70)) >f$i.txt; done
git commit -q -am two
git checkout -q main && git merge -q --no-edit side
git log --stat --format='%H %s' | head -50
git diff HEAD~1 --stat | tail -3
git gc -q && git count-objects -v | grep -v size
git fsck 2>&1
SH
run git bash "$work/git.sh"

# a gcc compile: the object files must be the same bytes
cat >unit.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct node { int key; struct node *l, *r; };
static struct node *ins(struct node *t, int k) {
    if (!t) { t = calloc(1, sizeof *t); t->key = k; return t; }
    if (k < t->key) t->l = ins(t->l, k); else t->r = ins(t->r, k);
    return t;
}
static long sum(struct node *t) { return t ? t->key + sum(t->l) + sum(t->r) : 0; }
int main(void) { struct node *t = 0; for (int i = 0; i < 1000; i++) t = ins(t, (i * 7919) % 1009); printf("%ld\n", sum(t)); return 0; }
C
run gcc sh -c "gcc -O2 -g -fdebug-prefix-map=\$PWD=. -c '$work/unit.c' -o unit.o && od -An -tx1 unit.o | md5sum && gcc unit.o -o unit && ./unit"

# make -j2 of a small project
mkdir make.in
for i in 1 2 3 4 5 6; do
    printf 'int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }\n' $i $i >make.in/f$i.c
done
printf '#include <stdio.h>\nint f1(int),f2(int),f3(int),f4(int),f5(int),f6(int);\nint main(void){printf("%%d\\n",f1(10)+f2(20)+f3(30)+f4(40)+f5(50)+f6(60));return 0;}\n' >make.in/main.c
printf 'OBJS=main.o f1.o f2.o f3.o f4.o f5.o f6.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\n' >make.in/Makefile
run make sh -c 'make -s -j2 && ./prog'

# perl
run perl perl -e 'my %h; for my $i (1..200000) { $h{"k$i"} = join(",", map { $_ * $i } 1..5) } my @k = sort { $h{$a} cmp $h{$b} } keys %h; print scalar(@k), " $k[0] $k[-1]\n"; my $s = "abc" x 100000; (my $t = $s) =~ s/b/BB/g; print length($t), "\n";'

# a C++ program using std::map heavily, from 4 threads (objects freed by other threads too)
cat >maps.cpp <<'CPP'
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>
int main() {
    std::vector<std::map<std::string, std::vector<int>>> maps(4);
    std::vector<long> sums(4);
    std::vector<std::thread> ts;
    for (int k = 0; k < 4; k++)
        ts.emplace_back([&, k] {
            auto &m = maps[k];
            for (int i = 0; i < 200000; i++) m[std::to_string(i * 31 % 100003)].push_back(i);
            for (int i = 0; i < 100000; i += 2) m.erase(std::to_string(i));
            long s = 0;
            for (auto &kv : m) s += (long)kv.second.size() * (long)kv.first.size();
            sums[k] = s;
        });
    for (auto &t : ts) t.join();
    std::vector<std::thread> cleaners;
    for (int k = 0; k < 4; k++) cleaners.emplace_back([&, k] { maps[(k + 1) % 4].clear(); });
    for (auto &t : cleaners) t.join();
    auto aligned = std::make_unique<std::aligned_storage_t<256, 128>[]>(100);
    std::printf("%ld %ld %ld %ld %d\n", sums[0], sums[1], sums[2], sums[3], (int)((uintptr_t)aligned.get() % 128));
    return 0;
}
CPP
g++ -O2 -std=c++17 -pthread maps.cpp -o maps
run cxx_map "$work/maps"

# every C entry point's contract, the same as glibc's (only facts both must agree on are printed)
cat >entries.c <<'C'
#define _GNU_SOURCE 1
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ALIGNED(p, a) (((uintptr_t)(p) & ((a) - 1)) == 0)
int main(void) {
    void *p = NULL;
    printf("posix_memalign 64: %d %d\n", posix_memalign(&p, 64, 100), ALIGNED(p, 64));
    free(p);
    p = (void *)1;
    printf("posix_memalign 3: %d, 4: %d, unchanged %d\n", posix_memalign(&p, 3, 8), posix_memalign(&p, 4, 8),
           p == (void *)1);
    printf("posix_memalign huge: %d\n", posix_memalign(&p, 64, SIZE_MAX / 2));
    for (size_t a = 8; a <= (1u << 16); a *= 2) {
        void *q = memalign(a, 3 * a + 1), *r = aligned_alloc(a, a);
        if (!ALIGNED(q, a) || !ALIGNED(r, a) || malloc_usable_size(q) < 3 * a + 1) printf("bad alignment %zu\n", a);
        free(q);
        free(r);
    }
    void *v = valloc(10), *pv = pvalloc(5000);
    printf("valloc %d pvalloc %d %d\n", ALIGNED(v, 4096), ALIGNED(pv, 4096), malloc_usable_size(pv) >= 8192);
    free(v);
    free(pv);
    errno = 0;
    printf("reallocarray overflow: %d %d\n", reallocarray(NULL, SIZE_MAX / 2, 3) == NULL, errno == ENOMEM);
    char *s = reallocarray(NULL, 10, 10);
    memset(s, 'x', 100);
    s = reallocarray(s, 1000, 10);
    printf("reallocarray kept %d\n", s[0] == 'x' && s[99] == 'x');
    free(s);
    errno = 0;
    printf("malloc huge: %d %d; calloc overflow: %d\n", malloc(SIZE_MAX - 100) == NULL, errno == ENOMEM,
           calloc(SIZE_MAX / 4, 8) == NULL);
    char *z = calloc(1000, 1000);
    size_t nz = 0;
    for (int i = 0; i < 1000000; i++) nz += z[i] != 0;
    printf("calloc zero %d\n", nz == 0);
    free(z);
    free(NULL);
    printf("realloc(NULL) %d\n", (p = realloc(NULL, 10)) != NULL);
    free(p);
    return 0;
}
C
gcc -O1 -Wno-alloc-size-larger-than entries.c -o entries
run entries "$work/entries"

# operator new's contract on the preload: std::bad_alloc, nothrow, the new-handler, over-alignment
cat >news.cpp <<'CPP'
#include <cstdint>
#include <cstdio>
#include <new>
static int calls;
int main() {
    try {
        char *p = new char[(size_t)1 << 62];
        std::printf("no exception %d\n", p != nullptr);
    } catch (const std::bad_alloc &) {
        std::printf("bad_alloc\n");
    }
    std::printf("nothrow %s\n", new (std::nothrow) char[(size_t)1 << 62] ? "non-null" : "null");
    std::set_new_handler([] { if (++calls == 3) std::set_new_handler(nullptr); });
    try {
        (void)new char[(size_t)1 << 62];
    } catch (const std::bad_alloc &) {
        std::printf("handler called %d times, then bad_alloc\n", calls);
    }
    struct alignas(1024) A { char c[100]; };
    A *a = new A[10];
    std::printf("aligned %d\n", (int)((uintptr_t)a % 1024));
    delete[] a;
    return 0;
}
CPP
g++ -O2 -std=c++17 news.cpp -o news
run cxx_new "$work/news"

# merino's own stress harness (workers, task stacks, threads calling in) on the allocator for 3 s.
if [ -x "$build/tests/merino_stress" ]; then
    for l in "$lib" "$dbg"; do
        if LD_PRELOAD=$l "$build/tests/merino_stress" --duration 3 >stress.out 2>&1; then
            echo "ok   merino_stress --duration 3 on $(basename "$l")"
        else
            echo "FAIL merino_stress on $(basename "$l"):"
            tail -20 stress.out
            failures=$((failures + 1))
        fi
    done
fi

# A C program does not load libstdc++ because of the preload.
for l in "$lib" "$dbg"; do
    if LD_PRELOAD=$l LD_TRACE_LOADED_OBJECTS=1 ./probe | grep -q libstdc++; then
        echo "FAIL: $(basename "$l") pulls libstdc++ into a C program"
        failures=$((failures + 1))
    fi
done

if [ $failures -ne 0 ]; then
    echo "test_alloc_preload: $failures check(s) failed on libmerino_malloc.so or libmerino_malloc_debug.so"
    exit 1
fi
echo "test_alloc_preload: every program's output is the same with libmerino_malloc.so and libmerino_malloc_debug.so"
