/* pool.c — the global pool of free blocks: the paper's "global heap". Memory comes from the OS in
 * chunks of 1 MB aligned to 1 MB: 64 blocks of 16 KB, the first (two in debug builds) holding the
 * chunk's header (the headers of its blocks), the others handed out alone (a small block) or as a
 * run of contiguous blocks (a medium object). Each chunk's state in the pool — bitmaps of its free
 * and cold blocks, its place in the list — sits in a table apart (mrn_cdesc). A block that comes
 * back is marked free in its chunk's bitmap, so neighbouring free blocks form longer runs again
 * without any merging step.
 *
 * Giving memory back, with decay: up to mrn_pool_keep free blocks stay resident for good; what is
 * free beyond that stays resident too (for reuse: a program freeing and allocating in waves neither
 * decommits nor faults it in again) until its chunk has had nothing freed into it for
 * mrn_decay_ms; then it goes back to the OS, from the chunks freed into least recently: entirely
 * free chunks past MRN_SPARE_CHUNKS are unmapped, other free blocks are decommitted (madvise) and
 * marked cold — taken again only when no resident run fits, before a new chunk is mapped. The decay
 * runs lazily, from the allocator's slow paths (mrn_pool_tick): no thread of its own. Everything
 * here runs under one lock: it is reached once per 16 KB block or medium object, not per small
 * object; the system calls are made outside it. */
#include "alloc.h"

#include <errno.h>
#include <string.h>

#define MRN_CHUNK_ALL (~(uint64_t)0 << MRN_CHUNK_HDR_BLOCKS) /* every block but the header's */

/* At the start of its chunk, in the place of block 0's header (block 0 holds the headers: it has
 * none of its own); found from a block or its header by rounding down to 1 MB. */
typedef struct mrn_chunk {
    /* Where a block header's owner tag would be: always 0, so the debug checks call a pointer into
     * the chunk header "a pointer never returned". */
    uintptr_t zero_tag;
    uint32_t desc; /* its state in the pool: mrn_descs[desc] */
} mrn_chunk;

_Static_assert(sizeof(mrn_chunk) <= MRN_BLOCK_HDR, "the chunk's record fits in the place of block 0's header");

/* A chunk's state in the pool, kept apart from the chunk in one table: the placement walk reads the
 * state of every listed chunk, and from the chunks' own first lines (one per megabyte, written by
 * whichever thread last took or gave back a block of it) each step was a miss the next step's
 * address depended on — 48% of mrn_pool_get's samples on the MTS mix. */
typedef struct mrn_cdesc {
    uint64_t free; /* bit i: block i is in the pool */
    uint64_t cold; /* bit i: block i is in the pool and reads as zero (decommitted or never touched) */
    uint64_t freed_ms; /* when a run was last put into it (mrn_now_ms): the decay's clock */
    mrn_chunk *chunk;
    uint32_t next, prev; /* the list of chunks with free blocks, most recently freed into first (0: none) */
    bool listed;
    bool long_runs; /* serves runs longer than MRN_SHORT_RUN (decided when it was last entirely free) */
} mrn_cdesc;

/* The table: entry 0 unused (the lists' end), entries given out in order and reused when their chunk
 * is unmapped; reserved once (pages touched as chunks are mapped: 48 bytes a chunk). */
#define MRN_DESC_MAX ((uint32_t)1 << 18) /* chunks at once: 256 GB */
static mrn_cdesc *mrn_descs;
static uint32_t mrn_descs_used = 1; /* entries given out so far (0 never is) */
static uint32_t mrn_descs_free;     /* entries of unmapped chunks, linked through next */

size_t mrn_pool_keep = MRN_POOL_KEEP;
uint64_t mrn_decay_ms = MRN_DECAY_MS;

static mrn_lock mrn_pool_lock = MRN_LOCK_INIT;
static uint32_t mrn_chunks_head, mrn_chunks_tail; /* chunks with free blocks (mrn_descs indices) */
static size_t mrn_pool_warm; /* free blocks resident (free and not cold) */
static size_t mrn_pool_cold; /* free blocks cold */
static size_t mrn_pool_mapped; /* chunks mapped */
/* When the next decay pass may find a chunk old enough (mrn_now_ms), MRN_NEVER when no more than
 * mrn_pool_keep blocks are resident. Written under the lock; read without it by mrn_pool_tick. */
#define MRN_NEVER UINT64_MAX
static struct {
    _Alignas(64) _Atomic uint64_t due; /* a line of its own (the struct's size is 64): read by every
                                        * slow path, so not on the lines the pool's lock and counters
                                        * bounce on */
} mrn_decay = {MRN_NEVER};

/* Under the lock, at time now: more than mrn_pool_keep blocks resident and no pass pending — the
 * next one is due a decay period from now. */
static void mrn_decay_arm(uint64_t now) {
    /* relaxed: written only under the lock, which we hold; mrn_pool_tick's unlocked read is a hint */
    if (mrn_pool_warm > mrn_pool_keep && atomic_load_explicit(&mrn_decay.due, memory_order_relaxed) == MRN_NEVER)
        atomic_store_explicit(&mrn_decay.due, now + mrn_decay_ms, memory_order_relaxed);
}

