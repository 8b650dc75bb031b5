/* The own cache (src/alloc/alloc.h, MRN_OWN_CLASS): the owner's frees of objects of the largest small
 * classes (2416 bytes and more, 2 to 6 a block) are kept in a per-class list, up to MRN_OWN_BYTES
 * of them, for its next allocations, instead of going back to their blocks. Checks: the objects
 * freed first come back first in reverse order (the list), from several blocks, while those past
 * the bound went to their blocks; contents survive the objects' trips through the cache, and
 * aligned allocations taken from it (their block marked aligned) are freed at the right start; a
 * thread that exits with objects in its cache leaves nothing held but its heap; another thread's
 * frees of such objects go home as before. */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* the allocator's internals and counters, from libmerino.a; allocator_kb */

enum { SIZE = 7000, MANY = 64 };

static unsigned char *g_handed[MANY]; /* a thread's objects, freed by the main thread */

static void *lifo(void *arg) {
    (void)arg;
    enum { N = 16 };
    unsigned char *p[N];
    CHECK((p[0] = merino_malloc(SIZE)) != NULL);
    size_t class_size = merino_usable_size(p[0]); /* a small object's usable size is its class's */
    CHECK(class_size >= 2416 && class_size <= MRN_SMALL_MAX); /* a class from MRN_OWN_CLASS on */
    uint32_t max = (uint32_t)(MRN_OWN_BYTES / class_size); /* what the cache holds */
    CHECK(max >= 2 && max < N);
    merino_free(p[0]);
    for (int i = 0; i < N; i++) {
        CHECK((p[i] = merino_malloc(SIZE)) != NULL);
        at_fill(p[i], SIZE, (uint64_t)i);
    }
    for (int i = 0; i < N; i++) {
        CHECK_MSG(at_check(p[i], SIZE, (uint64_t)i) < 0, "object %d overwritten", i);
        merino_free(p[i]);
    }
    /* The first max frees went to the cache: they come back last freed first. */
    for (uint32_t i = 0; i < max; i++) {
        unsigned char *q = merino_malloc(SIZE);
        CHECK_MSG(q == p[max - 1 - i], "allocation %u after the frees gave %p, not the cached %p (object %u)", i,
                  (void *)q, (void *)p[max - 1 - i], max - 1 - i);
        at_fill(q, SIZE, 100 + i);
    }
    /* Aligned allocations of a cached class, freed and taken again, among plain ones. */
    for (int r = 0; r < 200; r++) {
        unsigned char *a = merino_aligned_alloc(256, SIZE - 512);
        unsigned char *b = merino_malloc(SIZE);
        CHECK(a && b && ((uintptr_t)a & 255) == 0);
        at_fill(a, SIZE - 512, (uint64_t)r);
        at_fill(b, SIZE, (uint64_t)r + 7);
        CHECK(at_check(a, SIZE - 512, (uint64_t)r) < 0 && at_check(b, SIZE, (uint64_t)r + 7) < 0);
        merino_free(a);
        merino_free(b);
    }
    for (uint32_t i = 0; i < max; i++) {
        CHECK(at_check(p[max - 1 - i], SIZE, 100 + i) < 0);
        merino_free(p[max - 1 - i]);
    }
    /* Objects for the main thread to free (another heap's: they go home in batches). */
    for (int i = 0; i < MANY; i++) {
        CHECK((g_handed[i] = merino_malloc(SIZE)) != NULL);
        at_fill(g_handed[i], SIZE, 1000 + (uint64_t)i);
    }
    unsigned char *keep[8];
    for (int i = 0; i < 8; i++) CHECK((keep[i] = merino_malloc(3000)) != NULL);
    for (int i = 0; i < 8; i++) merino_free(keep[i]);
    return NULL; /* exits with objects in its cache: they must go back */
}

int main(void) {
    /* The main thread's heap first: the thread below then makes its own, and when it exits its heap
     * waits to be adopted — not taken by the main thread's first call, which would make the frees
     * below its owner's (and keep the emptied blocks in its cache of runs). */
    merino_free(merino_malloc(100));
    mrn_pool_trim(0);
    long before = allocator_kb();
    long heap_kb = (long)(((sizeof(mrn_heap) + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1)) >> 10);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, lifo, NULL) == 0);
    pthread_join(t, NULL);
    for (int i = 0; i < MANY; i++) {
        CHECK_MSG(at_check(g_handed[i], SIZE, 1000 + (uint64_t)i) < 0, "handed object %d overwritten", i);
        merino_free(g_handed[i]);
    }
    void *flush = merino_malloc(100); /* the main thread's slow path sends its batched frees home */
    merino_free(flush);
    merino_free(merino_malloc(SIZE)); /* ... and through its own cache */
    mrn_pool_trim(0);
    long after = allocator_kb();
    /* Held now: the thread's heap's page and at most three blocks of the main thread's (its
     * 100-byte class, its cached object's, its batch buffers'); a thread exit that dropped its
     * cached objects would leave their blocks (4 to 6 more). */
    CHECK_MSG(after - before <= heap_kb + 3 * (long)(MRN_BLOCK_SIZE >> 10), "%ld KB held after every object was freed and a thread with "
              "objects in its own cache exited (heaps %ld KB each)", after - before, heap_kb);
    printf("test_alloc_own_cache: cached frees came back last first; aligned objects through the cache; "
           "the allocator holds %ld KB after, %ld before\n", after, before);
    return 0;
}
