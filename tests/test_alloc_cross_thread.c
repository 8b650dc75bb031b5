/* Frees by other threads: producers allocate objects, fill them and pass them through a queue to
 * consumers, which check and free them — every free is a foreign one (the speed-cross and
 * producer-consumer patterns). Checks every object's contents, and that memory does not grow
 * without bound over the rounds (the blowup of pure private heaps, Berger et al.): the freed
 * objects must go back to their owner's heap and be reused. Then: a thread allocates 66 MB and
 * exits, another frees it all, and the resident size must come back down (within a second: the
 * pool's decay). */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* the allocator's internals and counters, from libmerino.a; allocator_kb */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSS_CHECKED 0
#else
#define RSS_CHECKED 1
#endif

enum { PAIRS = 2, QUEUE = 4096 };

typedef struct item {
    unsigned char *p;
    size_t n;
    uint64_t tag;
} item;

typedef struct queue {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    item q[QUEUE];
    unsigned head, tail; /* tail - head items */
    int done;
} queue;

static queue g_q[PAIRS];
static long g_per_round;
static int g_rounds;
static uint64_t g_seed;

static void *producer(void *arg) {
    queue *q = (queue *)arg;
    uint64_t s = g_seed + (uint64_t)(q - g_q);
    for (int r = 0; r < g_rounds; r++) {
        for (long i = 0; i < g_per_round; i++) {
            item it;
            it.n = at_size(&s, (i & 255) == 0 ? 30000 : 512);
            it.tag = at_next(&s);
            it.p = (unsigned char *)merino_malloc(it.n);
            CHECK(it.p != NULL);
            at_fill(it.p, it.n, it.tag);
            pthread_mutex_lock(&q->lock);
            while (q->tail - q->head == QUEUE) pthread_cond_wait(&q->cond, &q->lock);
            q->q[q->tail++ % QUEUE] = it;
            pthread_cond_broadcast(&q->cond);
            pthread_mutex_unlock(&q->lock);
        }
    }
    pthread_mutex_lock(&q->lock);
    q->done = 1;
    pthread_cond_broadcast(&q->cond);
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

static void *consumer(void *arg) {
    queue *q = (queue *)arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        while (q->tail == q->head && !q->done) pthread_cond_wait(&q->cond, &q->lock);
        if (q->tail == q->head) {
            pthread_mutex_unlock(&q->lock);
            return NULL;
        }
        item it = q->q[q->head++ % QUEUE];
        pthread_cond_broadcast(&q->cond);
        pthread_mutex_unlock(&q->lock);
        long bad = at_check(it.p, it.n, it.tag);
        CHECK_MSG(bad < 0, "object %p of %zu bytes: wrong byte at %ld after crossing threads", (void *)it.p,
                  it.n, bad);
        merino_free(it.p);
    }
}

static void run(int rounds) {
    g_rounds = rounds;
    pthread_t pt[PAIRS], ct[PAIRS];
    for (int i = 0; i < PAIRS; i++) {
        pthread_mutex_init(&g_q[i].lock, NULL);
        pthread_cond_init(&g_q[i].cond, NULL);
        g_q[i].head = g_q[i].tail = 0;
        g_q[i].done = 0;
    }
    for (int i = 0; i < PAIRS; i++) {
        CHECK(pthread_create(&pt[i], NULL, producer, &g_q[i]) == 0);
        CHECK(pthread_create(&ct[i], NULL, consumer, &g_q[i]) == 0);
    }
    for (int i = 0; i < PAIRS; i++) {
        pthread_join(pt[i], NULL);
        pthread_join(ct[i], NULL);
    }
}

enum { BIG_SMALL = 250000, BIG_LARGE = 8 };
static unsigned char *g_big[BIG_SMALL + BIG_LARGE];

static void *allocate_64mb(void *arg) { /* 50 MB small, 16 MB large */
    (void)arg;
    for (int i = 0; i < BIG_SMALL + BIG_LARGE; i++) {
        size_t n = i < BIG_SMALL ? 200 : 2 << 20; /* large: unmapped when freed */
        g_big[i] = (unsigned char *)merino_malloc(n);
        CHECK(g_big[i] != NULL);
        memset(g_big[i], i, n);
    }
    return NULL;
}

