/* malloc.c — merino_malloc and merino_free: the fast paths first, then the slow paths, then a
 * thread's start and exit.
 *
 * A heap has, per size class, an active block it allocates from and a list of blocks that have
 * free objects; full blocks are in no list (flagged full, their used count reads 1, so the first
 * free into one takes the slow path and lists it again). The owner's malloc pops its active
 * block's private free list and its free pushes onto the object's block: no atomic
 * read-modify-write on either. A free of another heap's object is kept in a per-owner batch of the
 * freeing thread and pushed onto the owner's remote list in bulk (remote.c); the owner takes that
 * list whole when its active block runs dry — unless most of the thread's frees are foreign, when
 * it keeps them for its own allocations (reuse). A thread's exit leaves its heap on a list of
 * abandoned heaps, and the next new thread takes it over, blocks, remote list and all. */
#include "alloc/remote.h"

#include "merino_alloc.h"

#include <errno.h>
#include <pthread.h>

static void *mrn_malloc_slow(size_t size);
static void mrn_free_slow(void *p, mrn_block *b, uintptr_t tag, mrn_heap *me);
static void mrn_foreign_free(mrn_heap *me, mrn_heap *to, void *p, const mrn_block *b);
static void mrn_heap_abandon(void *arg);
static MRN_TLS bool mrn_exited; /* this thread's heap was abandoned: it is exiting */

/* ---- the fast paths ------------------------------------------------------------------------------ */

static inline __attribute__((always_inline)) void *mrn_malloc(size_t size) {
    mrn_heap *h = mrn_tls_heap;
    if (MRN_LIKELY(size <= MRN_SMALL_MAX)) {
        mrn_block *b = h->active[mrn_size_class[(size + 7) >> 3]];
        void *p = b->free;
        if (MRN_LIKELY(p != NULL)) {
            b->free = *(void **)p;
            b->used++;
            return p;
        }
    }
    return mrn_malloc_slow(size);
}

static inline __attribute__((always_inline)) void mrn_free(void *p) {
    if (MRN_UNLIKELY(p == NULL)) return;
    mrn_block *b = mrn_block_of(p);
    mrn_heap *h = mrn_tls_heap;
    /* relaxed: an owned block's tag is written only by this thread; another thread's tag differs
     * whatever we read of its flags */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (MRN_LIKELY(tag == (uintptr_t)h)) {
        *(void **)p = b->free;
        b->free = p;
        if (MRN_LIKELY(--b->used != 0)) return;
        mrn_block_freed_into(h, b);
        return;
    }
    mrn_free_slow(p, b, tag, h); /* the tag and heap as read here: already in the argument registers */
}

MERINO_ALLOC_API void *merino_malloc(size_t size) { return MRN_MARK(mrn_malloc(size)); }

MERINO_ALLOC_API void merino_free(void *p) {
#if MRN_ALLOC_DEBUG
    if (p) mrn_debug_check(p, "merino_free", true);
#endif
    mrn_free(p);
}

/* ---- the slow paths ------------------------------------------------------------------------------ */

/* An object of class c for h, from the class's pseudo-block of reused objects if it is active and
 * own is false, else from its blocks. */
static void *mrn_small_alloc_from(mrn_heap *h, unsigned c, bool own) {
    if (h->batched) mrn_batches_flush(h);
    mrn_block **slot = &h->active[c];
    if (h->real[c]) { /* the pseudo-block is active */
        mrn_block *pb = h->active[c];
        if (!own && pb->free) return mrn_block_pop(pb);
        if (!pb->free) { /* empty: the real block is active again */
            h->active[c] = h->real[c];
            h->real[c] = NULL;
        } else {
            slot = &h->real[c];
        }
    }
    mrn_block *b = *slot;
    if (!b->free) mrn_heap_collect(h);
    if (!b->free && b->carved < b->count) mrn_block_carve(b);
    if (!b->free) {
        mrn_heap_tick(h); /* a slow path that changes blocks: where the pool's decay is driven from */
        if (b != &mrn_empty_block) { /* its free list empty and every object carved: all out */
            b->full = true;
            b->used = 1;
        }
        b = h->avail[c];
        if (b) {
            mrn_avail_remove(h, b);
        } else {
            b = mrn_run_cached(h, 1);
            if (!b) b = mrn_pool_get(1, NULL);
            if (!b) {
                *slot = &mrn_empty_block;
                errno = ENOMEM;
                return NULL;
            }
            mrn_block_init(b, h, c);
        }
        b->used++; /* the active block's pin (alloc.h: used) */
        *slot = b;
    }
    h->win_alloc += b->carved + 1 - b->used; /* the objects on b's list (less the pin): what this refill made available */
    if (h->win_alloc + h->win_foreign > MRN_REUSE_WINDOW) mrn_reuse_decide(h);
    return mrn_block_pop(b);
}

