/* calloc and the pool's cold blocks on locked memory: MADV_DONTNEED fails (EINVAL) on pages the
 * program has locked (mlock, mlockall), and then clears nothing. A calloc of a recycled medium run
 * (src/alloc/large.c: mrn_medium_zero, which decommits instead of clearing from 48 KB) and a calloc
 * of a run the pool marked cold after a failed decommit (trim.c: mrn_trim_do) must still return
 * zeroed memory. Skipped (check_skip) when this process may not lock memory (RLIMIT_MEMLOCK). */
#include "check.h"

#include "alloc_test.h"

#include "alloc/alloc.h" /* mrn_pool_trim, from libmerino.a */

#include <sys/mman.h>

/* Whether n bytes at p are all zero; the first non-zero offset in *at. */
static bool all_zero(const unsigned char *p, size_t n, size_t *at) {
    for (size_t i = 0; i < n; i++)
        if (p[i]) {
            *at = i;
            return false;
        }
    return true;
}

static void expect_zero(const char *what, const unsigned char *p, size_t n) {
    size_t at = 0;
    if (!all_zero(p, n, &at)) {
        fprintf(stderr, "%s: byte %zu of %zu is 0x%02x, not 0 (the decommit failed on locked pages)\n", what,
                at, n, p[at]);
        CHECK(0);
    }
}

int main(void) {
    merino_free(merino_malloc(1)); /* this thread's heap */

    /* 1. A medium run cached in the heap (7 blocks), locked, freed, and calloc'd again. */
    enum { CACHED = 100 * 1024 };
    unsigned char *a = merino_malloc(CACHED);
    CHECK(a != NULL);
    memset(a, 0xab, CACHED);
    if (mlock(a, CACHED) != 0) check_skip("mlock of 100 KB failed (%s): this process may not lock memory (ulimit -l)", strerror(errno));
    merino_free(a); /* into the heap's cache of medium runs, still locked */
    unsigned char *b = merino_calloc(1, CACHED);
    CHECK(b != NULL);
    CHECK(b == a); /* the same run, from the cache (else the test checks nothing) */
    expect_zero("calloc of a cached locked run", b, CACHED);
    CHECK(munlock(b, CACHED) == 0);
    merino_free(b);

    /* 2. A run of the pool (13 blocks: not cached) locked, freed, trimmed (its decommit fails), and
     * calloc'd again: the pool must not count it as reading zero. A neighbour stays allocated so
     * that its chunk is not unmapped by the trim. */
    enum { POOLED = 200 * 1024 };
    unsigned char *keep = merino_malloc(POOLED);
    unsigned char *c = merino_malloc(POOLED);
    CHECK(keep != NULL && c != NULL);
    memset(c, 0xcd, POOLED);
    CHECK(mlock(c, POOLED) == 0);
    merino_free(c);
    mrn_pool_trim(0);
    unsigned char *d = merino_calloc(1, POOLED);
    CHECK(d != NULL);
    if (d != c) printf("test_alloc_calloc_locked: the pool gave another run (%p, not %p)\n", (void *)d, (void *)c);
    expect_zero("calloc of a pooled run after a failed decommit", d, POOLED);
    /* what the trim left resident is given back by a later trim once unlocked */
    CHECK(munlock(c, POOLED) == 0);
    merino_free(d);
    merino_free(keep);
    mrn_pool_trim(0);

    printf("test_alloc_calloc_locked: ok\n");
    return 0;
}
