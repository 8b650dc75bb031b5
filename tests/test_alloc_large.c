/* Large objects kept for reuse (src/alloc/large.c, mapcache.c):
 * - reuse: a freed large object's mapping is handed to the next large allocation that fits, its
 *   pages still resident (mincore, before the program touches them); one that fits no single
 *   entry gets cached pages moved into it; the contents are not assumed (the test writes first);
 * - the bound: a program that frees and allocates large buffers in waves stays at its own peak
 *   (the resident size does not grow past the largest amount it held at once, plus a margin);
 * - the decay: after the last free the cached memory stays (it is there for reuse), then goes back
 *   to the OS within the decay period's few multiples with no further call into the allocator
 *   (the decay thread);
 * - frees by other threads: objects passed between four threads and freed there, while all four
 *   allocate, keep their contents (each is filled with its own pattern, checked before its free);
 * - realloc: growth keeps the contents, and grows where the object lies when the cached mapping
 *   after it is free (the same address); a shrink keeps the object where it is and gives its tail
 *   to the cache, which the next allocation takes.
 * Random parts print their seed. */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* the allocator's internals and counters, from libmerino.a */

#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSS_CHECKED 0 /* the sanitizers' shadow memory does not shrink */
#else
#define RSS_CHECKED 1
#endif

#define MB ((size_t)1 << 20)

/* How many of the n bytes at p (page aligned) are resident. */
static size_t resident(const void *p, size_t n) {
    size_t pages = (n + 4095) / 4096, in = 0;
    unsigned char *v = (unsigned char *)malloc(pages);
    CHECK(v != NULL);
    CHECK(mincore((void *)((uintptr_t)p & ~(uintptr_t)4095), n, v) == 0);
    for (size_t i = 0; i < pages; i++) in += v[i] & 1;
    free(v);
    return in * 4096;
}

static void reuse(void) {
    size_t r0 = atomic_load(&mrn_stats.large_reused), g0 = atomic_load(&mrn_stats.large_gathered);
    char *p = (char *)merino_malloc(8 * MB);
    CHECK(p != NULL);
    memset(p, 1, 8 * MB);
    merino_free(p);
    char *q = (char *)merino_malloc(8 * MB); /* the same mapping, pages resident before any write */
    CHECK_MSG(q == p, "a large object freed and allocated again got %p, not its mapping %p", (void *)q, (void *)p);
    size_t in = resident(q, 8 * MB);
    CHECK_MSG(in == 8 * MB, "%zu of 8 MB resident in the reused mapping before it was written: it was not kept",
              in);
    memset(q, 2, 8 * MB); /* contents not assumed: written before they are read */
    char *r = (char *)merino_malloc(5 * MB); /* no cached mapping now: a fresh one */
    CHECK(r != NULL && r != q);
    memset(r, 3, 5 * MB);
    merino_free(q);
    char *s = (char *)merino_malloc(3 * MB); /* fits in q's: q's start, its tail split off */
    CHECK_MSG(s == q, "a 3 MB object after an 8 MB one was freed got %p, not the cached mapping %p", (void *)s,
              (void *)q);
    merino_free(r);
    /* 9 MB fits no single entry (6 and 5 MB cached): built of both, their pages moved in (those the
     * earlier objects wrote are resident: all but about a megabyte of each) */
    char *t = (char *)merino_malloc(9 * MB);
    CHECK(t != NULL);
    in = resident(t, 9 * MB);
    CHECK_MSG(in >= 6 * MB, "only %zu KB of a 9 MB object built of cached pages resident before it was written",
              in >> 10);
    memset(t, 4, 9 * MB);
    merino_free(s);
    merino_free(t);
    CHECK(atomic_load(&mrn_stats.large_reused) - r0 >= 2);
    CHECK(atomic_load(&mrn_stats.large_gathered) - g0 >= 1);
    printf("test_alloc_large: reuse: the same mapping, resident; a smaller one at its start; one built of two\n");
}

/* Waves: 16 buffers of 4-12 MB live at most, replaced one at a time for 400 rounds (each written
 * whole). Resident memory stays near the peak of what is live, and the pages are reused. */
