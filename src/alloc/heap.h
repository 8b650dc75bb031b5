/* heap.h — a thread's heap: its blocks per class, its batches of frees into other heaps, its cache
 * of medium runs, and the list other threads push its objects on; the registry of every heap
 * (heap.c). Each thread owns one, reached through one initial-exec TLS pointer. */
#ifndef MERINO_ALLOC_HEAP_H
#define MERINO_ALLOC_HEAP_H

#include "alloc/alloc.h"

/* A batch is an array of the objects' addresses, in a buffer (mrn_buf) the freeing thread allocated
 * from its own heap: the freeing thread never writes another heap's object (it reads only the
 * block header's tag), and the owner, which knows every address without reading the objects,
 * prefetches them for writing (PREFETCHW: the lines come exclusive, the freeing core's copies
 * invalidated) MRN_AHEAD entries ahead of the one it pushes on its block's free list: the freeing
 * core's copies of those lines are invalidated while the owner works on earlier ones. Batches of at
 * most MRN_CHAIN_MAX objects go as chains through the objects (remote.c). */
#define MRN_AHEAD 8

typedef struct mrn_buf {
    struct mrn_buf *next; /* the remote list (a list of buffers), or a heap's spare buffers */
    mrn_heap *from;       /* the heap the buffer was allocated from (its spare buffers get it back) */
    uint32_t n;           /* objects in p */
    void *p[MRN_BATCH_MAX];
} mrn_buf;

/* Batch buffers are allocated straight from their class's active block (malloc.c: mrn_buf_get): never
 * a class whose active pointer may be a pseudo-block of other heaps' objects. */
_Static_assert(sizeof(mrn_buf) > 1008, "mrn_buf's class is above MRN_REUSE_CLASSES (objects up to 1008 bytes)");

typedef struct mrn_batch {
    mrn_heap *to;   /* owning heap of the objects, NULL when the slot is unused */
    mrn_buf *buf;   /* the objects so far (NULL with to) */
    uint32_t n;
    uint32_t bytes; /* the objects' sizes (block headers' size: a medium object's run) */
} mrn_batch;

/* LIVE: a thread's; ABANDONED: its thread exited, on the abandoned list; RECLAIMING: off that list
 * while a thread that flushed frees into it gives its emptied blocks back; LOST: a thread's that
 * fork did not copy (never adopted). */
enum { MRN_HEAP_LIVE, MRN_HEAP_ABANDONED, MRN_HEAP_RECLAIMING, MRN_HEAP_LOST, MRN_HEAP_STATES };

struct mrn_heap {
    mrn_block *active[MRN_NCLASSES]; /* the block each class allocates from (fast path: first) */
    mrn_block *avail[MRN_NCLASSES];  /* blocks with free objects, besides the active one: head */
    mrn_block *avail_tail[MRN_NCLASSES]; /* and tail (a queue: see mrn_avail_push) */
    mrn_block *real[MRN_NCLASSES];   /* the class's real active block while its pseudo-block is active */
    /* Pseudo-blocks of reused objects (classes below MRN_REUSE_CLASSES: other heaps' objects; from
     * MRN_OWN_CLASS on: this heap's, the own cache): free is the list, used counts down from 0 as
     * objects come in (malloc's pops count it up again), so -used is their number. */
    mrn_block reuse[MRN_NCLASSES];
    uint32_t win_alloc, win_foreign; /* objects made available from blocks; other heaps' objects freed */
    bool reusing;
    _Atomic size_t reused; /* other heaps' objects kept for reuse (statistics; this thread writes) */
    mrn_batch batch[MRN_BATCHES];    /* this thread's pending frees into other heaps */
    mrn_batch *batch_last;           /* the slot the last foreign free went to (never NULL) */
    uint32_t batch_next;             /* round-robin victim when every batch slot is taken */
    uint32_t batched;                /* objects in batches (flushed in the slow path) */
    mrn_buf *spare;                  /* buffers for new batches (owner only; come from spare_in) */
    uint32_t nspare;
    mrn_block *medium[MRN_MEDIUM_CACHED][MRN_MEDIUM_KEEP]; /* cached medium runs, by length - 1 */
    uint8_t nmedium[MRN_MEDIUM_CACHED];
    size_t medium_bytes;
    uint32_t ticks;             /* slow paths that stayed in the heap (mrn_heap_tick) */
    _Atomic size_t medium_hits; /* medium allocations from the cache (statistics; this thread writes) */
    mrn_heap *next_all;        /* every heap ever made (heaps are never unmapped) */
    mrn_heap *next_abandoned;  /* heaps of exited threads, waiting for a new thread */
    /* Objects of this heap freed by other threads: a list of buffers (mrn_buf, linked through
     * next) pushed by any thread, taken all at once by the owner; an entry with its low bit set is
     * one object linked through its own first word to the next entry (a small batch's chain, or
     * the free of a thread with no heap: exiting, or out of memory). Its own line: written by
     * others. */
    _Alignas(64) _Atomic(void *) remote;
    /* MRN_HEAP_*, written under the heaps lock; on remote's line, which a thread that flushes a
     * batch here reads it from right after its push, and which the owner does not write often. */
    _Atomic int state;
    /* This heap's buffers, given back by the heaps that collected them (a Treiber stack: pushed by
     * any thread, taken whole by the owner). On remote's line: written by the same threads. */
    _Atomic(mrn_buf *) spare_in;
};

