/* mstress.c — in the shape of mimalloc's test-stress (mimalloc-bench's "mstress"): rounds of
 * THREADS threads, each started for the round and joined at its end (so heaps are abandoned and
 * taken over again). A thread allocates objects of random sizes — mostly 24 B to 1 KB, some up to
 * 16 KB, a few up to 256 KB — keeps them in a local array, frees random ones, and swaps random ones
 * with a shared transfer array that outlives the rounds, so many objects are freed by another
 * thread, in a later round, long after their owner exited. Every object carries its size and a key
 * derived from its address, checked before it is freed. Ops: allocations + frees per second. */
#include "alloc-bench.h"

#include <stdatomic.h>

enum { TRANSFER = 1000, LOCAL = 2048 };

static _Atomic(uint64_t *) g_transfer[TRANSFER];
static _Atomic long g_ops;

typedef struct worker {
    int id, round;
    long steps;
} worker;

static uint64_t key_of(const uint64_t *p, uint64_t n) { return ((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) ^ n; }

static uint64_t *make(uint64_t *rng) {
    uint64_t r = ab_rand(rng), pick = r % 1000;
    uint64_t n = pick < 900 ? 24 + (r >> 10) % 1001         /* 24 B .. 1 KB (3 words at least) */
                 : pick < 995 ? 1024 + (r >> 10) % 15361    /* .. 16 KB */
                              : 16384 + (r >> 10) % 245761; /* .. 256 KB */
    n &= ~(uint64_t)7;
    uint64_t *p = (uint64_t *)malloc(n);
    if (!p) {
        fprintf(stderr, "mstress: out of memory\n");
        exit(1);
    }
    p[0] = n;
    p[1] = key_of(p, n);
    p[n / 8 - 1] = p[1] ^ 0x5555;
    return p;
}

static void drop(uint64_t *p) {
    if (!p) return;
    uint64_t n = p[0];
    if (n < 24 || n > 262144 || p[1] != key_of(p, n) || p[n / 8 - 1] != (p[1] ^ 0x5555)) {
        fprintf(stderr, "mstress: VERIFY FAILED: object %p (size word %llu) lost its contents\n", (void *)p,
                (unsigned long long)n);
        abort();
    }
    free(p);
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = 0x2545f4914f6cdd1dull * (uint64_t)(w->id + 1) + (uint64_t)w->round * 7919;
    uint64_t *local[LOCAL] = {0};
    long ops = 0;
    for (long i = 0; i < w->steps; i++) {
        uint64_t r = ab_rand(&rng);
        unsigned j = (unsigned)(r % LOCAL);
        switch ((r >> 16) % 8) {
        case 0: case 1: case 2: case 3: /* allocate, in place of what is there */
            if (local[j]) ops++;
            drop(local[j]);
            local[j] = make(&rng);
            ops++;
            break;
        case 4: case 5: /* free */
            if (local[j]) ops++;
            drop(local[j]);
            local[j] = NULL;
            break;
        default: /* swap with the shared array: another thread, maybe in a later round, frees it */
            local[j] = atomic_exchange_explicit(&g_transfer[(r >> 24) % TRANSFER], local[j], memory_order_acq_rel);
            break;
        }
    }
    for (unsigned j = 0; j < LOCAL; j++)
        if (local[j]) {
            drop(local[j]);
            ops++;
        }
    atomic_fetch_add_explicit(&g_ops, ops, memory_order_relaxed);
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    int rounds = 10;
    long steps = (long)(10000000 * a.scale) / (rounds * a.threads) + 1;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    double t = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < a.threads; i++) w[i] = (worker){i, r, steps};
        t += ab_run_threads(a.threads, run, w, sizeof *w);
    }
    double t0 = ab_now();
    long ops = atomic_load(&g_ops);
    for (int k = 0; k < TRANSFER; k++) {
        uint64_t *p = atomic_load(&g_transfer[k]);
        if (p) {
            drop(p);
            ops++;
        }
    }
    t += ab_now() - t0;
    free(w);
    ab_report("mstress", &a, (double)ops, t, ab_rss_kb());
    return 0;
}
