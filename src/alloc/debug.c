/* debug.c — debug builds only: the set of address ranges the allocator has mapped, so that free
 * can tell a pointer it never returned (a stack address, another allocator's memory) from its own
 * before it reads a header that is not there. A sorted array under a lock: debug speed is enough. */
#include "alloc.h"

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
        if (p == MAP_FAILED) mrn_alloc_die("debug: cannot grow the table of mapped regions");
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

#endif
