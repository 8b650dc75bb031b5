/* remote.c — frees by other threads. A free of another heap's object is kept in a per-owner batch
 * of the freeing thread (malloc.c: mrn_foreign_free) and pushed onto the owner's remote list in
 * bulk (mrn_batch_flush); the owner takes that list whole when its active block runs dry
 * (mrn_heap_collect) and gives the buffers back. Frees into the heap of an exited thread are taken
 * in at once by the freeing thread (mrn_heap_reclaim), so that memory reaches the pool without
 * waiting for a new thread to adopt the heap. */
#include "alloc/remote.h"

static void mrn_heap_reclaim(mrn_heap *h);

/* ---- collection by the owner --------------------------------------------------------------------- */

/* h has collected buf's objects: buf goes back to the heap it came from. h may be acting for an
 * abandoned heap (mrn_heap_reclaim), so buf->from == h is possible only through that heap. */
static void mrn_buf_return(mrn_heap *h, mrn_buf *buf) {
    mrn_heap *from = buf->from;
    if (from == h) {
        mrn_buf_keep(h, buf);
        return;
    }
    /* relaxed: the CAS below checks it */
    mrn_buf *old = atomic_load_explicit(&from->spare_in, memory_order_relaxed);
    do {
        buf->next = old;
        /* release: our reads of the buffer (and the link above) before its heap writes it again
         * (its acquire exchange in mrn_buf_get) */
    } while (!atomic_compare_exchange_weak_explicit(&from->spare_in, &old, buf, memory_order_release,
                                                    memory_order_relaxed));
}

/* A prefetch for writing (PREFETCHW: the line comes exclusive, other cores' copies invalidated):
 * gcc's __builtin_prefetch(p, 1) emits it only with -mprfchw, and a plain prefetch leaves the
 * write to wait for the invalidation. It never faults. */
static inline void mrn_prefetchw(const void *p) {
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1);
#endif
}

/* Frees p, an object of h that another thread freed, into its block. */
static inline void mrn_collect_one(mrn_heap *h, void *p) {
    mrn_block *b = mrn_block_of(p);
    /* relaxed: h's own block or medium run, whose tag only this thread writes */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (MRN_LIKELY(tag == (uintptr_t)h)) { /* a plain block (no flag): as merino_free's fast path */
        *(void **)p = b->free;
        b->free = p;
        if (--b->used == 0) mrn_block_freed_into(h, b);
    } else if (tag & MRN_TAG_LARGE) {
        mrn_large_free(h, b);
    } else {
        mrn_owner_free(h, b, p);
    }
}

void mrn_heap_collect(mrn_heap *h) {
    /* relaxed: a peek; the exchange below orders what it takes */
    if (!atomic_load_explicit(&h->remote, memory_order_relaxed)) return;
    /* acquire: the pushers' last writes to the objects and their buffers, before we reuse them */
    void *e = atomic_exchange_explicit(&h->remote, NULL, memory_order_acquire);
    while (e) {
        if ((uintptr_t)e & 1) { /* one object, linked through its first word */
            void *p = (char *)e - 1;
            e = *(void **)p;
            mrn_collect_one(h, p);
            continue;
        }
        mrn_buf *buf = e;
        e = buf->next;
        uint32_t n = buf->n;
        /* The objects' lines were last touched by the freeing thread (which read them, often):
         * MRN_AHEAD of them in flight, fetched for writing (we write each one's first word); the
         * buffer itself is read in order, which the hardware prefetches. */
        for (uint32_t i = 0; i < n && i < MRN_AHEAD; i++) mrn_prefetchw(buf->p[i]);
        for (uint32_t i = 0; i < n; i++) {
            if (i + MRN_AHEAD < n) mrn_prefetchw(buf->p[i + MRN_AHEAD]);
            mrn_collect_one(h, buf->p[i]);
        }
        mrn_buf_return(h, buf);
    }
}

