/* pool.c — the global pool of free blocks: the paper's "global heap". Blocks come from 1 MB chunks
 * mapped from the OS; an entirely free block comes back here from its heap. The pool keeps up to
 * 2 * MRN_POOL_KEEP blocks resident, then gives the pages of the oldest half back to the OS
 * (madvise) and keeps only their addresses, so the resident size comes down after a peak; such a block is
 * taken again last, before a new chunk. Everything here runs under one lock: it is reached once
 * per 16 KB block, not per object. */
#include "alloc.h"

#include <string.h>
#include <sys/mman.h>

static mrn_lock mrn_pool_lock = MRN_LOCK_INIT;
static mrn_block *mrn_pool_list; /* resident free blocks, linked through next */
static size_t mrn_pool_count;
/* Addresses of decommitted free blocks: a stack in a mapping of its own that grows by mremap. */
static mrn_block **mrn_cold;
static size_t mrn_cold_count, mrn_cold_cap;

/* Under the lock. Returns false when the stack cannot grow (the blocks stay resident then). */
static bool mrn_cold_reserve(size_t n) {
    if (mrn_cold_count + n <= mrn_cold_cap) return true;
    size_t cap = mrn_cold_cap ? mrn_cold_cap * 2 : MRN_PAGE / sizeof(mrn_block *);
    while (cap < mrn_cold_count + n) cap *= 2;
    void *p = mrn_cold ? mremap(mrn_cold, mrn_cold_cap * sizeof(mrn_block *), cap * sizeof(mrn_block *),
                                MREMAP_MAYMOVE)
                       : mmap(NULL, cap * sizeof(mrn_block *), PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    mrn_cold = p;
    mrn_cold_cap = cap;
    return true;
}

static mrn_block *mrn_pool_pop(void) {
    mrn_block *b = mrn_pool_list;
    if (b) {
        mrn_pool_list = b->next;
        mrn_pool_count--;
    } else if (mrn_cold_count) {
        b = mrn_cold[--mrn_cold_count];
        MRN_STAT_ADD(recommits, 1);
    }
    return b;
}

mrn_block *mrn_pool_get(void) {
    MRN_STAT_ADD(block_gets, 1);
    mrn_lock_acquire(&mrn_pool_lock);
    mrn_block *b = mrn_pool_pop();
    mrn_lock_release(&mrn_pool_lock);
    if (b) return b;

    /* A new chunk, mapped outside the lock: 16 KB more than 1 MB so that it holds 64 aligned
     * blocks wherever the OS puts it. Chunks are never unmapped (their blocks are decommitted). */
    size_t len = MRN_CHUNK_BLOCKS * MRN_BLOCK_SIZE + MRN_BLOCK_SIZE - MRN_PAGE;
    char *raw = mrn_os_map(len);
    if (!raw) return NULL;
    MRN_STAT_ADD(chunks, 1);
#if MRN_ALLOC_DEBUG
    mrn_debug_region(raw, len, true);
#endif
    char *first = (char *)(((uintptr_t)raw + MRN_BLOCK_SIZE - 1) & ~(MRN_BLOCK_SIZE - 1));
    mrn_lock_acquire(&mrn_pool_lock);
    for (int i = MRN_CHUNK_BLOCKS - 1; i >= 1; i--) {
        mrn_block *c = (mrn_block *)(first + (size_t)i * MRN_BLOCK_SIZE);
        c->next = mrn_pool_list;
        mrn_pool_list = c;
        mrn_pool_count++;
    }
    mrn_lock_release(&mrn_pool_lock);
    return (mrn_block *)first;
}

void mrn_pool_put(mrn_block *b) {
    MRN_STAT_ADD(block_puts, 1);
    /* relaxed: the block has no owner now; the lock below hands it to the next one */
    atomic_store_explicit(&b->owner_tag, 0, memory_order_relaxed);
    mrn_block *excess = NULL;
    size_t n = 0;
    mrn_lock_acquire(&mrn_pool_lock);
    b->next = mrn_pool_list;
    mrn_pool_list = b;
    if (++mrn_pool_count > 2 * MRN_POOL_KEEP) {
        /* Keep the MRN_POOL_KEEP most recently freed (warm in cache) and take the older rest off
         * the list, to decommit outside the lock. */
        mrn_block *last = mrn_pool_list;
        for (size_t i = 1; i < MRN_POOL_KEEP; i++) last = last->next;
        excess = last->next;
        last->next = NULL;
        n = mrn_pool_count - MRN_POOL_KEEP;
        mrn_pool_count = MRN_POOL_KEEP;
    }
    mrn_lock_release(&mrn_pool_lock);
    if (!excess) return;

    mrn_block *list[2 * MRN_POOL_KEEP];
    for (size_t i = 0; i < n; i++, excess = excess->next) list[i] = excess;
    for (size_t i = 0; i < n; i++) mrn_os_decommit(list[i], MRN_BLOCK_SIZE);
    MRN_STAT_ADD(decommits, n);
    mrn_lock_acquire(&mrn_pool_lock);
    if (mrn_cold_reserve(n)) {
        memcpy(mrn_cold + mrn_cold_count, list, n * sizeof *list);
        mrn_cold_count += n;
    } else {
        for (size_t i = 0; i < n; i++) { /* no room for addresses: keep them on the list */
            list[i]->next = mrn_pool_list;
            mrn_pool_list = list[i];
            mrn_pool_count++;
        }
    }
    mrn_lock_release(&mrn_pool_lock);
}

size_t mrn_pool_blocks(size_t *decommitted) {
    mrn_lock_acquire(&mrn_pool_lock);
    size_t n = mrn_pool_count;
    *decommitted = mrn_cold_count;
    mrn_lock_release(&mrn_pool_lock);
    return n;
}

void mrn_pool_lock_for_fork(bool lock) { mrn_lock_hold(&mrn_pool_lock, lock); }
