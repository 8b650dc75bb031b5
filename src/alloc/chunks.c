/* chunks.c — the global pool of free blocks: the paper's "global heap". Memory comes from the OS in
 * chunks of 1 MB aligned to 1 MB: 64 blocks of 16 KB, the first (two in debug builds) holding the
 * chunk's header (the headers of its blocks), the others handed out alone (a small block) or as a
 * run of contiguous blocks (a medium object). Each chunk's state in the pool — bitmaps of its free
 * and cold blocks, its place in the list — sits in a table apart (chunks.h: mrn_cdesc). A block
 * that comes back is marked free in its chunk's bitmap, so neighbouring free blocks form longer
 * runs again without any merging step. Everything here runs under one lock: it is reached once per
 * 16 KB block or medium object, not per small object; the system calls are made outside it. What
 * goes back to the OS, and when: trim.c. */
#include "alloc/chunks.h"

#include <errno.h>

static uint32_t mrn_descs_used = 1; /* table entries given out so far (0 never is) */

/* Takes run [first, first + k) of c off the pool. Returns whether all of it reads as zero. */
static bool mrn_chunk_take(mrn_cdesc *c, unsigned first, unsigned k) {
    uint64_t m = mrn_run_mask(first, k);
    unsigned cold = (unsigned)__builtin_popcountll(c->cold & m);
    mrn_pool_cold -= cold;
    mrn_pool_warm -= k - cold;
    if (cold) MRN_STAT_ADD(recommits, cold);
    c->free &= ~m;
    c->cold &= ~m;
    if (!c->free) mrn_chunk_unlist(c);
    return cold == k;
}

/* ---- getting and putting blocks ----------------------------------------------------------------- */

/* A new chunk (not yet in the pool); NULL when out of memory. */
static mrn_chunk *mrn_chunk_map(void) {
    /* Map twice the size and keep the aligned megabyte in it. */
    char *raw = mrn_pool_map(2 * MRN_CHUNK_SIZE);
    if (!raw) return NULL;
    char *base = (char *)(((uintptr_t)raw + MRN_CHUNK_SIZE - 1) & ~(uintptr_t)(MRN_CHUNK_SIZE - 1));
    if (base > raw) mrn_os_unmap(raw, (size_t)(base - raw));
    if (raw + 2 * MRN_CHUNK_SIZE > base + MRN_CHUNK_SIZE)
        mrn_os_unmap(base + MRN_CHUNK_SIZE, (size_t)(raw + 2 * MRN_CHUNK_SIZE - (base + MRN_CHUNK_SIZE)));
    MRN_STAT_ADD(chunks, 1);
#if MRN_ALLOC_DEBUG
    mrn_debug_region(base, MRN_CHUNK_SIZE, true, NULL);
#endif
    return (mrn_chunk *)base; /* fresh memory: every field reads as zero */
}

/* Under the lock: an entry of the table for chunk, every block free and cold; NULL when the table
 * is full (or cannot be reserved). */
static mrn_cdesc *mrn_chunk_add(mrn_chunk *chunk) {
    if (MRN_UNLIKELY(!mrn_descs)) {
        mrn_descs = mrn_os_reserve((size_t)MRN_DESC_MAX * sizeof(mrn_cdesc));
        if (!mrn_descs) return NULL;
    }
    uint32_t i = mrn_descs_free;
    if (i)
        mrn_descs_free = mrn_descs[i].next;
    else if (mrn_descs_used < MRN_DESC_MAX)
        i = mrn_descs_used++;
    else
        return NULL;
    mrn_cdesc *c = &mrn_descs[i];
    *c = (mrn_cdesc){.free = MRN_CHUNK_ALL, .cold = MRN_CHUNK_ALL, .chunk = chunk};
    chunk->desc = i;
    return c;
}

/* The start of the shortest maximal run of set bits of x that is at least k long; *len is its
 * length (65 when there is none). */
static unsigned mrn_best_run(uint64_t x, unsigned k, unsigned *len) {
    unsigned best = 0, best_len = 65;
    while (x) {
        unsigned first = (unsigned)__builtin_ctzll(x);
        uint64_t rest = x >> first;
        unsigned n = rest == ~(uint64_t)0 ? 64 : (unsigned)__builtin_ctzll(~rest);
        if (n >= k && n < best_len) {
            best = first;
            best_len = n;
        }
        x &= ~mrn_run_mask(first, n);
    }
    *len = best_len;
    return best;
}

/* Under the lock: where a run of k blocks goes; NULL if no chunk has room. Placement keeps long
 * runs possible: a chunk serves either short runs (small blocks, small medium objects) or long ones,
 * decided when it leaves the entirely free state, so that small blocks do not scatter through the
 * chunks long runs need. Among the first MRN_FIT_WINDOW chunks of the list, the run goes to the
 * shortest free run that fits (best fit: a hole of exactly k blocks before a longer one; ties to
 * the fullest chunk), resident runs before cold ones; the first exact fit ends the search (a walk
 * over every listed chunk for each block costs more than it saves). Best fit rather than the first
 * fit of the fullest chunk: it keeps the holes fewer, and the peak resident size lower. */
