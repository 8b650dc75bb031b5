/* glibc-thread.c — in the shape of glibc's benchtests/bench-malloc-thread (mimalloc-bench's
 * "glibc-thread"): every thread keeps a working set of 1024 objects and, again and again, frees a
 * random one and allocates a new one in its place, of a random size from 4 bytes to 32 KB drawn
 * with a probability proportional to 1/size (most small, a few large). All frees are the thread's
 * own. Ops: allocations + frees per second. */
#include "alloc-bench.h"

#include <math.h>

enum { WORKING_SET = 1024, SIZES = 8192, MIN_SIZE = 4, MAX_SIZE = 32768 };

static uint32_t g_sizes[SIZES]; /* the distribution, sampled by a random index */

typedef struct worker {
    int id;
    long iterations;
} worker;

static void *run(void *arg) {
    worker *w = (worker *)arg;
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(w->id + 1);
    unsigned char *p[WORKING_SET] = {0};
    uint32_t n[WORKING_SET] = {0};
    for (long i = 0; i < w->iterations; i++) {
        uint64_t r = ab_rand(&rng);
        unsigned s = (unsigned)(r % WORKING_SET);
        if (p[s]) {
            ab_verify(p[s], n[s], (uint64_t)(uintptr_t)&p[s] ^ n[s], "glibc-thread");
            free(p[s]);
        }
        n[s] = g_sizes[(r >> 32) % SIZES];
        p[s] = (unsigned char *)malloc(n[s]);
        if (!p[s]) {
            fprintf(stderr, "glibc-thread: out of memory\n");
            exit(1);
        }
        ab_stamp(p[s], n[s], (uint64_t)(uintptr_t)&p[s] ^ n[s]);
    }
    for (unsigned s = 0; s < WORKING_SET; s++)
        if (p[s]) {
            ab_verify(p[s], n[s], (uint64_t)(uintptr_t)&p[s] ^ n[s], "glibc-thread");
            free(p[s]);
        }
    return NULL;
}

int main(int argc, char **argv) {
    ab_args a = ab_parse(argc, argv, "");
    /* Inverse transform of a density proportional to 1/size on [MIN_SIZE, MAX_SIZE]. */
    for (int i = 0; i < SIZES; i++)
        g_sizes[i] = (uint32_t)(MIN_SIZE * pow((double)MAX_SIZE / MIN_SIZE, (i + 0.5) / SIZES));
    long iterations = (long)(4000000 * a.scale) / a.threads + 1;
    worker *w = (worker *)calloc((size_t)a.threads, sizeof *w);
    for (int i = 0; i < a.threads; i++) w[i] = (worker){i, iterations};
    double t = ab_run_threads(a.threads, run, w, sizeof *w);
    free(w);
    /* every iteration frees one object (but the first WORKING_SET of a thread) and allocates one;
     * the final frees are counted too */
    ab_report("glibc-thread", &a, 2.0 * (double)iterations * a.threads, t, ab_rss_kb());
    return 0;
}
