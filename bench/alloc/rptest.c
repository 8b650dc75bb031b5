/* rptest.c — in the shape of rpmalloc's benchmark (mimalloc-bench's "rptest"): every thread runs
 * loops over a set of 4096 slots; each loop frees the objects of a random stretch of slots and
 * allocates new ones there, of 16 B to 16 KB (sizes a power of two apart chosen uniformly, then a
 * random size within, so small ones are the most frequent); one allocation in 16 is handed to the
 * next thread of a ring instead, which frees it (a cross-thread rate of 1/16), and objects live
 * for several loops. Ops: allocations + frees per second. */
#include "alloc-bench.h"

#include <sched.h>
#include <stdatomic.h>

enum { SLOTS = 4096, STRETCH = 512, QCAP = 4096, CROSS = 16 };

typedef struct obj {
    unsigned char *p;
    uint32_t n;
} obj;

typedef struct worker {
    _Alignas(64) _Atomic unsigned long head; /* written by this thread, the consumer */
    _Alignas(64) _Atomic unsigned long tail; /* written by the previous thread, the producer */
    obj q[QCAP];                             /* objects from the previous thread of the ring */
    int id;
    long loops, ops;
} worker;

static worker *g_w;
static int g_threads;
static _Atomic int g_running; /* threads still in their loops: the others keep draining meanwhile */

static uint64_t key_of(const void *p, uint32_t n) { return (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull ^ n; }

static void drop(obj o) {
    ab_verify(o.p, o.n, key_of(o.p, o.n), "rptest");
    free(o.p);
}

/* Frees what waits in w's queue; returns how many. */
static long drain(worker *w) {
    unsigned long h = atomic_load_explicit(&w->head, memory_order_relaxed);
    unsigned long t = atomic_load_explicit(&w->tail, memory_order_acquire); /* the items' contents */
    for (unsigned long i = h; i != t; i++) drop(w->q[i % QCAP]);
    atomic_store_explicit(&w->head, t, memory_order_release); /* the slots may be reused */
    return (long)(t - h);
}

/* Hands o to the next thread (waits while its queue is full, freeing its own incoming). */
static void hand(worker *w, obj o) {
    worker *next = &g_w[(w->id + 1) % g_threads];
    unsigned long t = atomic_load_explicit(&next->tail, memory_order_relaxed);
    while (t - atomic_load_explicit(&next->head, memory_order_acquire) >= QCAP) {
        w->ops += drain(w);
        sched_yield();
    }
    next->q[t % QCAP] = o;
    atomic_store_explicit(&next->tail, t + 1, memory_order_release); /* the item's contents */
}

static obj make(uint64_t *rng) {
    uint64_t r = ab_rand(rng);
    unsigned k = (unsigned)(r % 10);                          /* 16 << 0 .. 16 << 9 */
    uint32_t n = (uint32_t)(16u << k) + (uint32_t)((r >> 8) % (16u << k)); /* 16 B .. 16 KB */
    obj o = {(unsigned char *)malloc(n), n};
    if (!o.p) {
        fprintf(stderr, "rptest: out of memory\n");
        exit(1);
    }
    ab_stamp(o.p, n, key_of(o.p, n));
    return o;
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = 0x5851f42d4c957f2dull * (uint64_t)(w->id + 1);
    obj *slot = (obj *)calloc(SLOTS, sizeof *slot);
    long made = 0;
    for (long l = 0; l < w->loops; l++) {
        unsigned from = (unsigned)(ab_rand(&rng) % SLOTS);
        for (unsigned i = 0; i < STRETCH; i++) {
            obj *s = &slot[(from + i) % SLOTS];
            if (s->p) {
                drop(*s);
                w->ops++;
                s->p = NULL;
            }
            obj o = make(&rng);
            w->ops++;
            if (g_threads > 1 && ++made % CROSS == 0) hand(w, o);
            else *s = o;
        }
        if (g_threads > 1) w->ops += drain(w);
    }
    atomic_fetch_sub_explicit(&g_running, 1, memory_order_relaxed); /* ordered by nothing: a count */
    while (atomic_load_explicit(&g_running, memory_order_relaxed) > 0) { /* the previous may hand more */
        w->ops += drain(w);
        sched_yield();
    }
    for (unsigned i = 0; i < SLOTS; i++)
        if (slot[i].p) {
            drop(slot[i]);
            w->ops++;
        }
    free(slot);
    return NULL;
}

/* Each thread, after all are done: what was handed to it after its last look. */
static void *finish(void *arg) {
    worker *w = (worker *)arg;
    w->ops += drain(w);
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    g_threads = a.threads;
    g_running = a.threads;
    g_w = (worker *)aligned_alloc(64, sizeof(worker) * (size_t)a.threads);
    long loops = (long)(4000 * a.scale) / a.threads + 1;
    for (int i = 0; i < a.threads; i++) {
        memset(&g_w[i], 0, sizeof g_w[i]);
        g_w[i].id = i;
        g_w[i].loops = loops;
    }
    double t = ab_run_threads(a.threads, run, g_w, sizeof *g_w);
    t += ab_run_threads(a.threads, finish, g_w, sizeof *g_w);
    long ops = 0;
    for (int i = 0; i < a.threads; i++) ops += g_w[i].ops;
    free(g_w);
    ab_report("rptest", &a, (double)ops, t, ab_rss_kb());
    return 0;
}
