/* 10^4 threads created and exited, a few at a time. Each allocates objects, frees some of its own,
 * frees objects left by earlier (now exited) threads, and leaves some behind for later threads —
 * so frees land in heaps whose threads have exited, and new threads adopt those heaps. Checks
 * every object, and that nothing is leaked per thread: the allocator makes no more heaps than
 * threads run at once, and maps no more memory at the end than after the first tenth. (RSS is
 * printed but not checked: under the sanitizers their own per-thread memory grows it.) */
#include "check.h"

#include "alloc_test.h"

#include "alloc/alloc.h" /* the allocator's counters (mrn_stats), linked from libmerino.a */

enum { LEFT = 256, PER_THREAD = 64 };

typedef struct left {
    unsigned char *p;
    size_t n;
    uint64_t tag;
} left;

static left g_left[LEFT]; /* objects left by exited threads */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_seed;
static long g_counter;

static void *one_thread(void *arg) {
    (void)arg;
    pthread_mutex_lock(&g_lock);
    uint64_t s = g_seed + (uint64_t)g_counter++;
    pthread_mutex_unlock(&g_lock);
    left mine[PER_THREAD];
    for (int i = 0; i < PER_THREAD; i++) {
        mine[i].n = at_size(&s, i == 0 ? 20000 : 600);
        mine[i].tag = at_next(&s);
        mine[i].p = (unsigned char *)merino_malloc(mine[i].n);
        CHECK(mine[i].p != NULL);
        at_fill(mine[i].p, mine[i].n, mine[i].tag);
    }
    for (int i = 0; i < PER_THREAD; i++) {
        if (i % 8 == 0) { /* swap with a left object: free the old one, leave ours */
            pthread_mutex_lock(&g_lock);
            left *l = &g_left[at_next(&s) % LEFT];
            left old = *l;
            *l = mine[i];
            pthread_mutex_unlock(&g_lock);
            if (old.p) {
                long bad = at_check(old.p, old.n, old.tag);
                CHECK_MSG(bad < 0, "object left by an exited thread: byte %ld wrong", bad);
                merino_free(old.p);
            }
            continue;
        }
        CHECK(at_check(mine[i].p, mine[i].n, mine[i].tag) < 0);
        merino_free(mine[i].p);
    }
    return NULL;
}

static void run(int threads) {
    enum { AT_ONCE = 4 };
    for (int i = 0; i < threads; i += AT_ONCE) {
        pthread_t t[AT_ONCE];
        for (int k = 0; k < AT_ONCE; k++) CHECK(pthread_create(&t[k], NULL, one_thread, NULL) == 0);
        for (int k = 0; k < AT_ONCE; k++) pthread_join(t[k], NULL);
    }
}

int main(void) {
    g_seed = at_seed("test_alloc_threads");
    int n = (int)(10000 * check_scale());
    double t0 = check_now();
    run(n / 10);
    long rss0 = ab_rss_kb();
    size_t mapped0 = atomic_load(&mrn_stats.mapped);
    run(n - n / 10);
    long rss1 = ab_rss_kb();
    size_t mapped1 = atomic_load(&mrn_stats.mapped), heaps = atomic_load(&mrn_stats.heaps);
    for (int i = 0; i < LEFT; i++)
        if (g_left[i].p) {
            CHECK(at_check(g_left[i].p, g_left[i].n, g_left[i].tag) < 0);
            merino_free(g_left[i].p);
        }
    printf("test_alloc_threads: %d threads in %.1f s; %zu heaps made; mapped %zu KB after %d threads, %zu KB "
           "after all; RSS %ld KB, %ld KB\n", n, check_now() - t0, heaps, mapped0 >> 10, n / 10, mapped1 >> 10,
           rss0, rss1);
    CHECK_MSG(heaps <= 4 + 1, "%zu heaps made for threads run 4 at a time: exited threads' heaps are not adopted",
              heaps);
    CHECK_MSG(mapped1 <= mapped0 + 4 * 1024 * 1024, "the allocator's mapped memory grew from %zu KB to %zu KB "
              "over %d threads: memory leaks per thread", mapped0 >> 10, mapped1 >> 10, n);
    return 0;
}
