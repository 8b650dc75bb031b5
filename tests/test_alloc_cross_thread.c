/* Frees by other threads: producers allocate objects, fill them and pass them through a queue to
 * consumers, which check and free them — every free is a foreign one (the speed-cross and
 * producer-consumer patterns). Checks every object's contents, and that memory does not grow
 * without bound over the rounds (the blowup of pure private heaps, Berger et al.): the freed
 * objects must go back to their owner's heap and be reused. */
#include "check.h"

#include "alloc_test.h"

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

int main(void) {
    g_seed = at_seed("test_alloc_cross_thread");
    g_per_round = (long)(100000 * check_scale());
    run(2); /* warm up: the heaps and pool reach their working size */
    long rss0 = at_rss_kb();
    run(20);
    long rss1 = at_rss_kb();
    printf("test_alloc_cross_thread: %d producer/consumer pairs, %ld objects each; RSS %ld KB after "
           "warm-up, %ld KB after 10x more\n", PAIRS, 22 * g_per_round, rss0, rss1);
    /* 10x the objects must not mean 10x the memory: allow the queue's worth of slack. */
    CHECK_MSG(rss1 < rss0 + 32 * 1024, "RSS grew from %ld KB to %ld KB: frees by other threads are not reused",
              rss0, rss1);
    return 0;
}