static void waves(uint64_t seed) {
    enum { SLOTS = 16, ROUNDS = 400 };
    char *slot[SLOTS] = {0};
    size_t len[SLOTS] = {0}, live = 0, live_max = 0;
    uint64_t s = seed;
    long rss0 = ab_rss_kb(), rss_max = 0;
    size_t m0 = atomic_load(&mrn_stats.large_moved_kb);
    for (int r = 0; r < ROUNDS; r++) {
        unsigned i = (unsigned)(at_next(&s) % SLOTS);
        size_t n = 4 * MB + (size_t)(at_next(&s) % (8 * MB));
        char *p = (char *)merino_malloc(n);
        CHECK(p != NULL);
        memset(p, (int)(r & 255), n);
        live += n;
        if (slot[i]) {
            CHECK(slot[i][0] == slot[i][len[i] - 1]);
            merino_free(slot[i]);
            live -= len[i];
        }
        slot[i] = p;
        len[i] = n;
        if (live > live_max) live_max = live;
        long rss = ab_rss_kb();
        if (rss > rss_max) rss_max = rss;
    }
    for (int i = 0; i < SLOTS; i++) merino_free(slot[i]);
    size_t moved = (atomic_load(&mrn_stats.large_moved_kb) - m0) >> 10;
    long grew = (rss_max - rss0) >> 10;
    /* the peak live plus one buffer (allocated before the old one is freed) and a megabyte per
     * object for the rounding of mappings: the cache never adds a wave of its own */
    long bound = (long)((live_max + 12 * MB + SLOTS * MB) >> 20);
    if (RSS_CHECKED)
        CHECK_MSG(grew <= bound, "resident size grew by %ld MB for at most %zu MB live (bound %ld MB): the cache "
                  "held more than the program's own peak", grew, live_max >> 20, bound);
    CHECK_MSG(moved > 100, "only %zu MB of cached pages were moved into new buffers in 400 rounds", moved);
    printf("test_alloc_large: waves: resident +%ld MB at most for %zu MB live at most; %zu MB of pages reused by "
           "moving them\n", grew, live_max >> 20, moved);
}

/* After the last free the cache holds the memory (resident, for reuse), and the decay gives it back
 * with no call into the allocator: the decay thread. */
/* Waits (up to 5 s) until the cache is empty; returns the seconds waited. */
static double wait_empty(long base_kb, long *a1, long *rss1) {
    double waited = 0;
    *a1 = allocator_kb();
    *rss1 = ab_rss_kb();
    while ((mrn_mapcache_held() > 0 || *a1 > base_kb + 4096) && waited < 5) {
        check_sleep(0.01);
        waited += 0.01;
        *a1 = allocator_kb();
        *rss1 = ab_rss_kb();
    }
    return waited;
}

static void decay(void) {
    enum { N = 8 };
    char *p[N];
    long a1, rss1;
    wait_empty(0, &a1, &rss1); /* what earlier parts left in the cache, gone first */
    long rss0 = ab_rss_kb(), a0 = allocator_kb();
    for (int i = 0; i < N; i++) {
        p[i] = (char *)merino_malloc(6 * MB);
        CHECK(p[i] != NULL);
        memset(p[i], 5, 6 * MB);
    }
    double t0 = check_now();
    for (int i = 0; i < N; i++) merino_free(p[i]);
    size_t held = mrn_mapcache_held();
    if ((check_now() - t0) * 1000 < (double)mrn_decay_ms / 2) /* nothing may have decayed yet */
        CHECK_MSG(held >= N * 6 * MB, "only %zu MB of 48 MB freed large objects cached right after their free",
                  held >> 20);
    double waited = wait_empty(a0, &a1, &rss1);
    CHECK_MSG(mrn_mapcache_held() == 0, "%zu KB still cached %.2f s after the frees (decay period %llu ms)",
              mrn_mapcache_held() >> 10, waited, (unsigned long long)mrn_decay_ms);
    CHECK_MSG(a1 <= a0 + 4096, "the allocator holds %ld KB more than before the 48 MB, %.2f s after they were "
              "freed", a1 - a0, waited);
    if (RSS_CHECKED)
        CHECK_MSG(rss1 <= rss0 + 4096, "resident size %ld KB above where it was before the 48 MB, %.2f s after "
                  "they were freed", rss1 - rss0, waited);
    CHECK_MSG(waited * 1000 <= 10.0 * (double)mrn_decay_ms + 500,
              "the cache emptied only after %.2f s (decay period %llu ms)", waited, (unsigned long long)mrn_decay_ms);
    printf("test_alloc_large: decay: 48 MB cached at the free, back to the OS %.2f s later, with no call into "
           "the allocator\n", waited);
}

/* Four threads allocate large objects (1-9 MB, each filled with its own pattern), keep some, and
 * pass others to the next thread, which checks and frees them. */
enum { THREADS = 4, RING = 8 };
typedef struct box {
    pthread_mutex_t lock;
    char *p[RING];
    size_t n[RING];
    uint64_t tag[RING];
    unsigned count;
} box;
static box g_box[THREADS];
static uint64_t g_seed;
static int g_rounds;

static void check_free(char *p, size_t n, uint64_t tag) {
    long bad = at_check(p, n < 65536 ? n : 65536, tag);
    CHECK_MSG(bad < 0, "large object %p of %zu bytes: byte %ld overwritten", (void *)p, n, bad);
    CHECK(p[n - 1] == (char)(tag ^ 0x5a));
    merino_free(p);
}

