/* The active block's pin (src/alloc/alloc.h, mrn_block.used): while a block is its class's active
 * one, its count of objects in use carries 1 more, so that frees that empty it do not take the slow
 * path. Checks what the pin must not break: a thread whose every object is freed, its active
 * blocks empty, gives all of them back when it exits (they read 1, not 0, then); an active block
 * emptied and filled again many times keeps serving the class from the same memory, contents
 * intact; and a block that stops being active (it filled up) is emptied and given back as any
 * other. The allocator's own count of resident memory must come back to the same figure. */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* the allocator's internals and counters, from libmerino.a; allocator_kb */

enum { CLASSES = MRN_NCLASSES, ROUNDS = 10000, MANY = 3000 };

static void *one_of_each_class(void *arg) {
    (void)arg;
    void *p[CLASSES];
    for (unsigned c = 0; c < CLASSES; c++) {
        size_t n = c == 0 ? 8 : (size_t)MRN_SMALL_MAX >> (CLASSES - 1 - c) % 12;
        CHECK((p[c] = merino_malloc(n)) != NULL);
        memset(p[c], (int)c, n);
    }
    for (unsigned c = 0; c < CLASSES; c++) merino_free(p[c]);
    return NULL; /* exits with its active blocks empty: they must go back */
}

static void *empty_and_refill(void *arg) {
    (void)arg;
    /* An active block of 64-byte objects emptied ROUNDS times over: each round takes the objects
     * the last one freed (the block is never left, so never given back or replaced). */
    unsigned char *first[8], *p[8];
    for (int i = 0; i < 8; i++) CHECK((first[i] = p[i] = merino_malloc(64)) != NULL);
    for (int i = 0; i < 8; i++) merino_free(p[i]);
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < 8; i++) {
            CHECK((p[i] = merino_malloc(64)) != NULL);
            memset(p[i], r + i, 64);
        }
        for (int i = 0; i < 8; i++) {
            for (int k = 0; k < 64; k++) CHECK(p[i][k] == (unsigned char)(r + i));
            merino_free(p[i]);
        }
    }
    int same = 0;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) same += p[i] == first[j];
    CHECK_MSG(same == 8, "an active block emptied %d times did not keep serving its class: %d of 8 objects "
              "came from elsewhere", ROUNDS, 8 - same);
    /* Many objects: the block fills, stops being active (a new one is), and is emptied later. */
    static void *many[MANY];
    for (int i = 0; i < MANY; i++) CHECK((many[i] = merino_malloc(64)) != NULL);
    for (int i = 0; i < MANY; i++) merino_free(many[i]);
    return NULL;
}

static long after_thread(void *(*fn)(void *)) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, fn, NULL) == 0);
    pthread_join(t, NULL);
    mrn_pool_trim(0);
    return allocator_kb();
}

int main(void) {
    mrn_pool_trim(0);
    long before = allocator_kb();
    /* The first thread makes a heap, whose own mapping stays (heaps are never unmapped; the next
     * threads adopt it): nothing else may stay after it exits. */
    long heap_kb = (long)(((sizeof(mrn_heap) + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1)) >> 10);
    long base = after_thread(one_of_each_class);
    CHECK_MSG(base - before <= heap_kb, "a thread that freed everything and exited left %ld KB held besides its "
              "heap's %ld KB: its emptied active blocks were not given back", base - before - heap_kb, heap_kb);
    long again = after_thread(one_of_each_class);
    CHECK_MSG(again == base, "a thread that freed everything and exited left %ld KB more held (%ld, then %ld): "
              "its emptied active blocks were not given back", again - base, base, again);
    long refill = after_thread(empty_and_refill);
    CHECK_MSG(refill == base, "after a thread emptied and refilled its active block and exited, %ld KB more held "
              "(%ld, then %ld)", refill - base, base, refill);
    printf("test_alloc_active_block: the allocator holds %ld KB after each thread (%ld before any; a heap is %ld KB)\n",
           base, before, heap_kb);
    return 0;
}
