/* large.c — objects larger than a block's two. Medium objects (up to MRN_MEDIUM_MAX, just under
 * 1 MB) are runs of contiguous blocks from the pool, with a block header at the run's start (so
 * merino_free finds it as it finds a small object's), in a ladder of run lengths; they belong to
 * the heap that allocated them: freed, they go back to it (by another thread: in a batch, as small
 * objects do) and wait in its cache, a few per length and at most MRN_MEDIUM_KEEP_BYTES a heap —
 * the paper's "8K to ~64K should also be cached", extended to 1 MB. What overflows the cache goes
 * back to the pool, where neighbouring free blocks make longer runs again. Larger objects, and
 * those aligned above 64 bytes, have a mapping of their own, unmapped when freed, by any thread. */
#include "alloc.h"

#include <errno.h>
#include <string.h>

/* A medium object of size bytes takes a run of k blocks, its header at the run's start and the
 * object right after: k = (size + header) / 16 KB rounded up, 1..63 (a chunk less its header). */
static unsigned mrn_medium_blocks(size_t size) {
    return (unsigned)((size + MRN_BLOCK_HDR + MRN_BLOCK_SIZE - 1) / MRN_BLOCK_SIZE);
}

static size_t mrn_round_page(size_t n) { return (n + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1); }

/* Maps room for size bytes at alignment align (a power of two); the header goes at the 16 KB
 * boundary below the object. Fresh mappings read as zero. */
static void *mrn_large_map(size_t size, size_t align, unsigned mclass, mrn_heap *owner) { /* mclass 0 */
    if (align < 64) align = 64;
    /* 16 KB - 4 KB to reach a 16 KB boundary, the header, then the object at its alignment. */
    if (align > PTRDIFF_MAX / 4 || size > PTRDIFF_MAX - align - 2 * MRN_BLOCK_SIZE) {
        errno = ENOMEM;
        return NULL;
    }
    size_t len = mrn_round_page(MRN_BLOCK_SIZE - MRN_PAGE + MRN_BLOCK_HDR + (align - 64) + size);
    char *raw = mrn_os_map(len);
    if (!raw) return NULL;
#if MRN_ALLOC_DEBUG
    mrn_debug_region(raw, len, true);
#endif
    uintptr_t base = ((uintptr_t)raw + MRN_BLOCK_SIZE - 1) & ~(MRN_BLOCK_SIZE - 1);
    /* An aligned address at least a header past base; its block (p - 1 rounded down) lies at or
     * after base, and at least MRN_BLOCK_HDR bytes below p when align >= 64 divides both. */
    uintptr_t p = (base + MRN_BLOCK_HDR + align - 1) & ~(uintptr_t)(align - 1);
    mrn_block *b = mrn_block_of((void *)p);
    b->map_base = raw;
    b->map_len = len;
    b->cls = mclass;
    b->free = (void *)p;
    /* relaxed: the object is published to other threads by the program's own synchronization */
    atomic_store_explicit(&b->owner_tag, (uintptr_t)owner | MRN_TAG_LARGE, memory_order_relaxed);
    return (void *)p;
}

/* ---- allocation and free ------------------------------------------------------------------------------ */

/* Zeroes the object at p of size bytes (in a recycled run, after its header). From
 * MRN_ZERO_DECOMMIT bytes on, the object's whole pages are decommitted instead of cleared, as
 * jemalloc zeroes a recycled extent (ehooks_default_zero_impl): the kernel maps zero pages as they
 * are touched, so a calloc'd buffer the program fills only in part does not make resident the
 * memory it never writes — at the price of a system call (and a TLB shootdown on the cores running
 * the program's other threads). Now that freed runs stay resident (pool.c's decay), this is what
 * keeps the MTS mix's peak resident size below jemalloc's (the threshold's measurements:
 * docs/alloc.md). */
static void mrn_medium_zero(char *p, size_t size) {
    if (size < MRN_ZERO_DECOMMIT) {
        memset(p, 0, size);
        return;
    }
    char *lo = (char *)(((uintptr_t)p + MRN_PAGE - 1) & ~(uintptr_t)(MRN_PAGE - 1));
    char *hi = (char *)(((uintptr_t)p + size) & ~(uintptr_t)(MRN_PAGE - 1));
    memset(p, 0, (size_t)(lo - p));
    if (mrn_os_decommit(lo, (size_t)(hi - lo)))
        MRN_STAT_ADD(zero_decommits, 1);
    else
        memset(lo, 0, (size_t)(hi - lo)); /* locked pages: the decommit cleared nothing */
    memset(hi, 0, (size_t)(p + size - hi));
}

/* A medium object of size bytes for h: a run of k blocks from h's cache (short runs), or from the
 * pool. */
static void *mrn_medium_alloc(mrn_heap *h, size_t size, bool zero) {
    unsigned k = mrn_medium_blocks(size);
    mrn_block *b = NULL;
    bool fresh = false;
    if (k <= MRN_MEDIUM_CACHED && h->nmedium[k - 1]) {
        /* A cached run's header is as the pool branch below left it (map_len k blocks, the object
         * right after the header): not read here, its line is often cold. */
        b = h->medium[k - 1][--h->nmedium[k - 1]];
        h->medium_bytes -= (size_t)k * MRN_BLOCK_SIZE;
        /* relaxed, and no read-modify-write: only h's thread writes it (a locked add on a shared
         * counter waited for the program's pending stores at every medium allocation) */
        atomic_store_explicit(&h->medium_hits, atomic_load_explicit(&h->medium_hits, memory_order_relaxed) + 1,
                              memory_order_relaxed);
    } else {
        b = mrn_pool_get(k, &fresh);
        if (!b) return NULL;
        MRN_STAT_ADD(medium_misses, 1);
        b->map_base = (char *)b;
        b->map_len = (size_t)k * MRN_BLOCK_SIZE;
        b->cls = k;
        b->size = (uint32_t)b->map_len; /* what a batch of frees counts (alloc.c: mrn_batch_add) */
        b->free = mrn_block_data(b);
    }
    /* relaxed: h's from now; the program hands the object to other threads itself */
    atomic_store_explicit(&b->owner_tag, (uintptr_t)h | MRN_TAG_LARGE, memory_order_relaxed);
    char *p = mrn_block_data(b); /* b->free */
    if (zero && !fresh) mrn_medium_zero(p, size);
    return p;
}

void *mrn_large_alloc(mrn_heap *h, size_t size, size_t align, bool zero) {
    mrn_pool_tick(); /* every medium or large allocation drives the pool's decay */
    if (size <= MRN_MEDIUM_MAX && align <= 64) return mrn_medium_alloc(h, size, zero);
    MRN_STAT_ADD(large, 1);
    MRN_STAT_ADD(large_bytes, size);
    return mrn_large_map(size, align, 0, NULL);
}

static void mrn_large_unmap(mrn_block *b) {
#if MRN_ALLOC_DEBUG
    mrn_debug_region(b->map_base, b->map_len, false);
#endif
    mrn_os_unmap(b->map_base, b->map_len);
}

void mrn_large_free(mrn_heap *h, mrn_block *b) {
    unsigned k = b->cls;
    if (k == 0) { /* a mapping of its own */
        mrn_large_unmap(b);
        return;
    }
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

void mrn_medium_drop(mrn_heap *h) {
    for (unsigned k = 1; k <= MRN_MEDIUM_CACHED; k++)
        while (h->nmedium[k - 1]) mrn_pool_put(h->medium[k - 1][--h->nmedium[k - 1]], k);
    h->medium_bytes = 0;
}