static void *crosser(void *arg) {
    unsigned me = (unsigned)(uintptr_t)arg;
    uint64_t s = g_seed + me;
    for (int r = 0; r < g_rounds; r++) {
        size_t n = MB + (size_t)(at_next(&s) % (8 * MB));
        uint64_t tag = at_next(&s);
        char *p = (char *)merino_malloc(n);
        CHECK(p != NULL);
        at_fill(p, n < 65536 ? n : 65536, tag);
        p[n - 1] = (char)(tag ^ 0x5a);
        box *b = &g_box[(me + 1) % THREADS];
        pthread_mutex_lock(&b->lock);
        if (b->count == RING) { /* full: free its oldest here (another thread's object) */
            check_free(b->p[0], b->n[0], b->tag[0]);
            memmove(b->p, b->p + 1, (RING - 1) * sizeof b->p[0]);
            memmove(b->n, b->n + 1, (RING - 1) * sizeof b->n[0]);
            memmove(b->tag, b->tag + 1, (RING - 1) * sizeof b->tag[0]);
            b->count--;
        }
        b->p[b->count] = p;
        b->n[b->count] = n;
        b->tag[b->count++] = tag;
        pthread_mutex_unlock(&b->lock);
        box *mine = &g_box[me];
        pthread_mutex_lock(&mine->lock);
        while (mine->count > RING / 2) { /* frees of objects the previous thread allocated */
            mine->count--;
            check_free(mine->p[mine->count], mine->n[mine->count], mine->tag[mine->count]);
        }
        pthread_mutex_unlock(&mine->lock);
    }
    return NULL;
}

static void cross_threads(void) {
    g_rounds = (int)(300 * check_scale()) + 10;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_mutex_init(&g_box[i].lock, NULL);
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, crosser, (void *)(uintptr_t)i) == 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++)
        while (g_box[i].count) {
            g_box[i].count--;
            check_free(g_box[i].p[g_box[i].count], g_box[i].n[g_box[i].count], g_box[i].tag[g_box[i].count]);
        }
    printf("test_alloc_large: %d rounds of large objects passed between %d threads and freed there\n", g_rounds,
           THREADS);
}

static void realloc_through_cache(uint64_t seed) {
    size_t g0 = atomic_load(&mrn_stats.large_grown_in_place);
    char *p = (char *)merino_malloc(8 * MB);
    CHECK(p != NULL);
    at_fill(p, 8 * MB, seed);
    /* shrink: in place, the tail to the cache */
    char *q = (char *)merino_realloc(p, 3 * MB);
    CHECK_MSG(q == p, "a large object shrunk from 8 to 3 MB moved");
    CHECK(at_check(q, 3 * MB, seed) < 0);
    /* grow back: the cached tail right after it, taken where it lies */
    char *r = (char *)merino_realloc(q, 7 * MB);
    CHECK_MSG(r == q, "a large object grown back from 3 to 7 MB moved (its cached tail follows it)");
    CHECK(atomic_load(&mrn_stats.large_grown_in_place) > g0);
    CHECK(at_check(r, 3 * MB, seed) < 0);
    at_fill(r, 7 * MB, seed + 1);
    /* grow far: in place or moved, pages and all; the contents stay */
    char *blocker = (char *)merino_malloc(2 * MB); /* likely right after r, so r moves */
    char *g = (char *)merino_realloc(r, 40 * MB);
    CHECK(g != NULL);
    CHECK_MSG(at_check(g, 7 * MB, seed + 1) < 0, "a large object grown to 40 MB lost its contents");
    memset(g + 7 * MB, 7, 33 * MB);
    /* shrink to medium and small: copied, contents up to the new size */
    char *m = (char *)merino_realloc(g, 300000);
    CHECK(m != NULL && at_check(m, 300000, seed + 1) < 0);
    merino_free(m);
    merino_free(blocker);
    /* a random walk of sizes across the large range, contents checked at each step */
    uint64_t s = seed;
    size_t n = 2 * MB;
    char *w = (char *)merino_malloc(n);
    at_fill(w, n, 99);
    for (int i = 0; i < 60; i++) {
        size_t n2 = MB + (size_t)(at_next(&s) % (24 * MB));
        char *w2 = (char *)merino_realloc(w, n2);
        CHECK(w2 != NULL);
        size_t keep = n < n2 ? n : n2;
        long bad = at_check(w2, keep, 99);
        CHECK_MSG(bad < 0, "realloc %zu -> %zu bytes: byte %ld of the kept part changed", n, n2, bad);
        if (n2 > n) at_fill(w2, n2, 99);
        w = w2;
        n = n2;
    }
    merino_free(w);
    printf("test_alloc_large: realloc: shrunk in place, grown back in place, grown far and shrunk to medium "
           "with the contents kept; a random walk of 60 sizes\n");
}

int main(void) {
    uint64_t seed = at_seed("test_alloc_large");
    g_seed = seed;
    merino_free(merino_malloc(1)); /* this thread's heap */
    reuse();
    waves(seed);
    decay();
    cross_threads();
    realloc_through_cache(seed);
    decay(); /* and after all that, everything goes back again */
    return 0;
}