static inline mrn_chunk *mrn_chunk_of(const void *b) {
    return (mrn_chunk *)((uintptr_t)b & ~(uintptr_t)(MRN_CHUNK_SIZE - 1));
}

static inline mrn_cdesc *mrn_desc(uint32_t i) { return i ? &mrn_descs[i] : NULL; }
static inline uint32_t mrn_desc_index(const mrn_cdesc *d) { return (uint32_t)(d - mrn_descs); }

static inline uint64_t mrn_run_mask(unsigned first, unsigned k) {
    return (k == 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1)) << first;
}

/* ---- the list of chunks with free blocks (under the lock) ---------------------------------------- */

static void mrn_chunk_unlist(mrn_cdesc *c) {
    if (c->prev)
        mrn_descs[c->prev].next = c->next;
    else
        mrn_chunks_head = c->next;
    if (c->next)
        mrn_descs[c->next].prev = c->prev;
    else
        mrn_chunks_tail = c->prev;
    c->listed = false;
}

/* Lists c (at the front, or at the back), or moves it to the front if it is listed. */
static void mrn_chunk_list(mrn_cdesc *c, bool front) {
    uint32_t i = mrn_desc_index(c);
    if (c->listed) {
        if (!front || mrn_chunks_head == i) return;
        mrn_chunk_unlist(c);
    }
    if (front) {
        c->prev = 0;
        c->next = mrn_chunks_head;
        *(c->next ? &mrn_descs[c->next].prev : &mrn_chunks_tail) = i;
        mrn_chunks_head = i;
    } else {
        c->next = 0;
        c->prev = mrn_chunks_tail;
        *(c->prev ? &mrn_descs[c->prev].next : &mrn_chunks_head) = i;
        mrn_chunks_tail = i;
    }
    c->listed = true;
}

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

/* ---- trimming: what goes back to the OS --------------------------------------------------------- */

typedef struct mrn_trim {
    char *addr;
    size_t len;
    mrn_cdesc *chunk; /* decommit: the chunk whose run [first, first + k) is in transit; NULL: unmap */
    unsigned first, k;
    bool whole; /* decommit: the chunk was entirely free when planned */
} mrn_trim;

enum { MRN_TRIM_MAX = 64, MRN_SPARE_CHUNKS = 4 };

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
static bool mrn_trim_do(mrn_trim *t, size_t n) {
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
    uint64_t now = failed ? mrn_now_ms() : 0;
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
    if (failed) mrn_decay_arm(now);
    mrn_lock_release(&mrn_pool_lock);
    return again && !failed;
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
 * the fullest chunk), resident runs before cold ones; the first exact fit ends the search (it was
 * a walk over every listed chunk for each block: the MTS mix +3%, +8% clearing callocs; the peak
 * 13.96 MB against 13.79). Best fit rather than the first fit of the
 * fullest chunk: the MTS mix's peak resident size fell by 1.2 MB (of 13; 5 interleaved rounds). */
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
        c->freed_ms = mrn_now_ms(); /* not to be unmapped by a decay before it serves the run */
        mrn_chunk_list(c, true);
        mrn_lock_release(&mrn_pool_lock);
    }
}

/* Under the lock, at time now: plans the decay of what has been free long enough (when some may
 * have) into t, and sets when the next pass is due. Returns the number of entries. */
static size_t mrn_decay_plan(mrn_trim *t, uint64_t now) {
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

static void mrn_pool_put_locked(mrn_block *b, unsigned k, uint64_t now) {
    mrn_chunk *chunk = mrn_chunk_of(b);
    mrn_cdesc *c = &mrn_descs[chunk->desc];
    unsigned first = (unsigned)(((uintptr_t)b - (uintptr_t)chunk) / MRN_BLOCK_HDR);
    c->free |= mrn_run_mask(first, k);
    c->freed_ms = now;
    mrn_pool_warm += k;
    mrn_chunk_list(c, true);
    mrn_decay_arm(now);
}

void mrn_pool_put(mrn_block *b, unsigned k) {
    MRN_STAT_ADD(block_puts, k);
    /* relaxed: the block has no owner now; the lock below hands it to the next one */
    atomic_store_explicit(&b->owner_tag, 0, memory_order_relaxed);
    uint64_t now = mrn_now_ms();
    mrn_trim t[MRN_TRIM_MAX];
    mrn_lock_acquire(&mrn_pool_lock);
    mrn_pool_put_locked(b, k, now);
    size_t n = mrn_decay_plan(t, now);
    mrn_lock_release(&mrn_pool_lock);
    mrn_trim_do(t, n);
}

void mrn_pool_tick(void) {
    mrn_trim t[MRN_TRIM_MAX];
    size_t n;
    do {
        /* relaxed: a peek, rechecked under the lock; most calls find nothing pending and stop
         * here, without reading the clock */
        uint64_t due = atomic_load_explicit(&mrn_decay.due, memory_order_relaxed);
        if (due == MRN_NEVER) return;
        uint64_t now = mrn_now_ms();
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

void *mrn_pool_map(size_t len) {
    void *p = mrn_os_map(len);
    if (MRN_LIKELY(p != NULL)) return p;
    /* The address space or commit limit is reached: what the pool holds for reuse (retained, or
     * waiting for its decay) must not make malloc fail while the program holds nothing. */
    mrn_pool_trim(0);
    return mrn_os_map(len);
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