enum { MRN_SHORT_RUN = 8, MRN_FIT_WINDOW = 32 };

static mrn_cdesc *mrn_pool_place(unsigned k, unsigned *first) {
    bool longrun = k > MRN_SHORT_RUN;
    for (int pass = 0; pass < 2; pass++) {
        mrn_cdesc *best = NULL;
        unsigned best_len = 65, best_first = 0;
        int best_free = 65, seen = 0;
        for (mrn_cdesc *c = mrn_desc(mrn_chunks_head); c; c = mrn_desc(c->next)) {
            if (c->long_runs != longrun && c->free != MRN_CHUNK_ALL) continue;
            unsigned len, f = mrn_best_run(pass == 0 ? c->free & ~c->cold : c->free, k, &len);
            if (len == 65) continue;
            /* an entirely free chunk counts as the emptiest: taken when no other fits as well */
            int nfree = c->free == MRN_CHUNK_ALL ? 64 : __builtin_popcountll(c->free);
            if (len < best_len || (len == best_len && nfree < best_free)) {
                best = c;
                best_len = len;
                best_first = f;
                best_free = nfree;
            }
            if (len == k || ++seen >= MRN_FIT_WINDOW) break; /* an exact fit: none is better */
        }
        if (best) {
            best->long_runs = longrun;
            *first = best_first;
            return best;
        }
    }
    return NULL;
}

mrn_block *mrn_pool_get(unsigned k, bool *zero) {
    MRN_STAT_ADD(block_gets, k);
    for (;;) {
        mrn_lock_acquire(&mrn_pool_lock);
        unsigned first;
        mrn_cdesc *c = mrn_pool_place(k, &first);
        if (c) {
            bool z = mrn_chunk_take(c, first, k);
            mrn_lock_release(&mrn_pool_lock);
            if (zero) *zero = z;
            return (mrn_block *)((char *)c->chunk + (size_t)first * MRN_BLOCK_HDR);
        }
        mrn_lock_release(&mrn_pool_lock);

        /* No run fits: a new chunk, mapped outside the lock, then search again (another thread may
         * take part of it meanwhile; the search finds a run wherever it is). */
        mrn_chunk *chunk = mrn_chunk_map();
        if (!chunk) return NULL;
        mrn_lock_acquire(&mrn_pool_lock);
        c = mrn_chunk_add(chunk);
        if (MRN_UNLIKELY(!c)) { /* the table is full: as out of memory */
            mrn_lock_release(&mrn_pool_lock);
#if MRN_ALLOC_DEBUG
            mrn_debug_region(chunk, MRN_CHUNK_SIZE, false, NULL);
#endif
            mrn_os_unmap(chunk, MRN_CHUNK_SIZE);
            errno = ENOMEM;
            return NULL;
        }
        mrn_pool_mapped++;
        mrn_pool_cold += MRN_CHUNK_USABLE;
        c->freed_ms = mrn_clock_coarse_ms(); /* not to be unmapped by a decay before it serves the run */
        mrn_chunk_list(c, true);
        mrn_lock_release(&mrn_pool_lock);
    }
}

/* Returns whether the decay became pending (mrn_decay_arm). */
static bool mrn_pool_put_locked(mrn_block *b, unsigned k, uint64_t now) {
    mrn_chunk *chunk = mrn_chunk_of(b);
    mrn_cdesc *c = &mrn_descs[chunk->desc];
    unsigned first = (unsigned)(((uintptr_t)b - (uintptr_t)chunk) / MRN_BLOCK_HDR);
    c->free |= mrn_run_mask(first, k);
    c->freed_ms = now;
    mrn_pool_warm += k;
    mrn_chunk_list(c, true);
    return mrn_decay_arm(now);
}

void mrn_pool_put(mrn_block *b, unsigned k) {
    MRN_STAT_ADD(block_puts, k);
    /* relaxed: the block has no owner now; the lock below hands it to the next one */
    atomic_store_explicit(&b->owner_tag, 0, memory_order_relaxed);
    uint64_t now = mrn_clock_coarse_ms();
    mrn_trim t[MRN_TRIM_MAX];
    mrn_lock_acquire(&mrn_pool_lock);
    bool armed = mrn_pool_put_locked(b, k, now);
    size_t n = mrn_decay_plan(t, now);
    /* relaxed: under the lock; armed and still pending after the plan (a period of 0 plans at once) */
    armed = armed && atomic_load_explicit(&mrn_decay.due, memory_order_relaxed) != MRN_NEVER;
    mrn_lock_release(&mrn_pool_lock);
    if (armed) mrn_decay_sooner();
    mrn_trim_do(t, n);
}

void *mrn_pool_map(size_t len) {
    void *p = mrn_os_map(len);
    if (MRN_LIKELY(p != NULL)) return p;
    /* The address space or commit limit is reached: what the pool and the cache of large mappings
     * hold for reuse (retained, or waiting for their decay) must not make malloc fail while the
     * program holds nothing. */
    mrn_mapcache_drop();
    mrn_pool_trim(0);
    return mrn_os_map(len);
}
