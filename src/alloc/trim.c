/* trim.c — giving the pool's free blocks back to the OS, with decay: up to mrn_pool_keep free
 * blocks stay resident for good; what is free beyond that stays resident too (for reuse: a program
 * freeing and allocating in waves neither decommits nor faults it in again) until its chunk has had
 * nothing freed into it for mrn_decay_ms; then it goes back to the OS, from the chunks freed into
 * least recently: entirely free chunks past MRN_SPARE_CHUNKS are unmapped, other free blocks are
 * decommitted (madvise) and marked cold — taken again only when no resident run fits, before a new
 * chunk is mapped. The decay runs from the allocator's slow paths (mrn_pool_tick) and, while one is
 * pending, from the decay thread (decay.c). A failed map trims to nothing.
 * Plans are made under the pool's lock; the system calls outside it. The pool's state is defined
 * here (chunks.h). */
#include "alloc/chunks.h"

mrn_cdesc *mrn_descs;
uint32_t mrn_descs_free;
mrn_lock mrn_pool_lock = MRN_LOCK_INIT;
uint32_t mrn_chunks_head, mrn_chunks_tail;
size_t mrn_pool_warm, mrn_pool_cold, mrn_pool_mapped;

/* Under the lock: chooses what to give back, of the chunks last freed into at or before `before`
 * (MRN_NEVER: all): the entirely free chunks past MRN_SPARE_CHUNKS (to be unmapped), and, from the
 * chunks freed into least recently, resident runs until at most `keep` free blocks stay resident —
 * taken off the pool while in transit (no one can take them while they are decommitted); they come
 * back cold. At most MRN_TRIM_MAX entries at a time. Returns the number of entries; *young (if not
 * NULL) is the earliest freed_ms of the chunks with resident free blocks it left for being too young
 * (MRN_NEVER if none). */
static size_t mrn_trim_plan(mrn_trim *t, size_t keep, uint64_t before, uint64_t *young) {
    size_t n = 0, spare = 0;
    uint64_t first_young = MRN_NEVER;
    mrn_cdesc *c = mrn_desc(mrn_chunks_tail);
    while (c && n < MRN_TRIM_MAX) {
        mrn_cdesc *prev = mrn_desc(c->prev);
        if (c->freed_ms > before) { /* freed into recently: left to decay later */
            if ((c->free & ~c->cold) && c->freed_ms < first_young) first_young = c->freed_ms;
            c = prev;
            continue;
        }
        /* Up to MRN_SPARE_CHUNKS entirely free chunks stay mapped (decommitted like the others,
         * below) unless the trim is to nothing: a program whose use swings by a few megabytes
         * would otherwise unmap and map chunks again (three system calls and a decommit less). */
        if (c->free == MRN_CHUNK_ALL && (keep == 0 || spare++ >= MRN_SPARE_CHUNKS)) {
            unsigned cold = (unsigned)__builtin_popcountll(c->cold);
            mrn_pool_cold -= cold;
            mrn_pool_warm -= MRN_CHUNK_USABLE - cold;
            mrn_chunk_unlist(c);
            mrn_pool_mapped--;
            t[n++] = (mrn_trim){(char *)c->chunk, MRN_CHUNK_SIZE, NULL, 0, 0, false};
            c->next = mrn_descs_free; /* the chunk is gone from the pool: its entry is free */
            mrn_descs_free = mrn_desc_index(c);
        } else {
            bool whole = c->free == MRN_CHUNK_ALL;
            uint64_t warm = c->free & ~c->cold;
            while (warm && mrn_pool_warm > keep && n < MRN_TRIM_MAX) {
                unsigned first = (unsigned)__builtin_ctzll(warm);
                unsigned k = (unsigned)__builtin_ctzll(~(warm >> first)); /* the run's length */
                uint64_t m = mrn_run_mask(first, k);
                warm &= ~m;
                c->free &= ~m;
                mrn_pool_warm -= k;
                t[n++] = (mrn_trim){(char *)c->chunk + (size_t)first * MRN_BLOCK_SIZE, (size_t)k * MRN_BLOCK_SIZE,
                                    c, first, k, whole};
            }
            if (!c->free) mrn_chunk_unlist(c);
        }
        c = prev;
    }
    if (young) *young = first_young;
    return n;
}

/* Outside the lock: does what mrn_trim_plan chose; decommitted runs come back to the pool cold. A
 * run whose decommit failed (locked pages: they keep their bytes) comes back resident, its chunk
 * counted as freed into now (the decay tries it again a period later, not at every slow path).
 * Returns whether the caller's trim loop plans again: when the plan was cut short (MRN_TRIM_MAX
 * entries), or when a chunk not entirely free when planned is now (its other runs came back while
 * ours were in transit — another thread's free or trim, which saw it partly used: a new plan may
 * unmap it, or it would stay mapped); never after a failed decommit (it would take the same runs
 * again for ever). */
