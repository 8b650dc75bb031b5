/* os.c — the allocator's memory from the OS: mmap, munmap, madvise, and the count of what is
 * mapped. (Its lock, clock and messages are src/sys's.) */
#include "alloc/alloc.h"

#include <errno.h>
#include <sys/mman.h>

mrn_alloc_stats mrn_stats;

void mrn_stat_mapped(ptrdiff_t delta) {
    /* relaxed (all three): statistics */
    size_t now = atomic_fetch_add_explicit(&mrn_stats.mapped, (size_t)delta, memory_order_relaxed) + (size_t)delta;
    size_t peak = atomic_load_explicit(&mrn_stats.mapped_peak, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak_explicit(&mrn_stats.mapped_peak, &peak, now,
                                                                memory_order_relaxed, memory_order_relaxed)) {
    }
}

/* ---- memory -------------------------------------------------------------------------------------- */

/* MAP_NORESERVE only for reservations: address space whose pages are touched a little at a time.
 * Memory the allocator hands out is mapped without it, so that under the kernel's default
 * overcommit heuristic a mapping larger than RAM and swap together fails here, at malloc, as
 * glibc's does, rather than succeeding and getting the program killed when it touches the pages. */
static void *mrn_os_mmap(size_t len, int flags) {
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
    if (p == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    return p;
}

void *mrn_os_reserve(size_t len) { return mrn_os_mmap(len, MAP_NORESERVE); }

void *mrn_os_map(size_t len) {
    void *p = mrn_os_mmap(len, 0);
    if (p) mrn_stat_mapped((ptrdiff_t)len);
    return p;
}

void mrn_os_unmap(void *p, size_t len) {
    if (munmap(p, len) != 0)
        mrn_die("munmap(%p, %zu) failed: errno %d (the allocator's state is corrupt)", p, len, errno);
    mrn_stat_mapped(-(ptrdiff_t)len);
}

bool mrn_os_decommit(void *p, size_t len) {
    /* MADV_DONTNEED, not MADV_FREE: the resident size drops now, not under memory pressure. It
     * fails (EINVAL) on pages the program locked (mlock, mlockall), which then keep their bytes. */
    return madvise(p, len, MADV_DONTNEED) == 0;
}
