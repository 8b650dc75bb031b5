/* alloc.c — thread heaps, size classes, and the merino_malloc family.
 *
 * Each thread owns a heap, reached through one initial-exec TLS pointer. A heap has, per size
 * class, an active block it allocates from and a list of blocks that have free objects; full blocks
 * are in no list (flagged full, their used count reads 1, so the first free into one takes the
 * slow path and lists it again). The owner's malloc pops its active block's
 * private free list and its free pushes onto the object's block: no atomic read-modify-write on
 * either. A free of another heap's object is kept in a per-owner batch of the freeing thread and
 * pushed onto the owner's remote list in bulk; the owner takes that list whole when its active
 * block runs dry — unless most of the thread's frees are foreign, when it keeps them for its own
 * allocations (reuse). A thread's exit leaves its heap on a list of abandoned heaps, and the next
 * new thread takes it over, blocks, remote list and all. */
#include "alloc.h"

#include "merino_alloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mrn_alloc_stats mrn_stats;

void mrn_stat_mapped(ptrdiff_t delta) {
    /* relaxed (all three): statistics */
    size_t now = atomic_fetch_add_explicit(&mrn_stats.mapped, (size_t)delta, memory_order_relaxed) + (size_t)delta;
    size_t peak = atomic_load_explicit(&mrn_stats.mapped_peak, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak_explicit(&mrn_stats.mapped_peak, &peak, now,
                                                                memory_order_relaxed, memory_order_relaxed)) {
    }
}

/* ---- size classes ---------------------------------------------------------------------------------- */

#include "classes.h"

_Static_assert(sizeof mrn_class_of >= MRN_SMALL_MAX / 8 + 1, "classes.h: mrn_class_of covers every small size");

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
        ok = mrn_class_of[i] == k;
    }
    if (!ok) mrn_alloc_die("internal: src/alloc/classes.h does not follow the size-class rule");
}

/* ---- heaps ------------------------------------------------------------------------------------------ */

/* The active block of every class of a heap that has none: its free list is empty, so the fast
 * path falls through to the slow path without a test of its own. Never freed into. */
static mrn_block mrn_empty_block;
/* The heap of a thread that has not allocated yet (or has exited): every class empty, owns
 * nothing, so both fast paths fall through to their slow paths, which make a real heap. */
static mrn_heap mrn_empty_heap = {.active = {[0 ... MRN_NCLASSES - 1] = &mrn_empty_block},
                                  .batch_last = &mrn_empty_heap.batch[0]};

static MRN_TLS mrn_heap *mrn_tls_heap = &mrn_empty_heap;

static mrn_lock mrn_heaps_lock = MRN_LOCK_INIT;
static mrn_heap *mrn_all_heaps;       /* every heap, linked through next_all */
static mrn_heap *mrn_abandoned_heaps; /* heaps of exited threads, through next_abandoned */

static pthread_key_t mrn_heap_key;
static bool mrn_show_stats;
static _Atomic int mrn_init_state; /* 0 not started, 1 running, 2 done */
static MRN_TLS bool mrn_in_init;
static MRN_TLS bool mrn_exited; /* this thread's heap was abandoned: it is exiting */

static void mrn_heap_abandon(void *arg);
static void mrn_heap_reclaim(mrn_heap *h);

/* Under the heaps lock. */
static void mrn_heap_set_state(mrn_heap *h, int state) {
    /* relaxed: the heaps lock orders it; unlocked readers take it as a hint only */
    atomic_store_explicit(&h->state, state, memory_order_relaxed);
}

static int mrn_heap_state(mrn_heap *h) {
    /* relaxed: as above */
    return atomic_load_explicit(&h->state, memory_order_relaxed);
}
static void mrn_fork_prepare(void);
static void mrn_fork_parent(void);
static void mrn_fork_child(void);

/* A setting's value: a whole number from 0 to 2^30; false (and the setting named on stderr, with
 * what it wants) when it is set to anything else. */