static void *mrn_small_alloc_slow(mrn_heap *h, unsigned c) { return mrn_small_alloc_from(h, c, false); }

__attribute__((noinline)) static void *mrn_malloc_slow(size_t size) {
    mrn_decay_safe_point();
    mrn_heap *h = mrn_heap_get();
    if (!h) {
        errno = ENOMEM;
        return NULL;
    }
    if (size > MRN_SMALL_MAX) return mrn_large_alloc(h, size, 0, false);
    return mrn_small_alloc_slow(h, mrn_size_class[(size + 7) >> 3]);
}

/* The general case of a free that is not the owner's plain one. */
__attribute__((noinline)) static void mrn_free_general(void *p, mrn_block *b, uintptr_t tag, mrn_heap *me) {
    mrn_heap *owner = (mrn_heap *)(tag & ~MRN_TAG_FLAGS);
    /* A thread that frees before it allocates gets its heap now (its batches live there), unless
     * it is exiting (its heap is gone: it pushes its last frees one by one). */
    if (MRN_UNLIKELY(me == &mrn_empty_heap) && !mrn_exited) me = mrn_heap_get();
    if (MRN_UNLIKELY(!me)) me = &mrn_empty_heap;
    if (owner == me && (tag & MRN_TAG_LARGE))
        mrn_large_free(me, b);
    else if (owner == me)
        mrn_owner_free(me, b, p);
    else if (!owner) { /* a large object: to the cache of freed mappings */
        mrn_large_free(NULL, b);
        mrn_decay_safe_point();
    } else
        mrn_foreign_free(me, owner, p, b);
}

/* tag: b's owner tag as mrn_free read it; me: this thread's heap. */
__attribute__((noinline)) static void mrn_free_slow(void *p, mrn_block *b, uintptr_t tag, mrn_heap *me) {
    mrn_heap *owner = (mrn_heap *)(tag & ~MRN_TAG_FLAGS);
    /* Likely too: our own object of a class we cache (a plain one: not aligned) */
    if (tag == ((uintptr_t)me | MRN_TAG_OWN) && mrn_own_push(me, b, p)) return;
    if (owner != me && owner && me != &mrn_empty_heap) { /* another heap's object */
        me->win_foreign++;
        if (me->reusing && !(tag & (MRN_TAG_ALIGNED | MRN_TAG_LARGE | MRN_TAG_CACHED)) &&
            b->cls < MRN_REUSE_CLASSES && mrn_reuse_push(me, b->cls, p))
            return;
    }
    /* Likely: another heap's object, of the heap the last one went to (a used slot: n >= 1). */
    mrn_batch *s = me->batch_last;
    if (MRN_LIKELY(s->to == owner && owner != NULL)) {
        mrn_batch_add(me, s, p, b);
        return;
    }
    if (tag == ((uintptr_t)me | MRN_TAG_LARGE)) { /* next likely: one of our medium objects */
        mrn_large_free(me, b);
        return;
    }
    mrn_free_general(p, b, tag, me);
}

/* ---- frees into other heaps ---------------------------------------------------------------------- */

/* A buffer for a new batch of h (live, this thread's), NULL when out of memory. Its own spares
 * first, then those other heaps gave back, then a new one from h's blocks — the allocation may
 * take malloc's slow path, which flushes h's batches and collects its remote frees: neither needs
 * a buffer (a collection gives buffers back, it never frees or allocates one), so this does not
 * recurse. */