bool mrn_trim_do(mrn_trim *t, size_t n) {
    if (!n) return false;
    size_t decommitted = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i].chunk) {
            if (mrn_os_decommit(t[i].addr, t[i].len)) {
                decommitted += t[i].k;
            } else {
                t[i].len = 0; /* marks it resident for the loop below */
                failed++;
            }
            continue;
        }
#if MRN_ALLOC_DEBUG
        mrn_debug_region(t[i].addr, t[i].len, false, NULL);
#endif
        mrn_os_unmap(t[i].addr, t[i].len);
        MRN_STAT_ADD(chunk_unmaps, 1);
    }
    MRN_STAT_ADD(decommits, decommitted);
    if (!decommitted && !failed) return n == MRN_TRIM_MAX;
    bool again = n == MRN_TRIM_MAX;
    uint64_t now = failed ? mrn_clock_coarse_ms() : 0;
    mrn_lock_acquire(&mrn_pool_lock);
    for (size_t i = 0; i < n; i++) {
        mrn_cdesc *c = t[i].chunk;
        if (!c) continue;
        uint64_t m = mrn_run_mask(t[i].first, t[i].k);
        c->free |= m;
        if (t[i].len == 0) { /* not decommitted: resident, as it was */
            mrn_pool_warm += t[i].k;
            c->freed_ms = now;
            mrn_chunk_list(c, true);
            continue;
        }
        c->cold |= m;
        mrn_pool_cold += t[i].k;
        mrn_chunk_list(c, false); /* if not listed: at the back, cold blocks are taken last */
        if (c->free == MRN_CHUNK_ALL && !t[i].whole) again = true;
    }
    /* the runs left resident decay later (a pending pass finds their chunks young and times
     * itself after them) */
    bool armed = failed && mrn_decay_arm(now);
    mrn_lock_release(&mrn_pool_lock);
    if (armed) mrn_decay_sooner();
    return again && !failed;
}

size_t mrn_decay_plan(mrn_trim *t, uint64_t now) {
    /* relaxed: written only under the lock, which we hold */
    if (now < atomic_load_explicit(&mrn_decay.due, memory_order_relaxed)) return 0;
    uint64_t young = MRN_NEVER;
    uint64_t before = now > mrn_decay_ms ? now - mrn_decay_ms : 0;
    size_t n = mrn_pool_warm > mrn_pool_keep ? mrn_trim_plan(t, mrn_pool_keep, before, &young) : 0;
    /* Due again when the youngest chunk left has aged (or at once if the plan was cut short). */
    uint64_t due = mrn_pool_warm <= mrn_pool_keep ? MRN_NEVER
                   : n == MRN_TRIM_MAX            ? now
                   : young == MRN_NEVER           ? now + mrn_decay_ms
                                                  : young + mrn_decay_ms;
    if (n) {
        size_t blocks = 0;
        for (size_t i = 0; i < n; i++) blocks += t[i].chunk ? t[i].k : MRN_CHUNK_USABLE;
        MRN_STAT_ADD(decays, 1);
        MRN_STAT_ADD(decay_blocks, blocks);
    }
    /* relaxed: a hint for mrn_pool_tick's unlocked peek; the lock orders the pool itself */
    atomic_store_explicit(&mrn_decay.due, due, memory_order_relaxed);
    return n;
}

void mrn_pool_tick(void) {
    mrn_trim t[MRN_TRIM_MAX];
    size_t n;
    do {
        /* relaxed: peeks, rechecked under the locks; most calls find nothing pending and stop
         * here, without reading the clock */
        uint64_t due = atomic_load_explicit(&mrn_decay.due, memory_order_relaxed);
        uint64_t large = atomic_load_explicit(&mrn_decay.large, memory_order_relaxed);
        if (due == MRN_NEVER && large == MRN_NEVER) return;
        uint64_t now = mrn_clock_coarse_ms();
        if (now >= large) mrn_mapcache_tick(now);
        if (now < due) return;
        mrn_lock_acquire(&mrn_pool_lock);
        n = mrn_decay_plan(t, now);
        mrn_lock_release(&mrn_pool_lock);
    } while (mrn_trim_do(t, n));
}

void mrn_pool_trim(size_t keep) {
    mrn_trim t[MRN_TRIM_MAX];
    size_t n;
    do {
        mrn_lock_acquire(&mrn_pool_lock);
        n = mrn_trim_plan(t, keep, MRN_NEVER, NULL);
        mrn_lock_release(&mrn_pool_lock);
    } while (mrn_trim_do(t, n));
}

size_t mrn_pool_blocks(size_t *cold, size_t *chunks) {
    mrn_lock_acquire(&mrn_pool_lock);
    size_t n = mrn_pool_warm;
    *cold = mrn_pool_cold;
    *chunks = mrn_pool_mapped;
    mrn_lock_release(&mrn_pool_lock);
    return n;
}

void mrn_pool_lock_for_fork(bool lock) { mrn_lock_hold(&mrn_pool_lock, lock); }