static bool mrn_number_setting(const char *name, const char *what, unsigned dflt, unsigned long long *out) {
    const char *s = getenv(name);
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || *s == '-' || v > ((unsigned long long)1 << 30)) {
        mrn_alloc_say("%s=%s ignored: give %s, a whole number from 0 to 1073741824 (default %u)", name, s, what,
                      dflt);
        return false;
    }
    *out = v;
    return true;
}

/* MERINO_ALLOC_RETAIN (KB the pool keeps resident for good), MERINO_ALLOC_DECAY_MS (how long free
 * memory beyond that stays resident) and MERINO_ALLOC_CALLOC_DECOMMIT (the KB from which a calloc
 * of recycled memory decommits its pages rather than clearing them; 0, never). */
static void mrn_settings(void) {
    unsigned long long v;
    if (mrn_number_setting("MERINO_ALLOC_RETAIN", "the KB of free memory the allocator keeps resident",
                           (unsigned)(MRN_POOL_KEEP * MRN_BLOCK_SIZE / 1024), &v))
        mrn_pool_keep = (size_t)(v * 1024 / MRN_BLOCK_SIZE);
    if (mrn_number_setting("MERINO_ALLOC_DECAY_MS",
                           "the milliseconds free memory stays resident before it goes back to the OS",
                           MRN_DECAY_MS, &v))
        mrn_decay_ms = v;
    if (mrn_number_setting("MERINO_ALLOC_CALLOC_DECOMMIT",
                           "the KB from which a calloc of recycled memory decommits its pages instead of "
                           "clearing them (0: never)",
                           (unsigned)(MRN_ZERO_DECOMMIT / 1024), &v))
        mrn_zero_decommit = v ? (size_t)v * 1024 : SIZE_MAX;
}

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
        if (pthread_key_create(&mrn_heap_key, mrn_heap_abandon) != 0)
            mrn_alloc_die("pthread_key_create failed: no key left for the allocator's thread exit hook");
        const char *s = getenv("MERINO_ALLOC_STATS");
        mrn_show_stats = s && s[0] == '1';
        mrn_settings();
        pthread_atfork(mrn_fork_prepare, mrn_fork_parent, mrn_fork_child);
        /* release: publishes the key and the settings */
        atomic_store_explicit(&mrn_init_state, 2, memory_order_release);
        mrn_in_init = false;
        return;
    }
    /* acquire: as the first load */
    while (atomic_load_explicit(&mrn_init_state, memory_order_acquire) != 2) mrn_cpu_relax();
}

/* The calling thread's heap, made or adopted now. NULL when out of memory. */
static mrn_heap *mrn_heap_acquire(void) {
    mrn_global_init();
    mrn_lock_acquire(&mrn_heaps_lock);
    mrn_heap *h = mrn_abandoned_heaps;
    if (h) {
        mrn_abandoned_heaps = h->next_abandoned;
        mrn_heap_set_state(h, MRN_HEAP_LIVE);
    }
    mrn_lock_release(&mrn_heaps_lock);
    if (h) {
        MRN_STAT_ADD(adopted, 1);
    } else {
        h = mrn_pool_map((sizeof(mrn_heap) + MRN_PAGE - 1) & ~(size_t)(MRN_PAGE - 1));
        if (!h) return NULL;
        for (unsigned c = 0; c < MRN_NCLASSES; c++) h->active[c] = &mrn_empty_block;
        h->batch_last = &h->batch[0];
        mrn_lock_acquire(&mrn_heaps_lock);
        mrn_heap_set_state(h, MRN_HEAP_LIVE);
        h->next_all = mrn_all_heaps;
        mrn_all_heaps = h;
        mrn_lock_release(&mrn_heaps_lock);
        MRN_STAT_ADD(heaps, 1);
    }
    mrn_tls_heap = h;
    pthread_setspecific(mrn_heap_key, h);
    return h;
}

/* ---- blocks of a heap ---------------------------------------------------------------------------- */

/* The avail list of a class is a queue: a block joins at the tail when a free makes it non-full,
 * and the next active block is taken from the head, so the block taken has had the longest time to
 * gather frees (a block with one hole would otherwise be taken at once, give one object, and be
 * full again). */
