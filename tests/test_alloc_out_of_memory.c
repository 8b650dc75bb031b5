/* Out of memory, as glibc's malloc behaves there: an allocation fails (NULL, errno ENOMEM) only
 * when the system cannot back it, and then at once.
 *
 * address limit (a child under RLIMIT_AS, the allocator's decay set to a minute so that what it
 * holds for reuse stays held): 300 MB of 64 KB objects allocated and freed, then 300 MB of 4 MB
 * objects must all succeed — the memory the pool kept for reuse goes back to the OS when a map
 * fails, and the map is tried again; allocating until NULL ends with ENOMEM, and after freeing
 * everything the same 300 MB succeed again. Skipped under the sanitizers (their shadow memory
 * needs more address space than any limit the test could set).
 *
 * more than RAM and swap: a malloc, calloc, aligned_alloc or realloc of more than the machine's
 * RAM and swap together fails at the call, under the kernel's default overcommit heuristic
 * (vm.overcommit_memory 0 or 2); skipped when overcommit_memory is 1 (the kernel grants any map). */
#include "check.h"

#include "alloc_test.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>

#pragma GCC diagnostic ignored "-Walloc-size-larger-than="

#define MB ((size_t)1 << 20)

/* The process's mapped address space, in bytes (/proc/self/statm's first field). */
static size_t vm_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    CHECK(f != NULL);
    unsigned long pages = 0;
    CHECK(fscanf(f, "%lu", &pages) == 1);
    fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

enum { SMALL = 64 * 1024, NSMALL = 300 * 16, LARGE = 4 << 20, NLARGE = 75 };

/* Allocates NLARGE objects of LARGE bytes into p (each written at both ends); returns how many
 * succeeded. */
static int large_round(void **p) {
    int ok = 0;
    for (int i = 0; i < NLARGE; i++) {
        errno = 0;
        p[i] = merino_malloc(LARGE);
        if (!p[i]) {
            CHECK_MSG(errno == ENOMEM, "a failed malloc set errno %d, not ENOMEM", errno);
            continue;
        }
        ((char *)p[i])[0] = ((char *)p[i])[LARGE - 1] = (char)i;
        ok++;
    }
    return ok;
}

static int address_limit_child(void) {
    static void *small[NSMALL];
    void *large[NLARGE];
    /* 400 MB above what the process maps now: 300 MB fit, 600 do not. */
    size_t limit = vm_bytes() + 400 * MB;
    struct rlimit r = {limit, limit};
    CHECK(setrlimit(RLIMIT_AS, &r) == 0);

    for (int i = 0; i < NSMALL; i++) {
        small[i] = merino_malloc(SMALL);
        CHECK_MSG(small[i] != NULL, "object %d of %d KB: NULL under a limit 100 MB above them", i, SMALL >> 10);
        memset(small[i], 1, 64);
    }
    for (int i = 0; i < NSMALL; i++) merino_free(small[i]);

    int ok = large_round(large);
    CHECK_MSG(ok == NLARGE, "%d of %d objects of 4 MB allocated after 300 MB were freed (the program holds "
              "nothing; the limit leaves room for 400 MB)", ok, NLARGE);
    for (int i = 0; i < NLARGE; i++) merino_free(large[i]);

    /* Exhaustion: NULL with ENOMEM, no crash; then everything comes back. */
    enum { MAXN = 200 };
    void *all[MAXN];
    int n = 0;
    errno = 0;
    while (n < MAXN && (all[n] = merino_malloc(LARGE)) != NULL) n++;
    CHECK_MSG(n < MAXN, "%d objects of 4 MB under a limit of 400 MB", n);
    CHECK_MSG(errno == ENOMEM, "the failing malloc set errno %d, not ENOMEM", errno);
    CHECK_MSG(n >= NLARGE, "only %d objects of 4 MB before NULL", n);
    for (int i = 0; i < n; i++) merino_free(all[i]);
    ok = large_round(large);
    CHECK_MSG(ok == NLARGE, "%d of %d objects of 4 MB after the exhaustion was freed", ok, NLARGE);
    for (int i = 0; i < NLARGE; i++) merino_free(large[i]);
    return 0;
}

static int run_child(const char *name) {
    if (strcmp(name, "address_limit") == 0) return address_limit_child();
    return 99;
}

/* "more than RAM and swap"; false when skipped. */
static bool beyond_ram_and_swap(void) {
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = -1;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1) mode = -1;
        fclose(f);
    }
    if (mode == 1 || mode == -1) {
        printf("more than RAM and swap: skipped (vm.overcommit_memory is %d: the kernel grants any map)\n", mode);
        return false;
    }
    struct sysinfo si;
    CHECK(sysinfo(&si) == 0);
    size_t n = ((size_t)si.totalram + (size_t)si.totalswap) * si.mem_unit + 1024 * MB;
    printf("more than RAM and swap: %zu MB (overcommit_memory %d)\n", n / MB, mode);
#define CHECK_NULL(call)                                                                           \
    do {                                                                                           \
        errno = 0;                                                                                 \
        void *q = (call);                                                                          \
        CHECK_MSG(q == NULL && errno == ENOMEM, #call " of %zu MB = %p, errno %d: the system cannot back it, " \
                  "it must fail now (as glibc's), not at the first touch", n / MB, q, errno);     \
    } while (0)
    CHECK_NULL(merino_malloc(n));
    CHECK_NULL(merino_calloc(1, n));
    CHECK_NULL(merino_aligned_alloc(2 * MB, n));
    char *s = merino_malloc(100);
    CHECK(s != NULL);
    memcpy(s, "kept", 5);
    CHECK_NULL(merino_realloc(s, n));
    CHECK_STR_EQ(s, "kept");
    merino_free(s);
    /* the failures left the allocator working */
    void *p = merino_malloc(8 * MB);
    CHECK(p != NULL);
    memset(p, 1, 8 * MB);
    merino_free(p);
    return true;
}

int main(int argc, char **argv) {
    const char *child = check_child_name(argc, argv);
    if (child) return run_child(child);

    int ran = 0;
    if (CHECK_SANITIZER) {
        printf("address limit: skipped (a sanitizer's shadow memory does not fit under RLIMIT_AS)\n");
    } else {
        check_child c = check_run_child("address_limit", (const char *const[]){"MERINO_ALLOC_DECAY_MS=60000", NULL}, 120);
        CHECK_CHILD(c, c.exited && c.code == 0);
        check_child_free(&c);
        printf("address limit: ok\n");
        ran++;
    }
    ran += beyond_ram_and_swap();
    if (!ran) {
        printf("test_alloc_out_of_memory: skipped (no part could run here)\n");
        return 77;
    }
    printf("test_alloc_out_of_memory: ok\n");
    return 0;
}
