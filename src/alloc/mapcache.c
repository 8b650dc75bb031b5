/* mapcache.c — freed large mappings kept for reuse. A large object (large.c) has a mapping of its
 * own; freed, its pages stay mapped here, resident, for the next large allocation: handed out whole
 * when one entry fits alone (best fit: the smallest that does, its tail split off when a megabyte
 * or more is left), or moved piece by piece into the new object's mapping with mremap when none
 * does — page tables move, no page is faulted in or copied again.
 *
 * What it holds is bounded by the program's own recent use: the large mappings in use plus those
 * cached never exceed the most that was in use at once over the last one or two decay periods (the
 * high-water), or mrn_pool_keep blocks' worth when that is more; so a program that frees and
 * allocates large buffers in waves reuses its pages without its resident size passing its own
 * peak. Past mrn_pool_keep, an entry goes back to the OS once it has waited mrn_decay_ms, oldest
 * first; and all of them once no large object was allocated or freed for MRN_IDLE_PERIODS decay
 * periods. The passes run when due from the allocator's slow paths and from the decay thread
 * (decay.c). Each entry lies within one of the process's mappings (a VMA), which mremap needs; a
 * freed object gives back one entry per piece it was built from (large.c records them).
 *
 * One lock, reached once per large allocation or free; the system calls are made outside it. */
#include "alloc/alloc.h"

#include <errno.h>
#include <sys/mman.h>

/* Entries at most; a full cache gives its oldest back to make room. */
enum { MRN_MAPCACHE_MAX = 256 };

typedef struct mrn_centry {
    char *addr;
    size_t len;
    uint64_t freed_ms; /* when it came in (mrn_clock_coarse_ms): the decay's clock */
} mrn_centry;

/* A piece moved into a new mapping: from, its length, its offset there. */
typedef struct mrn_move {
    char *from;
    size_t len, at;
} mrn_move;

static mrn_lock mrn_mc_lock = MRN_LOCK_INIT;
static mrn_centry mrn_mc[MRN_MAPCACHE_MAX]; /* under the lock: entries 0..n-1, oldest first */
static unsigned mrn_mc_n;
static size_t mrn_mc_held;                 /* their bytes */
static size_t mrn_mc_live;                 /* bytes of large mappings in use */
static size_t mrn_mc_hw, mrn_mc_hw_prev;   /* the most in use during this window, the last one */
static uint64_t mrn_mc_window;             /* when this window began */
static uint64_t mrn_mc_used_ms;            /* the last large allocation or free */

static size_t mrn_mc_keep(void) { return mrn_pool_keep * MRN_BLOCK_SIZE; }

/* ---- under the lock ------------------------------------------------------------------------------- */

/* The high-water windows: a new one each decay period (the last one remembered). */
static void mrn_mc_tick_window(uint64_t now) {
    uint64_t w = MRN_IDLE_PERIODS * mrn_decay_ms;
    if (now - mrn_mc_window < w) return;
    mrn_mc_hw_prev = now - mrn_mc_window < 2 * w ? mrn_mc_hw : mrn_mc_live;
    mrn_mc_hw = mrn_mc_live;
    mrn_mc_window = now;
}

static void mrn_mc_add_live(ptrdiff_t delta) {
    mrn_mc_live += (size_t)delta;
    if (mrn_mc_live > mrn_mc_hw) mrn_mc_hw = mrn_mc_live;
}

/* What the cache may hold now: the recent high-water less what is in use, or the retained bound. */
static size_t mrn_mc_cap(void) {
    size_t hw = mrn_mc_hw > mrn_mc_hw_prev ? mrn_mc_hw : mrn_mc_hw_prev;
    size_t room = hw > mrn_mc_live ? hw - mrn_mc_live : 0;
    return room > mrn_mc_keep() ? room : mrn_mc_keep();
}

