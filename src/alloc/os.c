/* os.c — the few OS calls the allocator makes: mmap/munmap/madvise, a futex lock, and messages
 * written with write(2). Written here rather than taken from src/sys because the allocator must not
 * allocate while it reports (src/sys's mrn_error formats into a per-thread buffer and may call the
 * program's handler, and its file needs merino.h), and because libmerino_malloc.so carries no
 * other layer. */
#include "alloc.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
        mrn_alloc_die("munmap(%p, %zu) failed: errno %d (the allocator's state is corrupt)", p, len, errno);
    mrn_stat_mapped(-(ptrdiff_t)len);
}

bool mrn_os_decommit(void *p, size_t len) {
    /* MADV_DONTNEED, not MADV_FREE: the resident size drops now, not under memory pressure. It
     * fails (EINVAL) on pages the program locked (mlock, mlockall), which then keep their bytes. */
    return madvise(p, len, MADV_DONTNEED) == 0;
}

uint64_t mrn_now_ms(void) {
    struct timespec ts;
    /* COARSE: the vDSO reads it without a system call, in a few nanoseconds; its resolution (a
     * timer tick, 1-4 ms) is far below the decay's period */
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- lock ---------------------------------------------------------------------------------------- */

static void mrn_futex(_Atomic uint32_t *word, int op, uint32_t val) {
    syscall(SYS_futex, (uint32_t *)word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

void mrn_lock_acquire(mrn_lock *l) {
    uint32_t expect = 0;
    /* acquire: the holder's critical section comes after the previous holder's release */
    if (atomic_compare_exchange_strong_explicit(&l->word, &expect, 1, memory_order_acquire,
                                                memory_order_relaxed))
        return;
    for (int i = 0; i < 100; i++) {
        mrn_cpu_relax();
        expect = 0;
        /* relaxed peek, then acquire: as above */
        if (atomic_load_explicit(&l->word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_weak_explicit(&l->word, &expect, 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
    }
    /* acquire: as above; 2 tells the releaser that someone may sleep */
    while (atomic_exchange_explicit(&l->word, 2, memory_order_acquire) != 0)
        mrn_futex(&l->word, FUTEX_WAIT, 2);
}

void mrn_lock_release(mrn_lock *l) {
    /* release: the critical section's writes before the next holder's acquire */
    if (atomic_exchange_explicit(&l->word, 0, memory_order_release) == 2)
        mrn_futex(&l->word, FUTEX_WAKE, 1);
}

void mrn_lock_hold(mrn_lock *l, bool hold) {
    if (hold)
        mrn_lock_acquire(l);
    else
        mrn_lock_release(l);
}

/* ---- messages ------------------------------------------------------------------------------------ */

static void mrn_alloc_vsay(const char *fmt, va_list ap) {
    char line[512];
    int n = snprintf(line, sizeof line, "merino: ");
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len++] = '\n';
    for (size_t off = 0; off < len;) {
        ssize_t w = write(2, line + off, len - off);
        if (w <= 0 && errno != EINTR) break;
        if (w > 0) off += (size_t)w;
    }
}

void mrn_alloc_say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_alloc_vsay(fmt, ap);
    va_end(ap);
}

void mrn_alloc_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    mrn_alloc_vsay(fmt, ap);
    va_end(ap);
    abort();
}
