/* The pool's decay (src/alloc/chunks.c): memory freed in a burst stays resident for a while, so a
 * burst that follows reuses it (no new chunks, no page faults on decommitted blocks), and then goes
 * back to the OS: 90% of it within one second of the frees, the resident size read from
 * /proc/self/statm, while the program allocates a little (one medium object every 5 ms: the decay
 * runs from the allocator's slow paths as well as from its decay thread). */
#include "check.h"

#include "alloc_test.h"

#include "alloc_internal.h" /* the allocator's internals and counters, from libmerino.a; allocator_kb */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RSS_CHECKED 0 /* the sanitizers' shadow memory does not shrink */
#else
#define RSS_CHECKED 1
#endif

/* 48 MB: 192 medium objects of 192 KB (runs of 13 blocks, straight to the pool when freed) and
 * 16 MB of 512-byte objects (their blocks go back to the pool as they empty); every byte written. */
enum { MEDIUM = 192, MEDIUM_SIZE = 192 * 1024, SMALL = 32768, SMALL_SIZE = 512 };
static unsigned char *g_obj[MEDIUM + SMALL];

static void burst(unsigned char fill) {
    for (int i = 0; i < MEDIUM + SMALL; i++) {
        size_t n = i < MEDIUM ? MEDIUM_SIZE : SMALL_SIZE;
        g_obj[i] = (unsigned char *)merino_malloc(n);
        CHECK(g_obj[i] != NULL);
        memset(g_obj[i], fill, n);
    }
}

static void free_all(unsigned char fill) {
    for (int i = 0; i < MEDIUM + SMALL; i++) {
        size_t n = i < MEDIUM ? MEDIUM_SIZE : SMALL_SIZE;
        CHECK(g_obj[i][0] == fill && g_obj[i][n - 1] == fill);
        merino_free(g_obj[i]);
    }
}

int main(void) {
    /* Warm-up: this thread's heap, the pool's first chunk. */
    merino_free(merino_malloc(1));
    merino_free(merino_malloc(40000));
    long rss0 = ab_rss_kb(), a0 = allocator_kb();

    double t0 = check_now();
    burst(1);
    long rss1 = ab_rss_kb(), a1 = allocator_kb();
    free_all(1);
    long a2 = allocator_kb();
    /* The frees took less than half the decay period: nothing may have decayed yet. */
    bool quick = (check_now() - t0) * 1000 < (double)mrn_decay_ms / 2;
    size_t chunks1 = atomic_load(&mrn_stats.chunks), cold1 = atomic_load(&mrn_stats.recommits);
    double t1 = check_now();
    burst(2); /* reuses the first burst's memory: no new chunk, no cold block */
    size_t chunks2 = atomic_load(&mrn_stats.chunks), cold2 = atomic_load(&mrn_stats.recommits);
    quick = quick && (check_now() - t1) * 1000 < (double)mrn_decay_ms / 2;
    free_all(2);
    double t2 = check_now();
    long rss3 = ab_rss_kb(), a3 = allocator_kb();
    printf("test_alloc_decay: allocator %ld KB (RSS %ld KB) before; %ld KB (%ld KB) with 48 MB allocated; "
           "%ld KB after the frees; a second burst mapped %zu chunks and took %zu cold blocks; %ld KB (%ld KB) "
           "after its frees\n", a0, rss0, a1, rss1, a2, chunks2 - chunks1, cold2 - cold1, a3, rss3);
    CHECK_MSG(a1 > a0 + 40 * 1024, "allocator %ld KB -> %ld KB: the test did not allocate what it meant to", a0, a1);
    if (quick) {
        CHECK_MSG(a2 > a0 + 40 * 1024, "the allocator holds %ld KB (from %ld KB) right after the frees: the freed "
                  "memory went back to the OS at once instead of decaying", a2, a0);
        /* A few cold blocks: runs need not fall where they did (a tenth of the burst's 3500 blocks). */
        CHECK_MSG(chunks2 - chunks1 <= 1 && cold2 - cold1 <= 350, "a burst right after the frees mapped %zu chunks "
                  "and took %zu cold blocks: it did not reuse the freed memory", chunks2 - chunks1, cold2 - cold1);
    } else {
        printf("test_alloc_decay: the bursts took longer than half the decay period (%llu ms): the reuse "
               "checks are skipped\n", (unsigned long long)mrn_decay_ms);
    }

    /* Now the program allocates only a little: within a second, 90% of the freed memory is back. */
    long goal_rss = rss0 + (rss1 - rss0) / 10, goal_a = a0 + (a1 - a0) / 10;
    double waited = 0; /* since the frees */
    long rss4 = rss3, a4 = a3;
    while (waited < 1.0) {
        merino_free(merino_malloc(40000)); /* a medium object: a slow path, which drives the decay */
        rss4 = ab_rss_kb();
        a4 = allocator_kb();
        if (a4 <= goal_a && (!RSS_CHECKED || rss4 <= goal_rss)) break;
        check_sleep(0.005);
        waited = check_now() - t2;
    }
    waited = check_now() - t2;
    printf("test_alloc_decay: %.0f ms after the frees: allocator %ld KB, RSS %ld KB (goal: at most %ld KB, "
           "%ld KB: 90%% of the burst given back)\n", waited * 1000, a4, rss4, goal_a, goal_rss);
    CHECK_MSG(a4 <= goal_a, "the allocator still holds %ld KB (%ld KB before the burst, %ld KB at its peak) "
              "%.0f ms after the frees: the freed memory did not go back to the OS", a4, a0, a1, waited * 1000);
    CHECK_MSG(!RSS_CHECKED || rss4 <= goal_rss, "RSS still %ld KB (%ld KB before the burst, %ld KB at its peak) "
              "%.0f ms after the frees: less than 90%% of the freed memory went back to the OS", rss4, rss0, rss1,
              waited * 1000);
    return 0;
}
