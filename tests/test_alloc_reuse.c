/* Reuse of other threads' objects (src/alloc/remote.h, "reuse of other heaps' objects"): a thread
 * whose frees are mostly of objects another thread allocated keeps them for its own allocations.
 * Thread A allocates and fills objects; thread B checks and frees each one and allocates one of
 * the same size in its place, which it fills and keeps. Checks: every object's contents, A's and
 * B's; that B was given some of A's objects back (the reuse happened); that an aligned allocation
 * never marks another heap's block (the aligned flag lives in the block's header); that B's exit,
 * with reused objects still waiting, loses nothing: once both threads are gone and the pool
 * trimmed, the allocator holds what it held before. */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* the allocator's internals and counters, from libmerino.a; allocator_kb */

enum { N = 150000 };

typedef struct obj {
    unsigned char *p;
    size_t n;
    uint64_t tag;
} obj;

static obj g_a[N]; /* A's objects, freed by B */
static obj g_b[N]; /* B's, kept until B ends */
static uint64_t g_seed;
static uintptr_t g_heap_a, g_heap_b;
static long g_reused, g_aligned;
static pthread_barrier_t g_made, g_done; /* A has made its objects; B is done with them */

static uintptr_t heap_of(const void *p) {
    /* relaxed: the object is live, its block's heap does not change */
    return atomic_load_explicit(&mrn_block_of(p)->owner_tag, memory_order_relaxed) & ~MRN_TAG_FLAGS;
}

static void *thread_a(void *arg) {
    (void)arg;
    uint64_t s = g_seed;
    for (long i = 0; i < N; i++) {
        g_a[i].n = 16 + at_next(&s) % 1000; /* classes that reuse applies to (up to 1008 bytes) */
        g_a[i].tag = at_next(&s);
        g_a[i].p = (unsigned char *)merino_malloc(g_a[i].n);
        CHECK(g_a[i].p != NULL);
        at_fill(g_a[i].p, g_a[i].n, g_a[i].tag);
    }
    g_heap_a = heap_of(g_a[0].p);
    pthread_barrier_wait(&g_made);
    pthread_barrier_wait(&g_done); /* alive (its heap a live thread's) while B works */
    return NULL;
}

static void *thread_b(void *arg) {
    (void)arg;
    uint64_t s = g_seed ^ 0x5555;
    pthread_barrier_wait(&g_made);
    void *mine = merino_malloc(1);
    g_heap_b = heap_of(mine);
    merino_free(mine);
    for (long i = 0; i < N; i++) {
        CHECK_MSG(at_check(g_a[i].p, g_a[i].n, g_a[i].tag) < 0, "A's object %ld was overwritten", i);
        merino_free(g_a[i].p);
        g_b[i].n = g_a[i].n;
        g_b[i].tag = at_next(&s);
        g_b[i].p = (unsigned char *)merino_malloc(g_b[i].n);
        CHECK(g_b[i].p != NULL);
        if (heap_of(g_b[i].p) == g_heap_a) g_reused++;
        at_fill(g_b[i].p, g_b[i].n, g_b[i].tag);
        if ((i & 63) == 0) { /* aligned objects of a class reuse applies to, while it does */
            unsigned char *q = (unsigned char *)merino_aligned_alloc(64, 100);
            CHECK(q != NULL && ((uintptr_t)q & 63) == 0);
            /* relaxed: as heap_of */
            uintptr_t tag = atomic_load_explicit(&mrn_block_of(q)->owner_tag, memory_order_relaxed);
            CHECK_MSG(!(tag & MRN_TAG_ALIGNED) || (tag & ~MRN_TAG_FLAGS) == g_heap_b,
                      "aligned_alloc marked another heap's block aligned (tag %#lx, B's heap %#lx)",
                      (unsigned long)tag, (unsigned long)g_heap_b);
            memset(q, 0xab, 100);
            merino_free(q);
            g_aligned++;
        }
    }
    for (long i = 0; i < N; i++)
        CHECK_MSG(at_check(g_b[i].p, g_b[i].n, g_b[i].tag) < 0, "B's object %ld (reused or not) was overwritten", i);
    /* Half of B's objects freed here, the rest left to the main thread: B exits with reused
     * objects of A's still waiting in its lists, which its exit must send home. */
    for (long i = 0; i < N; i += 2) merino_free(g_b[i].p);
    pthread_barrier_wait(&g_done);
    return NULL;
}

int main(void) {
    g_seed = at_seed("test_alloc_reuse");
    mrn_pool_trim(0);
    long before = allocator_kb();
    pthread_t a, b;
    pthread_barrier_init(&g_made, NULL, 2);
    pthread_barrier_init(&g_done, NULL, 2);
    CHECK(pthread_create(&a, NULL, thread_a, NULL) == 0);
    CHECK(pthread_create(&b, NULL, thread_b, NULL) == 0);
    pthread_join(b, NULL);
    pthread_join(a, NULL);
    CHECK(g_heap_a != g_heap_b);
    CHECK_MSG(g_reused > 0, "B freed %d of A's objects and was never given one back: no reuse", N);
    for (long i = 1; i < N; i += 2) {
        CHECK(at_check(g_b[i].p, g_b[i].n, g_b[i].tag) < 0);
        merino_free(g_b[i].p);
    }
    void *flush = merino_malloc(8192); /* the main thread's slow path sends its batched frees home */
    merino_free(flush);
    mrn_pool_trim(0);
    long after = allocator_kb();
    printf("test_alloc_reuse: B got %ld of A's %d objects back for its own; %ld aligned allocations "
           "kept to B's blocks; allocator holds %ld KB, %ld before\n", g_reused, N, g_aligned, after, before);
    /* What stays: the heaps' spare buffers and the blocks of the main thread's heap. */
    CHECK_MSG(after - before < 2048, "%ld KB more held after every object was freed: reused objects lost", after - before);
    return 0;
}
