/* A heap's full blocks come back into use (src/alloc/block.h, block.c: a full block is flagged and its
 * count of objects in use reads 1, so the first free into it lists it again).
 * For classes of 2, 2, 16 and 341 objects a block: a thread fills blocks with objects, frees every
 * other one itself, and allocates as many again — each must come from a block it filled (no new
 * block while the full ones have room); then another thread frees every other one (the frees
 * reach the owner in batches and are listed again at its collection), and the owner allocates as
 * many again, with the same check. Every object's contents are checked throughout. */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* mrn_block_of */

enum { OBJECTS = 2048 };

static unsigned char *g_obj[OBJECTS];
static uint64_t g_tag[OBJECTS];
static size_t g_size;
static uintptr_t g_blocks[OBJECTS]; /* the blocks the first fill used, sorted */
static size_t g_nblocks;

static int cmp_uintptr(const void *a, const void *b) {
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static bool filled_block(const void *p) {
    uintptr_t b = (uintptr_t)mrn_block_of(p);
    return bsearch(&b, g_blocks, g_nblocks, sizeof b, cmp_uintptr) != NULL;
}

static void make(long i, uint64_t *s) {
    g_tag[i] = at_next(s);
    g_obj[i] = (unsigned char *)merino_malloc(g_size);
    CHECK(g_obj[i] != NULL);
    at_fill(g_obj[i], g_size, g_tag[i]);
}

static void check_all(const char *when) {
    for (long i = 0; i < OBJECTS; i++)
        if (g_obj[i]) CHECK_MSG(at_check(g_obj[i], g_size, g_tag[i]) < 0, "%s: object %ld overwritten", when, i);
}

/* Every other object freed (the odd ones), by whoever calls. */
static void free_odd(void) {
    for (long i = 1; i < OBJECTS; i += 2) {
        CHECK(at_check(g_obj[i], g_size, g_tag[i]) < 0);
        merino_free(g_obj[i]);
        g_obj[i] = NULL;
    }
}

static void *other_thread(void *arg) {
    (void)arg;
    free_odd();
    return NULL; /* its batches go to the owner at its exit at the latest */
}

/* Refills the odd slots: each object must come from a block of the first fill. */
static void refill_odd(uint64_t *s, const char *after) {
    long outside = 0;
    for (long i = 1; i < OBJECTS; i += 2) {
        make(i, s);
        outside += !filled_block(g_obj[i]);
    }
    CHECK_MSG(outside == 0, "after %s, %ld of %d objects came from new blocks, with the full ones "
              "half free", after, outside, OBJECTS / 2);
    check_all(after);
}

static void run_class(size_t size, uint64_t seed) {
    g_size = size;
    uint64_t s = seed;
    for (long i = 0; i < OBJECTS; i++) make(i, &s);
    g_nblocks = 0;
    for (long i = 0; i < OBJECTS; i++) g_blocks[g_nblocks++] = (uintptr_t)mrn_block_of(g_obj[i]);
    qsort(g_blocks, g_nblocks, sizeof *g_blocks, cmp_uintptr);
    size_t n = 0;
    for (size_t i = 0; i < g_nblocks; i++)
        if (n == 0 || g_blocks[n - 1] != g_blocks[i]) g_blocks[n++] = g_blocks[i];
    g_nblocks = n;
    check_all("the fill");

    free_odd(); /* the owner's frees: every full block gets one */
    refill_odd(&s, "the owner's frees");

    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_thread, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    refill_odd(&s, "another thread's frees");

    for (long i = 0; i < OBJECTS; i++) {
        merino_free(g_obj[i]);
        g_obj[i] = NULL;
    }
}

int main(void) {
    /* 8192 and 5856 bytes: two objects a block; 1008: sixteen; 48: 341 */
    static const size_t sizes[] = {8192, 5856, 1008, 48};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        check_set_context("objects of %zu bytes", sizes[k]);
        run_class(sizes[k], 0x9e3779b97f4a7c15ull * (k + 1));
    }
    check_set_context(NULL);
    printf("test_alloc_full_blocks: full blocks of 4 classes came back after the owner's and "
           "another thread's frees\n");
    return 0;
}
