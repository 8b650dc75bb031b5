/* alloc_internal.h — for the allocator's tests that look inside it (libmerino.a's internal
 * functions and counters): src/alloc/heap.h (and alloc.h), and the resident size by the allocator's own count.
 * Include after alloc_test.h. */
#ifndef MERINO_TEST_ALLOC_INTERNAL_H
#define MERINO_TEST_ALLOC_INTERNAL_H

#include "alloc/heap.h"

/* Bytes the allocator holds resident, by its own count: mapped, less the free blocks that read as
 * zero (decommitted or never touched). Checked in every build; RSS only without sanitizers (their
 * shadow memory does not shrink). */
static inline long allocator_kb(void) {
    size_t cold, chunks;
    mrn_pool_blocks(&cold, &chunks);
    return (long)((atomic_load(&mrn_stats.mapped) - cold * MRN_BLOCK_SIZE) >> 10);
}

#endif /* MERINO_TEST_ALLOC_INTERNAL_H */