static void mrn_avail_push(mrn_heap *h, mrn_block *b) {
    unsigned c = b->cls;
    b->next = NULL;
    b->prev = h->avail_tail[c];
    if (b->prev)
        b->prev->next = b;
    else
        h->avail[c] = b;
    h->avail_tail[c] = b;
}

static void mrn_avail_remove(mrn_heap *h, mrn_block *b) {
    unsigned c = b->cls;
    if (b->prev)
        b->prev->next = b->next;
    else
        h->avail[c] = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        h->avail_tail[c] = b->prev;
}

/* Puts the block's next untouched objects on its (empty) free list: a page's worth at a time, so
 * a class little used touches little memory. */
static void mrn_block_carve(mrn_block *b) {
    uint32_t size = b->size, n = MRN_PAGE / size;
    if (n == 0) n = 1;
    if (n > b->count - b->carved) n = b->count - b->carved;
    char *d = mrn_block_data(b) + (size_t)b->carved * size;
    for (uint32_t i = 0; i + 1 < n; i++) *(void **)(d + (size_t)i * size) = d + (size_t)(i + 1) * size;
    *(void **)(d + (size_t)(n - 1) * size) = NULL;
    b->free = d;
    b->carved += n;
}

static void mrn_block_init(mrn_block *b, mrn_heap *h, unsigned c) {
    b->size = mrn_class_size[c];
    b->cls = c;
    b->count = (uint32_t)(MRN_BLOCK_SIZE / b->size);
    b->used = 0;
    b->next = b->prev = NULL;
    b->full = false;
    b->carved = 0;
    mrn_block_carve(b);
#if MRN_ALLOC_DEBUG
    for (unsigned i = 0; i < MRN_BITMAP_WORDS; i++)
        atomic_store_explicit(&mrn_block_live(b)[i], 0, memory_order_relaxed); /* relaxed: the pool's lock orders it */
#endif
    /* relaxed: the block came through the pool's lock; other threads learn its owner only from an
     * object of it, which the program hands over with its own synchronization */
    atomic_store_explicit(&b->owner_tag, (uintptr_t)h | (c >= MRN_OWN_CLASS ? MRN_TAG_OWN : 0), memory_order_relaxed);
}

/* The start of the object of b (a small block) that p points into. */
static inline char *mrn_object_start(mrn_block *b, const void *p) {
    size_t off = (size_t)((const char *)p - mrn_block_data(b));
    return mrn_block_data(b) + off - off % b->size;
}

/* b's last object came back (b is not the class's active block: that one's pin keeps its count
 * above 0): it waits in the heap's cache of free runs for the heap's next block (of any class), or
 * goes to the pool when that is full. */
static void mrn_block_emptied(mrn_heap *h, mrn_block *b) {
    mrn_avail_remove(h, b);
    mrn_run_keep(h, b);
}

/* A free by the owner brought b's used count to 0: b was full (it goes back in its avail list, all
 * its objects out but this one: at least one, a small block holds two or more), or it is empty. */
_Static_assert(MRN_BLOCK_SIZE / MRN_SMALL_MAX >= 2, "a small block holds two objects at least");
__attribute__((noinline)) static void mrn_block_freed_into(mrn_heap *h, mrn_block *b) {
    if (b->full) {
        b->full = false;
        b->used = b->count - 1;
        mrn_avail_push(h, b);
        return;
    }
    mrn_block_emptied(h, b);
}

/* A free by the owner, the general case: an aligned object, a full block, an emptied block. */
static void mrn_owner_free(mrn_heap *h, mrn_block *b, void *p) {
    /* relaxed: only this thread writes the tag of its blocks */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (tag & MRN_TAG_ALIGNED) p = mrn_object_start(b, p);
    *(void **)p = b->free;
    b->free = p;
    if (--b->used == 0) mrn_block_freed_into(h, b);
}

static void *mrn_small_alloc_slow(mrn_heap *h, unsigned c);