static void memory_comes_back(void) {
    /* This thread has a heap of its own, so the exited thread's heap is not adopted by it: the
     * frees below reach that heap as frees by another thread, in batches. */
    merino_free(merino_malloc(1));
    long rss0 = ab_rss_kb(), a0 = allocator_kb();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, allocate_64mb, NULL) == 0);
    pthread_join(t, NULL);
    long rss1 = ab_rss_kb(), a1 = allocator_kb();
    size_t cold, chunks1, chunks2;
    mrn_pool_blocks(&cold, &chunks1);
    size_t unmaps1 = atomic_load(&mrn_stats.chunk_unmaps);
    for (int i = 0; i < BIG_SMALL + BIG_LARGE; i++) {
        CHECK(g_big[i][0] == (unsigned char)i);
        merino_free(g_big[i]);
    }
    /* The pool keeps freed memory resident for a while (its decay): allocate a little, as a program
     * would, for up to a second, for the decay to run. */
    double t0 = check_now();
    while (allocator_kb() >= a0 + 8 * 1024 && check_now() - t0 < 1.0) {
        merino_free(merino_malloc(40000));
        check_sleep(0.005);
    }
    long rss2 = ab_rss_kb(), a2 = allocator_kb();
    mrn_pool_blocks(&cold, &chunks2);
    size_t unmaps2 = atomic_load(&mrn_stats.chunk_unmaps);
    printf("test_alloc_cross_thread: chunks mapped %zu before the frees, %zu %.0f ms after (%zu unmapped)\n",
           chunks1, chunks2, (check_now() - t0) * 1000, unmaps2 - unmaps1);
    /* The address space comes back too: chunks left entirely free are unmapped, not kept decommitted. */
    CHECK_MSG(chunks2 * 4 < chunks1 && unmaps2 > unmaps1, "%zu chunks mapped after the frees, of %zu before: "
              "entirely free chunks are not unmapped", chunks2, chunks1);
    printf("test_alloc_cross_thread: allocator %ld KB (RSS %ld KB); %ld KB (%ld KB) with 66 MB allocated by a "
           "thread that exited; %ld KB (%ld KB) after another thread freed it\n", a0, rss0, a1, rss1, a2, rss2);
    CHECK_MSG(a1 > a0 + 48 * 1024, "allocator %ld KB -> %ld KB: the test did not allocate what it meant to", a0, a1);
    CHECK_MSG(a2 < a0 + 8 * 1024, "the allocator holds %ld KB (from %ld KB) after the frees: memory freed by "
              "another thread after its owner exited did not go back to the OS", a2, a0);
    CHECK_MSG(!RSS_CHECKED || rss2 < rss0 + 12 * 1024, "RSS stayed at %ld KB (from %ld KB) after the frees: "
              "memory freed by another thread after its owner exited did not go back to the OS", rss2, rss0);
}

int main(void) {
    g_seed = at_seed("test_alloc_cross_thread");
    g_per_round = (long)(100000 * check_scale());
    run(2); /* warm up: the heaps and pool reach their working size */
    long rss0 = ab_rss_kb(), a0 = allocator_kb();
    run(20);
    long rss1 = ab_rss_kb(), a1 = allocator_kb();
    printf("test_alloc_cross_thread: %d producer/consumer pairs, %ld objects each; allocator %ld KB, RSS "
           "%ld KB after warm-up; %ld KB, %ld KB after 10x more\n", PAIRS, 22 * g_per_round, a0, rss0, a1, rss1);
    /* 10x the objects must not mean 10x the memory: allow the queue's worth of slack. */
    CHECK_MSG(a1 < a0 + 32 * 1024, "the allocator's memory grew from %ld KB to %ld KB: frees by other "
              "threads are not reused", a0, a1);
    CHECK_MSG(!RSS_CHECKED || rss1 < rss0 + 32 * 1024, "RSS grew from %ld KB to %ld KB: frees by other threads "
              "are not reused", rss0, rss1);
    memory_comes_back();
    return 0;
}