static mrn_buf *mrn_buf_get(mrn_heap *h) {
    if (!h->spare && atomic_load_explicit(&h->spare_in, memory_order_relaxed)) { /* relaxed: a peek */
        /* acquire: pairs with mrn_buf_return's release: the collector's reads of the buffers
         * before we write them again */
        mrn_buf *in = atomic_exchange_explicit(&h->spare_in, NULL, memory_order_acquire);
        while (in) {
            mrn_buf *next = in->next;
            mrn_buf_keep(h, in);
            in = next;
        }
    }
    mrn_buf *buf = h->spare;
    if (buf) {
        h->spare = buf->next;
        h->nspare--;
        return buf;
    }
    unsigned c = mrn_size_class[(sizeof(mrn_buf) + 7) >> 3];
    mrn_block *b = h->active[c];
    if (b->free)
        buf = mrn_block_pop(b);
    else if (!(buf = mrn_small_alloc_slow(h, c)))
        return NULL;
    buf->from = h;
    MRN_STAT_ADD(remote_bufs, 1);
    return buf;
}

/* p, an object of heap to (block b), freed by this thread (heap me, possibly the
 * empty heap). */
static void mrn_foreign_free(mrn_heap *me, mrn_heap *to, void *p, const mrn_block *b) {
    if (MRN_UNLIKELY(me == &mrn_empty_heap)) { /* exiting, or out of memory: no batch to use */
        mrn_remote_push_one(to, p);
        return;
    }
    mrn_batch *s = NULL;
    for (unsigned i = 0; i < MRN_BATCHES; i++)
        if (me->batch[i].to == to) {
            s = &me->batch[i];
            break;
        }
    if (!s) {
        /* First the buffer: getting one may flush every batch (malloc's slow path), so the free
         * slot is looked for after. */
        mrn_buf *buf = mrn_buf_get(me);
        if (MRN_UNLIKELY(!buf)) {
            mrn_remote_push_one(to, p);
            return;
        }
        for (unsigned i = 0; i < MRN_BATCHES && !s; i++)
            if (!me->batch[i].to) s = &me->batch[i];
        if (!s) { /* every slot is taken by another heap: send one slot's batch on its way */
            s = &me->batch[me->batch_next++ % MRN_BATCHES];
            mrn_batch_flush(me, s);
        }
        s->to = to;
        s->buf = buf;
    }
    me->batch_last = s;
    mrn_batch_add(me, s, p, b);
}

/* ---- aligned objects ----------------------------------------------------------------------------- */

/* Size and alignment of an aligned request above 16 (align a power of two). */
static void *mrn_aligned(size_t align, size_t size) {
    mrn_heap *h = mrn_heap_get();
    if (!h) {
        errno = ENOMEM;
        return NULL;
    }
    if (size < 16) size = 16;
    /* Small objects are 16-aligned: asking align - 16 more leaves room to step up to alignment. */
    if (align <= MRN_PAGE && size <= MRN_SMALL_MAX - (align - 16)) {
        char *p = mrn_malloc(size + align - 16);
        if (!p || ((uintptr_t)p & (align - 1)) == 0) return p;
        mrn_block *b = mrn_block_of(p);
        /* relaxed: p's block is this thread's (it just came from its heap), and only it writes the
         * tag; or, a reused object, another heap's, whose heap part does not change while p is live */
        uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
        if ((tag & ~MRN_TAG_FLAGS) != (uintptr_t)h) {
            /* another heap's object, reused: the flag cannot go on its block; one of ours instead */
            unsigned c = mrn_size_class[(size + align - 16 + 7) >> 3];
            mrn_free(p);
            p = mrn_small_alloc_from(h, c, true);
            if (!p || ((uintptr_t)p & (align - 1)) == 0) return p;
            b = mrn_block_of(p);
            tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed); /* relaxed: ours, as above */
        }
        /* the flag reaches others with the object, by the program's synchronization */
        atomic_store_explicit(&b->owner_tag, tag | MRN_TAG_ALIGNED, memory_order_relaxed);
        return (void *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    }
    if (size > PTRDIFF_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    return mrn_large_alloc(h, size, align, false);
}

MERINO_ALLOC_API void *merino_aligned_alloc(size_t alignment, size_t size) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    if (alignment <= 16) return merino_malloc(size < alignment ? alignment : size);
    return MRN_MARK(mrn_aligned(alignment, size));
}

/* ---- a thread's start and exit --------------------------------------------------------------------- */