/* Spare buffers a heap keeps for its next batches; more go back to its blocks. 16: twice the
 * batches a thread holds at once, so a steady stream of flushes and returns allocates none. */
#define MRN_SPARE_KEEP 16

/* Frees buf, one of h's own spare buffers, into its block (as the owner would). */
static void mrn_buf_drop(mrn_heap *h, mrn_buf *buf) { mrn_owner_free(h, mrn_block_of(buf), buf); }

/* Keeps buf (h's own) as a spare for h's next batches, or frees it when h has enough. */
static void mrn_buf_keep(mrn_heap *h, mrn_buf *buf) {
    if (h->nspare >= MRN_SPARE_KEEP) {
        mrn_buf_drop(h, buf);
        return;
    }
    buf->next = h->spare;
    h->spare = buf;
    h->nspare++;
}

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
    unsigned c = mrn_class_of[(sizeof(mrn_buf) + 7) >> 3];
    mrn_block *b = h->active[c];
    if (b->free)
        buf = mrn_block_pop(b);
    else if (!(buf = mrn_small_alloc_slow(h, c)))
        return NULL;
    buf->from = h;
    MRN_STAT_ADD(remote_bufs, 1);
    return buf;
}

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

/* Takes every object other threads have freed into h and frees it into its block; the buffers
 * that held them go back to their heaps. */