/* ---- the registry of heaps (heap.c) ------------------------------------------------------------- */

/* The active block of every class of a heap that has none: its free list is empty, so the fast
 * path falls through to the slow path without a test of its own. Never freed into. */
MRN_HIDDEN extern mrn_block mrn_empty_block;
/* The heap of a thread that has not allocated yet (or has exited): every class empty, owns
 * nothing, so both fast paths fall through to their slow paths, which make a real heap. */
MRN_HIDDEN extern mrn_heap mrn_empty_heap;
MRN_HIDDEN extern MRN_TLS mrn_heap *mrn_tls_heap;

static inline int mrn_heap_state(mrn_heap *h) {
    /* relaxed: written under the heaps lock; unlocked readers take it as a hint only */
    return atomic_load_explicit(&h->state, memory_order_relaxed);
}

/* Creates the key whose destructor, exit, runs at each thread's exit with its heap; false if none
 * is left. Once, before the first heap. */
MRN_HIDDEN bool mrn_heap_key_create(void (*exit)(void *));
/* A heap for the calling thread, adopted from an exited thread or made now, made its own; NULL
 * when out of memory. */
MRN_HIDDEN mrn_heap *mrn_heap_acquire(void);
/* h's thread exits: h goes on the list of abandoned heaps, for the next new thread (unless fork
 * lost it). */
MRN_HIDDEN void mrn_heap_retire(mrn_heap *h);
/* Takes h, abandoned, off that list so this thread can act as its owner for a moment; false if
 * it is not abandoned (adopted, or another thread has it). mrn_heap_unclaim puts it back. */
MRN_HIDDEN bool mrn_heap_claim(mrn_heap *h);
MRN_HIDDEN void mrn_heap_unclaim(mrn_heap *h);
/* The settings (MERINO_ALLOC_*) from the environment; bad values named on stderr and ignored. */
MRN_HIDDEN void mrn_alloc_env_read(void);
/* fork: every global lock held across it (prepare; parent and child release them). */
MRN_HIDDEN void mrn_fork_prepare(void);
MRN_HIDDEN void mrn_fork_parent(void);
MRN_HIDDEN void mrn_fork_child(void);

/* The slow paths that stay in the heap (a block or medium run from its cache) call the decay only
 * every this many times: when it is pending, each call reads the clock. */
#define MRN_TICK_EVERY 16
static inline void mrn_heap_tick(mrn_heap *h) {
    if (h->ticks++ % MRN_TICK_EVERY == 0) mrn_pool_tick();
}

/* The calling thread's heap, made or adopted on its first use (malloc.c: mrn_heap_start); NULL
 * when out of memory. */
MRN_HIDDEN mrn_heap *mrn_heap_start(void);
static inline mrn_heap *mrn_heap_get(void) {
    mrn_heap *h = mrn_tls_heap;
    return h != &mrn_empty_heap ? h : mrn_heap_start();
}

#endif /* MERINO_ALLOC_HEAP_H */
