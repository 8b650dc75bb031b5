/* xmalloc-test.c — producer/consumer (after Lever & Boreham's xmalloc-test): half the threads
 * (at least one) allocate batches of 256 objects of 8 to 512 bytes and put them on a shared list;
 * the other half take batches off and free every object — all frees are foreign, and objects flow
 * one way. With one thread it produces and consumes in turn. Ops: allocations + frees per second. */
#include "alloc-bench.h"

enum { BATCH = 256, MAX_WAITING = 64 };

typedef struct batch {
    struct batch *next;
    unsigned char *p[BATCH];
    uint32_t n[BATCH];
} batch;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static batch *g_list;
static int g_waiting, g_producers_left;

typedef struct worker {
    int id, produce, consume;
    long batches;
} worker;

static void put(batch *b) {
    pthread_mutex_lock(&g_lock);
    while (g_waiting >= MAX_WAITING) pthread_cond_wait(&g_cond, &g_lock);
    b->next = g_list;
    g_list = b;
    g_waiting++;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
}

/* NULL when every producer is done and the list is empty. */
static batch *take(int wait) {
    pthread_mutex_lock(&g_lock);
    while (!g_list && g_producers_left > 0 && wait) pthread_cond_wait(&g_cond, &g_lock);
    batch *b = g_list;
    if (b) {
        g_list = b->next;
        g_waiting--;
        pthread_cond_broadcast(&g_cond);
    }
    pthread_mutex_unlock(&g_lock);
    return b;
}

static batch *produce(uint64_t *rng) {
    batch *b = (batch *)malloc(sizeof *b);
    for (int i = 0; i < BATCH; i++) {
        b->n[i] = 8 + (uint32_t)(ab_rand(rng) % 505);
        b->p[i] = (unsigned char *)malloc(b->n[i]);
        ab_stamp(b->p[i], b->n[i], (uint64_t)(uintptr_t)b ^ (uint64_t)i);
    }
    return b;
}

static void consume(batch *b) {
    for (int i = 0; i < BATCH; i++) {
        ab_verify(b->p[i], b->n[i], (uint64_t)(uintptr_t)b ^ (uint64_t)i, "xmalloc-test");
        free(b->p[i]);
    }
    free(b);
}

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = 0x5deece66dull * (uint64_t)(w->id + 1);
    if (w->produce) {
        for (long i = 0; i < w->batches; i++) {
            put(produce(&rng));
            if (w->consume) consume(take(1)); /* one thread alone: both roles */
        }
        pthread_mutex_lock(&g_lock);
        g_producers_left--;
        pthread_cond_broadcast(&g_cond);
        pthread_mutex_unlock(&g_lock);
    }
    if (w->consume)
        for (batch *b; (b = take(1));) consume(b);
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    int producers = a.threads == 1 ? 1 : a.threads / 2;
    long batches = (long)(4000 * a.scale) / producers + 1;
    g_producers_left = producers;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    for (int i = 0; i < a.threads; i++)
        w[i] = (worker){i, i < producers, a.threads == 1 || i >= producers, i < producers ? batches : 0};
    double t = ab_run_threads(a.threads, run, w, sizeof *w);
    free(w);
    ab_report("xmalloc-test", &a, 2.0 * (double)batches * producers * BATCH, t, ab_rss_kb());
    return 0;
}
