/* Two trims of the pool at once (two threads' exits: src/alloc/trim.c, mrn_pool_trim): while one
 * trim decommits a run of a chunk outside the lock (the run is off the pool meanwhile), the chunk's
 * last used run is freed and the other trim sees the chunk as partly used, so it does not unmap it;
 * the first trim's run then comes back and the chunk is entirely free — it must still be unmapped
 * by a trim to nothing, not stay mapped (decommitted) for good. The window is made deterministic:
 * this program's madvise (which the allocator, linked statically, calls) frees the run and runs
 * the second trim from inside the first trim's decommit. */
#include "check.h"

#include "alloc_test.h"

#include "alloc/alloc.h" /* mrn_pool_trim, mrn_pool_blocks, from libmerino.a */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* The sanitizers intercept madvise themselves: the window cannot be made here. */
int main(void) { check_skip("the sanitizers intercept madvise, so the window cannot be made here"); }
#else

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *g_held;   /* the chunk's used run, freed inside the first trim's decommit */
static int g_armed;    /* the next madvise opens the window */
static int g_inner;    /* madvise calls made by the second trim */

int madvise(void *addr, size_t len, int advice) {
    if (g_armed) {
        g_armed = 0;
        merino_free(g_held); /* the chunk's last run back to the pool (another thread's free) */
        mrn_pool_trim(0);    /* another thread's trim, while our run is in transit */
        g_inner = 1;
    }
    return (int)syscall(SYS_madvise, addr, len, advice);
}

/* Whether the page at p is mapped (mincore fails with ENOMEM on an unmapped one). */
static bool mapped(void *p) {
    unsigned char v;
    return mincore(p, MRN_PAGE, &v) == 0;
}

int main(void) {
    merino_free(merino_malloc(1)); /* this thread's heap and its first chunk */
    /* Two runs of 13 blocks (not cached: freed straight to the pool) in a chunk of long runs. */
    enum { SIZE = 200 * 1024 };
    char *x = merino_malloc(SIZE), *y = merino_malloc(SIZE);
    CHECK(x != NULL && y != NULL);
    char *chunk = (char *)((uintptr_t)x & ~(uintptr_t)(MRN_CHUNK_BLOCKS * MRN_BLOCK_SIZE - 1));
    CHECK(chunk == (char *)((uintptr_t)y & ~(uintptr_t)(MRN_CHUNK_BLOCKS * MRN_BLOCK_SIZE - 1)));
    memset(x, 1, SIZE);
    memset(y, 1, SIZE);
    merino_free(y); /* resident in the pool: the first trim decommits it */
    g_held = x;
    g_armed = 1;
    mrn_pool_trim(0);
    CHECK(g_inner == 1); /* the window was opened (the first trim decommitted something) */
    /* Every block of the chunk is free: a trim to nothing unmaps it. */
    CHECK(!mapped(chunk));
    printf("test_alloc_trim_race: ok\n");
    return 0;
}
#endif
