/* remote.h — frees by other threads (remote.c): a thread's batches of frees into other heaps, the
 * owner's collection of its remote list, and reuse of other heaps' objects and the own cache (the
 * pseudo-blocks malloc's fast path pops). The small helpers the free slow path calls are inline
 * here. */
#ifndef MERINO_ALLOC_REMOTE_H
#define MERINO_ALLOC_REMOTE_H

#include "alloc/block.h"

/* Takes every object other threads have freed into h and frees it into its block; the buffers
 * that held them go back to their heaps. */
MRN_HIDDEN void mrn_heap_collect(mrn_heap *h);
/* Takes in the buffers other heaps gave back to h and frees them and h's spares (h is one no
 * thread allocates from: exiting, or abandoned and reclaimed). */
MRN_HIDDEN void mrn_spares_drop(mrn_heap *h);
/* Takes in h's remote frees, and gives every emptied block back to the pool (the active ones too)
 * and its cached medium runs too: for a heap no thread allocates from. */
MRN_HIDDEN void mrn_heap_trim(mrn_heap *h);
/* One object p of heap to, freed by a thread with no batch to put it in (exiting, out of memory). */
MRN_HIDDEN void mrn_remote_push_one(mrn_heap *to, void *p);
/* Sends batch s of this thread (heap me) to its heap. */
MRN_HIDDEN void mrn_batch_flush(mrn_heap *me, mrn_batch *s);

/* ---- batches ------------------------------------------------------------------------------------- */

/* Spare buffers a heap keeps for its next batches; more go back to its blocks. 16: twice the
 * batches a thread holds at once, so a steady stream of flushes and returns allocates none. */
#define MRN_SPARE_KEEP 16

/* Frees buf, one of h's own spare buffers, into its block (as the owner would). */
static inline void mrn_buf_drop(mrn_heap *h, mrn_buf *buf) { mrn_owner_free(h, mrn_block_of(buf), buf); }

/* Keeps buf (h's own) as a spare for h's next batches, or frees it when h has enough. */
static inline void mrn_buf_keep(mrn_heap *h, mrn_buf *buf) {
    if (h->nspare >= MRN_SPARE_KEEP) {
        mrn_buf_drop(h, buf);
        return;
    }
    buf->next = h->spare;
    h->spare = buf;
    h->nspare++;
}

/* Adds p (whose block is b) to the batch s of this thread (heap me): an entry of its buffer; the
 * object itself is not written. */
static inline void mrn_batch_add(mrn_heap *me, mrn_batch *s, void *p, const mrn_block *b) {
    s->buf->p[s->n] = p;
    me->batched++;
    s->bytes += b->size;
    if (++s->n >= MRN_BATCH_MAX || s->bytes >= MRN_BATCH_BYTES) mrn_batch_flush(me, s);
}

static inline void mrn_batches_flush(mrn_heap *me) {
    for (unsigned i = 0; i < MRN_BATCHES; i++)
        if (me->batch[i].to) mrn_batch_flush(me, &me->batch[i]);
}

/* ---- reuse of other heaps' objects, and the own cache ----------------------------------------------- */

/* Once per window: reuse other heaps' objects when more than a quarter of the frees were of them,
 * stop below an eighth; the counts then halve, so the decision follows the recent past. */
static inline void mrn_reuse_decide(mrn_heap *h) {
    uint32_t f = h->win_foreign, a = h->win_alloc;
    if (3 * (uint64_t)f > a)
        h->reusing = true;
    else if (7 * (uint64_t)f < a)
        h->reusing = false;
    h->win_foreign = f / 2;
    h->win_alloc = a / 2;
}

/* Pushes p on pb, the pseudo-block of class c, which becomes the class's active block (its real
 * one waiting in real[c]) if it is not already. */
static inline void mrn_pseudo_push(mrn_heap *h, unsigned c, mrn_block *pb, void *p) {
    *(void **)p = pb->free;
    pb->free = p;
    pb->used--;
    if (h->active[c] != pb) {
        h->real[c] = h->active[c];
        h->active[c] = pb;
    }
}

/* Keeps p, another heap's object of class c, for h's next allocations of the class; false when the
 * class holds MRN_REUSE_MAX already. */
static inline bool mrn_reuse_push(mrn_heap *h, unsigned c, void *p) {
    mrn_block *pb = &h->reuse[c];
    if ((int32_t)pb->used <= -MRN_REUSE_MAX) return false;
    mrn_pseudo_push(h, c, pb, p);
    /* relaxed, no read-modify-write: only h's thread writes it (statistics) */
    atomic_store_explicit(&h->reused, atomic_load_explicit(&h->reused, memory_order_relaxed) + 1, memory_order_relaxed);
    return true;
}

/* Keeps p, h's own object of block b (a class from MRN_OWN_CLASS on), in the class's pseudo-block
 * for h's next allocations; false when one more would take it past MRN_OWN_BYTES of objects. */
static inline bool mrn_own_push(mrn_heap *h, const mrn_block *b, void *p) {
    mrn_block *pb = &h->reuse[b->cls];
    if ((uint32_t)(1 - (int32_t)pb->used) * b->size > MRN_OWN_BYTES) return false;
    mrn_pseudo_push(h, b->cls, pb, p);
    return true;
}

#endif /* MERINO_ALLOC_REMOTE_H */