static void mrn_mc_remove(unsigned i) {
    mrn_mc_held -= mrn_mc[i].len;
    for (unsigned j = i; j + 1 < mrn_mc_n; j++) mrn_mc[j] = mrn_mc[j + 1];
    mrn_mc_n--;
}

/* Keeps [addr, addr + len) as the newest entry (the oldest goes to out when full). */
static void mrn_mc_insert(char *addr, size_t len, uint64_t freed_ms, mrn_span *out, unsigned *nout) {
    if (mrn_mc_n == MRN_MAPCACHE_MAX) {
        out[(*nout)++] = (mrn_span){mrn_mc[0].addr, mrn_mc[0].len};
        mrn_mc_remove(0);
    }
    unsigned i = mrn_mc_n;
    while (i > 0 && mrn_mc[i - 1].freed_ms > freed_ms) { /* kept in order of age */
        mrn_mc[i] = mrn_mc[i - 1];
        i--;
    }
    mrn_mc[i] = (mrn_centry){addr, len, freed_ms};
    mrn_mc_n++;
    mrn_mc_held += len;
}

/* Moves to out (to be unmapped) the oldest entries, freed at or before `before`, until at most
 * limit bytes are held. */
static void mrn_mc_evict(size_t limit, uint64_t before, mrn_span *out, unsigned *nout) {
    while (mrn_mc_n && mrn_mc_held > limit && mrn_mc[0].freed_ms <= before) {
        out[(*nout)++] = (mrn_span){mrn_mc[0].addr, mrn_mc[0].len};
        mrn_mc_remove(0);
    }
}

/* When the next pass is due (MRN_NEVER: nothing to give back); stores it, and returns whether it
 * is sooner than before (the caller wakes the decay thread: mrn_decay_sooner). */
static bool mrn_mc_set_due(void) {
    uint64_t due = !mrn_mc_n                      ? MRN_NEVER
                   : mrn_mc_held > mrn_mc_keep() ? mrn_mc[0].freed_ms + mrn_decay_ms
                                                  : mrn_mc_used_ms + MRN_IDLE_PERIODS * mrn_decay_ms;
    /* relaxed: written under the lock; mrn_mapcache_tick's unlocked read is a hint */
    uint64_t old = atomic_load_explicit(&mrn_decay.large, memory_order_relaxed);
    atomic_store_explicit(&mrn_decay.large, due, memory_order_relaxed);
    return due < old;
}

/* ---- outside the lock ----------------------------------------------------------------------------- */

static void mrn_mc_unmap(const mrn_span *s, unsigned n) {
    for (unsigned i = 0; i < n; i++) mrn_os_unmap(s[i].addr, s[i].len);
    if (n) MRN_STAT_ADD(large_given_back, n);
}

/* ---- the interface -------------------------------------------------------------------------------- */

char *mrn_mapcache_take(size_t need, size_t *len) {
    uint64_t now = mrn_clock_coarse_ms();
    mrn_lock_acquire(&mrn_mc_lock);
    mrn_mc_tick_window(now);
    mrn_mc_used_ms = now;
    unsigned best = MRN_MAPCACHE_MAX;
    size_t best_room = SIZE_MAX;
    for (unsigned i = 0; i < mrn_mc_n; i++) {
        /* an object's mapping starts at a megabyte boundary (its header there: alloc.h, mrn_block_of) */
        char *end = mrn_mc[i].addr + mrn_mc[i].len;
        char *m = (char *)(((uintptr_t)mrn_mc[i].addr + MRN_CHUNK_SIZE - 1) & ~(uintptr_t)(MRN_CHUNK_SIZE - 1));
        if (m >= end) continue;
        size_t room = (size_t)(end - m);
        if (room >= need && room < best_room) {
            best = i;
            best_room = room;
        }
    }
    if (best == MRN_MAPCACHE_MAX) {
        mrn_mc_add_live((ptrdiff_t)need); /* the caller maps need bytes instead */
        mrn_lock_release(&mrn_mc_lock);
        return NULL;
    }
    mrn_centry e = mrn_mc[best];
    mrn_mc_remove(best);
    char *m = (char *)(((uintptr_t)e.addr + MRN_CHUNK_SIZE - 1) & ~(uintptr_t)(MRN_CHUNK_SIZE - 1));
    mrn_span out[2];
    unsigned nout = 0;
    if (m > e.addr) mrn_mc_insert(e.addr, (size_t)(m - e.addr), e.freed_ms, out, &nout); /* the part before */
    size_t got = best_room;
    if (best_room - need >= MRN_CHUNK_SIZE) { /* the tail stays */
        got = need;
        mrn_mc_insert(m + need, best_room - need, e.freed_ms, out, &nout);
    }
    mrn_mc_add_live((ptrdiff_t)got); /* (the due stays: a pass finds what is left) */
    mrn_lock_release(&mrn_mc_lock);
    mrn_mc_unmap(out, nout);
    MRN_STAT_ADD(large_reused, 1);
    *len = got;
    return m;
}