_Static_assert(sizeof mrn_size_class >= MRN_SMALL_MAX / 8 + 1, "classes.h: mrn_size_class covers every small size");

/* classes.h holds the classes as constants; this is their rule — 8, then 16 bytes apart up to 128,
 * then growing by a quarter (rounded down to 16) up to the largest small object: 29 classes, no
 * two more than 25% apart above 128 — checked once at start-up. */
static void mrn_classes_check(void) {
    uint32_t want[MRN_NCLASSES];
    unsigned c = 0;
    want[c++] = 8;
    for (uint32_t s = 16; s <= 128; s += 16) want[c++] = s;
    for (uint32_t s = 128 + 32; s < MRN_SMALL_MAX && c < MRN_NCLASSES - 1; s += (s / 4) & ~15u) want[c++] = s;
    want[c++] = (uint32_t)MRN_SMALL_MAX;
    bool ok = c == MRN_NCLASSES;
    for (unsigned k = 0; ok && k < MRN_NCLASSES; k++) ok = mrn_class_size[k] == want[k];
    for (size_t i = 0, k = 0; ok && i <= MRN_SMALL_MAX / 8; i++) {
        while (want[k] < i * 8) k++;
        ok = mrn_size_class[i] == k;
    }
    if (!ok) mrn_die("internal: src/alloc/classes.h does not follow the size-class rule");
}

static _Atomic int mrn_init_state; /* 0 not started, 1 running, 2 done */
static MRN_TLS bool mrn_in_init;

static void mrn_global_init(void) {
    /* acquire: the key and the settings written before state 2 */
    if (MRN_LIKELY(atomic_load_explicit(&mrn_init_state, memory_order_acquire) == 2)) return;
    if (mrn_in_init) return; /* an allocation made by pthread_atfork below: all is ready for it */
    int expect = 0;
    /* relaxed: only elects the initializer; its results are published by the release below */
    if (atomic_compare_exchange_strong_explicit(&mrn_init_state, &expect, 1, memory_order_relaxed,
                                                memory_order_relaxed)) {
        mrn_in_init = true;
        mrn_classes_check();
        if (!mrn_heap_key_create(mrn_heap_abandon))
            mrn_die("pthread_key_create failed: no key left for the allocator's thread exit hook");
        mrn_alloc_env_read();
        pthread_atfork(mrn_fork_prepare, mrn_fork_parent, mrn_fork_child);
        /* release: publishes the key and the settings */
        atomic_store_explicit(&mrn_init_state, 2, memory_order_release);
        mrn_in_init = false;
        return;
    }
    /* acquire: as the first load */
    while (atomic_load_explicit(&mrn_init_state, memory_order_acquire) != 2) mrn_cpu_relax();
}

mrn_heap *mrn_heap_start(void) {
    mrn_global_init();
    return mrn_heap_acquire();
}

/* Every reused object of h, and every object of its own cache, sent home (a thread's exit); the
 * real blocks active again. (Here rather than in remote.c: it frees through mrn_foreign_free.) */
static void mrn_reuse_drain(mrn_heap *h) {
    h->reusing = false;
    for (unsigned c = 0; c < MRN_NCLASSES; c++) {
        mrn_block *pb = &h->reuse[c];
        if (h->real[c]) {
            h->active[c] = h->real[c];
            h->real[c] = NULL;
        }
        while (pb->free) {
            void *p = mrn_block_pop(pb);
            mrn_block *b = mrn_block_of(p);
            /* relaxed: the heap part of a live object's tag does not change; h's own tags only h writes */
            uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
            mrn_heap *owner = (mrn_heap *)(tag & ~MRN_TAG_FLAGS);
            if (owner == h)
                mrn_owner_free(h, b, p);
            else
                mrn_foreign_free(h, owner, p, b);
        }
    }
}

/* The pthread key's destructor: this thread ends; its heap waits for the next new thread. */
static void mrn_heap_abandon(void *arg) {
    mrn_heap *h = arg;
    mrn_reuse_drain(h);
    mrn_batches_flush(h);
    mrn_heap_trim(h);
    mrn_decay_safe_point(); /* h is still this thread's, consistent: an allocation nests here */
    if (mrn_tls_heap == h) mrn_tls_heap = &mrn_empty_heap;
    mrn_exited = true;
    mrn_heap_retire(h);
}
