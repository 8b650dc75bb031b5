/* larson.c — Larson & Krishnan's server benchmark: each thread keeps an array of slots holding
 * objects of 8 to 100 bytes and, again and again, frees the object in a random slot and allocates
 * another. Mode "few": each thread works on its own slots, and at each round's end the arrays move
 * to the next thread (a new "connection"), so only the first free of each slot in a round is a
 * foreign one. Mode "many": a slot is taken from a random thread's array each time, so nearly
 * every free is foreign. Ops: frees + allocations per second. */
#include "alloc-bench.h"

#include <stdatomic.h>

typedef struct slot {
    _Atomic(unsigned char *) p;
    uint32_t n;
    uint64_t key;
} slot;

enum { SLOTS = 1000 };

typedef struct worker {
    int id;
    long ops;
    uint64_t seed;
} worker;

static slot *g_slots;   /* threads * SLOTS */
static int g_threads, g_many, g_rounds;
static pthread_barrier_t g_barrier;

static void replace(slot *s, uint64_t *rng) {
    /* take the slot's object (in "many" mode another thread may race for the same slot) */
    unsigned char *old = atomic_exchange_explicit(&s->p, NULL, memory_order_acquire);
    if (!old) return;
    ab_verify(old, s->n, s->key, "larson");
    free(old);
    uint32_t n = 8 + (uint32_t)(ab_rand(rng) % 93);
    unsigned char *p = (unsigned char *)malloc(n);
    s->n = n;
    s->key = ab_rand(rng);
    ab_stamp(p, n, s->key);
    atomic_store_explicit(&s->p, p, memory_order_release);
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = w->seed;
    for (int r = 0; r < g_rounds; r++) {
        int base = (w->id + r) % g_threads; /* "few": this round's array is the next thread's */
        for (long i = 0; i < w->ops; i++) {
            int owner = g_many ? (int)(ab_rand(&rng) % (uint64_t)g_threads) : base;
            replace(&g_slots[(size_t)owner * SLOTS + ab_rand(&rng) % SLOTS], &rng);
        }
        pthread_barrier_wait(&g_barrier);
    }
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "few|many");
    g_many = strcmp(a.mode, "many") == 0;
    g_threads = a.threads;
    g_rounds = 10;
    long ops = (long)(400000 * a.scale) / a.threads + 1;
    g_slots = (slot *)calloc((size_t)a.threads * SLOTS, sizeof(slot));
    uint64_t rng = 42;
    for (size_t i = 0; i < (size_t)a.threads * SLOTS; i++) {
        g_slots[i].n = 8 + (uint32_t)(ab_rand(&rng) % 93);
        g_slots[i].key = ab_rand(&rng);
        unsigned char *p = (unsigned char *)malloc(g_slots[i].n);
        ab_stamp(p, g_slots[i].n, g_slots[i].key);
        atomic_store(&g_slots[i].p, p);
    }
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    for (int i = 0; i < a.threads; i++) w[i] = (worker){i, ops, 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)};
    pthread_barrier_init(&g_barrier, NULL, (unsigned)a.threads);
    double t = ab_run_threads(a.threads, run, w, sizeof *w);
    for (size_t i = 0; i < (size_t)a.threads * SLOTS; i++) {
        ab_verify(g_slots[i].p, g_slots[i].n, g_slots[i].key, "larson");
        free(g_slots[i].p);
    }
    free(g_slots);
    free(w);
    ab_report(g_many ? "larson-many" : "larson-few", &a, 2.0 * (double)ops * a.threads * g_rounds, t, ab_rss_kb());
    return 0;
}