/* Under the lock: the entry that starts at addr, or MRN_MAPCACHE_MAX. */
static unsigned mrn_mc_find(const char *addr) {
    unsigned i = 0;
    while (i < mrn_mc_n && mrn_mc[i].addr != addr) i++;
    return i < mrn_mc_n ? i : MRN_MAPCACHE_MAX;
}

bool mrn_mapcache_take_at(char *addr, size_t len, uint32_t *cut, unsigned max, unsigned *n) {
    mrn_lock_acquire(&mrn_mc_lock);
    /* the entries that follow one another from addr: enough of them, in few enough pieces? */
    unsigned k = 0;
    size_t got = 0;
    while (got < len && k < max) {
        unsigned i = mrn_mc_find(addr + got);
        if (i == MRN_MAPCACHE_MAX) break;
        got += mrn_mc[i].len;
        k++;
    }
    bool ok = got >= len;
    if (ok) {
        got = 0;
        for (unsigned j = 0; j < k; j++) {
            unsigned i = mrn_mc_find(addr + got);
            mrn_centry e = mrn_mc[i];
            mrn_mc_remove(i);
            if (j) cut[j - 1] = (uint32_t)(got / MRN_PAGE);
            if (got + e.len > len) { /* the last one's rest stays (never full here: one was removed) */
                mrn_span none[1];
                unsigned nout = 0;
                mrn_mc_insert(e.addr + (len - got), got + e.len - len, e.freed_ms, none, &nout);
            }
            got += e.len;
        }
        *n = k;
        mrn_mc_used_ms = mrn_clock_coarse_ms();
        mrn_mc_add_live((ptrdiff_t)len);
    }
    mrn_lock_release(&mrn_mc_lock);
    return ok;
}

size_t mrn_mapcache_fill(char *dest, size_t len, uint32_t *cut, unsigned max, unsigned *n) {
    mrn_move plan[MRN_LARGE_PIECES];
    unsigned k = 0;
    size_t filled = 0;
    mrn_lock_acquire(&mrn_mc_lock);
    if (max > MRN_LARGE_PIECES) max = MRN_LARGE_PIECES;
    while (filled < len && k < max && mrn_mc_n) {
        /* the newest entry first: the pages freed last are the likeliest still in the caches (a
         * program writing a buffer that reused its previous one's pages runs faster) */
        mrn_centry *e = &mrn_mc[mrn_mc_n - 1];
        size_t m = e->len < len - filled ? e->len : len - filled;
        /* its last m bytes: the entry keeps its start (a megabyte boundary, as every end is) */
        plan[k++] = (mrn_move){e->addr + e->len - m, m, filled};
        if (m == e->len) {
            mrn_mc_remove(mrn_mc_n - 1);
        } else {
            e->len -= m;
            mrn_mc_held -= m;
        }
        filled += m;
    }
    mrn_lock_release(&mrn_mc_lock);
    size_t moved = 0;
    for (unsigned i = 0; i < k; i++) {
        void *to = dest + plan[i].at;
        if (mremap(plan[i].from, plan[i].len, plan[i].len, MREMAP_MAYMOVE | MREMAP_FIXED, to) == to) {
            moved += plan[i].len;
        } else {
            /* it spans mappings the program split (mprotect, mlock of a part), or the kernel's
             * limit on mappings is reached: given back; the destination keeps its fresh pages */
            mrn_os_unmap(plan[i].from, plan[i].len);
        }
        if (i) cut[i - 1] = (uint32_t)(plan[i].at / MRN_PAGE);
    }
    /* the moved pages replaced pages of dest's mapping: the process maps that much less */
    mrn_stat_mapped(-(ptrdiff_t)moved);
    if (k) {
        MRN_STAT_ADD(large_gathered, 1);
        MRN_STAT_ADD(large_moved_kb, moved >> 10);
    }
    *n = k;
    return filled;
}