static void mrn_heap_collect(mrn_heap *h) {
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

/* Takes in the buffers other heaps gave back to h and frees them and h's spares (h is one no
 * thread allocates from: exiting, or abandoned and reclaimed). */
static void mrn_spares_drop(mrn_heap *h) {
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

/* One object p of heap to, freed by a thread with no batch to put it in (exiting, out of memory). */
static void mrn_remote_push_one(mrn_heap *to, void *p) {
    MRN_STAT_ADD(remote_frees, 1);
    mrn_remote_push(to, (char *)p + 1, (void **)p);
}

/* A batch of at most this many objects goes as a chain of lone objects (linked through their
 * first words, which this thread then writes) and keeps its buffer: a buffer sent to a heap whose
 * thread does not collect for a while (a main thread that waits for its workers) stays there, and
 * the flushes at each slow-path allocation send small batches — in larson-many, 492 buffers
 * (1.2 MB) were made, most holding a few objects of the main thread's heap. */
#define MRN_CHAIN_MAX 16

static void mrn_batch_flush(mrn_heap *me, mrn_batch *s) {
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

/* Adds p (whose block is b) to the batch s of this thread (heap me): an entry of its buffer; the
 * object itself is not written. */
static inline void mrn_batch_add(mrn_heap *me, mrn_batch *s, void *p, const mrn_block *b) {
    s->buf->p[s->n] = p;
    me->batched++;
    s->bytes += b->size;
    if (++s->n >= MRN_BATCH_MAX || s->bytes >= MRN_BATCH_BYTES) mrn_batch_flush(me, s);
}

static void mrn_batches_flush(mrn_heap *me) {
    for (unsigned i = 0; i < MRN_BATCHES; i++)
        if (me->batch[i].to) mrn_batch_flush(me, &me->batch[i]);
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

/* ---- reuse of other heaps' objects ------------------------------------------------------------------- */

/* Once per window: reuse other heaps' objects when more than a quarter of the frees were of them,
 * stop below an eighth; the counts then halve, so the decision follows the recent past. */
static void mrn_reuse_decide(mrn_heap *h) {
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
static bool mrn_reuse_push(mrn_heap *h, unsigned c, void *p) {
    mrn_block *pb = &h->reuse[c];
    if ((int32_t)pb->used <= -MRN_REUSE_MAX) return false;
    mrn_pseudo_push(h, c, pb, p);
    /* relaxed, no read-modify-write: only h's thread writes it (statistics) */
    atomic_store_explicit(&h->reused, atomic_load_explicit(&h->reused, memory_order_relaxed) + 1, memory_order_relaxed);
    return true;
}

/* Keeps p, h's own object of block b (a class from MRN_OWN_CLASS on), in the class's pseudo-block
 * for h's next allocations; false when one more would take it past MRN_OWN_BYTES of objects. */
static bool mrn_own_push(mrn_heap *h, const mrn_block *b, void *p) {
    mrn_block *pb = &h->reuse[b->cls];
    if ((uint32_t)(1 - (int32_t)pb->used) * b->size > MRN_OWN_BYTES) return false;
    mrn_pseudo_push(h, b->cls, pb, p);
    return true;
}

/* Every reused object of h, and every object of its own cache, sent home (a thread's exit); the
 * real blocks active again. */
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

/* ---- malloc and free: fast paths first --------------------------------------------------------------- */

static void *mrn_malloc_slow(size_t size);
static void mrn_free_slow(void *p, mrn_block *b, uintptr_t tag, mrn_heap *me);

static inline __attribute__((always_inline)) void *mrn_malloc(size_t size) {
    mrn_heap *h = mrn_tls_heap;
    if (MRN_LIKELY(size <= MRN_SMALL_MAX)) {
        mrn_block *b = h->active[mrn_class_of[(size + 7) >> 3]];
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

static mrn_heap *mrn_heap_get(void) {
    mrn_heap *h = mrn_tls_heap;
    return h != &mrn_empty_heap ? h : mrn_heap_acquire();
}

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
    mrn_heap *h = mrn_heap_get();
    if (!h) {
        errno = ENOMEM;
        return NULL;
    }
    if (size > MRN_SMALL_MAX) return mrn_large_alloc(h, size, 0, false);
    return mrn_small_alloc_slow(h, mrn_class_of[(size + 7) >> 3]);
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
    else if (!owner) /* a large object: straight back to the OS */
        mrn_large_free(NULL, b);
    else
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
            unsigned c = mrn_class_of[(size + align - 16 + 7) >> 3];
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

static size_t mrn_usable(const void *p) {
    mrn_block *b = mrn_block_of(p);
    /* relaxed: p is live, so its block's heap and kind do not change under us */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (tag & MRN_TAG_LARGE) return (size_t)(b->map_base + b->map_len - (const char *)p);
    return (size_t)(mrn_object_start(b, p) + b->size - (const char *)p);
}

/* ---- debug checks ------------------------------------------------------------------------------------ */

#if MRN_ALLOC_DEBUG
/* Marks the object at p allocated (small objects: a bit of their block's bitmap). */
static void *mrn_debug_mark(void *p) {
    if (!p) return p;
    mrn_block *b = mrn_block_of(p);
    /* relaxed: p is this thread's new object */
    if (atomic_load_explicit(&b->owner_tag, memory_order_relaxed) & MRN_TAG_LARGE) return p;
    size_t i = (size_t)(mrn_object_start(b, p) - mrn_block_data(b)) / b->size;
    /* relaxed: debug bookkeeping; the object itself is handed over by the program */
    atomic_fetch_or_explicit(&mrn_block_live(b)[i / 64], (uint64_t)1 << (i % 64), memory_order_relaxed);
    return p;
}

/* A block inside a live medium run whose object p points into, or NULL. Such a block's header
 * names its run (large.c); one freed since may name a stale run, so the run's own header is
 * checked, and only a run in p's chunk (one the debug checks know is mapped) is read. */
static const char *mrn_debug_run_of(const void *p, const mrn_block *b) {
    const char *run = b->map_base, *c = (const char *)p;
    if (!run || c <= run || c >= run + b->map_len) return NULL;
    /* a run starts at a block of p's chunk past its header blocks, and never leaves the chunk */
    uintptr_t at = (uintptr_t)run & (MRN_CHUNK_SIZE - 1);
    if (((uintptr_t)run ^ (uintptr_t)p) >= MRN_CHUNK_SIZE || at % MRN_BLOCK_SIZE ||
        at < MRN_CHUNK_HDR_BLOCKS * MRN_BLOCK_SIZE)
        return NULL;
    const mrn_block *head = mrn_block_of(run);
    /* relaxed: debug reads, as in mrn_debug_check */
    uintptr_t tag = atomic_load_explicit(&head->owner_tag, memory_order_relaxed);
    bool live = (tag & (MRN_TAG_LARGE | MRN_TAG_CACHED)) == MRN_TAG_LARGE && head->cls != 0;
    return live && head->free == run && c < run + head->map_len ? run : NULL;
}

/* Reports p, a pointer into the large object at start, and aborts. */
__attribute__((noreturn)) static void mrn_debug_die_inside(const char *what, const void *p, const void *start) {
    mrn_alloc_die("%s(%p): not the start of an object (it points %td bytes into a large object at %p)", what, p,
                  (const char *)p - (const char *)start, start);
}

/* Checks that p is an allocated object's address; reports it and aborts if not. */
static void mrn_debug_check(const void *p, const char *what, bool release) {
    const void *large;
    if (!mrn_debug_owns(p, &large))
        mrn_alloc_die("%s(%p): not a pointer the allocator returned (it is in no memory the "
                      "allocator mapped): a stack or static address, or another allocator's memory?",
                      what, p);
    if (large && p != large) { /* in the mapping of a large object of its own, not at its start */
        if (p > large) mrn_debug_die_inside(what, p, large);
        mrn_alloc_die("%s(%p): not a pointer the allocator returned (it is in the allocator's header "
                      "before the large object at %p)", what, p, large);
    }
    mrn_block *b = mrn_block_of(p);
    /* relaxed: debug reads; a concurrent double free is caught by the bitmap's atomic below */
    uintptr_t tag = atomic_load_explicit(&b->owner_tag, memory_order_relaxed);
    if (tag & MRN_TAG_LARGE) {
        if (tag & MRN_TAG_CACHED) mrn_alloc_die("%s(%p): double free (this large object is already free)", what, p);
        if (p != b->free) mrn_debug_die_inside(what, p, b->free);
        return;
    }
    if (tag == 0) {
        const char *run = mrn_debug_run_of(p, b);
        if (run) mrn_debug_die_inside(what, p, run);
        mrn_alloc_die("%s(%p): double free, or a pointer never returned (its block holds no object)", what, p);
    }
    const char *start = mrn_object_start(b, p);
    if (start != p && !(tag & MRN_TAG_ALIGNED))
        mrn_alloc_die("%s(%p): not the start of an object (it points %td bytes into an object of %u "
                      "bytes at %p)", what, p, (const char *)p - start, b->size, (const void *)start);
    size_t i = (size_t)(start - mrn_block_data(b)) / b->size;
    uint64_t bit = (uint64_t)1 << (i % 64);
    /* relaxed: debug bookkeeping (an atomic RMW, so two racing frees cannot both see the bit) */
    _Atomic uint64_t *live = mrn_block_live(b);
    uint64_t old = release ? atomic_fetch_and_explicit(&live[i / 64], ~bit, memory_order_relaxed)
                           : atomic_load_explicit(&live[i / 64], memory_order_relaxed);
    if (!(old & bit))
        mrn_alloc_die("%s(%p): double free, or a pointer never returned (object of %u bytes at %p is free)",
                      what, p, b->size, (const void *)start);
}
#define MRN_MARK(p) mrn_debug_mark(p)
#else
#define MRN_MARK(p) (p)
#endif

/* ---- the public API ---------------------------------------------------------------------------------- */

MERINO_ALLOC_API void *merino_malloc(size_t size) { return MRN_MARK(mrn_malloc(size)); }

MERINO_ALLOC_API void merino_free(void *p) {
#if MRN_ALLOC_DEBUG
    if (p) mrn_debug_check(p, "merino_free", true);
#endif
    mrn_free(p);
}

MERINO_ALLOC_API void *merino_calloc(size_t count, size_t size) {
    size_t n;
    if (__builtin_mul_overflow(count, size, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    if (n <= MRN_SMALL_MAX) {
        void *p = merino_malloc(n);
        if (p) memset(p, 0, n);
        return p;
    }
    mrn_heap *h = mrn_heap_get();
    if (!h || n > PTRDIFF_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    return mrn_large_alloc(h, n, 0, true); /* a fresh mapping is zero already */
}

MERINO_ALLOC_API size_t merino_usable_size(const void *p) {
    if (!p) return 0;
#if MRN_ALLOC_DEBUG
    mrn_debug_check(p, "merino_usable_size", false);
#endif
    return mrn_usable(p);
}

MERINO_ALLOC_API void *merino_realloc(void *p, size_t size) {
    if (!p) return merino_malloc(size);
    if (size == 0) {
        merino_free(p);
        return NULL;
    }
    size_t old = merino_usable_size(p);
    if (size <= old && size >= old / 2) return p; /* fits, and not worth moving to a smaller one */
    void *q = merino_malloc(size);
    if (!q) return NULL;
    memcpy(q, p, size < old ? size : old);
    merino_free(p);
    return q;
}

MERINO_ALLOC_API void *merino_aligned_alloc(size_t alignment, size_t size) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        errno = EINVAL;
        return NULL;
    }
    if (alignment <= 16) return merino_malloc(size < alignment ? alignment : size);
    return MRN_MARK(mrn_aligned(alignment, size));
}

/* ---- thread exit and fork ---------------------------------------------------------------------------- */

/* Takes in h's remote frees, and gives every emptied block back to the pool (the active ones too)
 * and its cached medium mappings back to the OS: for a heap no thread allocates from. */
static void mrn_heap_trim(mrn_heap *h) {
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

/* Under the heaps lock: h goes on the abandoned list. */
static void mrn_heap_push_abandoned(mrn_heap *h) {
    mrn_heap_set_state(h, MRN_HEAP_ABANDONED);
    h->next_abandoned = mrn_abandoned_heaps;
    mrn_abandoned_heaps = h;
}

/* The pthread key's destructor: this thread ends; its heap waits for the next new thread. */
static void mrn_heap_abandon(void *arg) {
    mrn_heap *h = arg;
    mrn_reuse_drain(h);
    mrn_batches_flush(h);
    mrn_heap_trim(h);
    /* A thread's end is often a parallel phase's: the pool keeps less resident from here on. */
    mrn_pool_trim(mrn_pool_keep / 2);
    if (mrn_tls_heap == h) mrn_tls_heap = &mrn_empty_heap;
    mrn_exited = true;
    mrn_lock_acquire(&mrn_heaps_lock);
    if (mrn_heap_state(h) == MRN_HEAP_LIVE) mrn_heap_push_abandoned(h);
    mrn_lock_release(&mrn_heaps_lock);
}

/* h was abandoned and has just been sent frees: this thread acts as its owner for a moment, takes
 * them in and gives its emptied blocks back, so memory freed by others after a thread exited
 * returns to the pool (and on to the OS) without waiting for a new thread to adopt the heap. */
static void mrn_heap_reclaim(mrn_heap *h) {
    mrn_lock_acquire(&mrn_heaps_lock);
    bool mine = mrn_heap_state(h) == MRN_HEAP_ABANDONED;
    if (mine) {
        mrn_heap **at = &mrn_abandoned_heaps;
        while (*at != h) at = &(*at)->next_abandoned;
        *at = h->next_abandoned;
        mrn_heap_set_state(h, MRN_HEAP_RECLAIMING);
    }
    mrn_lock_release(&mrn_heaps_lock);
    if (!mine) return; /* adopted, or another thread is at it */
    /* Frees pushed meanwhile found it RECLAIMING and left it to us: take them too (a few times). */
    for (int i = 0; i < 4; i++) {
        mrn_heap_trim(h);
        /* relaxed: a peek; mrn_heap_collect's exchange orders what it takes */
        if (!atomic_load_explicit(&h->remote, memory_order_relaxed)) break;
    }
    mrn_lock_acquire(&mrn_heaps_lock);
    mrn_heap_push_abandoned(h);
    mrn_lock_release(&mrn_heaps_lock);
}

/* fork: every global lock (heaps, pool, debug regions) is held across it, so
 * the child finds none taken by a thread it lacks. */
static void mrn_fork_prepare(void) {
    mrn_lock_acquire(&mrn_heaps_lock);
    mrn_pool_lock_for_fork(true);
#if MRN_ALLOC_DEBUG
    mrn_debug_fork(true);
#endif
}

static void mrn_fork_parent(void) {
#if MRN_ALLOC_DEBUG
    mrn_debug_fork(false);
#endif
    mrn_pool_lock_for_fork(false);
    mrn_lock_release(&mrn_heaps_lock);
}

/* In the child only this thread lives. The other threads' heaps may be mid-update: they are never
 * adopted (their memory stays with them); frees into them still work (they are pushes). */
static void mrn_fork_child(void) {
    for (mrn_heap *h = mrn_all_heaps; h; h = h->next_all)
        if (mrn_heap_state(h) == MRN_HEAP_LIVE && h != mrn_tls_heap) mrn_heap_set_state(h, MRN_HEAP_LOST);
    mrn_fork_parent();
}

/* ---- statistics -------------------------------------------------------------------------------------- */

#define MRN_LOAD(f) atomic_load_explicit(&mrn_stats.f, memory_order_relaxed) /* relaxed: statistics */

__attribute__((destructor)) static void mrn_stats_at_exit(void) {
    if (!mrn_show_stats) return;
    size_t heaps[MRN_HEAP_STATES] = {0}, cold, chunks, medium_hits = 0, reused = 0;
    mrn_lock_acquire(&mrn_heaps_lock);
    for (mrn_heap *h = mrn_all_heaps; h; h = h->next_all) {
        heaps[mrn_heap_state(h)]++;
        medium_hits += atomic_load_explicit(&h->medium_hits, memory_order_relaxed); /* relaxed: statistics */
        reused += atomic_load_explicit(&h->reused, memory_order_relaxed);           /* relaxed: statistics */
    }
    mrn_lock_release(&mrn_heaps_lock);
    size_t pooled = mrn_pool_blocks(&cold, &chunks);
    mrn_alloc_say("allocator statistics (MERINO_ALLOC_STATS=1):");
    mrn_alloc_say("  mapped now %zu KB, peak %zu KB; chunks of 1 MB: %zu now, %zu mapped, %zu unmapped",
                  MRN_LOAD(mapped) >> 10, MRN_LOAD(mapped_peak) >> 10, chunks, MRN_LOAD(chunks),
                  MRN_LOAD(chunk_unmaps));
    mrn_alloc_say("  blocks taken %zu, returned %zu; in the pool %zu resident, %zu cold "
                  "(%zu decommits, %zu in %zu decay passes; %zu cold taken); callocs zeroed by decommit %zu",
                  MRN_LOAD(block_gets), MRN_LOAD(block_puts), pooled, cold, MRN_LOAD(decommits),
                  MRN_LOAD(decay_blocks), MRN_LOAD(decays), MRN_LOAD(recommits), MRN_LOAD(zero_decommits));
    mrn_alloc_say("  large objects %zu (%zu MB); medium runs from the heap's cache %zu, from the pool %zu", MRN_LOAD(large),
                  MRN_LOAD(large_bytes) >> 20, medium_hits, MRN_LOAD(medium_misses));
    mrn_alloc_say("  frees by other threads %zu, in %zu batches (%zu buffers made); %zu other threads' objects "
                  "reused by the freeing thread", MRN_LOAD(remote_frees), MRN_LOAD(remote_flushes),
                  MRN_LOAD(remote_bufs), reused);
    mrn_alloc_say("  heaps made %zu, adopted %zu times; now live %zu, abandoned %zu, lost to fork %zu",
                  MRN_LOAD(heaps), MRN_LOAD(adopted), heaps[MRN_HEAP_LIVE], heaps[MRN_HEAP_ABANDONED],
                  heaps[MRN_HEAP_LOST]);
}
