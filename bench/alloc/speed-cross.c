/* speed-cross.c — every object freed by another thread: the threads form a ring; each allocates
 * objects of 16 to 256 bytes, stamps them and sends them to the next thread through a lock-free
 * single-producer queue; the next thread verifies and frees them. With one thread the ring is the
 * thread itself (its own frees). Ops: allocations + frees per second. */
#include "alloc-bench.h"

#include <sched.h>
#include <stdatomic.h>

enum { QCAP = 1024 }; /* a power of two */

typedef struct item {
    unsigned char *p;
    uint32_t n;
    uint64_t key;
} item;

typedef struct worker {
    _Alignas(64) _Atomic unsigned long head; /* written by the consumer */
    _Alignas(64) _Atomic unsigned long tail; /* written by the producer */
    item q[QCAP];                            /* from the previous thread of the ring */
    int id;
    long ops;
} worker;

static worker *g_w;
static int g_threads;

/* Frees what is waiting in w's queue; returns how many. */
static long drain(worker *w) {
    /* acquire: the producer's stamps and queue entries */
    unsigned long t = atomic_load_explicit(&w->tail, memory_order_acquire);
    unsigned long h = atomic_load_explicit(&w->head, memory_order_relaxed);
    for (unsigned long i = h; i < t; i++) {
        item *it = &w->q[i % QCAP];
        ab_verify(it->p, it->n, it->key, "speed-cross");
        free(it->p);
    }
    /* release: the slots are free for the producer to reuse */
    atomic_store_explicit(&w->head, t, memory_order_release);
    return (long)(t - h);
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    worker *next = &g_w[(w->id + 1) % g_threads];
    uint64_t rng = 0x1234567ull * (uint64_t)(w->id + 1);
    long freed = 0, sent = 0;
    while (sent < w->ops) {
        /* acquire: the consumer is done with the slots up to head */
        unsigned long h = atomic_load_explicit(&next->head, memory_order_acquire);
        unsigned long t = atomic_load_explicit(&next->tail, memory_order_relaxed);
        if (t - h == QCAP) { /* full: free our own inbound objects meanwhile */
            long n = drain(w);
            freed += n;
            if (n == 0) sched_yield();
            continue;
        }
        item *it = &next->q[t % QCAP];
        it->n = 16 + (uint32_t)(ab_rand(&rng) % 241);
        it->key = ab_rand(&rng);
        it->p = (unsigned char *)malloc(it->n);
        ab_stamp(it->p, it->n, it->key);
        /* release: the object's stamp and the entry, before the consumer sees it */
        atomic_store_explicit(&next->tail, t + 1, memory_order_release);
        sent++;
        if ((sent & 63) == 0) freed += drain(w);
    }
    /* Our predecessor sends as many as we do: take all of them. */
    while (freed < w->ops) {
        long n = drain(w);
        freed += n;
        if (n == 0) sched_yield();
    }
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    g_threads = a.threads;
    long ops = (long)(2000000 * a.scale) / a.threads + 1;
    g_w = (worker *)aligned_alloc(64, sizeof(worker) * (size_t)a.threads);
    memset(g_w, 0, sizeof(worker) * (size_t)a.threads);
    for (int i = 0; i < a.threads; i++) {
        g_w[i].id = i;
        g_w[i].ops = ops;
    }
    double t = ab_run_threads(a.threads, run, g_w, sizeof(worker));
    free(g_w);
    ab_report("speed-cross", &a, 2.0 * (double)ops * a.threads, t, ab_rss_kb());
    return 0;
}
