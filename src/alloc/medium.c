/* medium.c — objects larger than a block's two and smaller than a chunk: runs of contiguous blocks
 * from the pool, described by the header of the run's first block (so merino_free finds it as it
 * finds a small object's), the object at the run's start. They belong to the heap that allocated
 * them: freed, they go back to it (by another thread: in a batch, as small objects do) and wait in
 * its cache, a few per length and at most MRN_MEDIUM_KEEP_BYTES a heap — the paper's "8K to ~64K
 * should also be cached", extended to 1 MB. What overflows the cache goes back to the pool, where
 * neighbouring free blocks make longer runs again. The heap's cache also keeps its small blocks
 * that empty, as runs of one block. */
#include "alloc/heap.h"

#include <string.h>

/* A medium object of size bytes takes a run of k blocks, starting at the run's start: k = size /
 * 16 KB rounded up, 1..MRN_CHUNK_USABLE. */
static unsigned mrn_medium_blocks(size_t size) {
    return (unsigned)((size + MRN_BLOCK_SIZE - 1) / MRN_BLOCK_SIZE);
}

/* ---- allocation and free ------------------------------------------------------------------------------ */

size_t mrn_zero_decommit = MRN_ZERO_DECOMMIT;

/* Zeroes the object at p of size bytes (a recycled run's start, page aligned). From
 * mrn_zero_decommit bytes on, the object's whole pages are decommitted instead of cleared, as
 * jemalloc zeroes a recycled extent (ehooks_default_zero_impl): the kernel maps zero pages as they
 * are touched, so a calloc'd buffer the program fills only in part does not make resident the
 * memory it never writes — at the price of a system call (and a TLB shootdown on the cores running
 * the program's other threads). Since freed runs stay resident (chunks.c's decay), this is what
 * keeps the peak resident size of a program that callocs buffers and fills them in part low, at
 * the price of speed for one that writes them whole (MERINO_ALLOC_CALLOC_DECOMMIT chooses). */
static void mrn_medium_zero(char *p, size_t size) {
    if (size < mrn_zero_decommit) {
        memset(p, 0, size);
        return;
    }
    char *hi = (char *)(((uintptr_t)p + size) & ~(uintptr_t)(MRN_PAGE - 1));
    if (mrn_os_decommit(p, (size_t)(hi - p)))
        MRN_STAT_ADD(zero_decommits, 1);
    else
        memset(p, 0, (size_t)(hi - p)); /* locked pages: the decommit cleared nothing */
    memset(hi, 0, (size_t)(p + size - hi));
}

/* A medium object of size bytes for h: a run of k blocks from h's cache (short runs), or from the
 * pool. */
void *mrn_medium_alloc(mrn_heap *h, size_t size, bool zero) {
    unsigned k = mrn_medium_blocks(size);
    mrn_block *b = NULL;
    bool fresh = false;
    if ((b = mrn_run_cached(h, k))) {
        mrn_heap_tick(h);
        /* A cached run's header is as the pool branch below (or mrn_run_keep) left it (map_len k
         * blocks, the object at the run's start): not read here, its line is often cold. */
        /* relaxed, and no read-modify-write: only h's thread writes it (a locked add on a shared
         * counter waited for the program's pending stores at every medium allocation) */
        atomic_store_explicit(&h->medium_hits, atomic_load_explicit(&h->medium_hits, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    } else {
        mrn_pool_tick(); /* a medium allocation from the pool, or a large one, drives the decay */
        b = mrn_pool_get(k, &fresh);
        if (!b) return NULL;
        MRN_STAT_ADD(medium_misses, 1);
        b->map_base = mrn_block_data(b);
        b->map_len = (size_t)k * MRN_BLOCK_SIZE;
        b->cls = k;
        b->size = (uint32_t)b->map_len; /* what a batch of frees counts (remote.h: mrn_batch_add) */
        b->free = mrn_block_data(b);
#if MRN_ALLOC_DEBUG
        /* The headers of the run's other blocks name the run (nothing else reads them): the debug
         * checks tell a pointer into the object from one the allocator never returned. */
        for (unsigned j = 1; j < k; j++) {
            /* relaxed: the run is h's alone; only a misused free reads these */
            atomic_store_explicit(&b[j].owner_tag, 0, memory_order_relaxed);
            b[j].map_base = b->map_base;
            b[j].map_len = b->map_len;
        }
#endif
    }
    /* relaxed: h's from now; the program hands the object to other threads itself */
    atomic_store_explicit(&b->owner_tag, (uintptr_t)h | MRN_TAG_LARGE, memory_order_relaxed);
    char *p = mrn_block_data(b); /* b->free */
    if (zero && !fresh) mrn_medium_zero(p, size);
    return p;
}

mrn_block *mrn_run_cached(mrn_heap *h, unsigned k) {
    if (k > MRN_MEDIUM_CACHED || !h->nmedium[k - 1]) return NULL;
    h->medium_bytes -= (size_t)k * MRN_BLOCK_SIZE;
    return h->medium[k - 1][--h->nmedium[k - 1]];
}

/* Keeps b, a run of k blocks set up as a medium object's (map_base, map_len, cls, size, free), in
 * h's cache, or gives it to the pool when the cache is full (or h is NULL). */
static void mrn_run_cache(mrn_heap *h, mrn_block *b, unsigned k) {
    if (h && k <= MRN_MEDIUM_CACHED && h->nmedium[k - 1] < MRN_MEDIUM_KEEP &&
        h->medium_bytes + (size_t)k * MRN_BLOCK_SIZE <= MRN_MEDIUM_KEEP_BYTES) {
        /* relaxed: marks it cached for the debug checks; it is h's, whose thread is this one */
        atomic_store_explicit(&b->owner_tag, (uintptr_t)h | MRN_TAG_LARGE | MRN_TAG_CACHED, memory_order_relaxed);
        h->medium[k - 1][h->nmedium[k - 1]++] = b;
        h->medium_bytes += (size_t)k * MRN_BLOCK_SIZE; /* its map_len */
        return;
    }
    mrn_pool_put(b, k);
}

void mrn_run_keep(mrn_heap *h, mrn_block *b) {
    b->map_base = b->free = mrn_block_data(b);
    b->map_len = b->size = (uint32_t)MRN_BLOCK_SIZE;
    b->cls = 1;
    mrn_run_cache(h, b, 1);
}

void mrn_medium_free(mrn_heap *h, mrn_block *b) { mrn_run_cache(h, b, b->cls); }

void mrn_medium_drop(mrn_heap *h) {
    mrn_block *b;
    for (unsigned k = 1; k <= MRN_MEDIUM_CACHED; k++)
        while ((b = mrn_run_cached(h, k))) mrn_pool_put(b, k);
}
