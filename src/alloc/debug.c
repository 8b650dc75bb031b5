/* debug.c — debug builds only: the checks of free (and realloc, usable size) — a double free, a
 * pointer the allocator never returned, a pointer into an object — with a bitmap of allocated
 * objects per block, and the set of address ranges the allocator has mapped, so that free can tell
 * a pointer it never returned (a stack address, another allocator's memory) from its own before it
 * reads a header that is not there. A sorted array under a lock: debug speed is enough. */
#include "alloc/alloc.h"

#if MRN_ALLOC_DEBUG

#include <string.h>
#include <sys/mman.h>

typedef struct mrn_region {
    uintptr_t start, end;
    const void *object; /* a large object's mapping: the object; a chunk: NULL */
} mrn_region;

static mrn_lock mrn_regions_lock = MRN_LOCK_INIT;
static mrn_region *mrn_regions; /* sorted by start, disjoint */
static size_t mrn_nregions, mrn_regions_cap;

/* Under the lock: the first region whose end is above a. */
static size_t mrn_region_find(uintptr_t a) {
    size_t lo = 0, hi = mrn_nregions;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (mrn_regions[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void mrn_debug_region(void *start, size_t len, bool add, const void *object) {
    uintptr_t a = (uintptr_t)start;
    mrn_lock_acquire(&mrn_regions_lock);
    size_t i = mrn_region_find(a);
    if (!add) {
        if (i < mrn_nregions && mrn_regions[i].start == a) {
            memmove(mrn_regions + i, mrn_regions + i + 1, (mrn_nregions - i - 1) * sizeof *mrn_regions);
            mrn_nregions--;
        }
        mrn_lock_release(&mrn_regions_lock);
        return;
    }
    if (mrn_nregions == mrn_regions_cap) {
        size_t cap = mrn_regions_cap ? 2 * mrn_regions_cap : MRN_PAGE / sizeof(mrn_region);
        void *p = mrn_regions ? mremap(mrn_regions, mrn_regions_cap * sizeof(mrn_region),
                                       cap * sizeof(mrn_region), MREMAP_MAYMOVE)
                              : mmap(NULL, cap * sizeof(mrn_region), PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) mrn_die("debug: cannot grow the table of mapped regions");
        mrn_regions = p;
        mrn_regions_cap = cap;
    }
    memmove(mrn_regions + i + 1, mrn_regions + i, (mrn_nregions - i) * sizeof *mrn_regions);
    mrn_regions[i] = (mrn_region){a, a + len, object};
    mrn_nregions++;
    mrn_lock_release(&mrn_regions_lock);
}

bool mrn_debug_owns(const void *p, const void **object) {
    uintptr_t a = (uintptr_t)p;
    mrn_lock_acquire(&mrn_regions_lock);
    size_t i = mrn_region_find(a);
    bool in = i < mrn_nregions && mrn_regions[i].start <= a;
    *object = in ? mrn_regions[i].object : NULL;
    /* The header of p's block must lie in the same region (it does for every pointer returned). */
    in = in && (*object || (uintptr_t)mrn_block_of(p) >= mrn_regions[i].start);
    mrn_lock_release(&mrn_regions_lock);
    return in;
}

void mrn_debug_fork(bool lock) { mrn_lock_hold(&mrn_regions_lock, lock); }

/* ---- the checks ---------------------------------------------------------------------------------- */

/* Marks the object at p allocated (small objects: a bit of their block's bitmap). */
void *mrn_debug_mark(void *p) {
    if (!p) return p;
    mrn_block *b = mrn_block_of(p);
    /* relaxed: p is this thread's new object */
    if (atomic_load_explicit(&b->owner_tag, memory_order_relaxed) & MRN_TAG_LARGE) return p;
    size_t i = (size_t)(mrn_object_start(b, p) - mrn_block_data(b)) / b->size;
    /* relaxed: debug bookkeeping; the object itself is handed over by the program */
    atomic_fetch_or_explicit(&mrn_block_live(b)[i / 64], (uint64_t)1 << (i % 64), memory_order_relaxed);
    return p;
}

/* A block inside a live medium run whose object p points into, or NULL. Such a block's header
 * names its run (large.c); one freed since may name a stale run, so the run's own header is
 * checked, and only a run in p's chunk (one the debug checks know is mapped) is read. */
static const char *mrn_debug_run_of(const void *p, const mrn_block *b) {
    const char *run = b->map_base, *c = (const char *)p;
    if (!run || c <= run || c >= run + b->map_len) return NULL;
    /* a run starts at a block of p's chunk past its header blocks, and never leaves the chunk */
    uintptr_t at = (uintptr_t)run & (MRN_CHUNK_SIZE - 1);
    if (((uintptr_t)run ^ (uintptr_t)p) >= MRN_CHUNK_SIZE || at % MRN_BLOCK_SIZE ||
        at < MRN_CHUNK_HDR_BLOCKS * MRN_BLOCK_SIZE)
        return NULL;
    const mrn_block *head = mrn_block_of(run);
    /* relaxed: debug reads, as in mrn_debug_check */
    uintptr_t tag = atomic_load_explicit(&head->owner_tag, memory_order_relaxed);
    bool live = (tag & (MRN_TAG_LARGE | MRN_TAG_CACHED)) == MRN_TAG_LARGE && head->cls != 0;
    return live && head->free == run && c < run + head->map_len ? run : NULL;
}

/* Reports p, a pointer into the large object at start, and aborts. */
__attribute__((noreturn)) static void mrn_debug_die_inside(const char *what, const void *p, const void *start) {
    mrn_die("%s(%p): not the start of an object (it points %td bytes into a large object at %p)", what, p,
                  (const char *)p - (const char *)start, start);
}

void mrn_debug_check(const void *p, const char *what, bool release) {
    const void *large;
    if (!mrn_debug_owns(p, &large))
        mrn_die("%s(%p): not a pointer the allocator returned (it is in no memory the "
                      "allocator mapped): a stack or static address, or another allocator's memory?",
                      what, p);
    if (large && p != large) { /* in the mapping of a large object of its own, not at its start */
        if (p > large) mrn_debug_die_inside(what, p, large);
        mrn_die("%s(%p): not a pointer the allocator returned (it is in the allocator's header "
                      "before the large object at %p)", what, p, large);
    }
    mrn_block *b = mrn_block_of(p);
    /* relaxed: debug reads; a concurrent double free is caught by the bitmap's atomic below */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (tag & MRN_TAG_LARGE) {
        if (tag & MRN_TAG_CACHED) mrn_die("%s(%p): double free (this large object is already free)", what, p);
        if (p != b->free) mrn_debug_die_inside(what, p, b->free);
        return;
    }
    if (tag == 0) {
        const char *run = mrn_debug_run_of(p, b);
        if (run) mrn_debug_die_inside(what, p, run);
        mrn_die("%s(%p): double free, or a pointer never returned (its block holds no object)", what, p);
    }
    const char *start = mrn_object_start(b, p);
    if (start != p && !(tag & MRN_TAG_ALIGNED))
        mrn_die("%s(%p): not the start of an object (it points %td bytes into an object of %u "
                      "bytes at %p)", what, p, (const char *)p - start, b->size, (const void *)start);
    size_t i = (size_t)(start - mrn_block_data(b)) / b->size;
    uint64_t bit = (uint64_t)1 << (i % 64);
    /* relaxed: debug bookkeeping (an atomic RMW, so two racing frees cannot both see the bit) */
    _Atomic uint64_t *live = mrn_block_live(b);
    uint64_t old = release ? atomic_fetch_and_explicit(&live[i / 64], ~bit, memory_order_relaxed)
                           : atomic_load_explicit(&live[i / 64], memory_order_relaxed);
    if (!(old & bit))
        mrn_die("%s(%p): double free, or a pointer never returned (object of %u bytes at %p is free)",
                      what, p, b->size, (const void *)start);
}

#endif