bool mrn_mapcache_put(const mrn_span *s, unsigned n) {
    uint64_t now = mrn_clock_coarse_ms();
    mrn_span out[MRN_MAPCACHE_MAX + MRN_LARGE_PIECES];
    unsigned nout = 0;
    mrn_lock_acquire(&mrn_mc_lock);
    mrn_mc_tick_window(now);
    mrn_mc_used_ms = now;
    for (unsigned i = 0; i < n; i++) {
        mrn_mc_live -= s[i].len;
        mrn_mc_insert(s[i].addr, s[i].len, now, out, &nout);
    }
    /* a decay period of 0: nothing waits, the retained bound included (idle at once) */
    mrn_mc_evict(mrn_decay_ms ? mrn_mc_cap() : 0, MRN_NEVER, out, &nout);

    bool armed = mrn_mc_set_due();
    mrn_lock_release(&mrn_mc_lock);
    mrn_mc_unmap(out, nout);
    return armed;
}

void mrn_mapcache_account(ptrdiff_t delta) {
    mrn_lock_acquire(&mrn_mc_lock);
    mrn_mc_add_live(delta);
    mrn_lock_release(&mrn_mc_lock);
}

/* The pass when it is due: entries past the retained bound that waited the decay period go,
 * oldest first; all of them when the cache has been idle. */
void mrn_mapcache_tick(uint64_t now) {
    /* relaxed: a peek, read again under the lock */
    if (now < atomic_load_explicit(&mrn_decay.large, memory_order_relaxed)) return;
    mrn_span out[MRN_MAPCACHE_MAX];
    unsigned nout = 0;
    mrn_lock_acquire(&mrn_mc_lock);
    /* relaxed: under the lock, which orders the cache itself */
    if (now >= atomic_load_explicit(&mrn_decay.large, memory_order_relaxed)) {
        mrn_mc_tick_window(now);
        bool idle = now - mrn_mc_used_ms >= MRN_IDLE_PERIODS * mrn_decay_ms;
        mrn_mc_evict(idle ? 0 : mrn_mc_keep(), idle ? MRN_NEVER : now - mrn_decay_ms, out, &nout);

        mrn_mc_set_due();
    }
    mrn_lock_release(&mrn_mc_lock);
    mrn_mc_unmap(out, nout);
}

void mrn_mapcache_drop(void) {
    mrn_span out[MRN_MAPCACHE_MAX];
    unsigned nout = 0;
    mrn_lock_acquire(&mrn_mc_lock);
    mrn_mc_evict(0, MRN_NEVER, out, &nout);
    mrn_mc_set_due();
    mrn_lock_release(&mrn_mc_lock);
    mrn_mc_unmap(out, nout);
}

size_t mrn_mapcache_held(void) {
    mrn_lock_acquire(&mrn_mc_lock);
    size_t held = mrn_mc_held;
    mrn_lock_release(&mrn_mc_lock);
    return held;
}

void mrn_mapcache_lock_for_fork(bool lock) { mrn_lock_hold(&mrn_mc_lock, lock); }
