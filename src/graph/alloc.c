/* alloc.c — task objects from per-worker free lists, and each worker's graph state.
 *
 * A worker allocates from its own free list of the task's size class, with no atomic. A block
 * freed by its owner goes back on that list; one freed by any other thread goes on the owner's
 * remote list (a Treiber stack: pushes by CAS, the owner takes it whole with one exchange, so no
 * ABA), which the owner takes when its own list is empty. Only when both are empty does it ask
 * merino's allocator (src/alloc/mem.h) for a chunk of blocks; blocks are never given back, so in
 * steady state a task costs no allocation (tests/test_graph_memory.c counts them). */
#include "graph.h"

#include "../alloc/mem.h"

#include <stdlib.h>
#include <string.h>

mrn_gworker *mrn_gworkers[MERINO_MAX_WORKERS]; /* atomic elements */

static size_t mrn_class_bytes(unsigned c) { return (size_t)128 << c; }

static unsigned mrn_class_of(size_t data_bytes) {
    size_t total = sizeof(merino_task) + data_bytes;
    for (unsigned c = 0; c < MRN_NCLASSES; c++)
        if (total <= mrn_class_bytes(c)) return c;
    return MRN_CLASS_MALLOC;
}

static mrn_gworker *mrn_gworker_make(mrn_worker *w) {
    mrn_gworker *gw = mrn_mem_alloc(MRN_CACHE_LINE, sizeof *gw);
    if (!gw)
        mrn_fatal("out of memory for worker %u's task-object deque (%zu bytes): lower "
                  "MERINO_WORKERS",
                  w->index, sizeof *gw);
    memset(gw, 0, sizeof *gw);
    gw->index = w->index;
    gw->own_tag = (uint32_t)w->index << 16;
    gw->fast.want = &gw->want;
    mrn_graph_init();
    /* release: the state is initialized before thieves find it; only this index's occupant makes
     * it, and occupants follow one another with release/acquire (enter.c) */
    __atomic_store_n(&mrn_gworkers[w->index], gw, __ATOMIC_RELEASE);
    return gw;
}

__attribute__((noinline, cold)) mrn_gworker *mrn_gworker_make_self(void) {
    mrn_worker *w = mrn_self();
    return w ? mrn_gworker_make(w) : NULL;
}

/* ---- allocation ------------------------------------------------------------------------------------ */

static merino_task *mrn_block_new_malloc(size_t data_bytes) {
    merino_task *t = mrn_mem_alloc(64, (sizeof(merino_task) + data_bytes + 63) & ~(size_t)63);
    if (!t)
        mrn_fatal("out of memory allocating a task object with %zu bytes of data: pass a pointer "
                  "to large data instead",
                  data_bytes);
    t->merino__class = MRN_CLASS_MALLOC;
    t->merino__owner = MRN_OWNER_NONE;
    t->merino__destroy = NULL; /* as a free-list block's (merino__task_init leaves it) */
    t->merino__prof = 0;       /* likewise */
    return t;
}

/* Refills gw's list of class c: its remote list, else a new chunk. */
__attribute__((noinline)) static merino_task *mrn_refill(mrn_gworker *gw, unsigned c) {
    /* acquire: pairs with the remote frees' release pushes: the blocks' links */
    merino_task *list = __atomic_exchange_n(&gw->remote[c], NULL, __ATOMIC_ACQUIRE);
    if (list) return list;
    size_t bytes = mrn_class_bytes(c);
    char *chunk = mrn_mem_alloc(64, MRN_CHUNK_BYTES);
    if (!chunk)
        mrn_fatal("out of memory allocating task objects (a chunk of %d bytes) on worker %u",
                  MRN_CHUNK_BYTES, gw->index);
    merino_task *head = NULL;
    for (size_t off = MRN_CHUNK_BYTES; off >= bytes; off -= bytes) {
        merino_task *b = (merino_task *)(chunk + off - bytes);
        b->merino__class = (uint16_t)c;
        b->merino__owner = (uint16_t)gw->index;
        b->merino__destroy = NULL; /* every block on a free list has none (merino__task_init) */
        b->merino__prof = 0;       /* nor a profiler record (freed when a task finishes) */
        b->merino__parent = head;
        head = b;
    }
    return head;
}

merino_task *mrn_task_new_slow(mrn_gworker *gw, merino_task_fn *fn, size_t data_bytes) {
    unsigned c = mrn_class_of(data_bytes);
    merino_task *t;
    if (gw != NULL && c != MRN_CLASS_MALLOC) {
        t = gw->fast.free_list[c];
        if (t == NULL) t = mrn_refill(gw, c);
        gw->fast.free_list[c] = t->merino__parent;
    } else {
        t = mrn_block_new_malloc(data_bytes);
    }
    mrn_task_init(t, fn);
    return t;
}

void mrn_task_delete_slow(mrn_gworker *gw, merino_task *t) {
    if (t->merino__destroy) t->merino__destroy(t);
    t->merino__destroy = NULL; /* every block on a free list has none (merino__task_init) */
    __atomic_store_n(&t->merino__state, MRN_T_FREE, __ATOMIC_RELAXED); /* relaxed: a debug aid */
    unsigned c = t->merino__class;
    if (c == MRN_CLASS_MALLOC) {
        mrn_mem_free(t);
        return;
    }
    c &= ~(unsigned)MRN_CLASS_DESTROY; /* its destroy function is gone: the free list's class */
    t->merino__class = (uint16_t)c;
    if (gw && gw->index == t->merino__owner) {
        t->merino__parent = gw->fast.free_list[c];
        gw->fast.free_list[c] = t;
        return;
    }
    mrn_gworker *owner = mrn_gworker_at(t->merino__owner);
    merino_task *old = __atomic_load_n(&owner->remote[c], __ATOMIC_RELAXED); /* relaxed: the CAS checks it */
    do t->merino__parent = old; /* release: the link, for the owner's acquire exchange */
    while (!__atomic_compare_exchange_n(&owner->remote[c], &old, t, true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}
