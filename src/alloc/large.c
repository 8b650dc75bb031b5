/* large.c — objects larger than a block's two: a mapping of their own, with a block header at the
 * 16 KB boundary just below the object (so merino_free finds it as it finds a small object's).
 * Medium objects (up to 1 MB, a ladder of sizes no more than 25% apart) belong to the heap that
 * allocated them: freed, they go back to it (by another thread: in a batch, as small objects do)
 * and wait in its cache, a few per size and at most MRN_MEDIUM_KEEP_BYTES a heap — the paper's
 * "8K to ~64K should also be cached", extended to 1 MB. What overflows a heap's cache, or is left by
 * an exiting thread, waits in a small shared cache (one lock, MRN_MEDIUM_SHARED_BYTES); only then
 * is it unmapped. Larger objects go straight back to the OS, from any thread. */
#include "alloc.h"

#include <errno.h>
#include <string.h>

/* Usable bytes of each medium class, for an object at the mapping's first 16 KB boundary + 64: a
 * ladder no more than 25% apart, in pages. */
static const size_t mrn_medium_size[MRN_NMEDIUM] = {
    10 << 10,  12 << 10,  14 << 10,  16 << 10,  20 << 10,  24 << 10,  28 << 10,  32 << 10,
    40 << 10,  48 << 10,  56 << 10,  64 << 10,  80 << 10,  96 << 10,  112 << 10, 128 << 10,
    160 << 10, 192 << 10, 224 << 10, 256 << 10, 320 << 10, 384 << 10, 448 << 10, 512 << 10,
    640 << 10, 768 << 10, 896 << 10, 1024 << 10,
};

static unsigned mrn_medium_class(size_t size) {
    unsigned c = 0;
    while (mrn_medium_size[c] < size) c++;
    return c;
}

static size_t mrn_round_page(size_t n) { return (n + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1); }

/* Maps room for size bytes at alignment align (a power of two); the header goes at the 16 KB
 * boundary below the object. Fresh mappings read as zero. */
static void *mrn_large_map(size_t size, size_t align, unsigned mclass, mrn_heap *owner) {
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

/* ---- the shared medium cache: what overflows the heaps' caches, and an exited thread's ---------- */

static mrn_lock mrn_shared_lock = MRN_LOCK_INIT;
static mrn_block *mrn_shared[MRN_NMEDIUM][MRN_MEDIUM_SHARED];
static uint8_t mrn_nshared[MRN_NMEDIUM];
static size_t mrn_shared_bytes;

/* A cached mapping of class c from the shared cache, or NULL. */
static mrn_block *mrn_shared_take(unsigned c) {
    mrn_block *b = NULL;
    mrn_lock_acquire(&mrn_shared_lock);
    if (mrn_nshared[c]) {
        b = mrn_shared[c][--mrn_nshared[c]];
        mrn_shared_bytes -= b->map_len;
    }
    mrn_lock_release(&mrn_shared_lock);
    return b;
}

/* Keeps b (tagged CACHED, no owner) in the shared cache if there is room; false if not. */
static bool mrn_shared_put(mrn_block *b) {
    unsigned c = b->cls;
    bool kept = false;
    mrn_lock_acquire(&mrn_shared_lock);
    if (mrn_nshared[c] < MRN_MEDIUM_SHARED && mrn_shared_bytes + b->map_len <= MRN_MEDIUM_SHARED_BYTES) {
        /* relaxed: the shared lock hands it to the next owner */
        atomic_store_explicit(&b->owner_tag, MRN_TAG_LARGE | MRN_TAG_CACHED, memory_order_relaxed);
        mrn_shared[c][mrn_nshared[c]++] = b;
        mrn_shared_bytes += b->map_len;
        kept = true;
    }
    mrn_lock_release(&mrn_shared_lock);
    return kept;
}

void mrn_medium_lock_for_fork(bool lock) { mrn_lock_hold(&mrn_shared_lock, lock); }

/* ---- allocation and free ------------------------------------------------------------------------------ */

void *mrn_large_alloc(mrn_heap *h, size_t size, size_t align, bool zero) {
    if (size <= MRN_MEDIUM_MAX && align <= 64) {
        unsigned c = mrn_medium_class(size);
        mrn_block *b = NULL;
        if (h->nmedium[c]) {
            b = h->medium[c][--h->nmedium[c]];
            h->medium_bytes -= b->map_len;
        } else {
            b = mrn_shared_take(c);
        }
        if (!b) {
            MRN_STAT_ADD(medium_misses, 1);
            return mrn_large_map(mrn_medium_size[c], 64, c, h);
        }
        MRN_STAT_ADD(medium_hits, 1);
        /* relaxed: h's from now; the program hands the object to other threads itself */
        atomic_store_explicit(&b->owner_tag, (uintptr_t)h | MRN_TAG_LARGE, memory_order_relaxed);
        if (zero) memset(b->free, 0, mrn_medium_size[c]);
        return b->free;
    }
    MRN_STAT_ADD(large, 1);
    MRN_STAT_ADD(large_bytes, size);
    return mrn_large_map(size, align, MRN_NMEDIUM, NULL);
}

static void mrn_large_unmap(mrn_block *b) {
#if MRN_ALLOC_DEBUG
    mrn_debug_region(b->map_base, b->map_len, false);
#endif
    mrn_os_unmap(b->map_base, b->map_len);
}

void mrn_large_free(mrn_heap *h, mrn_block *b) {
    unsigned c = b->cls;
    if (h && c < MRN_NMEDIUM && h->nmedium[c] < MRN_MEDIUM_KEEP &&
        h->medium_bytes + b->map_len <= MRN_MEDIUM_KEEP_BYTES) {
        /* relaxed: marks it cached for the debug checks; it is h's, whose thread is this one */
        atomic_store_explicit(&b->owner_tag, (uintptr_t)h | MRN_TAG_LARGE | MRN_TAG_CACHED, memory_order_relaxed);
        h->medium[c][h->nmedium[c]++] = b;
        h->medium_bytes += b->map_len;
        return;
    }
    if (c < MRN_NMEDIUM && mrn_shared_put(b)) return;
    mrn_large_unmap(b);
}

void mrn_medium_drop(mrn_heap *h) {
    for (unsigned c = 0; c < MRN_NMEDIUM; c++) {
        while (h->nmedium[c]) {
            mrn_block *b = h->medium[c][--h->nmedium[c]];
            if (!mrn_shared_put(b)) mrn_large_unmap(b);
        }
    }
    h->medium_bytes = 0;
}
