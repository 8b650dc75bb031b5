/* chunks.h — the pool of free blocks, shared by chunks.c (getting and putting runs of blocks) and
 * trim.c (giving free blocks back to the OS): a chunk's record, the table of chunks' states, the
 * list of chunks with free blocks, all under one lock. */
#ifndef MERINO_ALLOC_CHUNKS_H
#define MERINO_ALLOC_CHUNKS_H

#include "alloc/alloc.h"

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
 * whichever thread last took or gave back a block of it) each step would be a cache miss the next
 * step's address depends on. */
typedef struct mrn_cdesc {
    uint64_t free; /* bit i: block i is in the pool */
    uint64_t cold; /* bit i: block i is in the pool and reads as zero (decommitted or never touched) */
    uint64_t freed_ms; /* when a run was last put into it (mrn_clock_coarse_ms): the decay's clock */
    mrn_chunk *chunk;
    uint32_t next, prev; /* the list of chunks with free blocks, most recently freed into first (0: none) */
    bool listed;
    bool long_runs; /* serves runs longer than MRN_SHORT_RUN (decided when it was last entirely free) */
} mrn_cdesc;

/* The table: entry 0 unused (the lists' end), entries given out in order and reused when their chunk
 * is unmapped; reserved once (pages touched as chunks are mapped: 48 bytes a chunk). */
#define MRN_DESC_MAX ((uint32_t)1 << 18) /* chunks at once: 256 GB */
MRN_HIDDEN extern mrn_cdesc *mrn_descs;
MRN_HIDDEN extern uint32_t mrn_descs_free; /* entries of unmapped chunks, linked through next */

/* The pool's state, under mrn_pool_lock. */
MRN_HIDDEN extern mrn_lock mrn_pool_lock;
MRN_HIDDEN extern uint32_t mrn_chunks_head, mrn_chunks_tail; /* chunks with free blocks (mrn_descs indices) */
MRN_HIDDEN extern size_t mrn_pool_warm;   /* free blocks resident (free and not cold) */
MRN_HIDDEN extern size_t mrn_pool_cold;   /* free blocks cold */
MRN_HIDDEN extern size_t mrn_pool_mapped; /* chunks mapped */
/* mrn_decay.due (alloc.h): when the next pass may find a chunk old enough, MRN_NEVER when no more
 * than mrn_pool_keep blocks are resident. */

/* Under the lock, at time now: more than mrn_pool_keep blocks resident and no pass pending — the
 * next one is due a decay period from now; true when it armed it so (the caller, out of the lock,
 * makes sure the decay thread runs: mrn_decay_sooner). */
static inline bool mrn_decay_arm(uint64_t now) {
    /* relaxed: written only under the lock, which we hold; mrn_pool_tick's unlocked read is a hint */
    if (mrn_pool_warm <= mrn_pool_keep || atomic_load_explicit(&mrn_decay.due, memory_order_relaxed) != MRN_NEVER)
        return false;
    atomic_store_explicit(&mrn_decay.due, now + mrn_decay_ms, memory_order_relaxed);
    return true;
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

static inline void mrn_chunk_unlist(mrn_cdesc *c) {
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
static inline void mrn_chunk_list(mrn_cdesc *c, bool front) {
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

/* ---- giving back (trim.c) ------------------------------------------------------------------------ */

typedef struct mrn_trim {
    char *addr;
    size_t len;
    mrn_cdesc *chunk; /* decommit: the chunk whose run [first, first + k) is in transit; NULL: unmap */
    unsigned first, k;
    bool whole; /* decommit: the chunk was entirely free when planned */
} mrn_trim;

enum { MRN_TRIM_MAX = 64, MRN_SPARE_CHUNKS = 4 };

/* Under the lock, at time now: plans the decay of what has been free long enough (when some may
 * have) into t, and sets when the next pass is due. Returns the number of entries. */
MRN_HIDDEN size_t mrn_decay_plan(mrn_trim *t, uint64_t now);
/* Outside the lock: gives back what a plan chose; true when the caller should plan again. */
MRN_HIDDEN bool mrn_trim_do(mrn_trim *t, size_t n);

#endif /* MERINO_ALLOC_CHUNKS_H */
