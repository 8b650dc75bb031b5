/* test-stress.c — mimalloc's test-stress as mimalloc-bench runs it ("mstress", with its usual
 * arguments: THREADS 50 25): ITER iterations, each starting THREADS threads and joining them (so
 * heaps are abandoned and taken over again). Thread t makes 100 * 50 * (t % 8 + 1) allocations
 * and half as many "retained" ones, in random order: each of 1 to 16 words (8 to 128 bytes), a
 * retained one of 1 to 64 words; one in a hundred is 100 times larger, and of those a tenth 1000
 * times and a hundredth 10000 times (up to 5 MB). After each allocation a random earlier one is
 * freed (two times in three) and one is swapped (one time in four) with a slot of a shared array of
 * 1000 that outlives the threads: another thread, often of a later iteration, frees it. Half of
 * that array is freed between iterations, all of it after the last. Every word of every object is
 * written and checked before its free. This is a fresh implementation of that shape, not mimalloc's
 * code. Ops: allocations + frees per second; at scale 1, ITER is 100 (four times the usual 25, for
 * a run long enough to time). */
#include "alloc-bench.h"

#include <stdatomic.h>

enum { TRANSFER = 1000, SCALE = 50 };

static _Atomic(uint64_t *) g_transfer[TRANSFER];
static _Atomic long g_ops;
static const uint64_t COOKIE = 0x6a09e667f3bcc909ull;

typedef struct worker {
    int id;
} worker;

static int chance(int percent, uint64_t *rng) { return (int)(ab_rand(rng) % 100) < percent; }

static uint64_t *make(size_t words, uint64_t *rng) {
    if (chance(1, rng)) words *= chance(1, rng) ? 10000 : chance(10, rng) ? 1000 : 100;
    uint64_t *p = (uint64_t *)malloc(words * 8);
    if (!p) {
        fprintf(stderr, "test-stress: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < words; i++) p[i] = (words - i) ^ COOKIE;
    return p;
}

static void drop(uint64_t *p, long *ops) {
    if (!p) return;
    size_t words = (size_t)(p[0] ^ COOKIE);
    for (size_t i = 0; i < words; i++)
        if ((p[i] ^ COOKIE) != words - i) {
            fprintf(stderr, "test-stress: VERIFY FAILED: object %p of %zu words: word %zu lost its contents\n",
                    (void *)p, words, i);
            abort();
        }
    free(p);
    (*ops)++;
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1) + 43;
    long allocs = 100L * SCALE * (w->id % 8 + 1), retain = allocs / 2, ops = 0;
    size_t top = 0, cap = 0, kept = 0;
    uint64_t **data = NULL;
    uint64_t **retained = (uint64_t **)malloc((size_t)retain * sizeof *retained);
    while (allocs > 0 || retain > 0) {
        if (retain == 0 || (allocs > 0 && chance(50, &rng))) {
            allocs--;
            if (top == cap) { /* grown in steps of 100000 entries, by realloc */
                cap += 100000;
                data = (uint64_t **)realloc(data, cap * sizeof *data);
                if (!data) exit(1);
            }
            data[top++] = make((size_t)1 << (ab_rand(&rng) % 5), &rng);
        } else {
            retained[kept++] = make((size_t)1 << (ab_rand(&rng) % 7), &rng);
            retain--;
        }
        ops++;
        if (top && chance(66, &rng)) {
            size_t i = (size_t)(ab_rand(&rng) % top);
            drop(data[i], &ops);
            data[i] = NULL;
        }
        if (top && chance(25, &rng)) {
            size_t i = (size_t)(ab_rand(&rng) % top);
            data[i] = atomic_exchange_explicit(&g_transfer[ab_rand(&rng) % TRANSFER], data[i], memory_order_acq_rel);
        }
    }
    for (size_t i = 0; i < kept; i++) drop(retained[i], &ops);
    for (size_t i = 0; i < top; i++) drop(data[i], &ops);
    free(retained);
    free(data);
    atomic_fetch_add_explicit(&g_ops, ops, memory_order_relaxed);
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    int iter = (int)(100 * a.scale + 0.5);
    if (iter < 1) iter = 1;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    uint64_t rng = 43 * 43;
    long ops = 0;
    double t = 0;
    for (int n = 0; n < iter; n++) {
        for (int i = 0; i < a.threads; i++) w[i].id = i;
        t += ab_run_threads(a.threads, run, w, sizeof *w);
        double t0 = ab_now();
        for (int i = 0; i < TRANSFER; i++)
            if (n + 1 == iter || chance(50, &rng))
                drop(atomic_exchange_explicit(&g_transfer[i], NULL, memory_order_acq_rel), &ops);
        t += ab_now() - t0;
    }
    free(w);
    ab_report("test-stress", &a, (double)(ops + atomic_load(&g_ops)), t, ab_rss_kb());
    return 0;
}