void mrn_spares_drop(mrn_heap *h) {
    /* acquire: as in mrn_buf_get */
    mrn_buf *in = atomic_exchange_explicit(&h->spare_in, NULL, memory_order_acquire);
    while (in) {
        mrn_buf *next = in->next;
        mrn_buf_drop(h, in);
        in = next;
    }
    while (h->spare) {
        mrn_buf *buf = h->spare;
        h->spare = buf->next;
        mrn_buf_drop(h, buf);
    }
    h->nspare = 0;
}

/* ---- frees into other heaps ------------------------------------------------------------------------ */

/* Pushes entry (a buffer, or an object with its low bit set) onto to's remote list in one CAS;
 * link: where the entry's link lives (the buffer's next, the object's first word). */
static void mrn_remote_push(mrn_heap *to, void *entry, void **link) {
    /* relaxed: the CAS below checks it */
    void *old = atomic_load_explicit(&to->remote, memory_order_relaxed);
    do {
        *link = old;
        /* release: our last writes to the objects, the buffer and the link above, before the
         * owner's acquire exchange in mrn_heap_collect reuses them */
    } while (!atomic_compare_exchange_weak_explicit(&to->remote, &old, entry, memory_order_release,
                                                    memory_order_relaxed));
}

void mrn_remote_push_one(mrn_heap *to, void *p) {
    MRN_STAT_ADD(remote_frees, 1);
    mrn_remote_push(to, (char *)p + 1, (void **)p);
}

/* A batch of at most this many objects goes as a chain of lone objects (linked through their
 * first words, which this thread then writes) and keeps its buffer: a buffer sent to a heap whose
 * thread does not collect for a while (a main thread that waits for its workers) stays there, and
 * the flushes at each slow-path allocation send small batches: without chains, many buffers
 * would be made and sit there holding a few objects each. */
#define MRN_CHAIN_MAX 16

void mrn_batch_flush(mrn_heap *me, mrn_batch *s) {
    mrn_buf *buf = s->buf;
    if (s->n <= MRN_CHAIN_MAX) {
        for (uint32_t i = 0; i + 1 < s->n; i++) *(void **)buf->p[i] = (char *)buf->p[i + 1] + 1;
        mrn_remote_push(s->to, (char *)buf->p[0] + 1, (void **)buf->p[s->n - 1]);
        mrn_buf_keep(me, buf);
    } else {
        buf->n = s->n;
        mrn_remote_push(s->to, buf, (void **)&buf->next);
    }
    /* An exited thread's heap has no owner to take these: give its emptied blocks back now. */
    if (MRN_UNLIKELY(mrn_heap_state(s->to) == MRN_HEAP_ABANDONED)) mrn_heap_reclaim(s->to);
    MRN_STAT_ADD(remote_flushes, 1);
    MRN_STAT_ADD(remote_frees, s->n);
    me->batched -= s->n;
    s->to = NULL;
    s->buf = NULL;
    s->n = s->bytes = 0;
}

/* ---- heaps of exited threads --------------------------------------------------------------------- */

void mrn_heap_trim(mrn_heap *h) {
    mrn_heap_collect(h);
    mrn_spares_drop(h);
    mrn_medium_drop(h);
    for (unsigned c = 0; c < MRN_NCLASSES; c++) {
        mrn_block *b = h->active[c];
        if (b != &mrn_empty_block && b->used == 1) { /* only the pin: every object free */
            h->active[c] = &mrn_empty_block;
            mrn_pool_put(b, 1);
        }
    }
}

/* h was abandoned and has just been sent frees: this thread acts as its owner for a moment, takes
 * them in and gives its emptied blocks back, so memory freed by others after a thread exited
 * returns to the pool (and on to the OS) without waiting for a new thread to adopt the heap. */
static void mrn_heap_reclaim(mrn_heap *h) {
    if (!mrn_heap_claim(h)) return; /* adopted, or another thread is at it */
    for (int i = 0; i < 4; i++) {
        mrn_heap_trim(h);
        /* relaxed: a peek; mrn_heap_collect's exchange orders what it takes */
        if (!atomic_load_explicit(&h->remote, memory_order_relaxed)) break;
    }
    mrn_heap_unclaim(h);
}
